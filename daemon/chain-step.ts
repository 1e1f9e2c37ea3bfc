/**
 * The chain steps of a job (no pipeline run): send the stored proposal (`proposing`), then watch it — finalize
 * after the dispute window, escalate or concede on a dispute, publish pending ERC-8004 feedback. Every step reads
 * the market first; a failed send is retried or given up by the state machine, a failed watch is always retried.
 */
import type { Hex } from "../workflow/core/types.js";
import type { MarketOnChain, MarketSeams } from "./config.js";
import { type Active, type RunnerOptions, retryIn, type StepContext, storeFields } from "./job-step.js";
import { sanitizeError } from "./log.js";
import { adoptFromChain, finalVerdictOf, storedProposal } from "./proposals.js";
import type { JobRow } from "./store.js";

/** What a chain step works on: the job, its runner entry, its market's seams and the market as just read. */
interface ChainStepInput {
  ctx: StepContext;
  job: JobRow;
  entry: Active;
  seams: MarketSeams;
  chain: MarketOnChain;
}

/** publishFeedback batches per watch step (the next step continues). */
const FEEDBACK_BATCHES_PER_STEP = 20;

export async function chainStep(ctx: StepContext, job: JobRow, entry: Active): Promise<void> {
  const { o } = ctx;
  const log = ctx.log(job);
  const started = performance.now();
  const seams = ctx.seams(job);
  let chain: MarketOnChain | undefined;
  try {
    chain = await seams.read(job.marketId);
    const step = { ctx, job, entry, seams, chain };
    if (job.state === "proposing") await propose(step);
    else await watch(step);
  } catch (err) {
    const message = sanitizeError(err, o.secrets);
    o.metrics.recordRun("chain-error", (performance.now() - started) / 1000);
    if (o.store.isClosed || entry.abandoned) return;
    const reachable = await ctx.rpcReachable();
    if (job.state === "proposing") {
      const t = ctx.transition(job, { kind: reachable ? "error" : "rpc-unreachable" });
      if (t.state === "proposing") {
        ctx.finish(job, entry, {
          lastOutcome: reachable ? "propose-error" : "deferred",
          lastError: message,
          ...storeFields(t),
        });
        log.warn(
          { error: message, sendAttempts: job.sendAttempts, retryInMs: retryIn(t, o.store.now()) },
          "job: proposal not sent, will retry",
        );
      } else {
        ctx.finish(job, entry, { lastOutcome: "propose-error", lastError: message, ...storeFields(t) });
        log.error(
          { error: message },
          "job: proposal failed for good; needs an operator (POST /markets/:id/resolve re-queues)",
        );
      }
      return;
    }
    // Watching never gives up: the proposal's bond and the market's payouts depend on it. The state is the row's
    // as it is now (the trigger may have recorded a dispute meanwhile), or disputed when the chain says so.
    const current = o.store.getJobById(job.id) ?? job;
    const t = ctx.transition(current, { kind: "watch-error", disputedOnChain: chain?.status === "disputed" });
    // The chain already names the disputer even when the trigger has not seen the event yet (or escalating failed).
    const seen = chain?.status === "disputed" && current.disputer === null ? chain.proposal : undefined;
    const dispute = seen?.disputer ? { disputer: seen.disputer.toLowerCase(), claimed: seen.claimed ?? null } : {};
    ctx.finish(job, entry, {
      ...dispute,
      lastOutcome: current.lastOutcome ?? "watch-error",
      lastError: message,
      ...(current.feedback !== null ? { feedback: current.feedback } : {}),
      ...storeFields(t),
    });
    log.warn({ error: message, retryInMs: retryIn(t, o.store.now()) }, "job: chain step failed, will retry");
  }
}

async function propose(step: ChainStepInput): Promise<void> {
  const { ctx, job, entry, seams, chain } = step;
  const { o } = ctx;
  const log = ctx.log(job);
  if (chain.status !== "requested") {
    const adopted = adoptFromChain(seams.account, chain, (hash) => o.store.bundleByHash(hash) !== undefined);
    if (adopted) {
      const t = ctx.transition(job, { kind: "adopted", state: adopted.state });
      ctx.finish(job, entry, {
        ...adopted,
        ...storeFields(t),
        nextAttemptAt: nextWatch(o, adopted.disputeEndsAt ?? null, chain.chainTime),
      });
      log.info(
        { chainStatus: chain.status, state: adopted.state },
        "job: the chain moved on before our proposal was confirmed",
      );
      return;
    }
    throw new Error(`market is ${chain.status} on chain, cannot propose`);
  }
  const input = storedProposal(job);
  if (input.sentTx !== undefined)
    log.info({ txHash: input.sentTx }, "job: waiting for the proposal sent before, not sending another");
  const res = await seams.propose(job.marketId, input, {
    signal: entry.controller.signal,
    onSent: (txHash) => {
      if (!o.store.isClosed && !entry.abandoned) o.store.linkTx(job.id, txHash);
      log.info({ txHash }, "job: proposal sent");
    },
  });
  if ("kind" in res) {
    // The market moved on between our read and the send: the next step reads it again.
    ctx.finish(job, entry, {
      lastOutcome: "not-requested",
      lastError: null,
      ...storeFields(ctx.transition(job, { kind: "not-requested" })),
    });
    return;
  }
  const after = await seams.read(job.marketId);
  const ends = after.proposal?.disputeEndsAt ?? null;
  ctx.finish(job, entry, {
    ...storeFields(ctx.transition(job, { kind: "proposal-landed", disputed: after.status === "disputed" })),
    lastOutcome: "proposed",
    lastError: null,
    txHash: res.txHash,
    payload: null,
    ...(ends !== null ? { disputeEndsAt: ends } : {}),
    nextAttemptAt: nextWatch(o, ends, after.chainTime),
  });
  o.store.linkTx(job.id, res.txHash);
  o.metrics.recordRun("proposed", 0);
  log.info({ txHash: res.txHash, verdict: job.verdict, disputeEndsAt: ends }, "job: proposed, dispute window open");
}

