/**
 * The verdict: answers weighed by the log-odds of each agent's estimated accuracy (pure, deterministic).
 * Text quality never enters; it only scales rewards, on-chain (see correctness.ts).
 *
 * 1. Accuracy: `estimateAccuracy` (accuracy.ts) over the public track record of markets finalized before this
 *    one; an answer's accuracy is the agent's calibrated accuracy at its stated confidence.
 * 2. Weight of a proven agent (≥ `minHistory` yes/no answers in the record): w = max(0, θ'), θ' its log-odds
 *    accuracy logit(accuracy) after empirical-Bayes shrinkage (`shrinkageOf`): θ' = θ̄ + (θ − θ̄)·τ²/(τ² + V),
 *    θ̄ the panel's mean, τ² the spread of the panel's estimates beyond their noise, V the variance of this
 *    agent's estimate (accuracy.ts, observed information). A well-identified agent keeps its estimate; agents
 *    the record cannot tell apart (a 3-agent panel whose two good agents disagree) are weighed alike.
 *    Divided by the number of its clone group's members voting here (identical histories count once). The
 *    weight is the log-likelihood ratio for independent voters, never negative (a bad agent is ignored, not
 *    inverted, so nobody can move the verdict by being reliably wrong on purpose).
 * 3. Unproven agents (fewer than `minHistory`) vote as ONE bloc: their head-count majority with the weight of
 *    one unknown voter, logit(`unprovenAccuracy`) (0 on a bloc tie). Twenty fresh agents weigh like one.
 * 4. Log-odds S = Σ w over yes − Σ w over no (truth prior ½); P(yes) = σ(S); the winning side is sign(S) and
 *    its posterior σ(|S|).
 * 5. Verdict: fewer than ⌈2n/3⌉ yes/no answers (n = seats) → invalid "no-quorum"; S = 0 → invalid "tie";
 *    posterior < threshold → invalid "below-threshold"; otherwise the winning side.
 *
 * The threshold (default 0.6). For even stakes a wrong resolution costs the rightful winners stake and winnings,
 * an Invalid refund only the winnings: resolving is the better bet as soon as the market is more likely right
 * than not. The posterior overstates that with estimated weights, hence the margin: in `npm run bench:integrity`
 * markets with posterior 0.6–0.7 are right 64–79 % of the time on the 3-, 7- and 10-agent panels (worth
 * resolving), those at 0.5–0.6 46–65 % on the 7-agent panel with colluders (about break-even; resolving them
 * takes its wrong rate above the issue's 8 %). A proposal is also contestable during the dispute window (a wrong verdict disputed is
 * overturned by the arbiter, the proposer losing its bond; an Invalid proposal is disputable too), which is what
 * lets the resolver be this decisive; a deployment with a short window or a weak arbiter should raise
 * `thresholdBps` (0.7: fewer wrong, more invalid markets). The unproven bloc's posterior is the prior accuracy
 * (0.7 ≥ 0.6), so a panel of fresh agents resolves by head count (the dispute window is its safety net); set
 * `unprovenAccuracy` below the threshold never to resolve on unproven agents alone. See docs/TRUTH.md.
 */
import { bundleHash, canonicalJson } from "./canonical-json.js";
import {
  calibratedAccuracy,
  estimateAccuracy,
  logit,
  type AccuracyConfig,
  type AccuracyEstimate,
  type AgentAccuracy,
} from "./accuracy.js";
import { admittedHistory, type Admission } from "./admission.js";
import { fragileCoalition } from "./coalition.js";
import { rewardWeights } from "./correctness.js";
import { requiredQuorum } from "./quorum.js";
import type { AnswerKind, Hex, HistoryMarket, ResolutionOutcome, VerdictKind, WorkerReport } from "./types.js";
import { mustGet } from "../util/must.js";

