/**
 * The inputs every command may need before it talks to a chain (RPC URL, key, addresses, ids, the deployment file),
 * validated without loading viem or zod (each costs more than a bare `--version`): `market list` and the runtime
 * stay light (bench/cli-startup.ts). config.ts re-exports them with the rest of the input parsing.
 */
import { readFileSync } from "node:fs";
import * as OxAddress from "ox/Address";
import type { Address, Hex } from "viem";
import { DEFAULT_RPC_URL } from "./env.js";
import { CliError } from "./errors.js";
import { CresolverError } from "../../workflow/util/errors.js";

/** secp256k1's group order: a private key is a scalar below it. */
const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

export function parseRpcUrl(value: string | undefined, flag = "--rpc-url / RPC_URL"): string {
  const url = value ?? DEFAULT_RPC_URL;
  let ok = false;
  try {
    const u = new URL(url);
    ok = (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
  } catch {
    ok = false;
  }
  if (!ok) throw new CliError(`${flag} must be an http(s) URL, e.g. http://127.0.0.1:8545`);
  return url;
}

/** The key, 0x-prefixed; the message never includes the value: it is a secret. */
export function parsePrivateKey(value: string | undefined, flag = "--private-key / PRIVATE_KEY"): Hex | undefined {
  if (value === undefined || value === "") return undefined;
  const trimmed = value.trim();
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(trimmed))
    throw new CliError(`${flag} must be 32 bytes of hex (64 hex digits, optionally 0x-prefixed)`);
  const key: Hex = trimmed.startsWith("0x") ? `0x${trimmed.slice(2)}` : `0x${trimmed}`;
  // What viem's privateKeyToAccount accepts: a scalar in [1, n) of secp256k1, without loading the curve code.
  if (BigInt(key) === 0n || BigInt(key) >= SECP256K1_ORDER)
    throw new CliError(`${flag} is not a valid secp256k1 private key`);
  return key;
}

export function parseAddress(value: string, flag: string): Address {
  if (!OxAddress.validate(value))
    throw new CliError(
      `${flag} is not an address (0x + 40 hex digits, checksummed if mixed case): ${value.slice(0, 60)}`,
    );
  return OxAddress.checksum(value);
}

const MAX_UINT256 = 2n ** 256n - 1n;
export function parseUint(value: string, flag: string): bigint {
  if (!/^[0-9]+$/.test(value))
    throw new CliError(`${flag} must be a non-negative integer, got "${value.slice(0, 40)}"`);
  const n = BigInt(value);
  if (n > MAX_UINT256) throw new CliError(`${flag} is larger than a uint256`);
  return n;
}

/** An integer flag within [min, max]. */
export function parseIntIn(value: string, flag: string, min: number, max: number): number {
  if (!/^[0-9]+$/.test(value) || Number(value) < min || Number(value) > max)
    throw new CliError(`${flag} must be an integer from ${min} to ${max}, got "${value.slice(0, 40)}"`);
  return Number(value);
}

export interface DeployedContract {
  address: Address;
  /** The block it was deployed in: log scans start there. */
  blockNumber?: number;
}

/** deployments/<network>.json as `cresolver deploy` writes it (other fields are kept as they are). */
export interface DeploymentFile {
  network: string;
  chainId: number;
  deployer: Address;
  contracts: {
    IdentityRegistry: DeployedContract;
    ReputationRegistry: DeployedContract;
    ResolutionMarket: DeployedContract;
    BettingMarket?: DeployedContract;
    CREReceiver?: DeployedContract;
    [name: string]: unknown;
  };
  [field: string]: unknown;
}

/** A shape error: the path of the field and what is wrong with it. */
class ShapeError extends CresolverError {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function addressAt(value: unknown, path: string): Address {
  if (typeof value !== "string" || !OxAddress.validate(value)) throw new ShapeError(path, "must be an address");
  return OxAddress.checksum(value);
}

function contractAt(value: unknown, path: string): DeployedContract {
  if (!isRecord(value)) throw new ShapeError(path, "must be an object with an address");
  const { blockNumber } = value;
  if (blockNumber !== undefined && !(Number.isSafeInteger(blockNumber) && Number(blockNumber) >= 0))
    throw new ShapeError(`${path}.blockNumber`, "must be a block number");
  return {
    ...value,
    address: addressAt(value.address, `${path}.address`),
    ...(typeof blockNumber === "number" ? { blockNumber } : {}),
  };
}

/** Checks the fields the CLI uses (addresses checksummed) and keeps the rest. */
export function parseDeploymentFile(json: unknown): DeploymentFile {
  if (!isRecord(json)) throw new ShapeError("(root)", "must be an object");
  const { network, chainId, contracts } = json;
  if (typeof network !== "string" || network === "") throw new ShapeError("network", "must be a non-empty string");
  if (typeof chainId !== "number" || !Number.isSafeInteger(chainId) || chainId <= 0)
    throw new ShapeError("chainId", "must be a positive integer");
  const deployer = addressAt(json.deployer, "deployer");
  if (!isRecord(contracts)) throw new ShapeError("contracts", "must be an object");
  const optional = (name: "BettingMarket" | "CREReceiver") =>
    contracts[name] === undefined ? {} : { [name]: contractAt(contracts[name], `contracts.${name}`) };
  return {
    ...json,
    network,
    chainId,
    deployer,
    contracts: {
      ...contracts,
      IdentityRegistry: contractAt(contracts.IdentityRegistry, "contracts.IdentityRegistry"),
      ReputationRegistry: contractAt(contracts.ReputationRegistry, "contracts.ReputationRegistry"),
      ResolutionMarket: contractAt(contracts.ResolutionMarket, "contracts.ResolutionMarket"),
      ...optional("BettingMarket"),
      ...optional("CREReceiver"),
    },
  };
}

export function loadDeploymentFile(path: string): DeploymentFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new CliError(`deployment file ${path} not found: run \`cresolver deploy\` or pass --deployment / --market`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CliError(`deployment file ${path} is not JSON`);
  }
  try {
    return parseDeploymentFile(json);
  } catch (error) {
    if (error instanceof ShapeError) throw new CliError(`deployment file ${path} is invalid: ${error.message}`);
    throw error;
  }
}

/** Conventional network names for known chain ids (deployments/<name>.json). */
export function networkNameFor(chainId: number): string {
  if (chainId === 31337 || chainId === 1337) return "localhost";
  if (chainId === 11155111) return "sepolia";
  if (chainId === 1) return "mainnet";
  return `chain-${chainId}`;
}

/** A TCP port flag: an integer in 0..65535 (0: the OS picks). */
export function parsePortFlag(value: string, flag: string): number {
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) > 65_535)
    throw new CliError(`${flag} must be an integer in 0..65535, got "${value.slice(0, 20)}"`);
  return Number(value);
}
