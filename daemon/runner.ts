/**
 * Job execution: bounded concurrency across markets, retries with exponential backoff, the invalid
 * settlement once the attempts are used up, graceful stop.
 *
 * State machine (store.ts holds the states):
 *   requested ──claim (attempt+1)──▶ running
 *   running ──written──▶ written                      (terminal; bundle + tx hash stored)
 *   running ──already-settled──▶ already-settled      (terminal; the chain says someone settled it)
 *   running ──no-quorum | no-margin | error, attempts < max──▶ requested (next attempt after backoff)
 *   running ──no-quorum | no-margin | error, attempts = max──▶ invalidating
 *   running ──error while the RPC is unreachable──▶ requested (attempt given back; retried after backoff)
 *   running ──aborted by shutdown──▶ requested (attempt given back)
 *   invalidating ──settleInvalid ok──▶ no-quorum        (terminal; refunds on chain, tx hash stored)
 *   invalidating ──already-settled──▶ already-settled
 *   invalidating ──error, invalid attempts < max──▶ invalidating (after backoff)
 *   invalidating ──error, invalid attempts = max──▶ failed   (terminal; POST /markets/:id/resolve re-queues)
 *   startup: running ──▶ requested (the daemon died mid-run; the re-run re-reads the chain first)
 */
import type { Logger } from "pino";
import { keccak256, stringToBytes, type PublicClient } from "viem";
import type { Hex } from "../workflow/core/types.js";
import type { JobOutcome, MarketSeams } from "./config.js";
import { sanitizeError } from "./log.js";
import type { DaemonMetrics } from "./metrics.js";
import type { FinishUpdate, JobRow, Store } from "./store.js";

/** Largest bundle the daemon stores (canonical JSON text). */
export const MAX_BUNDLE_BYTES = 8 * 1024 * 1024;

export interface RunnerOptions {
  store: Store;
  client: PublicClient;
  seamsFor: (market: `0x${string}`) => MarketSeams;
  concurrency: number;
  maxAttempts: number;
  backoffMs: number;
  maxBackoffMs: number;
  jobTimeoutMs: number;
  logger: Logger;
  metrics: DaemonMetrics;
  secrets: readonly string[];
}

interface Active {
  job: JobRow;
  controller: AbortController;
  done: Promise<void>;
}

class BundleMismatch extends Error {
  override name = "BundleMismatch";
}

/** Hash of the small document the daemon settles with when no run produced a bundle. */
export function fallbackInvalidBundle(job: JobRow, reason: string): { json: string; hash: Hex } {
  // Keys in sorted order, plain strings only: canonical JSON as workflow/core/bundle.ts defines it.
  const doc = {
    chainId: job.chainId,
    market: job.market,
    marketId: job.marketId.toString(10),
    reason,
    schema: "cresolver.daemon-invalid.v1",
  };
  const json = JSON.stringify(doc);
  return { json, hash: keccak256(stringToBytes(json)) };
}

