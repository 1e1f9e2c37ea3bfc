/**
 * The estimate's core (accuracy.ts is its public face and adds changed agents): accuracy of each agent,
 * estimated from the public track record without ground truth. Pure, deterministic.
 *
 * Model: one-coin Dawid–Skene. Every finalized market m has a latent truth T_m ∈ {yes, no} (prior ½ each);
 * agent a answers right with probability p_a, independently of the others. Expectation–maximisation over the
 * agents × markets matrix of yes/no answers (failed and abstained seats carry no information and are skipped):
 *   init   q_m = P(T_m = yes) = share of yes among the (clone-weighted) answers of m (½ with none);
 *   M-step p_a = (α + Σ_m P(a right in m)) / (α + β + n_a)      — Beta(α, β) prior: shrinks short histories
 *   E-step q_m = σ(Σ_{a answered m} w_a,m · ±logit(p_a))         — + for yes, − for no
 * repeated until no p_a moves by more than `tolerance` or after `maxIterations`. A market finalized by an
 * arbiter (`disputed` with a yes/no `final`) is known truth: q_m stays 1 or 0. Our own undisputed outcomes are
 * NOT used as truth (that would let the resolver confirm itself); Invalid markets still carry answers and a
 * latent truth. Markets are used as given (the caller passes only markets finalized before the current one).
 *
 * Clones: agents whose answers agree on ≥ `cloneAgreement` of ≥ `cloneMinShared` shared markets (identical
 * histories: suspected Sybils or colluders) form one group (transitively); in the E-step each member's
 * log-odds is divided by the number of group members answering that market, so k clones count as one voter.
 *
 * Calibration: after EM each agent's answers are binned by stated confidence (`confidenceBins`, lower edges in
 * bps); a bin's accuracy is its expected share right shrunk towards the agent's overall p_a with
 * `calibrationStrength` pseudo-answers: acc_bin = (Σ P(right) + k·p_a) / (n_bin + k). A stated confidence
 * therefore counts only as far as the agent's own history at that confidence backs it.
 *
 * Uncertainty: the covariance of the requested agents' log-odds accuracies, from the observed information at
 * the estimate (Louis' formula: what the answers would tell if the truths were known, minus what the unknown
 * truths hide). The vote uses it to shrink estimates the record cannot pin down (vote.ts).
 *
 * Every estimate is rounded to 1e-6 so the bundle holds the exact numbers the vote used.
 * Cost: O(I × A) for I ≤ maxIterations and A = answers in the (last `maxMarkets`) markets, plus
 * O(Σ_m k_m²) once for the clone check and the information matrix (k_m = answers in market m, ≤ the seat cap),
 * plus O(k³) to invert it (k = requested agents, ≤ the seat cap). Memory O(A + k²).
 */
import type { AccuracyEstimate, AgentAccuracy, CalibrationBin, PairDependence } from "./accuracy-types.js";
import type { AccuracyConfig, AccuracyVote } from "./accuracy-config.js";
import { logOddsCovariance } from "./accuracy-covariance.js";
import type { HistoryMarket } from "./types.js";
import { mustGet } from "../util/must.js";
import {
  DependenceMatrix,
  dependenceWeights,
  pairDependence,
  sharedErrorDependence,
  type PairStats,
} from "./dependence.js";
import { readAgreement } from "./copy-group.js";

const q6 = (x: number): number => Math.round(x * 1e6) / 1e6;
/** Reads and updates of arrays sized a moment before from the same counts (a miss would be a bug, not input). */
const at = (xs: readonly number[], i: number): number => xs[i] ?? 0;
const add = (xs: number[], i: number, x: number): void => {
  xs[i] = (xs[i] ?? 0) + x;
};
const row = <T>(xs: readonly T[][], i: number): T[] => xs[i] ?? [];
const sigmoid = (x: number): number => (x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x)));
export const logit = (p: number): number => Math.log(p / (1 - p));

/** One yes/no answer as the estimate reads it. */

