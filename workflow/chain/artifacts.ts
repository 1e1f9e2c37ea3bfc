/**
 * Contract bytecode from the Hardhat artifacts (`npx hardhat build`), loaded at run time for
 * deployment. ABIs come from the generated, typed workflow/chain/abis.ts instead.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Hex } from "viem";
import { ChainError } from "./errors.js";

export const CONTRACT_SOURCES = {
  IdentityRegistry: "contracts/erc8004/IdentityRegistry.sol",
  ReputationRegistry: "contracts/erc8004/ReputationRegistry.sol",
  ResolutionMarket: "contracts/market/ResolutionMarket.sol",
  MarketGovernance: "contracts/market/MarketGovernance.sol",
  MarketReputation: "contracts/market/MarketReputation.sol",
  AnswerVerifier: "contracts/market/AnswerVerifier.sol",
  BettingMarket: "contracts/market/BettingMarket.sol",
  CREReceiver: "contracts/cre/CREReceiver.sol",
  CommitteeArbiter: "contracts/arbiter/CommitteeArbiter.sol",
  UmaArbiter: "contracts/arbiter/UmaArbiter.sol",
} as const;

export type ContractName = keyof typeof CONTRACT_SOURCES;

/** The package root: the nearest folder up with a package.json (this file runs from workflow/chain/ or dist/workflow/chain/). */
function packageRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) return resolve(from, "..", "..");
    dir = parent;
  }
  return dir;
}

export const REPO_ROOT = packageRoot(dirname(fileURLToPath(import.meta.url)));

export interface Artifact {
  contractName: string;
  bytecode: Hex;
  deployedBytecode: Hex;
}

/** Reads `artifacts/<source>/<name>.json`; a clear error when the project was not built. */
export function loadArtifact(name: ContractName, artifactsDir = join(REPO_ROOT, "artifacts")): Artifact {
  const file = join(artifactsDir, CONTRACT_SOURCES[name], `${name}.json`);
  let parsed: { contractName?: unknown; bytecode?: unknown; deployedBytecode?: unknown; linkReferences?: unknown };
  try {
    parsed = JSON.parse(readFileSync(file, "utf8")) as typeof parsed;
  } catch {
    throw new ChainError("precondition", `missing artifact for ${name} (${file}): run \`npx hardhat build\` first`);
  }
  if (typeof parsed.bytecode !== "string" || !parsed.bytecode.startsWith("0x") || parsed.bytecode.length < 4) {
    throw new ChainError("precondition", `artifact ${file} has no bytecode`);
  }
  if (parsed.linkReferences && Object.keys(parsed.linkReferences).length > 0) {
    throw new ChainError("precondition", `artifact ${file} needs library linking, which deploy does not do`);
  }
  return { contractName: name, bytecode: parsed.bytecode as Hex, deployedBytecode: parsed.deployedBytecode as Hex };
}
