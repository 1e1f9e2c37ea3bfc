import { newTestRuntime, test } from "@chainlink/cre-sdk/test";
import { expect } from "vitest";
test("sdk test runtime runs under vitest", () => {
  const rt = newTestRuntime();
  rt.log("hello");
  expect(rt.getLogs().join()).toContain("hello");
});
