/**
 * Stage 8 — review: the computed resolution is shown, before it is written, to every answering worker
 * whose protocol adapter implements the optional `review` (today: round-table `/vote`), all at once.
 * Each verdict (approve/dissent, conditions) or failure is recorded on the worker's record and so in
 * the bundle (09-bundle.ts).
 *
 * Reviews are advisory: they never change the outcome, the weights or the scores (the vote already
 * happened on the evaluated answers; letting a reviewer veto would hand a single worker a cheap way to
 * stall every market). A failing or throwing reviewer is recorded and never stops the run. Only
 * resolved markets are reviewed: without a resolution there is nothing to approve. The deadline of each
 * call is the adapter's own (round-table: 120 s).
 */
import type { AdapterRegistry } from "../../protocols/shared/types.js";
import { anonymousFindings } from "../core/peers.js";
import {
  isAnswered,
  type MarketSnapshot,
  type ReviewProposal,
  type ReviewVerdict,
  type WorkerRecord,
} from "../core/types.js";
import type { VerdictDecision } from "../core/vote.js";
import { callWorkers, type ProgressListener, type WorkerCallPlan } from "./call-worker.js";

/** The proposal every reviewer sees (identical for all), or undefined when the market did not resolve. */
export function reviewProposal(
  market: MarketSnapshot,
  records: readonly WorkerRecord[],
  decision: VerdictDecision | undefined,
): ReviewProposal | undefined {
  if (decision === undefined || decision.outcome.kind !== "resolved") return undefined;
  const { yesWeight, noWeight, margin, yesVoters, noVoters } = decision.tally;
  const findings = anonymousFindings(records);
  return {
    ask: { marketId: market.marketId, question: market.question, deadline: market.deadline, context: market.context },
    resolution: decision.outcome.resolution,
    tally: { yesWeight, noWeight, margin, yesVoters, noVoters },
    findings,
  };
}

export async function reviewStage(
  market: MarketSnapshot,
  records: readonly WorkerRecord[],
  decision: VerdictDecision | undefined,
  adapters: AdapterRegistry,
  onProgress?: ProgressListener,
): Promise<WorkerRecord[]> {
  const proposal = reviewProposal(market, records, decision);
  if (proposal === undefined) return records.map((r) => ({ ...r }));
  return callWorkers(
    "review",
    records,
    (record): WorkerCallPlan<ReviewVerdict> => {
      if (!isAnswered(record)) return { skip: { ...record } };
      const { endpoint } = record;
      const adapter = adapters.get(endpoint.protocol);
      const review = adapter?.review;
      if (adapter === undefined || review === undefined) return { skip: { ...record } };
      return {
        adapter,
        invoke: () => review.call(adapter, endpoint, record.seat, proposal),
        apply: (result) =>
          result.ok
            ? { ...record, review: result.value, reviewLatencyMs: result.latencyMs }
            : { ...record, reviewFailure: result.failure, reviewLatencyMs: result.latencyMs },
      };
    },
    onProgress,
  );
}
