/**
 * FROZEN COPY, for the before/after comparison of bench/integrity.ts only: the quality-weighted vote as it was
 * on `main` before issue 10 (git show main:workflow/core/vote.ts), import paths adjusted. Not used by the
 * resolver. Do not edit.
 */
/**
 * Reputation-weighted vote and settlement weights (pure, integer arithmetic, deterministic).
 *
 * Definitions (all documented choices; see also the tests in test/ts/core/vote.test.ts):
 *
 * - quality q of a worker = resQuality + srcQuality + analysisDepth of this round (integer 0..300,
 *   i.e. 3 × the mean of the 3 aggregates).
 * - reputation factor f (in basis points, 5000..15000 = 0.5..1.5):
 *     new agent (count 0)            → 10000 (neutral 1.0)
 *     otherwise, with m = mean of the 3 past averages (0..100, clamped) and k = min(count, 5):
 *                                       f = 10000 + round(((m·100 + 5000) − 10000) · k / 5)
 *   so a past mean of 50 is neutral, 100 gives 1.5 and 0 gives 0.5 once the agent has ≥ 5 past
 *   feedbacks; with fewer feedbacks the factor is shrunk linearly towards 1.0.
 * - vote weight = q × f (integer; "quality points × basis points"). Reported as
 *   yesWeight/noWeight = Σ q×f / 30000, i.e. Σ (mean quality 0..100) × (factor 0.5..1.5).
 * - margin = |yes − no| / (yes + no). The market resolves when yes+no > 0 and
 *   |yes − no| · 10000 ≥ minMarginBps · (yes + no) (inclusive, exact integer comparison).
 *   Default minMarginBps = 1000 (10 %).
 * - tie rule: an exact weighted tie (yes == no, including 0 == 0) never resolves, whatever
 *   minMarginBps is (even 0): outcome "no-margin". No tie-break by address, order or head count,
 *   which a Sybil could game.
 * - quorum: fewer than ⌈2n/3⌉ answering workers (n = frozen seat count) → "no-quorum".
 * - settlement weights (uint256, seat order, only when resolved):
 *     answered and agrees with the outcome    → max(1, q × 10)
 *     answered and disagrees with the outcome → q × 1
 *     did not answer (or was not evaluated)   → 0
 *   So for equal quality agreement earns 10× disagreement, and the sum of weights of a resolved
 *   market is always > 0 (at least one worker agreed with the outcome).
 * - on-chain scores (uint8, 3 per seat, flattened): the worker's aggregates; 0,0,0 for non-responders.
 */
import { requiredQuorum } from "../../workflow/core/quorum.js";
import type {
  Address,
  AggregateScores,
  PastReputation,
  ResolutionOutcome,
  WorkerEvaluation,
  WorkerRecord,
} from "../../workflow/core/types.js";

export interface VoteConfig {
  /** Minimum margin |yes−no|/(yes+no) in basis points to resolve. Default 1000 (10 %). */
  minMarginBps: number;
  /** Settlement multiplier for workers agreeing with the outcome. Default 10. */
  agreeMultiplier: number;
  /** Settlement multiplier for workers disagreeing with the outcome. Default 1. */
  disagreeMultiplier: number;
  /** Past feedback count at which the reputation factor reaches full effect. Default 5. */
  reputationFullCount: number;
}

export const DEFAULT_VOTE_CONFIG: Readonly<VoteConfig> = Object.freeze({
  minMarginBps: 1000,
  agreeMultiplier: 10,
  disagreeMultiplier: 1,
  reputationFullCount: 5,
});

export const NEUTRAL_FACTOR_BPS = 10_000;
export const MIN_FACTOR_BPS = 5_000;
export const MAX_FACTOR_BPS = 15_000;

