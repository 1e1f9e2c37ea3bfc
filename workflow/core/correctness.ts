/**
 * Exact integer mirrors of the on-chain scoring of IResolutionMarket v2, and the mapping of a pipeline
 * WorkerRecord to the WorkerReport a proposal posts. Pure.
 *
 * - correctness of a Yes/No answer with confidence c (basis points, 5000..10000) against outcome o:
 *     d = right ? 10000 − c : c;   correctness = 100 − ⌊(d² + 500 000) / 1 000 000⌋
 *   i.e. 100·(1 − Brier) rounded half up (Brier = (d/10000)²). A failed seat scores 0; an abstention is
 *   not scored (`correctnessOf` returns 0 for it, `isScored` tells the difference).
 * - reward weight of a seat at a Resolved finalization: Yes/No answer, not slashed, not refused →
 *     w = correctness × (600 + correctness + srcQuality + analysisDepth);   everyone else 0.
 *   The contract takes Resolution Quality to be the seat's correctness (the report's resQuality is not used).
 *   So a confidently wrong answer (correctness 0) earns nothing, and argument quality scales a
 *   correct answer's share by at most 1.5× (600..900).
 */
import { toIntScore } from "./aggregate.js";
import type { AnswerKind, AnsweredWorkerRecord, FailedWorkerRecord, WorkerEvaluation, WorkerReport } from "./types.js";

export const BPS = 10_000;
export const MIN_CONFIDENCE_BPS = 5_000;
/** Base of the reward weight's quality factor (600 + three scores of 0..100). */
export const REWARD_QUALITY_BASE = 600;

function checkBps(confidenceBps: number): void {
  if (!Number.isInteger(confidenceBps) || confidenceBps < MIN_CONFIDENCE_BPS || confidenceBps > BPS) {
    throw new RangeError(`confidenceBps must be an integer in [${MIN_CONFIDENCE_BPS}, ${BPS}], got ${confidenceBps}`);
  }
}

/** Whether the answer counts in correctness and reputation (abstentions do not). */
export function isScored(answer: AnswerKind): boolean {
  return answer !== "abstained";
}

/** Mirror of `correctnessOf(Answer, uint16, bool)`: 0..100. Throws RangeError for a Yes/No confidence outside [5000, 10000]. */
export function correctnessOf(answer: AnswerKind, confidenceBps: number, outcome: boolean): number {
  if (answer !== "yes" && answer !== "no") return 0;
  checkBps(confidenceBps);
  const right = (answer === "yes") === outcome;
  const d = right ? BPS - confidenceBps : confidenceBps;
  return 100 - Math.floor((d * d + 500_000) / 1_000_000);
}

export interface RewardFlags {
  /** The seat lost its stake in a disputed market (its answer differed from the arbiter's verdict). */
  slashed?: boolean;
  /** The market is an authorized operator of the agent: feedback refused, reward weight 0. */
  refused?: boolean;
}

/** Mirror of the on-chain reward weight of one seat at a Resolved finalization with `outcome`. */
export function rewardWeight(report: WorkerReport, outcome: boolean, flags: RewardFlags = {}): bigint {
  if (report.answer !== "yes" && report.answer !== "no") return 0n;
  if (flags.slashed === true || flags.refused === true) return 0n;
  const c = correctnessOf(report.answer, report.confidenceBps, outcome);
  // Resolution Quality = correctness at finalization (docs/RECORDS.md §2), whatever the report's resQuality says.
  return BigInt(c * (REWARD_QUALITY_BASE + c + report.srcQuality + report.analysisDepth));
}

/** Reward weights of all seats (seat order) if the market finalizes Resolved with `outcome`. */
export function rewardWeights(reports: readonly WorkerReport[], outcome: boolean): bigint[] {
  return reports.map((r) => rewardWeight(r, outcome));
}

/** Stated confidence in [0, 1] → basis points clamped to [5000, 10000] (non-finite → 5000). */
export function confidenceToBps(confidence: number): number {
  if (typeof confidence !== "number" || !Number.isFinite(confidence)) return MIN_CONFIDENCE_BPS;
  return Math.min(BPS, Math.max(MIN_CONFIDENCE_BPS, Math.round(confidence * BPS)));
}

/**
 * The WorkerReport of one seat: an answer → yes/no with its confidence in bps (clamped to [5000, 10000]: a
 * stated confidence below one half still means "my answer is more likely right than not") and the 3 scores of
 * its evaluation (0 when it was not evaluated); an "abstained" failure → abstained; anything else → failed.
 * Scores and confidence are 0 unless the seat answered, as the contract requires.
 */
export function reportFromRecord(
  record: Pick<AnsweredWorkerRecord, "answer"> | Pick<FailedWorkerRecord, "answer" | "askFailure">,
  evaluation?: Pick<WorkerEvaluation, "aggregate">,
): WorkerReport {
  if (record.answer !== undefined) {
    const a = record.answer;
    const agg = evaluation?.aggregate;
    return {
      answer: a.determination === true ? "yes" : "no",
      confidenceBps: confidenceToBps(a.confidence),
      resQuality: agg ? toIntScore(agg.resQuality) : 0,
      srcQuality: agg ? toIntScore(agg.srcQuality) : 0,
      analysisDepth: agg ? toIntScore(agg.analysisDepth) : 0,
    };
  }
  const answer: AnswerKind = record.askFailure?.kind === "abstained" ? "abstained" : "failed";
  return { answer, confidenceBps: 0, resQuality: 0, srcQuality: 0, analysisDepth: 0 };
}
