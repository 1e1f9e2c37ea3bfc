/**
 * The canonical ERC-8004 registries for `bench/gas.ts`, from compiled artifacts the user supplies.
 *
 *   CANONICAL_ERC8004_ARTIFACTS=<folder> [CANONICAL_ERC8004_COMMIT=<commit>] npm run bench:gas
 *
 * The folder (searched recursively, e.g. a Hardhat `artifacts/` folder) must hold `<Name>.json` files with `abi`
 * and `bytecode` for ERC1967Proxy, HardhatMinimalUUPS, IdentityRegistryUpgradeable and
 * ReputationRegistryUpgradeable of the public repository erc-8004/erc-8004-contracts. Nothing of that code is in
 * this repository. The registries are deployed as that repository deploys them: an ERC1967 proxy initialized on
 * the minimal UUPS implementation (which sets the owner), then upgraded to the real implementation whose
 * `initialize` is a version-2 reinitializer for the owner only.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { encodeFunctionData, zeroAddress, type Abi, type Address, type Hex } from "viem";

export const CANONICAL_ENV = "CANONICAL_ERC8004_ARTIFACTS";
export const CANONICAL_COMMIT_ENV = "CANONICAL_ERC8004_COMMIT";
export const CANONICAL_REPOSITORY = "erc-8004/erc-8004-contracts";

const NAMES = [
  "ERC1967Proxy",
  "HardhatMinimalUUPS",
  "IdentityRegistryUpgradeable",
  "ReputationRegistryUpgradeable",
] as const;
type Name = (typeof NAMES)[number];
type Artifact = { abi: Abi; bytecode: Hex; buildInfoId?: string | undefined };

export type Provenance = {
  repository: string;
  commit: string;
  compiler: string;
  settings: unknown;
  measuredAt?: string;
};
export type CanonicalArtifacts = { artifacts: Record<Name, Artifact>; provenance: Provenance };

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (entry.endsWith(".json")) out.push(path);
  }
  return out;
}

function parseArtifact(path: string): Artifact {
  const raw = JSON.parse(readFileSync(path, "utf8")) as {
    abi?: unknown;
    bytecode?: unknown;
    buildInfoId?: unknown;
  };
  // Hardhat keeps `bytecode` as a hex string, Foundry as `{ object }`.
  const bytecode =
    typeof raw.bytecode === "string" ? raw.bytecode : (raw.bytecode as { object?: unknown } | undefined)?.object;
  if (!Array.isArray(raw.abi) || typeof bytecode !== "string" || !/^(0x)?[0-9a-fA-F]{2,}$/.test(bytecode)) {
    throw new Error(`${path}: not an artifact with abi and bytecode`);
  }
  return {
    abi: raw.abi as Abi,
    bytecode: (bytecode.startsWith("0x") ? bytecode : `0x${bytecode}`) as Hex,
    buildInfoId: typeof raw.buildInfoId === "string" ? raw.buildInfoId : undefined,
  };
}

/** Compiler and settings from a Hardhat 3 build-info next to the artifacts, when there is one. */
function compilerOf(files: string[], buildInfoId: string | undefined): { compiler: string; settings: unknown } {
  const info = buildInfoId ? files.find((f) => f.endsWith(`${buildInfoId}.json`)) : undefined;
  if (!info) return { compiler: "not given (no build-info)", settings: "not given" };
  const raw = JSON.parse(readFileSync(info, "utf8")) as {
    solcLongVersion?: string;
    input?: { settings?: { evmVersion?: string; optimizer?: unknown; viaIR?: boolean } };
  };
  const s = raw.input?.settings ?? {};
  return {
    compiler: `solc ${raw.solcLongVersion ?? "unknown"}`,
    settings: { evmVersion: s.evmVersion, optimizer: s.optimizer, viaIR: s.viaIR ?? false },
  };
}

/** Loads the four artifacts from `dir`; throws naming what is missing. */
export function loadCanonicalArtifacts(dir: string): CanonicalArtifacts {
  if (!existsSync(dir)) throw new Error(`${CANONICAL_ENV}=${dir}: no such folder`);
  const files = walk(dir);
  const artifacts = {} as Record<Name, Artifact>;
  for (const name of NAMES) {
    const path = files.find((f) => f.endsWith(`/${name}.json`));
    if (!path) throw new Error(`${CANONICAL_ENV}=${dir}: ${name}.json not found`);
    artifacts[name] = parseArtifact(path);
  }
  const { compiler, settings } = compilerOf(files, artifacts.ReputationRegistryUpgradeable.buildInfoId);
  return {
    artifacts,
    provenance: {
      repository: CANONICAL_REPOSITORY,
      commit: process.env[CANONICAL_COMMIT_ENV] ?? "not given",
      compiler,
      settings,
    },
  };
}

type Clients = {
  publicClient: {
    waitForTransactionReceipt(a: {
      hash: Hex;
    }): Promise<{ status: string; contractAddress?: Address | null | undefined }>;
  };
  wallet: {
    deployContract(a: { abi: Abi; bytecode: Hex; args?: readonly unknown[] }): Promise<Hex>;
    writeContract(a: { address: Address; abi: Abi; functionName: string; args: readonly unknown[] }): Promise<Hex>;
  };
};

async function deploy({ publicClient, wallet }: Clients, a: Artifact, args: readonly unknown[] = []) {
  const hash = await wallet.deployContract({ abi: a.abi, bytecode: a.bytecode, args });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success" || !receipt.contractAddress) throw new Error("deployment failed");
  return receipt.contractAddress;
}

async function proxied(c: Clients, a: CanonicalArtifacts["artifacts"], impl: Artifact, identity: Address, init: Hex) {
  const minimal = await deploy(c, a.HardhatMinimalUUPS);
  const minimalInit = encodeFunctionData({
    abi: a.HardhatMinimalUUPS.abi,
    functionName: "initialize",
    args: [identity],
  });
  const proxy = await deploy(c, a.ERC1967Proxy, [minimal, minimalInit]);
  const real = await deploy(c, impl);
  const hash = await c.wallet.writeContract({
    address: proxy,
    abi: a.HardhatMinimalUUPS.abi,
    functionName: "upgradeToAndCall",
    args: [real, init],
  });
  if ((await c.publicClient.waitForTransactionReceipt({ hash })).status !== "success")
    throw new Error("upgrade failed");
  return proxy;
}

/** Deploys Identity and Reputation behind ERC1967 proxies; returns the proxy addresses and ABIs. */
export async function deployCanonical(c: Clients, canonical: CanonicalArtifacts) {
  const a = canonical.artifacts;
  const identityInit = encodeFunctionData({ abi: a.IdentityRegistryUpgradeable.abi, functionName: "initialize" });
  const identity = await proxied(c, a, a.IdentityRegistryUpgradeable, zeroAddress, identityInit);
  const reputationInit = encodeFunctionData({
    abi: a.ReputationRegistryUpgradeable.abi,
    functionName: "initialize",
    args: [identity],
  });
  const reputation = await proxied(c, a, a.ReputationRegistryUpgradeable, identity, reputationInit);
  return {
    identity,
    reputation,
    identityAbi: a.IdentityRegistryUpgradeable.abi,
    reputationAbi: a.ReputationRegistryUpgradeable.abi,
  };
}