export interface VoterBreakdown {
  address: Address;
  /** Index of the seat in the frozen worker set. */
  seat: number;
  answered: boolean;
  /** Present for answering, evaluated workers. */
  determination?: boolean;
  /** resQuality + srcQuality + analysisDepth (0..300); 0 for non-responders. */
  quality: number;
  reputationFactorBps: number;
  /** Past reputation used (absent = none known, treated as new). */
  pastReputation?: PastReputation;
  /** quality × reputationFactorBps. */
  voteWeight: number;
  /** Settlement weight; 0n unless resolved and answered. */
  settlementWeight: bigint;
  /** Why the worker did not vote, if it did not. */
  excludedReason?: string;
}

export interface Tally {
  /** Σ quality × factor over YES voters, in units of (mean quality × factor), i.e. raw / 30000. */
  yesWeight: number;
  noWeight: number;
  /** |yes−no|/(yes+no); 0 when there are no votes. */
  margin: number;
  /** Raw integer sums (quality × basis points). */
  yesRaw: number;
  noRaw: number;
  yesVoters: number;
  noVoters: number;
}

export interface ResolutionDecision {
  outcome: ResolutionOutcome;
  tally: Tally;
  /** One per seat, in seat order. */
  voters: VoterBreakdown[];
  /** SettlementPlan.weights (seat order) when resolved; null otherwise. */
  weights: bigint[] | null;
  /** SettlementPlan.scores: 3 per seat, flattened, seat order; zeros for non-responders. */
  scores: number[];
  config: VoteConfig;
}

const lower = (a: string): string => a.toLowerCase();

function clampInt(v: unknown, lo: number, hi: number): number {
  const n = typeof v === "number" && Number.isFinite(v) ? v : 0;
  return Math.min(hi, Math.max(lo, Math.round(n)));
}

function qualityOf(a: AggregateScores): number {
  return clampInt(a.resQuality, 0, 100) + clampInt(a.srcQuality, 0, 100) + clampInt(a.analysisDepth, 0, 100);
}

/** Reputation factor in basis points (see module doc). Pure. */
export function reputationFactorBps(
  past: PastReputation | undefined,
  fullCount: number = DEFAULT_VOTE_CONFIG.reputationFullCount,
): number {
  if (!past) return NEUTRAL_FACTOR_BPS;
  const count = typeof past.count === "number" && Number.isFinite(past.count) ? Math.floor(past.count) : 0;
  if (count <= 0) return NEUTRAL_FACTOR_BPS;
  const full = Math.max(1, Math.floor(fullCount));
  const k = Math.min(count, full);
  const sum =
    clampInt(past.resQuality, 0, 100) + clampInt(past.srcQuality, 0, 100) + clampInt(past.analysisDepth, 0, 100);
  // (m·100 + 5000 − 10000) with m = sum/3  →  (sum·100 − 15000)/3 ; times k/full.
  const delta = Math.round(((sum * 100 - 15_000) * k) / (3 * full));
  return Math.min(MAX_FACTOR_BPS, Math.max(MIN_FACTOR_BPS, NEUTRAL_FACTOR_BPS + delta));
}

function resolveConfig(config: Partial<VoteConfig> | undefined): VoteConfig {
  const c = { ...DEFAULT_VOTE_CONFIG, ...(config ?? {}) };
  const intIn = (v: number, lo: number, hi: number, name: string): number => {
    if (!Number.isInteger(v) || v < lo || v > hi)
      throw new RangeError(`vote config ${name} must be an integer in [${lo}, ${hi}], got ${v}`);
    return v;
  };
  return {
    minMarginBps: intIn(c.minMarginBps, 0, 10_000, "minMarginBps"),
    agreeMultiplier: intIn(c.agreeMultiplier, 1, 1_000_000, "agreeMultiplier"),
    disagreeMultiplier: intIn(c.disagreeMultiplier, 0, 1_000_000, "disagreeMultiplier"),
    reputationFullCount: intIn(c.reputationFullCount, 1, 1_000_000, "reputationFullCount"),
  };
}

/**
 * Decides the market from the evaluations.
 * @param evaluations   evaluations of answering workers (matched to seats by address, case-insensitive)
 * @param records       ALL seats of the frozen worker set, in on-chain order (answer present = answered)
 * @param pastReputation past reputation per worker address (case-insensitive); missing = new agent
 */
