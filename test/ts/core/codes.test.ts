/**
 * workflow/core/codes.ts is the one home of IResolutionMarket's enum codes: its tables must follow the Solidity
 * enums' order (a reordered enum would otherwise mis-decode every status, verdict and report).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  ANSWER_CODE,
  ANSWER_NAMES,
  nameOf,
  STATUS_CODE,
  STATUS_NAMES,
  VERDICT_CODE,
  VERDICT_NAMES,
} from "../../../workflow/core/codes.js";

const source = readFileSync(
  new URL("../../../contracts/market/interfaces/IResolutionMarket.sol", import.meta.url),
  "utf8",
);

function solidityEnum(name: string): string[] {
  const body = new RegExp(`enum ${name} \\{([^}]*)\\}`).exec(source)?.[1];
  if (body === undefined) throw new Error(`enum ${name} not found`);
  return body
    .split(",")
    .map((member) => member.replace(/\/\/.*$/gm, "").trim())
    .filter((member) => member.length > 0);
}

describe("workflow/core/codes: IResolutionMarket's enums", () => {
  it("Status names follow the Solidity order", () => {
    expect(STATUS_NAMES).toEqual(solidityEnum("Status"));
    for (const [code, name] of STATUS_NAMES.entries()) expect(STATUS_CODE[name]).toBe(code);
  });

  it("Verdict names are the Solidity members, lower-cased, in order", () => {
    expect(VERDICT_NAMES).toEqual(solidityEnum("Verdict").map((m) => m.toLowerCase()));
    for (const [code, name] of VERDICT_NAMES.entries()) expect(VERDICT_CODE[name]).toBe(code);
  });

  it("Answer names follow the Solidity order (None is a failed seat)", () => {
    expect(ANSWER_NAMES).toEqual(solidityEnum("Answer").map((m) => (m === "None" ? "failed" : m.toLowerCase())));
    for (const [code, name] of ANSWER_NAMES.entries()) expect(ANSWER_CODE[name]).toBe(code);
  });

  it("nameOf falls back for a code the table does not know", () => {
    expect(nameOf(VERDICT_NAMES, 1n, "invalid")).toBe("yes");
    expect(nameOf(VERDICT_NAMES, 7, "unknown")).toBe("unknown");
    expect(nameOf(STATUS_NAMES, 2, "None")).toBe("ResolutionRequested");
  });
});
