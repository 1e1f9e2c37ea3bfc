/**
 * Stage 7 — resolve: past reputation of the answering seats (ReputationSource port) and the
 * reputation-weighted vote (core/vote.ts). The bundle and the SettlementPlan are built after the
 * review stage (09-bundle.ts), so that the reviews are part of the hashed document.
 */
import type { QuorumStatus } from "../core/quorum.js";
import type { EvaluationResult, MarketSnapshot, PastReputation, WorkerRecord } from "../core/types.js";
import { decideResolution, type ResolutionDecision } from "../core/vote.js";
import type { ReputationSource, ResolutionConfig } from "../ports.js";
import { PipelineError } from "./errors.js";

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

/** The decision, or undefined when the run has no quorum or no evaluation (nothing to vote on). */
export async function resolveStage(
  _market: MarketSnapshot,
  records: readonly WorkerRecord[],
  quorum: QuorumStatus,
  evaluation: EvaluationResult | undefined,
  reputation: ReputationSource | undefined,
  config: ResolutionConfig = {},
): Promise<ResolutionDecision | undefined> {
  if (!quorum.reached || evaluation === undefined) return undefined;
  const past = await readReputation(records, reputation);
  return decideResolution(evaluation.evaluations, records, past, config.vote);
}