/** Next chain check: when the window closes by the chain's clock, at most watchIntervalMs away. */
function nextWatch(o: RunnerOptions, disputeEndsAt: number | null, chainTime: number): number {
  const untilEnd = disputeEndsAt === null ? o.watchIntervalMs : Math.max(0, (disputeEndsAt - chainTime + 1) * 1000);
  return o.store.now() + Math.min(o.watchIntervalMs, untilEnd);
}

async function watch(step: ChainStepInput): Promise<void> {
  const { ctx, job, entry, seams, chain } = step;
  const { o } = ctx;
  const log = ctx.log(job);
  switch (chain.status) {
    case "proposed": {
      const ends = chain.proposal?.disputeEndsAt ?? job.disputeEndsAt ?? 0;
      if (chain.chainTime < ends) {
        ctx.finish(job, entry, {
          state: "proposed",
          lastOutcome: job.lastOutcome ?? "proposed",
          disputeEndsAt: ends,
          nextAttemptAt: nextWatch(o, ends, chain.chainTime),
        });
        return;
      }
      const res = await seams.finalize(job.marketId);
      if ("txHash" in res) {
        ctx.finish(job, entry, {
          state: "proposed",
          lastOutcome: "finalize-sent",
          lastError: null,
          finalizeTx: res.txHash,
        });
        log.info({ txHash: res.txHash }, "job: dispute window over, finalized");
      } else {
        ctx.finish(job, entry, {
          state: "proposed",
          lastOutcome: "finalize-not-needed",
          nextAttemptAt: o.store.now() + o.watchIntervalMs,
        });
      }
      return;
    }
    case "disputed": {
      const p = chain.proposal;
      const disputer = p?.disputer?.toLowerCase() ?? job.disputer;
      const claimed = p?.claimed ?? job.claimed;
      if (job.disputeAction === null) {
        log.warn({ disputer, claimed, verdict: job.verdict, policy: o.onDispute }, "job: our proposal is disputed");
        let action = "conceded";
        let txHash: Hex | undefined;
        if (o.onDispute === "escalate") {
          const r = await seams.escalate(job.marketId);
          action = r.action;
          txHash = r.txHash;
        }
        ctx.finish(job, entry, {
          ...storeFields(ctx.transition(job, { kind: "dispute-seen" })),
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
      ctx.finish(job, entry, {
        ...storeFields(ctx.transition(job, { kind: "dispute-seen" })),
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
        ctx.finish(job, entry, {
          ...storeFields(ctx.transition(job, { kind: "market-final", feedbackPending: feedback === "pending" })),
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
      await publishFeedback(ctx, job, entry, seams);
      return;
    }
    default:
      throw new Error(`unexpected market status ${chain.status} for a ${job.state} job`);
  }
}

async function publishFeedback(ctx: StepContext, job: JobRow, entry: Active, seams: MarketSeams): Promise<void> {
  const { o } = ctx;
  let total = 0;
  for (let i = 0; i < FEEDBACK_BATCHES_PER_STEP; i++) {
    if (entry.abandoned || ctx.stopping()) break;
    const { published, pending } = await seams.publishFeedback(job.marketId);
    total += published;
    if (pending === 0) {
      ctx.finish(job, entry, {
        state: "finalized",
        lastOutcome: "feedback-published",
        lastError: null,
        feedback: "done",
      });
      if (total > 0) ctx.log(job).info({ published: total }, "job: pending ERC-8004 feedback published");
      return;
    }
    if (published === 0) {
      // No progress (e.g. out of gas inside the batch): try again later rather than spend gas in a loop.
      ctx.finish(job, entry, {
        state: "finalized",
        lastOutcome: "feedback-stalled",
        lastError: `publishFeedback made no progress (${pending} seats left)`,
        feedback: "pending",
        nextAttemptAt: o.store.now() + o.watchIntervalMs,
      });
      ctx.log(job).warn({ pending }, "job: publishFeedback made no progress, will retry");
      return;
    }
  }
  ctx.finish(job, entry, { state: "finalized", lastOutcome: "feedback-publishing", feedback: "pending" });
}
