/**
 * Configuration and input validation (zod). Every value is checked before anything is sent; error
 * messages name the flag and the problem and never echo a key.
 */
import { readFileSync } from "node:fs";
import { isAddress, getAddress, parseEther, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { z } from "zod";
import { DEFAULT_RPC_URL } from "./env.js";
import { CliError } from "./errors.js";

/** Environment variables the CLI reads (flags win). */
export { DEFAULT_RPC_URL, ENV } from "./env.js";

function check<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new CliError(`${what} ${result.error.issues[0]?.message ?? "is invalid"}`);
  return result.data;
}

const rpcUrlSchema = z.string().refine((s) => {
  try {
    const u = new URL(s);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
  } catch {
    return false;
  }
}, "must be an http(s) URL, e.g. http://127.0.0.1:8545");

export function parseRpcUrl(value: string | undefined, flag = "--rpc-url / RPC_URL"): string {
  return check(rpcUrlSchema, value ?? DEFAULT_RPC_URL, flag);
}

// The message never includes the value: it is a secret.
const keySchema = z
  .string()
  .transform((s) => s.trim())
  .refine((s) => /^(0x)?[0-9a-fA-F]{64}$/.test(s), "must be 32 bytes of hex (64 hex digits, optionally 0x-prefixed)")
  .transform((s) => (s.startsWith("0x") ? s : `0x${s}`) as Hex)
  .refine((k) => {
    try {
      privateKeyToAccount(k);
      return true;
    } catch {
      return false;
    }
  }, "is not a valid secp256k1 private key");

export function parsePrivateKey(value: string | undefined, flag = "--private-key / PRIVATE_KEY"): Hex | undefined {
  if (value === undefined || value === "") return undefined;
  return check(keySchema, value, flag);
}

export function parseAddress(value: string, flag: string): Address {
  if (!isAddress(value))
    throw new CliError(
      `${flag} is not an address (0x + 40 hex digits, checksummed if mixed case): ${value.slice(0, 60)}`,
    );
  return getAddress(value);
}

const MAX_UINT256 = 2n ** 256n - 1n;
export function parseUint(value: string, flag: string): bigint {
  if (!/^[0-9]+$/.test(value))
    throw new CliError(`${flag} must be a non-negative integer, got "${value.slice(0, 40)}"`);
  const n = BigInt(value);
  if (n > MAX_UINT256) throw new CliError(`${flag} is larger than a uint256`);
  return n;
}

/** "0.01" ETH → wei. */
export function parseEth(value: string, flag: string, { allowZero = false } = {}): bigint {
  if (!/^[0-9]+(\.[0-9]{1,18})?$/.test(value))
    throw new CliError(`${flag} must be an amount in ETH like 0.01, got "${value.slice(0, 40)}"`);
  const wei = parseEther(value);
  if (!allowZero && wei === 0n) throw new CliError(`${flag} must be more than 0`);
  return wei;
}

const DURATION_UNITS = { s: 1, m: 60, h: 3600, d: 86400 } as const;
type DurationUnit = keyof typeof DURATION_UNITS;
const isDurationUnit = (unit: string | undefined): unit is DurationUnit =>
  unit !== undefined && Object.hasOwn(DURATION_UNITS, unit);

/** A deadline as typed: relative (+10m) or absolute (Unix seconds / ISO date). Syntax only, no clock. */
export type DeadlineSpec = { kind: "relative"; seconds: bigint } | { kind: "absolute"; at: bigint };

export function parseDeadlineSpec(value: string, flag = "--deadline"): DeadlineSpec {
  const [, count, unit] = /^\+([0-9]+)([smhd])$/.exec(value) ?? [];
  if (count !== undefined && isDurationUnit(unit))
    return { kind: "relative", seconds: BigInt(count) * BigInt(DURATION_UNITS[unit]) };
  if (/^[0-9]+$/.test(value)) return { kind: "absolute", at: BigInt(value) };
  if (/^[0-9]{4}-[0-9]{2}-[0-9]{2}/.test(value) && !Number.isNaN(Date.parse(value)))
    return { kind: "absolute", at: BigInt(Math.floor(Date.parse(value) / 1000)) };
  throw new CliError(
    `${flag} must be Unix seconds, an ISO date (2026-12-01T00:00:00Z) or +<n>s|m|h|d, got "${value.slice(0, 40)}"`,
  );
}

/**
 * The reference time of relative deadlines and of "is it in the future": max(wall clock, the latest block's time).
 * On an idle chain the latest block can be minutes old (the next block gets the wall-clock time); on a chain whose
 * time was moved forward (evm_increaseTime) the block time is ahead. Either way the next block is not earlier.
 */
export function referenceTime(latestBlockTime: bigint, wallClockMs: number = Date.now()): bigint {
  const wall = BigInt(Math.floor(wallClockMs / 1000));
  return wall > latestBlockTime ? wall : latestBlockTime;
}

