/** The example workflow config shipped for `cre workflow simulate` is valid for the workflow's own schema. */
import { expect, test } from "vitest";
import { configSchema } from "../resolution/config.js";
import local from "../resolution/config.local.json";

test("cre/resolution/config.local.json parses; its limits allow a panel of 15 (every seat asked, challenges where they fit)", () => {
  const c = configSchema.parse(local);
  expect(c.maxPanel).toBe(15);
  expect(c.limits.httpCalls).toBe(15);
});
