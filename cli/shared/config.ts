/**
 * Configuration and input validation (the inputs needed before any chain read are in inputs.ts). Every value is checked before anything is sent; error
 * messages name the flag and the problem and never echo a key.
 */
import { parseEther, type Address } from "viem";
import { parseAddress } from "./inputs.js";
import { CliError } from "./errors.js";

/** Environment variables the CLI reads (flags win). */
export { DEFAULT_RPC_URL, ENV } from "./env.js";
export {
  loadDeploymentFile,
  parseDeploymentFile,
  networkNameFor,
  parseAddress,
  parseIntIn,
  parsePrivateKey,
  parseRpcUrl,
  parseUint,
  type DeploymentFile,
} from "./inputs.js";

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