export class Runner {
  private readonly active = new Map<number, Active>();
  private stopping = false;
  private timer: NodeJS.Timeout | undefined;
  private pumping = false;
  private pumpAgain = false;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly o: RunnerOptions) {}

  get activeCount(): number {
    return this.active.size;
  }

  start(): void {
    this.pump();
  }

  /** Look for due jobs now. */
  poke(): void {
    this.pump();
  }

  private backoff(attempt: number): number {
    const base = Math.min(this.o.backoffMs * 2 ** Math.max(0, Math.min(attempt - 1, 30)), this.o.maxBackoffMs);
    return Math.round(base * (1 + Math.random() * 0.1));
  }

  private pump(): void {
    if (this.stopping || this.o.store.isClosed) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        const free = this.o.concurrency - this.active.size;
        const busy = new Set(this.active.keys());
        for (const job of this.o.store.dueJobs(free, busy)) {
          this.launch(job);
        }
      } while (this.pumpAgain && !this.stopping);
      this.schedule();
    } catch (err) {
      this.o.logger.error({ error: sanitizeError(err, this.o.secrets) }, "runner: scheduling failed");
      this.schedule(1_000);
    } finally {
      this.pumping = false;
    }
  }

  private schedule(forceMs?: number): void {
    clearTimeout(this.timer);
    if (this.stopping || this.o.store.isClosed) return;
    let delay = forceMs;
    if (delay === undefined) {
      if (this.active.size >= this.o.concurrency) return; // a finishing job pumps again
      const next = this.o.store.nextDueAt();
      if (next === undefined) return;
      delay = Math.max(0, next - this.o.store.now());
    }
    this.timer = setTimeout(() => this.pump(), Math.min(delay, 2 ** 31 - 1));
  }

  private launch(job: JobRow): void {
    const invalidating = job.state === "invalidating";
    const claimed = invalidating ? this.o.store.claimInvalidate(job.id) : this.o.store.claimRun(job.id);
    if (!claimed) return;
    this.o.metrics.recordJobStartDelay((this.o.store.now() - job.nextAttemptAt) / 1000);
    const controller = new AbortController();
    const entry: Active = { job: claimed, controller, done: Promise.resolve() };
    this.active.set(job.id, entry);
    entry.done = (invalidating ? this.runInvalidate(claimed) : this.runResolve(claimed, controller))
      .catch((err) => {
        this.o.logger.error({ jobId: job.id, error: sanitizeError(err, this.o.secrets) }, "runner: job bookkeeping failed");
      })
      .finally(() => {
        this.active.delete(job.id);
        if (this.active.size === 0) for (const w of this.idleWaiters.splice(0)) w();
        this.pump();
      });
  }

  private log(job: JobRow) {
    return this.o.logger.child({ jobId: job.id, market: job.market, marketId: job.marketId.toString(10) });
  }

  private async rpcReachable(): Promise<boolean> {
    try {
      await this.o.client.getBlockNumber({ cacheTime: 0 });
      return true;
    } catch {
      this.o.metrics.recordRpcError("getBlockNumber");
      return false;
    }
  }

  private finish(job: JobRow, u: FinishUpdate): void {
    if (this.o.store.isClosed) return; // abandoned at shutdown: the job stays `running` and is redone on restart
    this.o.store.finish(job.id, u);
  }

  private checkedBundle(job: JobRow, bundle: string | undefined, hash: Hex | undefined): FinishUpdate["bundle"] {
    if (bundle === undefined) return undefined;
    if (typeof bundle !== "string") throw new BundleMismatch("bundle must be the canonical JSON text");
    if (bundle.length > MAX_BUNDLE_BYTES) throw new BundleMismatch(`bundle larger than ${MAX_BUNDLE_BYTES} bytes`);
    const actual = keccak256(stringToBytes(bundle));
    if (hash === undefined || actual.toLowerCase() !== hash.toLowerCase()) {
      throw new BundleMismatch("bundle hash does not match keccak256 of the bundle");
    }
    return { attempt: job.attempts, hash: actual, json: bundle };
  }

  private async runResolve(job: JobRow, controller: AbortController): Promise<void> {
    const log = this.log(job);
    const started = performance.now();
    const timeout = setTimeout(() => controller.abort(new Error(`job timed out after ${this.o.jobTimeoutMs} ms`)), this.o.jobTimeoutMs);
    log.info({ attempt: job.attempts }, "job: run started");
    let outcome: JobOutcome | undefined;
    let error: unknown;
    try {
      const seams = this.o.seamsFor(job.market as `0x${string}`);
      outcome = await seams.resolveJob(job.marketId, job.attempts, controller.signal);
      if (!outcome || typeof outcome !== "object") throw new Error("resolve job returned no outcome");
    } catch (err) {
      error = err;
    } finally {
      clearTimeout(timeout);
    }
    const seconds = (performance.now() - started) / 1000;
    if (this.o.store.isClosed) return;

    try {
      if (outcome) {
        switch (outcome.kind) {
          case "written": {
            const bundle = this.checkedBundle(job, outcome.bundle, outcome.bundleHash);
            this.finish(job, { state: "written", lastOutcome: "written", lastError: null, txHash: outcome.txHash, bundle });
            this.o.metrics.recordRun("written", seconds);
            log.info({ txHash: outcome.txHash, bundleHash: outcome.bundleHash, seconds }, "job: resolution written");
            return;
          }
          case "already-settled": {
            this.finish(job, { state: "already-settled", lastOutcome: "already-settled", lastError: null });
            this.o.metrics.recordRun("already-settled", seconds);
            log.info({ seconds }, "job: market already settled, nothing to do");
            return;
          }
          case "no-quorum":
          case "no-margin": {
            const bundle = this.checkedBundle(job, outcome.bundle, outcome.bundleHash);
            this.o.metrics.recordRun(outcome.kind, seconds);
            this.retryOrInvalidate(job, outcome.kind, `${outcome.kind} on attempt ${job.attempts}`, bundle);
            return;
          }
          default:
            throw new Error(`unknown outcome kind ${String((outcome as { kind?: unknown }).kind)}`);
        }
      }
    } catch (err) {
      error = err; // malformed outcome or bundle mismatch: a failed attempt
    }

    const message = sanitizeError(error, this.o.secrets);
    if (controller.signal.aborted && this.stopping) {
      this.finish(job, { state: "requested", lastOutcome: "aborted", lastError: message, uncountAttempt: true });
      this.o.metrics.recordRun("aborted", seconds);
      log.warn({ error: message }, "job: aborted by shutdown, will run again");
      return;
    }
    if (!(error instanceof BundleMismatch) && !(await this.rpcReachable())) {
      const delay = this.backoff(Math.max(1, job.attempts));
      this.finish(job, { state: "requested", lastOutcome: "deferred", lastError: message, uncountAttempt: true, nextAttemptAt: this.o.store.now() + delay });
      this.o.metrics.recordRun("deferred", seconds);
      log.warn({ error: message, retryInMs: delay }, "job: RPC unreachable, attempt not counted, will retry");
      return;
    }
    this.o.metrics.recordRun("error", seconds);
    this.retryOrInvalidate(job, "error", message, undefined);
  }

  private retryOrInvalidate(job: JobRow, kind: string, message: string, bundle: FinishUpdate["bundle"]): void {
    const log = this.log(job);
    if (job.attempts < this.o.maxAttempts) {
      const delay = this.backoff(job.attempts);
      this.finish(job, { state: "requested", lastOutcome: kind, lastError: message, nextAttemptAt: this.o.store.now() + delay, bundle });
      log.warn({ attempt: job.attempts, maxAttempts: this.o.maxAttempts, outcome: kind, error: message, retryInMs: delay }, "job: will retry");
    } else {
      this.finish(job, { state: "invalidating", lastOutcome: kind, lastError: message, bundle });
      log.warn({ attempts: job.attempts, outcome: kind, error: message }, "job: attempts used up, settling the market invalid");
    }
  }

  private async runInvalidate(job: JobRow): Promise<void> {
    const log = this.log(job);
    const started = performance.now();
    // The hash of the last stored bundle (the last no-quorum run), else a small daemon document.
    const stored = this.o.store.bundles(job.id).at(-1);
    let hash: Hex;
    let extra: FinishUpdate["bundle"];
    if (stored) {
      hash = stored.hash as Hex;
    } else {
      const fb = fallbackInvalidBundle(job, job.lastOutcome ?? "error");
      hash = fb.hash;
      extra = { attempt: job.attempts + 1, hash: fb.hash, json: fb.json };
    }
    try {
      const res = await this.o.seamsFor(job.market as `0x${string}`).settleInvalid(job.marketId, hash);
      const seconds = (performance.now() - started) / 1000;
      if ("txHash" in res) {
        this.finish(job, { state: "no-quorum", lastOutcome: "settled-invalid", txHash: res.txHash, bundle: extra });
        this.o.metrics.recordRun("settled-invalid", seconds);
        log.info({ txHash: res.txHash, bundleHash: hash }, "job: settled invalid on chain (refunds)");
      } else {
        this.finish(job, { state: "already-settled", lastOutcome: "already-settled" });
        this.o.metrics.recordRun("already-settled", seconds);
        log.info("job: market already settled before the invalid settlement");
      }
    } catch (err) {
      const message = sanitizeError(err, this.o.secrets);
      this.o.metrics.recordRun("invalidate-error", (performance.now() - started) / 1000);
      if (this.o.store.isClosed) return;
      if (!(await this.rpcReachable())) {
        const delay = this.backoff(Math.max(1, job.invalidAttempts));
        this.finish(job, { state: "invalidating", lastOutcome: "deferred", lastError: message, uncountInvalidAttempt: true, nextAttemptAt: this.o.store.now() + delay });
        log.warn({ error: message }, "job: RPC unreachable during the invalid settlement, will retry");
      } else if (job.invalidAttempts < this.o.maxAttempts) {
        const delay = this.backoff(job.invalidAttempts);
        this.finish(job, { state: "invalidating", lastOutcome: "invalidate-error", lastError: message, nextAttemptAt: this.o.store.now() + delay });
        log.warn({ error: message, retryInMs: delay }, "job: invalid settlement failed, will retry");
      } else {
        this.finish(job, { state: "failed", lastOutcome: "invalidate-error", lastError: message });
        log.error({ error: message }, "job: invalid settlement failed for good; needs an operator (POST /markets/:id/resolve re-queues)");
      }
    }
  }

  /**
   * Stops taking jobs, lets running ones finish for up to `graceMs`, then aborts them (they go back to
   * `requested`) and waits up to `abortWaitMs` more. Jobs still running after that are abandoned: they stay
   * `running` in the database and are redone on the next start.
   */
  async stop(graceMs: number, abortWaitMs = 2_000): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    const idle = () =>
      this.active.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    const within = (ms: number) =>
      Promise.race([idle().then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    if (await within(graceMs)) return;
    this.o.logger.warn({ running: this.active.size }, "runner: grace time over, aborting running jobs");
    for (const a of this.active.values()) a.controller.abort(new Error("daemon shutting down"));
    await within(abortWaitMs);
  }
}
