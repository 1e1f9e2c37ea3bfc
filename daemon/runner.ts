/**
 * Job execution: pipeline runs with bounded concurrency and retries, the proposal (bundle stored before the
 * transaction is sent), then the proposal's watch: finalize after the dispute window, escalate or concede on
 * a dispute, publish pending ERC-8004 feedback. Every chain step re-reads the market first.
 *
 * Which state follows, whether an attempt counts and when a job is due again are decided by `nextState`
 * (state.ts; the diagram is in docs/ARCHITECTURE.md): the steps (run-step.ts: a pipeline run; chain-step.ts:
 * propose and watch) perform the I/O and name the outcome; this file schedules them and applies the transition.
 */
import { isAddress } from "viem";
import { backoffDelay } from "../workflow/util/retry.js";
import { chainStep } from "./chain-step.js";
import type { MarketSeams } from "./config.js";
import type { Active, RunnerOptions, StepContext } from "./job-step.js";
import { sanitizeError } from "./log.js";
import { runResolve } from "./run-step.js";
import { nextState, type Outcome, type Transition } from "./state.js";
import type { FinishUpdate, JobRow } from "./store.js";

export type { RunnerOptions } from "./job-step.js";

/** Chain-step jobs (propose, watch, finalize, feedback) running at once, besides the pipeline runs. */
const CHAIN_CONCURRENCY = 4;

export class Runner {
  private readonly active = new Map<number, Active>();
  private stopping = false;
  private timer: NodeJS.Timeout | undefined;
  private pumping = false;
  private pumpAgain = false;
  private idleWaiters: (() => void)[] = [];

  /** What the job steps (run-step.ts, chain-step.ts) see of this runner. */
  private readonly ctx: StepContext;

  constructor(private readonly o: RunnerOptions) {
    this.ctx = {
      o,
      stopping: () => this.stopping,
      log: (job) => this.log(job),
      seams: (job) => this.seams(job),
      rpcReachable: () => this.rpcReachable(),
      finish: (job, entry, u) => this.finish(job, entry, u),
      transition: (job, outcome) => this.transition(job, outcome),
    };
  }

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
    // Up to 10 % jitter: jobs that failed together do not all come back in the same instant.
    return Math.round(
      backoffDelay(attempt, { baseMs: this.o.backoffMs, maxMs: this.o.maxBackoffMs }) * (1 + Math.random() * 0.1),
    );
  }

  /** The state machine's answer for `job` on `outcome` (daemon/state.ts), under this runner's policy. */
  private transition(job: JobRow, outcome: Outcome): Transition {
    return nextState(job, outcome, {
      maxAttempts: this.o.maxAttempts,
      backoffMs: (attempt) => this.backoff(attempt),
      watchIntervalMs: this.o.watchIntervalMs,
      now: this.o.store.now(),
    });
  }

  private count(kind: Active["kind"]): number {
    let n = 0;
    for (const a of this.active.values()) if (a.kind === kind) n++;
    return n;
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
        const busy = new Set(this.active.keys());
        for (const job of this.o.store.dueJobs("chain", CHAIN_CONCURRENCY - this.count("chain"), busy))
          this.launch(job, "chain");
        for (const job of this.o.store.dueJobs("run", this.o.concurrency - this.count("run"), busy))
          this.launch(job, "run");
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
      const next = this.o.store.nextDueAt();
      if (next === undefined) return;
      delay = Math.max(0, next - this.o.store.now());
    }
    this.timer = setTimeout(() => this.pump(), Math.min(delay, 2 ** 31 - 1));
  }

  private launch(job: JobRow, kind: Active["kind"]): void {
    const claimed =
      kind === "run" ? this.o.store.claimRun(job.id) : job.state === "proposing" ? this.o.store.claimSend(job.id) : job;
    if (!claimed) return;
    if (kind === "run") this.o.metrics.recordJobStartDelay((this.o.store.now() - job.nextAttemptAt) / 1000);
    const controller = new AbortController();
    const entry: Active = { job: claimed, kind, controller, abandoned: false, done: Promise.resolve() };
    this.active.set(job.id, entry);
    const work = kind === "run" ? runResolve(this.ctx, claimed, entry) : chainStep(this.ctx, claimed, entry);
    entry.done = work
      .catch((err) => {
        this.o.logger.error(
          { jobId: job.id, error: sanitizeError(err, this.o.secrets) },
          "runner: job bookkeeping failed",
        );
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

  private seams(job: JobRow): MarketSeams {
    if (!isAddress(job.market, { strict: false }))
      throw new Error(`job ${job.id}: stored market ${job.market} is not an address`);
    return this.o.seamsFor(job.market);
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

  /** Records a result unless the store closed or the job was abandoned at shutdown. */
  private finish(job: JobRow, entry: Active | undefined, u: FinishUpdate): JobRow | undefined {
    if (this.o.store.isClosed || entry?.abandoned) return undefined;
    return this.o.store.finish(job.id, u);
  }

  /**
   * Stops taking jobs, lets running ones finish for up to `graceMs`, then aborts them and waits up to
   * `abortWaitMs` more. Runs still going after that are abandoned: back to `requested` with their attempt given
   * back (an aborted run is never counted); their late results are ignored.
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
    if (await within(abortWaitMs)) return;
    for (const a of this.active.values()) {
      a.abandoned = true;
      if (a.kind === "run" && !this.o.store.isClosed) this.o.store.abandonRun(a.job.id, "aborted by shutdown");
    }
  }
}
