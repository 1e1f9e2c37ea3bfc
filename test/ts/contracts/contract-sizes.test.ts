/**
 * Every deployable contract keeps 2 KB of room under EIP-170 (docs/RECORDS.md §1), measured on the artifacts that
 * deployments use. ResolutionMarket's constructor creates MarketGovernance, MarketReputation and AnswerVerifier, so
 * its creation code embeds theirs and must also stay under EIP-3860's 49,152-byte initcode limit. (The Solidity
 * size test compiles the market at the tests' optimizer settings; the deployed artifact uses hardhat.config.ts's
 * size override, so it is checked here.)
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const EIP170 = 24_576;
const ROOM = 2_048;
const EIP3860_INITCODE = 49_152;

function sizes(path: string): { deployed: number; initcode: number } {
  const artifact = JSON.parse(readFileSync(`${ROOT}artifacts/contracts/${path}`, "utf8")) as {
    bytecode: string;
    deployedBytecode: string;
  };
  return { deployed: (artifact.deployedBytecode.length - 2) / 2, initcode: (artifact.bytecode.length - 2) / 2 };
}

const CONTRACTS = [
  "market/ResolutionMarket.sol/ResolutionMarket.json",
  "market/MarketGovernance.sol/MarketGovernance.json",
  "market/MarketReputation.sol/MarketReputation.json",
  "market/AnswerVerifier.sol/AnswerVerifier.json",
  "market/BettingMarket.sol/BettingMarket.json",
  "cre/CREReceiver.sol/CREReceiver.json",
  "arbiter/UmaArbiter.sol/UmaArbiter.json",
  "arbiter/CommitteeArbiter.sol/CommitteeArbiter.json",
];

describe("contract sizes (built artifacts)", () => {
  it.each(CONTRACTS)("%s keeps 2 KB under EIP-170", (path) => {
    const { deployed } = sizes(path);
    expect(deployed).toBeGreaterThan(1_000); // a real contract was read
    expect(deployed).toBeLessThanOrEqual(EIP170 - ROOM);
  });

  it("ResolutionMarket's creation code (with the three contracts it creates) fits EIP-3860", () => {
    const market = sizes(CONTRACTS[0] ?? "");
    const embedded = [
      "market/MarketGovernance.sol/MarketGovernance.json",
      "market/AnswerVerifier.sol/AnswerVerifier.json",
    ];
    for (const path of embedded) expect(market.initcode).toBeGreaterThan(sizes(path).initcode);
    // The creation transaction's initcode is the creation code plus the ABI-encoded constructor arguments
    // (identity registry, reputation registry, owner: three words).
    expect(market.initcode + 3 * 32).toBeLessThanOrEqual(EIP3860_INITCODE);
  });
});
