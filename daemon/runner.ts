/**
 * Job execution: pipeline runs with bounded concurrency and retries, the proposal (bundle stored before the
 * transaction is sent), then the proposal's watch: finalize after the dispute window, escalate or concede on
 * a dispute, publish pending ERC-8004 feedback. Every chain step re-reads the market first.
 *
 * Which state follows, whether an attempt counts and when a job is due again are decided by `nextState`
 * (state.ts; the diagram is in docs/ARCHITECTURE.md): this file performs the I/O, names the outcome and applies
 * the transition.
 */
import type { Logger } from "pino";
import { keccak256, stringToBytes, type PublicClient } from "viem";
import type { Hex } from "../workflow/core/types.js";
import { backoffDelay } from "../workflow/util/retry.js";
import { describeProgress, type ProgressEvent } from "../workflow/pipeline/call-worker.js";
import { nextState, type AdoptedState, type Outcome, type Transition } from "./state.js";
import type { MarketOnChain, MarketSeams, RunOutcome, Verdict } from "./config.js";
import { sanitizeError } from "./log.js";
import type { DaemonMetrics } from "./metrics.js";
import { adoptFromChain, bundleUrl, fallbackInvalidBundle, finalVerdictOf, jsonPayload } from "./proposals.js";
import type { FinishUpdate, JobRow, Store } from "./store.js";

/** Largest bundle the daemon stores (canonical JSON text). */
export const MAX_BUNDLE_BYTES = 8 * 1024 * 1024;
/** Chain-step jobs (propose, watch, finalize, feedback) running at once, besides the pipeline runs. */
const CHAIN_CONCURRENCY = 4;
/** publishFeedback batches per watch step (the next step continues). */
const FEEDBACK_BATCHES_PER_STEP = 20;