/** Shared and agreeing yes/no answers of every pair of agents that met, in ascending (a, b) order. */
function pairStats(markets: readonly AccuracyVote[][], agentCount: number): PairStats[] {
  const acc = new Map<number, PairStats>();
  for (const votes of markets) {
    for (let i = 0; i < votes.length; i++) {
      for (let j = i + 1; j < votes.length; j++) {
        const vi = votes[i];
        const vj = votes[j];
        if (vi === undefined || vj === undefined) continue;
        const a = Math.min(vi.agent, vj.agent);
        const b = Math.max(vi.agent, vj.agent);
        const key = a * agentCount + b;
        let p = acc.get(key);
        if (p === undefined) {
          p = { a, b, n: 0, shared: 0, agree: 0 };
          acc.set(key, p);
        }
        const w = Math.min(vi.o, vj.o);
        p.n += 1;
        p.shared += w;
        if (vi.sign === vj.sign) p.agree += w;
      }
    }
  }
  return [...acc.keys()].sort((x, y) => x - y).map((key) => mustGet(acc, key));
}

/** Union-find over agent indices; the root is the smallest index (= smallest id, indices are id-sorted). */
function cloneGroups(pairs: readonly PairStats[], agentCount: number, cfg: AccuracyConfig): number[] {
  const parent = Array.from({ length: agentCount }, (_, i) => i);
  const find = (x: number): number => {
    for (let up = parent[x] ?? x; up !== x; up = parent[x] ?? x) x = parent[x] = parent[up] ?? up;
    return x;
  };
  for (const { a, b, n, shared, agree } of pairs) {
    if (n < cfg.cloneMinShared || agree < cfg.cloneAgreement * shared) continue;
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
  return parent.map((_, i) => find(i));
}

export interface CoreInternals {
  index: Map<bigint, number>;
  /** Clone-group root of each agent index. */
  group: number[];
  votes: AccuracyVote[][];
  known: (number | undefined)[];
  soft: number[];
  p: number[];
  /** Weight of each answer in the likelihood: recency × attestation × dependence share (covariance, change search). */
  answerWeight: number[][];
}

export function estimateCore(
  history: readonly HistoryMarket[],
  agents: readonly bigint[] | undefined,
  cfg: AccuracyConfig,
): { estimate: AccuracyEstimate; internals: CoreInternals } {
  const recent = history.slice(Math.max(0, history.length - cfg.maxMarkets));

  // Agent index, by ascending id (deterministic whatever the input order).
  const ids = new Set<bigint>(agents ?? []);
  for (const m of recent) for (const a of m.answers) if (a.answer === "yes" || a.answer === "no") ids.add(a.agentId);
  const sorted = [...ids].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const index = new Map(sorted.map((id, i) => [id, i]));
  const idByIndex = new Map(sorted.map((id, i) => [i, id]));
  const idOf = (i: number): bigint => mustGet(idByIndex, i);
  const nAgents = sorted.length;

  // Yes/no votes per market (first answer of an agent in a market only); known truths; soft outcomes.
  const votes: AccuracyVote[][] = [];
  const known: (number | undefined)[] = [];
  const soft: number[] = [];
  for (const m of recent) {
    const seen = new Set<number>();
    const vs: AccuracyVote[] = [];
    for (const a of m.answers) {
      if (a.answer !== "yes" && a.answer !== "no") continue;
      const i = mustGet(index, a.agentId);
      if (seen.has(i)) continue;
      seen.add(i);
      const bps = Number.isFinite(a.confidenceBps)
        ? Math.min(10_000, Math.max(5_000, Math.round(a.confidenceBps)))
        : 5_000;
      const att = a.signed === true ? 1 : cfg.attestedWeight;
      vs.push({ agent: i, sign: a.answer === "yes" ? 1 : -1, bps, att, o: att });
    }
    // Agent order, not log order, inside a market: float sums then do not depend on how answers were listed.
    vs.sort((x, y) => x.agent - y.agent);
    votes.push(vs);
    const trusted = m.disputed && m.trustedRuling === true && typeof m.final === "boolean";
    known.push(trusted ? (m.final ? 1 : 0) : undefined);
    soft.push(!trusted && typeof m.final === "boolean" ? (m.final ? cfg.outcomeLogOdds : -cfg.outcomeLogOdds) : 0);
  }
  // Recency: each agent's answers, newest first, decay by 2^(−k/halfLife).
  if (cfg.halfLife > 0) {
    const later = new Array<number>(nAgents).fill(0);
    for (let m = votes.length - 1; m >= 0; m--) {
      for (const v of row(votes, m)) {
        v.o *= 2 ** (-at(later, v.agent) / cfg.halfLife);
        add(later, v.agent, 1);
      }
    }
  }

  const pairs = pairStats(votes, nAgents);
  const group = cloneGroups(pairs, nAgents, cfg);
  const groupSize = new Map<number, number>();
  for (const g of group) groupSize.set(g, (groupSize.get(g) ?? 0) + 1);
  const clonePairs = new Set<number>();
  pairs.forEach((p, k) => {
    if (group[p.a] === group[p.b]) clonePairs.add(k);
  });
  // The factor's reading: the plain robust fit, or one with a copy group (copy-group.ts), whose pairs get d = 1.
  const factor = readAgreement(pairs, nAgents, clonePairs, {
    outlierZ: cfg.dependenceOutlierZ,
    penalty: cfg.copyGroupPenalty,
    minShared: cfg.dependenceMinShared,
    margin: cfg.copyGroupMargin,
  });
  const dep = new DependenceMatrix(nAgents);
  pairs.forEach((p, k) => {
    dep.set(
      p.a,
      p.b,
      clonePairs.has(k) ? 1 : q6(pairDependence(p, factor.v, cfg.dependenceMargin, cfg.dependenceMinShared)),
    );
  });
  for (let a = 0; a < nAgents; a++) for (let b = a + 1; b < nAgents; b++) if (group[a] === group[b]) dep.set(a, b, 1);
  for (const a of factor.group) for (const b of factor.group) if (a < b) dep.set(a, b, 1);
  const alpha = cfg.priorAccuracy * cfg.priorStrength;
  const beta = (1 - cfg.priorAccuracy) * cfg.priorStrength;
  const lo = 1 - cfg.maxAccuracy;
  const hi = cfg.maxAccuracy;
  const clamp = (p: number): number => Math.min(hi, Math.max(lo, p));

  const count = new Array<number>(nAgents).fill(0);
  const weight = new Array<number>(nAgents).fill(0);
  for (const vs of votes)
    for (const v of vs) {
      add(count, v.agent, 1);
      add(weight, v.agent, v.o);
    }
  // E-step weight of each vote: dependence (1 / (1 + Σ d over same-side voters)) × attestation.
  const weightsOf = (): number[][] =>
    votes.map((vs) =>
      dependenceWeights(
        vs.map((v) => v.agent),
        vs.map((v) => v.sign),
        dep,
      ).map((w, i) => w * (vs[i]?.att ?? 0)),
    );
  const q: number[] = votes.map((_, m) => known[m] ?? 0.5);
  const right = new Array<number>(nAgents).fill(0);
  /** EM from the robust factor's start (see the module doc); updates q and right, returns p. */
  const em = (voteWeight: readonly number[][]): { p: number[]; iterations: number; converged: boolean } => {
    // Start: the robust factor's sign chosen so that most independent voters (weighted by answers and by
    // 1 / (1 + Σ d)) are better than chance; accuracies from it (shrunk like the M-step), then truths (E-step).
    let side = 0;
    for (let i = 0; i < nAgents; i++) {
      let s = 1;
      for (let j = 0; j < nAgents; j++) if (j !== i) s += dep.get(i, j);
      side += (at(weight, i) * at(factor.v, i)) / s;
    }
    const start = side < 0 ? factor.v.map((x) => -x) : factor.v;
    let p = start.map((v, a) => clamp((alpha + ((1 + v) / 2) * at(weight, a)) / (alpha + beta + at(weight, a))));
    const eStep = (lg: readonly number[]): void => {
      votes.forEach((vs, m) => {
        if (known[m] !== undefined) return;
        let s = at(soft, m);
        const w = row(voteWeight, m);
        vs.forEach((v, i) => {
          s += v.sign * at(lg, v.agent) * at(w, i);
        });
        q[m] = sigmoid(s);
      });
    };
    eStep(p.map(logit));
    let iterations = 0;
    let converged = false;
    while (iterations < cfg.maxIterations) {
      iterations += 1;
      right.fill(0);
      votes.forEach((vs, m) => {
        for (const v of vs) add(right, v.agent, v.o * (v.sign > 0 ? at(q, m) : 1 - at(q, m)));
      });
      const next = right.map((r, a) => clamp((alpha + r) / (alpha + beta + at(weight, a))));
      eStep(next.map(logit));
      let delta = 0;
      for (let a = 0; a < nAgents; a++) delta = Math.max(delta, Math.abs(at(next, a) - at(p, a)));
      p = next;
      if (delta <= cfg.tolerance) {
        converged = true;
        break;
      }
    }
    return { p, iterations, converged };
  };
  let voteWeight = weightsOf();
  let fit = em(voteWeight);
  const errorDep = new DependenceMatrix(nAgents);
  // Shared errors (dependence.ts): pairs recently wrong together against the rest beyond what independence
  // predicts are dependent too (d = the larger of the two estimates); then EM again with the new weights.
  if (cfg.errorHalfLife > 0) {
    const lg = fit.p.map(logit);
    const errorVotes = votes.map((vs, m) =>
      vs.map((v, i) => ({
        agent: v.agent,
        sign: v.sign,
        contribution: v.sign * at(lg, v.agent) * at(row(voteWeight, m), i),
      })),
    );
    const shared = sharedErrorDependence(errorVotes, known, fit.p, nAgents, cfg.errorHalfLife, cfg.errorMargin);
    let changed = false;
    for (const [key, d] of shared) {
      const a = Math.floor(key / nAgents);
      const b = key % nAgents;
      const qd = q6(d);
      errorDep.set(a, b, qd);
      if (cfg.errorInEstimate && qd > dep.get(a, b)) {
        dep.set(a, b, qd);
        changed = true;
      }
    }
    if (changed) {
      voteWeight = weightsOf();
      fit = em(voteWeight);
    }
  }
  const { p, iterations, converged } = fit;

  // Final expected rights (against the final q) and calibration bins (weighted like the M-step).
  const bins = cfg.confidenceBins;
  const binOf = (bps: number): number => {
    let b = 0;
    while (b + 1 < bins.length && bps >= at(bins, b + 1)) b += 1;
    return b;
  };
  const binCount = sorted.map(() => new Array<number>(bins.length).fill(0));
  const binWeight = sorted.map(() => new Array<number>(bins.length).fill(0));
  const binRight = sorted.map(() => new Array<number>(bins.length).fill(0));
  right.fill(0);
  votes.forEach((vs, m) => {
    for (const v of vs) {
      const r = v.o * (v.sign > 0 ? at(q, m) : 1 - at(q, m));
      add(right, v.agent, r);
      add(row(binCount, v.agent), binOf(v.bps), 1);
      add(row(binWeight, v.agent), binOf(v.bps), v.o);
      add(row(binRight, v.agent), binOf(v.bps), r);
    }
  });

  const wanted = agents !== undefined ? new Set(agents) : undefined;
  const out: AgentAccuracy[] = [];
  const outIndex: number[] = [];
  sorted.forEach((id, a) => {
    if (wanted !== undefined && !wanted.has(id)) return;
    outIndex.push(a);
    const acc = q6(clamp((alpha + at(right, a)) / (alpha + beta + at(weight, a))));
    const calibration: CalibrationBin[] = bins.map((from, b) => {
      const n = at(row(binWeight, a), b);
      const r = at(row(binRight, a), b);
      const k = cfg.calibrationStrength;
      return {
        fromBps: from,
        toBps: b + 1 < bins.length ? at(bins, b + 1) - 1 : 10_000,
        count: at(row(binCount, a), b),
        right: q6(r),
        accuracy: n + k > 0 ? q6(clamp((r + k * acc) / (n + k))) : acc,
      };
    });
    const g = group[a];
    out.push({
      agentId: id,
      count: at(count, a),
      weight: q6(at(weight, a)),
      right: q6(at(right, a)),
      accuracy: acc,
      calibration,
      ...(g !== undefined && mustGet(groupSize, g) > 1 ? { cloneGroup: idOf(g) } : {}),
    });
  });
  const outSet = new Set(outIndex);
  const sharedErrors: PairDependence[] = errorDep
    .entries()
    .filter((e) => outSet.has(e.a) && outSet.has(e.b))
    .map((e) => ({ a: idOf(e.a), b: idOf(e.b), d: e.d }));
  const dependence: PairDependence[] = dep
    .entries()
    .filter((e) => outSet.has(e.a) && outSet.has(e.b))
    .map((e) => ({ a: idOf(e.a), b: idOf(e.b), d: e.d }));

  const answerWeight = votes.map((vs, m) => vs.map((v, i) => (at(row(voteWeight, m), i) * v.o) / v.att));
  const estimate: AccuracyEstimate = {
    agents: out,
    dependence,
    sharedErrors,
    markets: votes.length,
    answers: count.reduce((s, c) => s + c, 0),
    knownTruths: known.filter((k) => k !== undefined).length,
    iterations,
    converged,
    covariance: logOddsCovariance(votes, answerWeight, known, q, p, outIndex, alpha + beta),
    config: cfg,
  };
  return { estimate, internals: { index, votes, known, soft, p, answerWeight, group } };
}