/**
 * A deadline as Unix seconds: "1767225600", an ISO date "2026-12-01T00:00:00Z", or "+10m" / "+2h" / "+3d" / "+90s"
 * relative to `now` (see `referenceTime`). Must be after `now`.
 */
export function parseDeadline(value: string, now: bigint, flag = "--deadline"): bigint {
  const spec = parseDeadlineSpec(value, flag);
  if (spec.kind === "relative" && spec.seconds === 0n)
    throw new CliError(`${flag} ${value} is not in the future: give a positive duration like +10m`);
  const deadline = spec.kind === "relative" ? now + spec.seconds : spec.at;
  if (deadline <= now) {
    throw new CliError(
      `${flag} ${new Date(Number(deadline) * 1000).toISOString()} is not in the future (now ${new Date(Number(now) * 1000).toISOString()})`,
    );
  }
  if (deadline >= 2n ** 64n) throw new CliError(`${flag} is too large`);
  return deadline;
}

/** "600", "10m", "2h", "1d" → seconds. */
export function parseDuration(value: string, flag: string): number {
  const [, count, unit = ""] = /^([0-9]+)([smhd]?)$/.exec(value) ?? [];
  const unitName = unit === "" ? "s" : unit;
  if (count === undefined || !isDurationUnit(unitName))
    throw new CliError(`${flag} must be a duration like 600, 10m, 2h or 1d, got "${value.slice(0, 40)}"`);
  const seconds = Number(count) * DURATION_UNITS[unitName];
  if (!Number.isSafeInteger(seconds) || seconds >= 2 ** 32) throw new CliError(`${flag} is too large`);
  return seconds;
}

/** An integer flag within [min, max]. */
export function parseIntIn(value: string, flag: string, min: number, max: number): number {
  if (!/^[0-9]+$/.test(value) || Number(value) < min || Number(value) > max)
    throw new CliError(`${flag} must be an integer from ${min} to ${max}, got "${value.slice(0, 40)}"`);
  return Number(value);
}

/** Agent registration URIs given with --uri. */
export function parseAgentUri(value: string): string {
  if (value.startsWith("data:")) return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`--uri is not a URL: "${value.slice(0, 60)}"`);
  }
  if (url.protocol === "https:" && url.hostname !== "") return value;
  if (url.protocol === "ipfs:" && value.length > "ipfs://".length) return value;
  throw new CliError(`--uri must be an https://, ipfs:// or data: URI, got scheme ${url.protocol}`);
}

// ---------------------------------------------------------------------------------------------------
// Deployment files
// ---------------------------------------------------------------------------------------------------

const addressSchema = z
  .string()
  .refine((s) => isAddress(s), "must be an address")
  .transform((s) => getAddress(s));
const contractSchema = z.looseObject({
  address: addressSchema,
  blockNumber: z.number().int().nonnegative().optional(),
});

export const deploymentFileSchema = z.looseObject({
  network: z.string().min(1),
  chainId: z.number().int().positive(),
  deployer: addressSchema,
  contracts: z.looseObject({
    IdentityRegistry: contractSchema,
    ReputationRegistry: contractSchema,
    ResolutionMarket: contractSchema,
    BettingMarket: contractSchema.optional(),
    CREReceiver: contractSchema.optional(),
  }),
});
export type DeploymentFile = z.infer<typeof deploymentFileSchema>;

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
  const result = deploymentFileSchema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new CliError(
      `deployment file ${path} is invalid: ${issue ? `${issue.path.join(".")}: ${issue.message}` : "bad shape"}`,
    );
  }
  return result.data;
}

/** Conventional network names for known chain ids (deployments/<name>.json). */
export function networkNameFor(chainId: number): string {
  if (chainId === 31337 || chainId === 1337) return "localhost";
  if (chainId === 11155111) return "sepolia";
  if (chainId === 1) return "mainnet";
  return `chain-${chainId}`;
}

export const NETWORK_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** `--max-bond <eth>` and `--trusted-arbiter <address...>`: what the settler may pay and whom it trusts to judge. */
export function parseSettlerGuard(opts: { maxBond?: string; trustedArbiter?: string[] }): {
  maxBond?: bigint;
  trustedArbiters?: Address[];
} {
  return {
    ...(opts.maxBond !== undefined ? { maxBond: parseEth(opts.maxBond, "--max-bond") } : {}),
    ...(opts.trustedArbiter !== undefined && opts.trustedArbiter.length > 0
      ? { trustedArbiters: opts.trustedArbiter.map((a) => parseAddress(a, "--trusted-arbiter")) }
      : {}),
  };
}

/** The two settler-guard options, for `resolve` and `daemon`. */
export const SETTLER_GUARD_HELP = {
  maxBond: "largest bond (ETH) to pay for one proposal; a market asking more is refused (default 1)",
  trustedArbiter:
    "an arbiter to trust besides the deployment's allow-list (repeatable); a market judged by any other is refused",
} as const;
