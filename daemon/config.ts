/**
 * Daemon configuration (zod) and the seam to the resolution pipeline and the chain writer.
 */
import { z } from "zod";
import type { Hex } from "../workflow/core/types.js";
import type { ProgressListener } from "../workflow/pipeline/call-worker.js";

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address")
  .transform((a) => a.toLowerCase() as `0x${string}`);
const blockNumber = z
  .union([z.number().int().nonnegative(), z.bigint().nonnegative(), z.string().regex(/^\d+$/)])
  .transform((v) => {
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
    /** Pipeline runs per market (failed runs, invalid verdicts for a retryable cause) before proposing invalid; also the proposal sends. */
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
    /**
     * Public base URL of this daemon's API (e.g. https://resolver.example.org). When set, the bundle URI
     * written with a proposal is `<publicUrl>/bundles/<bundleHash>.json`; otherwise it is empty.
     */
    publicUrl: z
      .url({ protocol: /^https?$/ })
      .transform((u) => u.replace(/\/+$/, ""))
      .optional(),
    /** What to do when one of this daemon's proposals is disputed: escalate to the arbiter, or concede. */
    onDispute: z.enum(["escalate", "concede"]).default("escalate"),
    /** Longest pause between two chain checks of a proposal in its dispute window (or a dispute). */
    watchIntervalMs: z.number().int().min(10).max(3_600_000).default(15_000),
    /**
     * The database belongs to another chain (genesis hash / chain id) or deployment (market contracts):
     * false (default) refuses to start; true wipes its jobs, bundles and cursors (the signing key is kept).
     */
    resetStore: z.boolean().default(false),
    /** Install SIGTERM/SIGINT handlers that stop the daemon gracefully (off for in-process embedding/tests). */
    handleSignals: z.boolean().default(true),
    logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  })
  .strict()
  .refine((c) => new Set(c.markets.map((m) => m.address)).size === c.markets.length, {
    message: "duplicate market address",
    path: ["markets"],
  })
  .refine((c) => c.instanceIndex < c.instanceCount, {
    message: "instanceIndex must be below instanceCount",
    path: ["instanceIndex"],
  });

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

/** A proposal's verdict (IResolutionMarket.Verdict). */
export type Verdict = "yes" | "no" | "invalid";

/** What the chain says about one market, read fresh for every decision the daemon takes. */
export interface MarketOnChain {
  status: "none" | "open" | "requested" | "proposed" | "disputed" | "resolved" | "invalid" | "cancelled";
  /** The proposal, once there is one. */
  proposal?: {
    proposer: Hex;
    verdict: Verdict;
    /** Unix seconds (chain time). */
    disputeEndsAt: number;
    bundleHash: Hex;
    bundleURI: string;
    /** Set once disputed. */
    disputer?: Hex;
    claimed?: Verdict;
  };
  /** Resolved only: true = YES. */
  outcome?: boolean;
  /** Timestamp of the latest block (chain time, unix seconds). */
  chainTime: number;
}

/**
 * Result of one pipeline run, before anything is written. `bundle` is the canonical JSON text and
 * `bundleHash` its keccak256 (the daemon checks it). `payload` is whatever `propose` needs to send this
 * verdict (the per-seat reports); it must survive JSON.stringify (bigints as strings) because the daemon
 * stores it with the bundle before sending, so a restart re-sends the same proposal without a new run.
 * `retry`: the verdict is invalid for a cause another attempt may fix (e.g. too few answers); the daemon
 * runs again (up to maxAttempts) before it proposes invalid.
 */
export interface RunOutcome {
  verdict: Verdict;
  reason?: string;
  retry?: boolean;
  bundle: string;
  bundleHash: Hex;
  payload: unknown;
}

export interface ProposeInput {
  verdict: Verdict;
  /** RunOutcome.payload, or null: no run produced one (every attempt failed) — propose with every seat failed. */
  payload: unknown;
  bundleHash: Hex;
  bundleURI: string;
  /** A proposal this job already broadcast (before a restart): wait for it instead of sending another. */
  sentTx?: Hex;
}

/**
 * The daemon's seams to the pipeline and the chain, per market contract. Reads are fresh (no cache).
 * Every write must tolerate having been done already (by this daemon before a restart, or by anyone):
 * `propose` returns `not-requested` when the market no longer awaits a proposal; `finalize` returns
 * `not-needed` when the market is no longer Proposed (or its window is still open).
 */
export interface MarketSeams {
  /** The resolver account that signs proposals (compared with the on-chain proposer). */
  account: Hex;
  read(marketId: bigint): Promise<MarketOnChain>;
  /** Runs the pipeline (no write). Must honour `signal`: shutdown and the job timeout abort in-flight agent calls. */
  /** `onProgress` hears whom the run waits on and until when, each worker's result and a closing summary. */
  run(marketId: bigint, attempt: number, signal: AbortSignal, onProgress?: ProgressListener): Promise<RunOutcome>;
  /** Sends the proposal; calls `onSent(txHash)` as soon as the hash is known, before waiting for the receipt. */
  propose(
    marketId: bigint,
    input: ProposeInput,
    hooks: { onSent(txHash: Hex): void; signal: AbortSignal },
  ): Promise<{ txHash: Hex } | { kind: "not-requested" }>;
  finalize(marketId: bigint): Promise<{ txHash: Hex } | { kind: "not-needed" }>;
  /** One publishFeedback batch when seats are left (nothing sent otherwise): seats written by it, seats still left. */
  publishFeedback(marketId: bigint): Promise<{ published: number; pending: number; txHash?: Hex }>;
  /**
   * The daemon's proposal was disputed and the config says escalate: do what the market's arbiter needs
   * from the proposer (UMA: dispute the disputer's assertion on OOv3; a committee: nothing).
   */
  escalate(marketId: bigint): Promise<{ action: string; txHash?: Hex }>;
}
