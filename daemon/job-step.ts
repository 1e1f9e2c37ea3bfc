/**
 * What a job step (daemon/run-step.ts: a pipeline run; daemon/chain-step.ts: propose and watch) needs from the
 * runner (daemon/runner.ts): its options, the job's logger and seams, the state machine under the runner's
 * policy, and `finish`, which records a result unless the job was abandoned at shutdown.
 */
import type { Logger } from "pino";
import type { PublicClient } from "viem";
import type { Address } from "../workflow/core/types.js";
import type { MarketSeams } from "./config.js";
import type { DaemonMetrics } from "./metrics.js";
import type { Outcome, Transition } from "./state.js";
import type { FinishUpdate, JobRow, Store } from "./store.js";

export interface RunnerOptions {
  store: Store;
  client: PublicClient;
  seamsFor: (market: Address) => MarketSeams;
  concurrency: number;
  maxAttempts: number;
  backoffMs: number;
  maxBackoffMs: number;
  jobTimeoutMs: number;
  watchIntervalMs: number;
  onDispute: "escalate" | "concede";
  /** `<publicUrl>/bundles/<hash>.json` when set. */
  publicUrl?: string;
  logger: Logger;
  metrics: DaemonMetrics;
  secrets: readonly string[];
}

/** A job being worked on. */
export interface Active {
  job: JobRow;
  kind: "run" | "chain";
  controller: AbortController;
  /** Abandoned at shutdown: its late result is not recorded. */
  abandoned: boolean;
  done: Promise<void>;
}

/** The runner as a job step sees it. */
export interface StepContext {
  readonly o: RunnerOptions;
  /** The daemon is shutting down. */
  stopping(): boolean;
  log(job: JobRow): Logger;
  seams(job: JobRow): MarketSeams;
  /** The RPC answers (a failed step with an unreachable RPC is deferred, not counted). */
  rpcReachable(): Promise<boolean>;
  /** Records a result unless the store closed or the job was abandoned at shutdown. */
  finish(job: JobRow, entry: Active | undefined, u: FinishUpdate): JobRow | undefined;
  /** The state machine's answer for `job` on `outcome` (daemon/state.ts), under the runner's policy. */
  transition(job: JobRow, outcome: Outcome): Transition;
}

/** The store's part of a transition (state, due time, count changes). */
export function storeFields(
  t: Transition,
): Pick<FinishUpdate, "state" | "nextAttemptAt" | "uncountAttempt" | "uncountSend" | "resetSends"> {
  return {
    state: t.state,
    ...(t.nextAttemptAt !== undefined ? { nextAttemptAt: t.nextAttemptAt } : {}),
    ...(t.uncountAttempt ? { uncountAttempt: true } : {}),
    ...(t.uncountSend ? { uncountSend: true } : {}),
    ...(t.resetSends ? { resetSends: true } : {}),
  };
}

/** For logs: how long until the job is due again. */
export function retryIn(t: Transition, now: number): number {
  return t.nextAttemptAt === undefined ? 0 : t.nextAttemptAt - now;
}
