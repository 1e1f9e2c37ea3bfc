/**
 * Daemon configuration (zod) and the seam to the resolution pipeline and the chain writer.
 */
import { z } from "zod";
import type { Hex } from "../workflow/core/types.js";

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address")
  .transform((a) => a.toLowerCase() as `0x${string}`);
const blockNumber = z.union([z.number().int().nonnegative(), z.bigint().nonnegative(), z.string().regex(/^\d+$/)]).transform((v) => {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new Error("block number out of range");
  return n;
});

export const marketEntrySchema = z.union([
  address.transform((a) => ({ address: a, startBlock: undefined as number | undefined })),
  z.object({ address, startBlock: blockNumber.optional() }).strict(),
]);

export const daemonConfigSchema = z
  .object({
    /** JSON-RPC URL; used when no publicClient is injected. Treated as a secret (may carry an API key). */
    rpcUrl: z.url({ protocol: /^https?$/ }).optional(),
    /** Market contracts to watch: an address, or { address, startBlock }. */
    markets: z.array(marketEntrySchema).min(1),
    /** Blocks a ResolutionRequested event must be buried under before it is acted on (0 = head). */
    confirmations: z.number().int().min(0).max(1_000).default(2),
    /** Pause between two scans once caught up. */
    pollIntervalMs: z.number().int().min(10).max(3_600_000).default(4_000),
    /** Largest block range of one eth_getLogs call. */
    maxBlockRange: z.number().int().min(1).max(1_000_000).default(2_000),
    /** First block to scan when there is no stored cursor (per-market startBlock wins). */
    startBlock: blockNumber.default(0),
    /** SQLite file (created 0600 with its directory 0700). */
    dbPath: z.string().min(1).default("./cresolver-daemon.sqlite"),
    /** Jobs (markets) running at once. */
    concurrency: z.number().int().min(1).max(256).default(4),
    /** Resolve attempts per market (failed, no-quorum or no-margin runs) before the invalid settlement. */
    maxAttempts: z.number().int().min(1).max(100).default(5),
    /** First retry delay; doubles per attempt up to maxBackoffMs (±10% jitter). */
    backoffMs: z.number().int().min(0).max(86_400_000).default(5_000),
    maxBackoffMs: z.number().int().min(0).max(86_400_000).default(300_000),
    /** A run still going after this long is aborted and counted as failed. */
    jobTimeoutMs: z.number().int().min(100).max(86_400_000).default(600_000),
    /** On shutdown: how long running jobs may finish before they are aborted. */
    shutdownGraceMs: z.number().int().min(0).max(600_000).default(10_000),
    /**
     * Several daemons on one chain: this one's index in 0..instanceCount-1. Each market gets a rank per
     * instance, (marketId + instanceIndex) mod instanceCount, and its first run waits rank × staggerMs, so one
     * daemon goes first and the others normally find it settled (no wasted transaction) yet take over if it is down.
     */
    instanceIndex: z.number().int().min(0).max(1_000).default(0),
    instanceCount: z.number().int().min(1).max(1_000).default(1),
    staggerMs: z.number().int().min(0).max(86_400_000).default(30_000),
    apiHost: z.string().min(1).default("127.0.0.1"),
    /** 0 = any free port (tests). */
    apiPort: z.number().int().min(0).max(65_535).default(8_787),
    /** Bearer token of POST /markets/:id/resolve; without it manual triggers are refused (401). */
    apiToken: z.string().min(16, "apiToken must be at least 16 characters").optional(),
    /** Install SIGTERM/SIGINT handlers that stop the daemon gracefully (off for in-process embedding/tests). */
    handleSignals: z.boolean().default(true),
    logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  })
  .strict()
  .refine((c) => new Set(c.markets.map((m) => m.address)).size === c.markets.length, { message: "duplicate market address", path: ["markets"] })
  .refine((c) => c.instanceIndex < c.instanceCount, { message: "instanceIndex must be below instanceCount", path: ["instanceIndex"] });

export type DaemonConfigInput = z.input<typeof daemonConfigSchema>;
export type DaemonConfig = z.output<typeof daemonConfigSchema>;

export function parseDaemonConfig(input: unknown): DaemonConfig {
  const parsed = daemonConfigSchema.safeParse(input);
  if (!parsed.success) {
    // Never echo input values (rpcUrl and apiToken are secrets): paths and messages only.
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    throw new Error(`invalid daemon config: ${issues}`);
  }
  return parsed.data;
}

// ------------------------------------------------------------------------------------------------ the seam

/**
 * Result of one resolution run. `bundle` is the canonical JSON text of the resolution bundle and
 * `bundleHash` its keccak256 (the daemon checks this before storing it).
 */
export type JobOutcome =
  | { kind: "written"; txHash: Hex; bundle: string; bundleHash: Hex }
  | { kind: "already-settled"; bundleHash?: Hex }
  | { kind: "no-quorum"; bundle?: string; bundleHash?: Hex }
  | { kind: "no-margin"; bundle?: string; bundleHash?: Hex };

/**
 * Runs the pipeline for one market and writes the result. Must re-read the market first and return
 * `already-settled` when it is no longer awaiting resolution (a restart or another daemon did it), and
 * should simulate before sending. Throw for infrastructure failures; honour `signal`.
 * `attempt` is 1-based.
 */
export type ResolveJob = (marketId: bigint, attempt: number, signal: AbortSignal) => Promise<JobOutcome>;

/** The on-chain no-quorum/invalid settlement (full refunds). Must also skip if already settled. */
export type SettleInvalid = (marketId: bigint, bundleHash: Hex) => Promise<{ txHash: Hex } | { kind: "already-settled" }>;

/** Several market contracts: the seams are called with the contract address as well. */
export interface MarketSeams {
  resolveJob: ResolveJob;
  settleInvalid: SettleInvalid;
}
