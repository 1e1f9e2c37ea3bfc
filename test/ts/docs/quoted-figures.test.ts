/**
 * Figures the docs quote from code are checked against it (issue 24: docs that cannot go stale): the deployed size
 * of each market contract in contracts/market/README.md against the built artifacts, and the size limit the docs
 * quote against the one the Solidity size test asserts.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const read = (path: string): string => readFileSync(`${ROOT}${path}`, "utf8");
const figure = (text: string): number => Number(text.replaceAll(",", "").replaceAll("_", ""));

/** Rows of the market README's contract table: file name → the "deployed bytes" cell. */
function quotedSizes(readme: string): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const line of readme.split("\n")) {
    const row = /^\| `(\w+)\.sol`.*\| ([\d,]+) \|$/.exec(line);
    if (row?.[1] !== undefined && row[2] !== undefined) sizes.set(row[1], figure(row[2]));
  }
  return sizes;
}

function deployedBytes(contract: string): number {
  const artifact = JSON.parse(read(`artifacts/contracts/market/${contract}.sol/${contract}.json`)) as {
    deployedBytecode: string;
  };
  return (artifact.deployedBytecode.length - 2) / 2;
}

describe("figures quoted in the docs", () => {
  it("reads the size table (the parse can fail)", () => {
    expect(quotedSizes("| `A.sol` (x) | y | yes | 1,234 |\n| `B.sol` | z | no | n/a |")).toEqual(
      new Map([["A", 1234]]),
    );
  });

  it("contracts/market/README.md gives each market contract's deployed size as built", () => {
    const quoted = quotedSizes(read("contracts/market/README.md"));
    expect([...quoted.keys()].sort()).toEqual([
      "AnswerVerifier",
      "BettingMarket",
      "MarketGovernance",
      "MarketReputation",
      "ResolutionMarket",
    ]);
    for (const [contract, bytes] of quoted)
      expect({ contract, bytes }).toEqual({ contract, bytes: deployedBytes(contract) });
  });

  it("the size limit the docs quote is the one the Solidity test asserts", () => {
    const test = read("test/contracts/ResolutionMarket.t.sol");
    const limit = /uint256 limit = ([\d_]+) - ([\d_]+);/.exec(test);
    expect(limit).not.toBeNull();
    const [, eip170 = "", room = ""] = limit ?? [];
    const asserted = figure(eip170) - figure(room);
    for (const doc of ["docs/ARCHITECTURE.md", "docs/RECORDS.md", "contracts/market/README.md"]) {
      // Five-digit byte figures after "≤" (the contract-size limit; smaller caps such as "≤ 256 bytes" are others).
      const quoted = [...read(doc).matchAll(/≤ (\d{2},\d{3})\b/g)].map((m) => figure(m[1] ?? ""));
      expect(quoted.length, doc).toBeGreaterThan(0);
      expect(new Set(quoted), doc).toEqual(new Set([asserted]));
    }
  });
});
