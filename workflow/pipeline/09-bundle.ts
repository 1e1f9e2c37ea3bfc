/**
 * Stage 9 — bundle: the canonical bundle (core/bundle.ts) over everything the run recorded, reviews
 * included, and the VerdictProposal for the settlement module (its bundleHash is this bundle's hash; every
 * verdict, invalid included, is a proposal). Pure: no latencies or clock values enter the document.
 */
import { buildBundle, type Bundle } from "../core/bundle.js";
import type { QuorumStatus } from "../core/quorum.js";
import type { EvaluationResult, MarketSnapshot, SettlementPlan, VerdictProposal, WorkerRecord } from "../core/types.js";
import type { VerdictDecision } from "../core/vote.js";
import type { ResolutionConfig } from "../ports.js";

export interface BundleStageResult {
  bundle: Bundle;
  /** Present when the run reached a decision. */
  proposal?: VerdictProposal;
  /**
   * Legacy (IResolutionMarket v1 `resolveMarket`): present only for a yes/no verdict, weights = the on-chain
   * reward weights of the reports. Goes away with the settlement module.
   */
  plan?: SettlementPlan;
}

export function bundleStage(
  market: MarketSnapshot,
  records: readonly WorkerRecord[],
  quorum: QuorumStatus,
  evaluation: EvaluationResult | undefined,
  decision: VerdictDecision | undefined,
  config: ResolutionConfig = {},
): BundleStageResult {
  const extra = config.bundleExtra !== undefined ? { extra: config.bundleExtra } : {};
  const bundle = buildBundle({
    market,
    records,
    quorum,
    ...(evaluation !== undefined ? { evaluation } : {}),
    ...(decision !== undefined ? { decision } : {}),
    ...extra,
  });
  if (decision === undefined) return { bundle };
  const proposal: VerdictProposal = {
    marketId: market.marketId,
    verdict: decision.verdict,
    reports: decision.reports.map((r) => ({ ...r })),
    bundleHash: bundle.hash,
  };
  if (decision.verdict === "invalid" || decision.rewardWeights === null) return { bundle, proposal };
  const plan: SettlementPlan = {
    marketId: market.marketId,
    workers: records.map((r) => r.seat.address),
    weights: decision.rewardWeights,
    scores: decision.reports.flatMap((r) => [r.resQuality, r.srcQuality, r.analysisDepth]),
    resolution: decision.verdict === "yes",
    bundleHash: bundle.hash,
  };
  return { bundle, proposal, plan };
}