export interface VerdictConfig {
  /** Posterior of the winning side needed to resolve, in bps (5000..10000). Default 6000. */
  thresholdBps: number;
  /** Yes/no answers in the track record before an agent votes on its own. Default 3. */
  minHistory: number;
  /** Accuracy of the one unknown voter the unproven bloc counts as. Default: the prior mean (0.7). */
  unprovenAccuracy: number;
  /** Empirical-Bayes shrinkage of the proven agents' log-odds by how well the record identifies each. Default true. */
  shrinkage: boolean;
  /**
   * No coalition decides alone: the verdict must survive the defection of the `coalitionK` heaviest agents on its
   * side (0: not checked) and of every dependent group on its side (agents linked by d ≥ `coalitionDependence`;
   * 1: clones only). Where the rest of the panel then favours the other side, the verdict is invalid "fragile".
   */
  coalitionK: number;
  coalitionDependence: number;
  /**
   * For the `coalitionK` heaviest: the posterior (bps) the rest of the panel must reach for the other side before
   * they count as deciding alone (dependent groups: the threshold). Default 9000: heavy honest agents outvoting a
   * weak rest is the norm; heavy agents outvoting a confident rest is how a spent record strikes.
   */
  coalitionRestBps: number;
  /**
   * For dependent groups: the posterior (bps) the rest must reach for the other side (5000: merely leaning the
   * other way). Default: the threshold.
   */
  coalitionGroupRestBps?: number;
  /** Accuracy estimation parameters. */
  accuracy: AccuracyConfig;
}

export const DEFAULT_THRESHOLD_BPS = 6_000;
export const DEFAULT_MIN_HISTORY = 3;

export const DEFAULT_COALITION_K = 2;
export const DEFAULT_COALITION_REST_BPS = 9_000;
export const DEFAULT_COALITION_DEPENDENCE = 0.3;

export type InvalidReason = "no-quorum" | "below-threshold" | "tie" | "fragile";

/** Why a verdict was found fragile: the coalition whose defection turns the rest of the panel against it. */
export interface Fragility {
  /** Agent ids of the coalition (seat order). */
  coalition: bigint[];
  /** Log-odds S of the rest of the panel (+ towards yes). */
  restLogOdds: number;
}

export interface VoterBreakdown {
  seat: number;
  agentId: bigint;
  answer: AnswerKind;
  confidenceBps: number;
  /** Yes/no answers of the agent in the track record. */
  history: number;
  /** Estimated accuracy (all confidences). */
  accuracy: number;
  /** Accuracy of its confidence bin (what the weight uses). */
  calibratedAccuracy: number;
  /** Signed-free weight: log-odds units this seat adds to its side (0 for unproven seats: see `bloc`). */
  weight: number;
  unproven: boolean;
  cloneGroup?: bigint;
  excludedReason?: string;
}

export interface UnprovenBloc {
  voters: number;
  yes: number;
  no: number;
  side: "yes" | "no" | null;
  weight: number;
}

/** The review stage's view of the vote (weights in log-odds units). */
export interface Tally {
  yesWeight: number;
  noWeight: number;
  margin: number;
  yesVoters: number;
  noVoters: number;
}

export interface VerdictDecision {
  verdict: VerdictKind;
  /** Why the verdict is invalid (absent for yes/no). */
  reason?: InvalidReason;
  /** P(winning side) (½ on a tie or without votes). */
  posterior: number;
  /** S: + towards yes. */
  logOdds: number;
  thresholdBps: number;
  quorum: { n: number; required: number; answered: number };
  /** One per seat, seat order. */
  voters: VoterBreakdown[];
  bloc: UnprovenBloc;
  /** The shrinkage applied to the proven weights (absent when off or with fewer than 2 proven voters' groups). */
  shrinkage?: Shrinkage;
  /** Present when the verdict is invalid "fragile". */
  fragility?: Fragility;
  /** The proposal's reports, seat order. */
  reports: WorkerReport[];
  /** On-chain reward weights if the verdict finalizes as proposed (yes/no); null for invalid. */
  rewardWeights: bigint[] | null;
  /** The estimates used (panel agents). */
  estimate: AccuracyEstimate;
  /** The track record given: market count and keccak256 of its canonical JSON (to check a recomputation's input). */
  history: { markets: number; hash: Hex };
  config: VerdictConfig;
  /** Legacy view for callers of the old vote: resolved / no-quorum / no-margin (below-threshold, tie). */
  outcome: ResolutionOutcome;
  tally: Tally;
}

export interface VerdictInput {
  /** The panel's agent ids, seat order. */
  agentIds: readonly bigint[];
  /** One per seat, seat order (correctness.ts reportFromRecord). */
  reports: readonly WorkerReport[];
  /** Finalized markets before this one, oldest first. */
  history: readonly HistoryMarket[];
  /** The admission filter for "proven" (absent: every yes/no answer in the record counts). */
  admission?: Admission;
}

export interface VerdictConfigInput extends Partial<Omit<VerdictConfig, "accuracy">> {
  accuracy?: Partial<AccuracyConfig>;
}

