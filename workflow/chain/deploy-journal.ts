/**
 * The journal that lets `deployAll` resume: each contract deployed so far, with a hash of its creation input
 * (bytecode + constructor arguments). A resumed run reuses a recorded contract only when code exists at its
 * address and the input is the same; anything else is deployed again. `fileDeployJournal` keeps it in
 * `<deployment file>.partial`, rewritten whole after every contract.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { getAddress, type Address, type Hex } from "viem";
import type { ContractName } from "./artifacts.js";
import { ChainError } from "./errors.js";

/** One contract of a deployment record (deploy.ts), deployed by this run or found on the chain. */
export interface DeployedContract {
  address: Address;
  /** Deployment block; for pre-existing contracts, absent. */
  blockNumber?: number;
  txHash?: Hex;
  /** Gas the creation transaction used (deployed contracts). */
  gasUsed?: string;
  /** Constructor arguments (bigints as decimal strings), for source verification (scripts/verify.ts). */
  constructorArgs?: unknown[];
  /** "deployed" by this run, or "existing" (canonical or given). */
  source: "deployed" | "existing";
}

export interface JournalEntry {
  contract: DeployedContract;
  /** keccak256 of the creation data: a changed constructor argument or bytecode means deploy again. */
  input: Hex;
}

export interface DeployJournal {
  get(name: ContractName): JournalEntry | undefined;
  record(name: ContractName, entry: JournalEntry): void;
  /** Told when a recorded contract was reused. */
  reused?(name: ContractName): void;
}

/** A journal in memory (for callers that keep it themselves). */
export function memoryDeployJournal(): DeployJournal & { entries: Map<ContractName, JournalEntry> } {
  const entries = new Map<ContractName, JournalEntry>();
  return { entries, get: (name) => entries.get(name), record: (name, entry) => void entries.set(name, entry) };
}

interface JournalFile {
  chainId: number;
  deployer: Address;
  contracts: Partial<Record<ContractName, JournalEntry>>;
}

/**
 * The journal in `path` for `chainId` and `deployer` (a journal of another chain or deployer is refused, not
 * mixed in). `done()` removes the file once the deployment file is written.
 */
export function fileDeployJournal(
  path: string,
  chainId: number,
  deployer: Address,
): DeployJournal & { resumed: ContractName[]; done(): void } {
  let state: JournalFile = { chainId, deployer: getAddress(deployer), contracts: {} };
  if (existsSync(path)) {
    let parsed: JournalFile;
    try {
      parsed = JSON.parse(readFileSync(path, "utf8")) as JournalFile;
    } catch {
      throw new ChainError("precondition", `${path} is not a readable deploy journal: delete it to start over`);
    }
    if (parsed.chainId !== chainId || getAddress(parsed.deployer) !== state.deployer) {
      throw new ChainError(
        "precondition",
        `${path} records a deployment on chain ${parsed.chainId} by ${parsed.deployer}, not chain ${chainId} by ${state.deployer}: delete it or choose --out`,
      );
    }
    state = { ...state, contracts: parsed.contracts ?? {} };
  }
  const resumed: ContractName[] = [];
  const write = () => {
    mkdirSync(dirname(path), { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
    renameSync(tmp, path);
  };
  return {
    resumed,
    get: (name) => state.contracts[name],
    reused: (name) => void resumed.push(name),
    record: (name, entry) => {
      state.contracts[name] = entry;
      write();
    },
    done: () => rmSync(path, { force: true }),
  };
}