export function decideResolution(
  evaluations: ReadonlyArray<WorkerEvaluation>,
  records: ReadonlyArray<Pick<WorkerRecord, "seat" | "answer">>,
  pastReputation: ReadonlyMap<string, PastReputation> = new Map(),
  config?: Partial<VoteConfig>,
): ResolutionDecision {
  const cfg = resolveConfig(config);
  const evalByAddr = new Map<string, WorkerEvaluation>();
  for (const e of evaluations) if (!evalByAddr.has(lower(e.address))) evalByAddr.set(lower(e.address), e);
  const repByAddr = new Map<string, PastReputation>();
  for (const [k, v] of pastReputation) repByAddr.set(lower(k), v);

  const seen = new Set<string>();
  const voters: VoterBreakdown[] = records.map((r, i) => {
    const key = lower(r.seat.address);
    const past = repByAddr.get(key);
    const factor = reputationFactorBps(past, cfg.reputationFullCount);
    const base: VoterBreakdown = {
      address: r.seat.address,
      seat: i,
      answered: r.answer !== undefined,
      quality: 0,
      reputationFactorBps: factor,
      voteWeight: 0,
      settlementWeight: 0n,
      ...(past ? { pastReputation: past } : {}),
    };
    if (seen.has(key)) return { ...base, answered: false, excludedReason: "duplicate seat address" };
    seen.add(key);
    if (r.answer === undefined) return { ...base, excludedReason: "no valid answer" };
    const ev = evalByAddr.get(key);
    if (!ev) return { ...base, excludedReason: "answer not evaluated" };
    const quality = qualityOf(ev.aggregate);
    return { ...base, determination: r.answer.determination === true, quality, voteWeight: quality * factor };
  });

  const scores: number[] = [];
  for (const v of voters) {
    const ev = v.answered && v.determination !== undefined ? evalByAddr.get(lower(v.address)) : undefined;
    if (ev)
      scores.push(
        clampInt(ev.aggregate.resQuality, 0, 100),
        clampInt(ev.aggregate.srcQuality, 0, 100),
        clampInt(ev.aggregate.analysisDepth, 0, 100),
      );
    else scores.push(0, 0, 0);
  }

  let yesRaw = 0;
  let noRaw = 0;
  let yesVoters = 0;
  let noVoters = 0;
  for (const v of voters) {
    if (v.determination === undefined) continue;
    if (v.determination) {
      yesRaw += v.voteWeight;
      yesVoters += 1;
    } else {
      noRaw += v.voteWeight;
      noVoters += 1;
    }
  }
  const total = yesRaw + noRaw;
  const diff = Math.abs(yesRaw - noRaw);
  const margin = total > 0 ? diff / total : 0;
  const tally: Tally = {
    yesWeight: yesRaw / 30_000,
    noWeight: noRaw / 30_000,
    margin,
    yesRaw,
    noRaw,
    yesVoters,
    noVoters,
  };

  const answered = yesVoters + noVoters;
  const required = requiredQuorum(records.length);
  if (records.length === 0 || answered < required) {
    return { outcome: { kind: "no-quorum", answered, required }, tally, voters, weights: null, scores, config: cfg };
  }
  const resolvable = total > 0 && yesRaw !== noRaw && diff * 10_000 >= cfg.minMarginBps * total;
  if (!resolvable) {
    return {
      outcome: { kind: "no-margin", yesWeight: tally.yesWeight, noWeight: tally.noWeight, margin },
      tally,
      voters,
      weights: null,
      scores,
      config: cfg,
    };
  }
  const resolution = yesRaw > noRaw;
  const weights: bigint[] = voters.map((v) => {
    if (v.determination === undefined) return 0n;
    if (v.determination === resolution) return BigInt(Math.max(1, v.quality * cfg.agreeMultiplier));
    return BigInt(v.quality * cfg.disagreeMultiplier);
  });
  voters.forEach((v, i) => {
    v.settlementWeight = weights[i];
  });
  return { outcome: { kind: "resolved", resolution }, tally, voters, weights, scores, config: cfg };
}