export function resolveVerdictConfig(config: VerdictConfigInput | undefined, accuracy: AccuracyConfig): VerdictConfig {
  const c = config ?? {};
  const thresholdBps = c.thresholdBps ?? DEFAULT_THRESHOLD_BPS;
  const minHistory = c.minHistory ?? DEFAULT_MIN_HISTORY;
  const unprovenAccuracy = c.unprovenAccuracy ?? accuracy.priorAccuracy;
  if (!Number.isInteger(thresholdBps) || thresholdBps < 5_000 || thresholdBps > 10_000)
    throw new RangeError(`thresholdBps must be an integer in [5000, 10000], got ${thresholdBps}`);
  if (!Number.isInteger(minHistory) || minHistory < 0 || minHistory > 1e9)
    throw new RangeError(`minHistory must be a non-negative integer, got ${minHistory}`);
  if (typeof unprovenAccuracy !== "number" || !(unprovenAccuracy >= 0.5 && unprovenAccuracy <= 0.99))
    throw new RangeError(`unprovenAccuracy must be in [0.5, 0.99], got ${unprovenAccuracy}`);
  const shrinkage = c.shrinkage ?? true;
  if (typeof shrinkage !== "boolean") throw new RangeError(`shrinkage must be a boolean, got ${String(shrinkage)}`);
  const coalitionK = c.coalitionK ?? DEFAULT_COALITION_K;
  if (!Number.isInteger(coalitionK) || coalitionK < 0 || coalitionK > 1000)
    throw new RangeError(`coalitionK must be an integer in [0, 1000], got ${coalitionK}`);
  const coalitionDependence = c.coalitionDependence ?? DEFAULT_COALITION_DEPENDENCE;
  if (typeof coalitionDependence !== "number" || !(coalitionDependence > 0 && coalitionDependence <= 1))
    throw new RangeError(`coalitionDependence must be in (0, 1], got ${coalitionDependence}`);
  const coalitionRestBps = c.coalitionRestBps ?? DEFAULT_COALITION_REST_BPS;
  if (!Number.isInteger(coalitionRestBps) || coalitionRestBps < 5_000 || coalitionRestBps >= 10_000)
    throw new RangeError(`coalitionRestBps must be an integer in [5000, 10000), got ${coalitionRestBps}`);
  return {
    thresholdBps,
    minHistory,
    unprovenAccuracy,
    shrinkage,
    coalitionK,
    coalitionDependence,
    coalitionRestBps,
    ...(c.coalitionGroupRestBps !== undefined ? { coalitionGroupRestBps: c.coalitionGroupRestBps } : {}),
    accuracy,
  };
}

export interface Shrinkage {
  /** θ̄: mean log-odds accuracy of the panel's proven agents (a clone group once). */
  mean: number;
  /** τ²: their spread beyond estimation noise (variance of θ minus the mean of the V_a), floored at 1e-6. */
  between: number;
  /** Proven agents (clone groups) it was computed from. */
  groups: number;
}

/**
 * Empirical-Bayes (James–Stein) shrinkage of the panel's proven log-odds accuracies: θ' = θ̄ + (θ − θ̄)·τ²/(τ² + V_a),
 * V_a = the variance of agent a's log-odds from the estimate (`AccuracyEstimate.covariance`). A well-identified
 * agent (small V) keeps its estimate; one the record cannot pin down moves towards the panel's mean; when the
 * spread of the estimates is no larger than their noise (τ² ≈ 0) the agents are treated alike and the vote
 * becomes a head count at their common accuracy. Needs ≥ 2 proven groups on the panel (else undefined).
 */
export function shrinkageOf(
  estimate: AccuracyEstimate,
  agentIds: readonly bigint[],
  proven: (a: AgentAccuracy) => boolean,
): (Shrinkage & { apply: (id: bigint, theta: number) => number }) | undefined {
  const row = new Map(estimate.agents.map((a, i) => [a.agentId, i]));
  const byRow = new Map(estimate.agents.map((a, i) => [i, a]));
  const variance = (i: number): number => estimate.covariance[i]?.[i] ?? 0;
  const groups = new Set<bigint>();
  const idx: number[] = [];
  for (const id of agentIds) {
    const i = mustGet(row, id);
    const a = mustGet(byRow, i);
    const g = a.cloneGroup ?? a.agentId;
    if (!proven(a) || groups.has(g)) continue;
    groups.add(g);
    idx.push(i);
  }
  if (idx.length < 2) return undefined;
  const th = idx.map((i) => logit(mustGet(byRow, i).accuracy));
  const mean = q6(th.reduce((s, x) => s + x, 0) / th.length);
  const spread = th.reduce((s, x) => s + (x - mean) ** 2, 0) / (th.length - 1);
  const noise = idx.reduce((s, i) => s + variance(i), 0) / idx.length;
  const between = q6(Math.max(1e-6, spread - noise));
  const apply = (id: bigint, theta: number): number => {
    const v = variance(mustGet(row, id));
    return mean + ((theta - mean) * between) / (between + v);
  };
  return { mean, between, groups: idx.length, apply };
}