export interface RunnerOptions {
  store: Store;
  client: PublicClient;
  seamsFor: (market: `0x${string}`) => MarketSeams;
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

interface Active {
  job: JobRow;
  kind: "run" | "chain";
  controller: AbortController;
  /** Abandoned at shutdown: its late result is not recorded. */
  abandoned: boolean;
  done: Promise<void>;
}

/** The store's part of a transition (state, due time, count changes). */
function storeFields(
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
function retryIn(t: Transition, now: number): number {
  return t.nextAttemptAt === undefined ? 0 : t.nextAttemptAt - now;
}

/** A run's progress in the job's log: waits and the closing summary at info, each worker's failure at warn. */
function logProgress(log: Logger, event: ProgressEvent): void {
  const message = `job: ${describeProgress(event)}`;
  if (event.type === "waiting") {
    log.info(
      {
        stage: event.stage,
        waitingOn: event.workers.map((w) => ({
          seat: w.seat,
          agentId: w.agentId.toString(),
          protocol: w.protocol,
          deadline: w.deadlineAt !== undefined ? new Date(w.deadlineAt).toISOString() : null,
        })),
      },
      message,
    );
  } else if (event.type === "worker-failed") {
    log.warn(
      {
        stage: event.stage,
        seat: event.seat,
        agentId: event.agentId.toString(),
        kind: event.failure.kind,
        latencyMs: event.latencyMs,
      },
      message,
    );
  } else if (event.type === "worker-done") {
    log.debug({ stage: event.stage, seat: event.seat, latencyMs: event.latencyMs }, message);
  } else {
    const failed = event.failed.map((f) => ({
      seat: f.seat,
      agentId: f.agentId.toString(),
      stage: f.stage,
      kind: f.failure.kind,
      message: f.failure.message,
    }));
    (failed.length > 0 ? log.warn.bind(log) : log.info.bind(log))({ failedWorkers: failed }, message.split("\n")[0]);
  }
}

class BundleMismatch extends Error {
  override name = "BundleMismatch";
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
    const work = kind === "run" ? this.runResolve(claimed, entry) : this.chainStep(claimed, entry);
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
    return this.o.seamsFor(job.market as `0x${string}`);
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

  private checkedBundle(job: JobRow, bundle: unknown, hash: Hex | undefined): NonNullable<FinishUpdate["bundle"]> {
    if (typeof bundle !== "string") throw new BundleMismatch("bundle must be the canonical JSON text");
    if (bundle.length > MAX_BUNDLE_BYTES) throw new BundleMismatch(`bundle larger than ${MAX_BUNDLE_BYTES} bytes`);
    const actual = keccak256(stringToBytes(bundle));
    if (hash === undefined || actual.toLowerCase() !== String(hash).toLowerCase()) {
      throw new BundleMismatch("bundle hash does not match keccak256 of the bundle");
    }
    return { attempt: job.attempts, hash: actual, json: bundle };
  }

  // ------------------------------------------------------------------------------------------ pipeline run

  private async runResolve(job: JobRow, entry: Active): Promise<void> {
    const log = this.log(job);
    const { controller } = entry;
    const started = performance.now();
    const timeout = setTimeout(
      () => controller.abort(new Error(`job timed out after ${this.o.jobTimeoutMs} ms`)),
      this.o.jobTimeoutMs,
    );
    let outcome: RunOutcome | undefined;
    let error: unknown;
    try {
      const seams = this.seams(job);
      const chain = await seams.read(job.marketId);
      if (chain.status !== "requested") {
        clearTimeout(timeout);
        const adopted = adoptFromChain(seams.account, chain, (hash) => this.o.store.bundleByHash(hash) !== undefined);
        // Open / unknown: not an attempt; look again later (an event or a manual trigger made this job).
        const t = this.transition(
          job,
          adopted ? { kind: "adopted", state: adopted.state as AdoptedState } : { kind: "not-requested" },
        );
        const u: FinishUpdate = adopted
          ? { ...adopted, ...storeFields(t) }
          : { lastOutcome: "not-requested", lastError: `market is ${chain.status} on chain`, ...storeFields(t) };
        this.finish(job, entry, u);
        this.o.metrics.recordRun(u.lastOutcome, (performance.now() - started) / 1000);
        log.info({ chainStatus: chain.status, state: u.state }, "job: market not awaiting a proposal, nothing to run");
        return;
      }
      log.info({ attempt: job.attempts }, "job: run started");
      outcome = await seams.run(job.marketId, job.attempts, controller.signal, (event) => logProgress(log, event));
      if (!outcome || typeof outcome !== "object" || !["yes", "no", "invalid"].includes(outcome.verdict))
        throw new Error("the run returned no verdict");
    } catch (err) {
      error = err;
    } finally {
      clearTimeout(timeout);
    }
    const seconds = (performance.now() - started) / 1000;
    if (this.o.store.isClosed || entry.abandoned) return;

    if (outcome && error === undefined) {
      try {
        const bundle = this.checkedBundle(job, outcome.bundle, outcome.bundleHash);
        const kind = outcome.verdict === "invalid" ? (outcome.reason ?? "invalid") : outcome.verdict;
        this.o.metrics.recordRun(kind, seconds);
        const t = this.transition(job, { kind: "verdict", verdict: outcome.verdict, retry: outcome.retry === true });
        if (t.state === "requested") {
          this.finish(job, entry, { lastOutcome: kind, lastError: null, bundle, ...storeFields(t) });
          log.warn(
            {
              attempt: job.attempts,
              maxAttempts: this.o.maxAttempts,
              reason: outcome.reason,
              retryInMs: retryIn(t, this.o.store.now()),
            },
            "job: invalid verdict for a fixable cause, will run again",
          );
          return;
        }
        this.beginProposal(job, entry, t, {
          verdict: outcome.verdict,
          reason: outcome.reason ?? null,
          payload: outcome.payload,
          bundle,
          lastOutcome: kind,
        });
        return;
      } catch (err) {
        error = err; // malformed bundle: a failed attempt
      }
    }

    const message = sanitizeError(error, this.o.secrets);
    if (controller.signal.aborted && this.stopping) {
      this.finish(job, entry, {
        lastOutcome: "aborted",
        lastError: message,
        ...storeFields(this.transition(job, { kind: "aborted" })),
      });
      this.o.metrics.recordRun("aborted", seconds);
      log.warn({ error: message }, "job: aborted by shutdown, will run again");
      return;
    }
    if (!(error instanceof BundleMismatch) && !(await this.rpcReachable())) {
      const t = this.transition(job, { kind: "rpc-unreachable" });
      this.finish(job, entry, { lastOutcome: "deferred", lastError: message, ...storeFields(t) });
      this.o.metrics.recordRun("deferred", seconds);
      log.warn(
        { error: message, retryInMs: retryIn(t, this.o.store.now()) },
        "job: RPC unreachable, attempt not counted, will retry",
      );
      return;
    }
    this.o.metrics.recordRun("error", seconds);
    const failed = this.transition(job, { kind: "error" });
    if (failed.state === "requested") {
      this.finish(job, entry, { lastOutcome: "error", lastError: message, ...storeFields(failed) });
      log.warn(
        {
          attempt: job.attempts,
          maxAttempts: this.o.maxAttempts,
          error: message,
          retryInMs: retryIn(failed, this.o.store.now()),
        },
        "job: run failed, will retry",
      );
      return;
    }
    // Attempts used up without a verdict: propose invalid with every seat failed. The last stored run bundle is the
    // evidence when there is one, else a small daemon document.
    const stored = this.o.store.bundles(job.id).at(-1);
    const bundle = stored
      ? { attempt: stored.attempt, hash: stored.hash, json: stored.json }
      : { attempt: job.attempts, ...fallbackInvalidBundle(job, "error") };
    log.warn({ attempts: job.attempts, error: message }, "job: attempts used up, proposing invalid");
    this.beginProposal(job, entry, failed, {
      verdict: "invalid",
      reason: job.lastOutcome ?? "error",
      payload: null,
      bundle,
      lastOutcome: "error",
      lastError: message,
    });
  }

  /** Stores the bundle and the payload, then state `proposing` (the send follows at once as a chain step). */
  private beginProposal(
    job: JobRow,
    entry: Active,
    t: Transition,
    p: {
      verdict: Verdict;
      reason: string | null;
      payload: unknown;
      bundle: NonNullable<FinishUpdate["bundle"]>;
      lastOutcome: string;
      lastError?: string;
    },
  ): void {
    this.finish(job, entry, {
      ...storeFields(t),
      lastOutcome: p.lastOutcome,
      lastError: p.lastError ?? null,
      verdict: p.verdict,
      reason: p.verdict === "invalid" ? p.reason : null,
      payload: jsonPayload(p.payload),
      bundleHash: p.bundle.hash.toLowerCase(),
      bundleUri: bundleUrl(this.o.publicUrl, p.bundle.hash),
      bundle: p.bundle,
    });
    this.log(job).info(
      { verdict: p.verdict, reason: p.reason ?? undefined, bundleHash: p.bundle.hash },
      "job: verdict ready, bundle stored, proposing",
    );
  }

  // ------------------------------------------------------------------------------------------ chain steps

  private async chainStep(job: JobRow, entry: Active): Promise<void> {
    const log = this.log(job);
    const started = performance.now();
    const seams = this.seams(job);
    let chain: MarketOnChain | undefined;
    try {
      chain = await seams.read(job.marketId);
      if (job.state === "proposing") await this.propose(job, entry, seams, chain);
      else await this.watch(job, entry, seams, chain);
    } catch (err) {
      const message = sanitizeError(err, this.o.secrets);
      this.o.metrics.recordRun("chain-error", (performance.now() - started) / 1000);
      if (this.o.store.isClosed || entry.abandoned) return;
      const reachable = await this.rpcReachable();
      if (job.state === "proposing") {
        const t = this.transition(job, { kind: reachable ? "error" : "rpc-unreachable" });
        if (t.state === "proposing") {
          this.finish(job, entry, {
            lastOutcome: reachable ? "propose-error" : "deferred",
            lastError: message,
            ...storeFields(t),
          });
          log.warn(
            { error: message, sendAttempts: job.sendAttempts, retryInMs: retryIn(t, this.o.store.now()) },
            "job: proposal not sent, will retry",
          );
        } else {
          this.finish(job, entry, { lastOutcome: "propose-error", lastError: message, ...storeFields(t) });
          log.error(
            { error: message },
            "job: proposal failed for good; needs an operator (POST /markets/:id/resolve re-queues)",
          );
        }
        return;
      }
      // Watching never gives up: the proposal's bond and the market's payouts depend on it. The state is the row's
      // as it is now (the trigger may have recorded a dispute meanwhile), or disputed when the chain says so.
      const current = this.o.store.getJobById(job.id) ?? job;
      const t = this.transition(current, { kind: "watch-error", disputedOnChain: chain?.status === "disputed" });
      // The chain already names the disputer even when the trigger has not seen the event yet (or escalating failed).
      const seen = chain?.status === "disputed" && current.disputer === null ? chain.proposal : undefined;
      const dispute = seen?.disputer ? { disputer: seen.disputer.toLowerCase(), claimed: seen.claimed ?? null } : {};
      this.finish(job, entry, {
        ...dispute,
        lastOutcome: current.lastOutcome ?? "watch-error",
        lastError: message,
        ...(current.feedback !== null ? { feedback: current.feedback } : {}),
        ...storeFields(t),
      });
      log.warn({ error: message, retryInMs: retryIn(t, this.o.store.now()) }, "job: chain step failed, will retry");
    }
  }

  private async propose(job: JobRow, entry: Active, seams: MarketSeams, chain: MarketOnChain): Promise<void> {
    const log = this.log(job);
    if (chain.status !== "requested") {
      const adopted = adoptFromChain(seams.account, chain, (hash) => this.o.store.bundleByHash(hash) !== undefined);
      if (adopted) {
        const t = this.transition(job, { kind: "adopted", state: adopted.state as AdoptedState });
        this.finish(job, entry, {
          ...adopted,
          ...storeFields(t),
          nextAttemptAt: this.nextWatch(adopted.disputeEndsAt ?? null, chain.chainTime),
        });
        log.info(
          { chainStatus: chain.status, state: adopted.state },
          "job: the chain moved on before our proposal was confirmed",
        );
        return;
      }
      throw new Error(`market is ${chain.status} on chain, cannot propose`);
    }
    const payload: unknown = job.payload === null ? null : JSON.parse(job.payload);
    if (job.txHash !== null)
      log.info({ txHash: job.txHash }, "job: waiting for the proposal sent before, not sending another");
    const res = await seams.propose(
      job.marketId,
      {
        verdict: job.verdict as Verdict,
        payload,
        bundleHash: job.bundleHash as Hex,
        bundleURI: job.bundleUri ?? "",
        // Linked at broadcast: a restart with it pending waits for it instead of sending a second proposal.
        ...(job.txHash !== null ? { sentTx: job.txHash as Hex } : {}),
      },
      {
        signal: entry.controller.signal,
        onSent: (txHash) => {
          if (!this.o.store.isClosed && !entry.abandoned) this.o.store.linkTx(job.id, txHash);
          log.info({ txHash }, "job: proposal sent");
        },
      },
    );
    if ("kind" in res) {
      // The market moved on between our read and the send: the next step reads it again.
      this.finish(job, entry, {
        lastOutcome: "not-requested",
        lastError: null,
        ...storeFields(this.transition(job, { kind: "not-requested" })),
      });
      return;
    }
    const after = await seams.read(job.marketId);
    const ends = after.proposal?.disputeEndsAt ?? null;
    this.finish(job, entry, {
      ...storeFields(this.transition(job, { kind: "proposal-landed", disputed: after.status === "disputed" })),
      lastOutcome: "proposed",
      lastError: null,
      txHash: res.txHash,
      payload: null,
      ...(ends !== null ? { disputeEndsAt: ends } : {}),
      nextAttemptAt: this.nextWatch(ends, after.chainTime),
    });
    this.o.store.linkTx(job.id, res.txHash);
    this.o.metrics.recordRun("proposed", 0);
    log.info({ txHash: res.txHash, verdict: job.verdict, disputeEndsAt: ends }, "job: proposed, dispute window open");
  }

  /** Next chain check: when the window closes by the chain's clock, at most watchIntervalMs away. */
  private nextWatch(disputeEndsAt: number | null, chainTime: number): number {
    const untilEnd =
      disputeEndsAt === null ? this.o.watchIntervalMs : Math.max(0, (disputeEndsAt - chainTime + 1) * 1000);
    return this.o.store.now() + Math.min(this.o.watchIntervalMs, untilEnd);
  }

  private async watch(job: JobRow, entry: Active, seams: MarketSeams, chain: MarketOnChain): Promise<void> {
    const log = this.log(job);
    switch (chain.status) {
      case "proposed": {
        const ends = chain.proposal?.disputeEndsAt ?? job.disputeEndsAt ?? 0;
        if (chain.chainTime < ends) {
          this.finish(job, entry, {
            state: "proposed",
            lastOutcome: job.lastOutcome ?? "proposed",
            disputeEndsAt: ends,
            nextAttemptAt: this.nextWatch(ends, chain.chainTime),
          });
          return;
        }
        const res = await seams.finalize(job.marketId);
        if ("txHash" in res) {
          this.finish(job, entry, {
            state: "proposed",
            lastOutcome: "finalize-sent",
            lastError: null,
            finalizeTx: res.txHash,
          });
          log.info({ txHash: res.txHash }, "job: dispute window over, finalized");
        } else {
          this.finish(job, entry, {
            state: "proposed",
            lastOutcome: "finalize-not-needed",
            nextAttemptAt: this.o.store.now() + this.o.watchIntervalMs,
          });
        }
        return;
      }
      case "disputed": {
        const p = chain.proposal;
        const disputer = p?.disputer?.toLowerCase() ?? job.disputer;
        const claimed = p?.claimed ?? job.claimed;
        if (job.disputeAction === null) {
          log.warn(
            { disputer, claimed, verdict: job.verdict, policy: this.o.onDispute },
            "job: our proposal is disputed",
          );
          let action = "conceded";
          let txHash: Hex | undefined;
          if (this.o.onDispute === "escalate") {
            const r = await seams.escalate(job.marketId);
            action = r.action;
            txHash = r.txHash;
          }
          this.finish(job, entry, {
            ...storeFields(this.transition(job, { kind: "dispute-seen" })),
            lastOutcome: "disputed",
            lastError: null,
            disputer: disputer ?? null,
            claimed: claimed ?? null,
            disputeAction: action,
            ...(txHash !== undefined ? { disputeTx: txHash } : {}),
          });
          log.info({ action, txHash }, "job: dispute handled, waiting for the arbiter");
          return;
        }
        this.finish(job, entry, {
          ...storeFields(this.transition(job, { kind: "dispute-seen" })),
          lastOutcome: "disputed",
        });
        return;
      }
      case "resolved":
      case "invalid": {
        if (job.state !== "finalized") {
          const feedback = chain.status === "resolved" ? "pending" : "done";
          const final = finalVerdictOf(chain);
          // A final verdict other than ours: the arbiter overturned the proposal (our bond went to the disputer).
          const lastOutcome = job.verdict !== null && final !== job.verdict ? "finalized-overturned" : "finalized";
          this.finish(job, entry, {
            ...storeFields(this.transition(job, { kind: "market-final", feedbackPending: feedback === "pending" })),
            lastOutcome,
            lastError: null,
            finalStatus: chain.status,
            finalVerdict: final,
            feedback,
          });
          log.info(
            {
              finalStatus: chain.status,
              outcome: chain.outcome,
              disputed: job.disputer !== null,
              overturned: lastOutcome === "finalized-overturned",
            },
            "job: market final",
          );
          if (feedback === "done") return;
        }
        await this.publishFeedback(job, entry, seams);
        return;
      }
      default:
        throw new Error(`unexpected market status ${chain.status} for a ${job.state} job`);
    }
  }

  private async publishFeedback(job: JobRow, entry: Active, seams: MarketSeams): Promise<void> {
    let total = 0;
    for (let i = 0; i < FEEDBACK_BATCHES_PER_STEP; i++) {
      if (entry.abandoned || this.stopping) break;
      const { published, pending } = await seams.publishFeedback(job.marketId);
      total += published;
      if (pending === 0) {
        this.finish(job, entry, {
          state: "finalized",
          lastOutcome: "feedback-published",
          lastError: null,
          feedback: "done",
        });
        if (total > 0) this.log(job).info({ published: total }, "job: pending ERC-8004 feedback published");
        return;
      }
      if (published === 0) {
        // No progress (e.g. out of gas inside the batch): try again later rather than spend gas in a loop.
        this.finish(job, entry, {
          state: "finalized",
          lastOutcome: "feedback-stalled",
          lastError: `publishFeedback made no progress (${pending} seats left)`,
          feedback: "pending",
          nextAttemptAt: this.o.store.now() + this.o.watchIntervalMs,
        });
        this.log(job).warn({ pending }, "job: publishFeedback made no progress, will retry");
        return;
      }
    }
    this.finish(job, entry, { state: "finalized", lastOutcome: "feedback-publishing", feedback: "pending" });
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
