/**
 * Stage 9 — bundle: the canonical bundle (core/bundle.ts) over everything the run recorded, reviews
 * included, and, when the market resolved, the SettlementPlan for the write stage (its bundleHash is
 * this bundle's hash). Pure: no latencies or clock values enter the document.
 */
import { buildBundle, type Bundle } from "../core/bundle.js";
import type { QuorumStatus } from "../core/quorum.js";
import type { EvaluationResult, MarketSnapshot, SettlementPlan, WorkerRecord } from "../core/types.js";
import type { ResolutionDecision } from "../core/vote.js";
import type { ResolutionConfig } from "../ports.js";

export interface BundleStageResult {
  bundle: Bundle;
  /** Present only when the market resolved. */
  plan?: SettlementPlan;
}

export function bundleStage(
  market: MarketSnapshot,
  records: readonly WorkerRecord[],
  quorum: QuorumStatus,
  evaluation: EvaluationResult | undefined,
  decision: ResolutionDecision | undefined,
  config: ResolutionConfig = {},
): BundleStageResult {
  const extra = config.bundleExtra !== undefined ? { extra: config.bundleExtra } : {};
  if (decision === undefined || evaluation === undefined) {
    return { bundle: buildBundle({ market, records, quorum, ...extra }) };
  }
  const bundle = buildBundle({ market, records, quorum, evaluation, decision, ...extra });
  if (decision.outcome.kind !== "resolved" || decision.weights === null) return { bundle };
  const plan: SettlementPlan = {
    marketId: market.marketId,
    workers: records.map((r) => r.seat.address),
    weights: decision.weights,
    scores: decision.scores,
    resolution: decision.outcome.resolution,
    bundleHash: bundle.hash,
  };
  return { bundle, plan };
}