const sigmoid = (x: number): number => (x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x)));
const q6 = (x: number): number => Math.round(x * 1e6) / 1e6;

/** Market count and keccak256 of the canonical JSON of the track record (answers as given, in order). */
export function historyDigest(history: readonly HistoryMarket[]): { markets: number; hash: Hex } {
  const doc = history.map((m) => ({
    key: m.key,
    final: m.final,
    disputed: m.disputed === true,
    answers: m.answers.map((a) => ({ agentId: a.agentId, answer: a.answer, confidenceBps: a.confidenceBps })),
  }));
  return { markets: history.length, hash: bundleHash(canonicalJson(doc)) };
}

/**
 * Decides the verdict of one market from its reports and the public track record. Deterministic: same input,
 * same decision (estimates and weights rounded to 1e-6, sums in seat order).
 */
export function decideVerdict(input: VerdictInput, config?: VerdictConfigInput): VerdictDecision {
  const { agentIds, reports } = input;
  if (agentIds.length !== reports.length)
    throw new RangeError(`${agentIds.length} agent ids for ${reports.length} reports`);
  // Admission (docs/RECORDS.md §5): only the markets that count for an agent enter its estimate and its history.
  const record = input.admission !== undefined ? admittedHistory(input.history, input.admission) : input.history;
  const estimate = estimateAccuracy(record, agentIds, config?.accuracy);
  const cfg = resolveVerdictConfig(config, estimate.config);
  const byId = new Map<bigint, AgentAccuracy>(estimate.agents.map((a) => [a.agentId, a]));

  const historyOf = (a: AgentAccuracy): number => a.count;
  const shrink = cfg.shrinkage ? shrinkageOf(estimate, agentIds, (a) => historyOf(a) >= cfg.minHistory) : undefined;
  const seen = new Set<bigint>();
  const voters: VoterBreakdown[] = reports.map((r, seat) => {
    const id = agentIds[seat] ?? 0n; // lengths checked above
    const est = mustGet(byId, id);
    const votes = r.answer === "yes" || r.answer === "no";
    const cal = votes ? calibratedAccuracy(est, r.confidenceBps) : est.accuracy;
    const v: VoterBreakdown = {
      seat,
      agentId: id,
      answer: r.answer,
      confidenceBps: r.confidenceBps,
      history: historyOf(est),
      accuracy: est.accuracy,
      calibratedAccuracy: cal,
      weight: 0,
      unproven: historyOf(est) < cfg.minHistory,
      ...(est.cloneGroup !== undefined ? { cloneGroup: est.cloneGroup } : {}),
    };
    if (seen.has(id)) return { ...v, excludedReason: "duplicate agent" };
    seen.add(id);
    if (!votes) return { ...v, excludedReason: r.answer };
    if (!v.unproven) v.weight = q6(Math.max(0, shrink !== undefined ? shrink.apply(id, logit(cal)) : logit(cal)));
    return v;
  });

  // Dependent voters on the same side share their weight: each is divided by 1 + Σ d over the others (clones,
  // d = 1, count once; independent voters, d = 0, fully).
  const dep = new Map<string, number>();
  for (const e of estimate.dependence) dep.set(`${e.a}:${e.b}`, e.d);
  const dependence = (a: bigint, b: bigint): number =>
    a === b ? 1 : (dep.get(a < b ? `${a}:${b}` : `${b}:${a}`) ?? 0);
  // Coalitions group by either kind of dependence: long-run agreement or recent shared errors.
  const errDep = new Map<string, number>();
  for (const e of estimate.sharedErrors) errDep.set(`${e.a}:${e.b}`, e.d);
  const grouping = (a: bigint, b: bigint): number =>
    Math.max(dependence(a, b), a === b ? 1 : (errDep.get(a < b ? `${a}:${b}` : `${b}:${a}`) ?? 0));
  const weighted = voters.filter((v) => v.weight > 0);
  const divisors = weighted.map((v) =>
    weighted.reduce((t, u) => (u !== v && u.answer === v.answer ? t + dependence(v.agentId, u.agentId) : t), 1),
  );
  weighted.forEach((v, i) => {
    v.weight = q6(v.weight / (divisors[i] ?? 1));
  });

  const bloc: UnprovenBloc = { voters: 0, yes: 0, no: 0, side: null, weight: 0 };
  let yesWeight = 0;
  let noWeight = 0;
  let yesVoters = 0;
  let noVoters = 0;
  for (const v of voters) {
    if (v.excludedReason !== undefined) continue;
    if (v.answer === "yes") yesVoters += 1;
    else noVoters += 1;
    if (v.unproven) {
      bloc.voters += 1;
      if (v.answer === "yes") bloc.yes += 1;
      else bloc.no += 1;
    } else if (v.answer === "yes") yesWeight += v.weight;
    else noWeight += v.weight;
  }
  if (bloc.yes !== bloc.no) {
    bloc.side = bloc.yes > bloc.no ? "yes" : "no";
    bloc.weight = q6(Math.max(0, logit(cfg.unprovenAccuracy)));
    if (bloc.side === "yes") yesWeight += bloc.weight;
    else noWeight += bloc.weight;
  }
  yesWeight = q6(yesWeight);
  noWeight = q6(noWeight);
  const logOdds = q6(yesWeight - noWeight);
  const posterior = q6(sigmoid(Math.abs(logOdds)));
  const total = yesWeight + noWeight;
  const tally: Tally = {
    yesWeight,
    noWeight,
    margin: total > 0 ? Math.abs(yesWeight - noWeight) / total : 0,
    yesVoters,
    noVoters,
  };

  const answered = yesVoters + noVoters;
  const quorum = { n: reports.length, required: requiredQuorum(reports.length), answered };
  const coalition = fragileCoalition(
    voters.map((v) => ({
      agentId: v.agentId,
      sign: v.answer === "yes" ? 1 : -1,
      weight: v.excludedReason === undefined && !v.unproven ? v.weight : 0,
    })),
    logOdds,
    cfg.coalitionK,
    cfg.coalitionDependence,
    grouping,
    bloc.side !== null && (bloc.side === "yes") !== logOdds > 0 ? 1 : 0,
    logit((cfg.coalitionGroupRestBps ?? cfg.thresholdBps) / 10_000),
    logit(cfg.coalitionRestBps / 10_000),
  );
  let verdict: VerdictKind;
  let reason: InvalidReason | undefined;
  if (reports.length === 0 || answered < quorum.required) reason = "no-quorum";
  else if (logOdds === 0) reason = "tie";
  else if (posterior * 10_000 < cfg.thresholdBps) reason = "below-threshold";
  else if (coalition !== undefined) reason = "fragile";
  const fragility: Fragility | undefined =
    reason === "fragile" && coalition !== undefined
      ? { coalition: coalition.members.map((i) => voters[i]?.agentId ?? 0n), restLogOdds: q6(coalition.rest) }
      : undefined;
  if (reason !== undefined) verdict = "invalid";
  else verdict = logOdds > 0 ? "yes" : "no";

  const outcome: ResolutionOutcome =
    verdict !== "invalid"
      ? { kind: "resolved", resolution: verdict === "yes" }
      : reason === "no-quorum"
        ? { kind: "no-quorum", answered, required: quorum.required }
        : { kind: "no-margin", yesWeight, noWeight, margin: tally.margin };

  return {
    verdict,
    ...(reason !== undefined ? { reason } : {}),
    posterior: reason === "tie" ? 0.5 : posterior,
    logOdds,
    thresholdBps: cfg.thresholdBps,
    quorum,
    voters,
    bloc,
    ...(shrink !== undefined
      ? { shrinkage: { mean: shrink.mean, between: shrink.between, groups: shrink.groups } }
      : {}),
    ...(fragility !== undefined ? { fragility } : {}),
    reports: reports.map((r) => ({ ...r })),
    rewardWeights: verdict === "invalid" ? null : rewardWeights(reports, verdict === "yes"),
    estimate,
    // The digest covers what the estimator read: its bounded window (the last maxMarkets), not the whole record.
    history: historyDigest(input.history.slice(Math.max(0, input.history.length - estimate.config.maxMarkets))),
    config: cfg,
    outcome,
    tally,
  };
}
