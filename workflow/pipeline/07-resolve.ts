/**
 * Stage 7 — resolve: past reputation of the answering seats (ReputationSource port), the
 * reputation-weighted vote (core/vote.ts), the canonical bundle (core/bundle.ts) and, when the
 * market resolved, the SettlementPlan for the write stage.
 */
import { buildBundle, type Bundle } from "../core/bundle.js";
import type { QuorumStatus } from "../core/quorum.js";
import type { EvaluationResult, MarketSnapshot, PastReputation, SettlementPlan, WorkerRecord } from "../core/types.js";
import { decideResolution, type ResolutionDecision } from "../core/vote.js";
import type { ReputationSource, ResolutionConfig } from "../ports.js";
import { PipelineError } from "./errors.js";

export interface ResolveStageResult {
  decision?: ResolutionDecision;
  bundle: Bundle;
  plan?: SettlementPlan;
}

export async function readReputation(records: readonly WorkerRecord[], source: ReputationSource | undefined): Promise<Map<string, PastReputation>> {
  const map = new Map<string, PastReputation>();
  if (source === undefined) return map;
  const answered = records.filter((r) => r.answer !== undefined);
  let values: (PastReputation | undefined)[];
  try {
    values = await Promise.all(answered.map((r) => source.pastReputation(r.seat)));
  } catch (error) {
    // Reputation changes the weights: resolving without it would not be the configured vote.
    throw new PipelineError("resolve", "past reputation could not be read", error);
  }
  answered.forEach((r, i) => {
    const v = values[i];
    if (v !== undefined) map.set(r.seat.address, v);
  });
  return map;
}

export async function resolveStage(
  market: MarketSnapshot,
  records: readonly WorkerRecord[],
  quorum: QuorumStatus,
  evaluation: EvaluationResult | undefined,
  reputation: ReputationSource | undefined,
  config: ResolutionConfig = {},
): Promise<ResolveStageResult> {
  const extra = config.bundleExtra !== undefined ? { extra: config.bundleExtra } : {};
  if (!quorum.reached || evaluation === undefined) {
    return { bundle: buildBundle({ market, records, quorum, ...extra }) };
  }
  const past = await readReputation(records, reputation);
  const decision = decideResolution(evaluation.evaluations, records, past, config.vote);
  const bundle = buildBundle({ market, records, quorum, evaluation, decision, ...extra });
  if (decision.outcome.kind !== "resolved" || decision.weights === null) return { decision, bundle };
  const plan: SettlementPlan = {
    marketId: market.marketId,
    workers: records.map((r) => r.seat.address),
    weights: decision.weights,
    scores: decision.scores,
    resolution: decision.outcome.resolution,
    bundleHash: bundle.hash,
  };
  return { decision, bundle, plan };
}
