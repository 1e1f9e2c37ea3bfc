/**
 * How sure the accuracy estimate is (accuracy.ts): the observed information of the log-odds accuracies at the EM
 * estimate (Louis' formula) and its inverse. Pure, deterministic; the vote's shrinkage reads the result.
 */
import type { AccuracyVote } from "./accuracy-config.js";

const q6 = (x: number): number => Math.round(x * 1e6) / 1e6;
const at = (xs: readonly number[], i: number): number => xs[i] ?? 0;
const add = (xs: number[], i: number, x: number): void => {
  xs[i] = (xs[i] ?? 0) + x;
};
const row = <T>(xs: readonly T[][], i: number): T[] => xs[i] ?? [];

/**
 * Observed information of the log-odds accuracies at the estimate (Louis' formula for EM), inverted. In θ-space
 * the complete-data information (truths known) of agent a is Σ_m w·p_a(1 − p_a); the truths are not known, so
 * the information they would have carried is subtracted: for two votes in the same market (signs s_a, s_b,
 * clone weights w) Σ_m w_a·w_b·s_a·s_b·q_m(1 − q_m) (zero where an arbiter fixed the truth). The Beta prior
 * adds (α + β)·p(1 − p) on the diagonal. Restricted to `agentsIdx` (others' accuracies taken as known).
 * Why it matters: with three agents, two good ones that disagree can trade accuracy between them at almost no
 * cost in likelihood (only the weakest agent's agreements tell them apart); the inverse shows that as a large
 * variance for both, and the vote's shrinkage then stops trusting either estimate alone.
 * Cost O(Σ_m k_m² + k³), k = requested agents (≤ the seat cap).
 */
export function logOddsCovariance(
  votes: readonly AccuracyVote[][],
  voteWeight: readonly number[][],
  known: readonly (number | undefined)[],
  q: readonly number[],
  p: readonly number[],
  agentsIdx: readonly number[],
  priorStrength: number,
): number[][] {
  const k = agentsIdx.length;
  const pos = new Map(agentsIdx.map((a, i) => [a, i]));
  const info = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  votes.forEach((vs, m) => {
    const missing = known[m] !== undefined ? 0 : at(q, m) * (1 - at(q, m));
    const here: { i: number; w: number; s: number }[] = [];
    vs.forEach((v, j) => {
      const i = pos.get(v.agent);
      if (i === undefined) return;
      const w = at(row(voteWeight, m), j);
      add(row(info, i), i, w * at(p, v.agent) * (1 - at(p, v.agent)));
      here.push({ i, w, s: v.sign });
    });
    for (const x of here) for (const y of here) add(row(info, x.i), y.i, -x.w * y.w * x.s * y.s * missing);
  });
  agentsIdx.forEach((a, i) => {
    add(row(info, i), i, Math.max(priorStrength, 1) * at(p, a) * (1 - at(p, a)));
  });
  return invertInformation(info).map((row) => row.map(q6));
}

/** Pivots below this count as no information (variance ≤ 1e6): a degenerate matrix still inverts, deterministically. */
const MIN_PIVOT = 1e-6;

/** Inverse of a symmetric information matrix (Gauss–Jordan on the diagonal, pivots floored at MIN_PIVOT). */
export function invertInformation(a: readonly number[][]): number[][] {
  const n = a.length;
  const m = a.map((row, i) => [...row, ...Array.from({ length: n }, (_, j) => (i === j ? 1 : 0))]);
  for (let c = 0; c < n; c++) {
    const mc = row(m, c);
    const piv = Math.max(MIN_PIVOT, at(mc, c));
    mc[c] = piv;
    for (let j = 0; j < 2 * n; j++) mc[j] = at(mc, j) / piv;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const mr = row(m, r);
      const f = at(mr, c);
      if (f === 0) continue;
      for (let j = 0; j < 2 * n; j++) mr[j] = at(mr, j) - f * at(mc, j);
    }
  }
  return m.map((row) => row.slice(n));
}
