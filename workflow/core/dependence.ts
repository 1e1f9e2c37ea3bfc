/**
 * Dependence between agents, estimated from their joint answers (pure, deterministic; used by accuracy.ts and the
 * vote). Under the one-coin model two independent agents agree, net of disagreements, at a_ij = v_i·v_j
 * (v = 2p − 1). Agents that copy each other, or a shared source, agree more than their accuracies predict. The
 * model: with probability d_ij the two give the same answer for a shared reason, otherwise they answer
 * independently, so a_ij = d_ij + (1 − d_ij)·v_i·v_j and
 *
 *   d_ij = clamp((a_ij − v_i·v_j − z·se_ij) / (1 − v_i·v_j), 0, 1),   se_ij = √(max(0.05, 1 − (v_i·v_j)²) / n_ij)
 *
 * (z = `dependenceMargin` standard errors are discounted so that honest pairs, whose excess is noise, get 0).
 *
 * v is the rank-one factor of the agreement matrix, fitted robustly: a weighted least-squares fit, then the pair
 * with the largest positive standardised residual is left out and the fit repeated, while that residual exceeds
 * `dependenceOutlierZ` (at most `MAX_OUTLIERS` pairs). Dependent pairs are the ones the factor cannot explain, so
 * they must not shape it: a block of three copiers otherwise pulls the factor towards their shared source.
 * Clone pairs (agreement ≥ cloneAgreement on ≥ cloneMinShared markets) have d = 1 and are never fitted.
 *
 * Cost: O(F × I × P) with P pairs of agents that met, I ≤ SPECTRAL_ITERATIONS, F ≤ MAX_OUTLIERS + 1 fits.
 */

export interface PairStats {
  a: number;
  b: number;
  /** Markets both answered yes/no (raw count). */
  n: number;
  /** Weighted (recency × attestation) shared markets and agreements. */
  shared: number;
  agree: number;
}

export const SPECTRAL_ITERATIONS = 100;
/** Most pairs the robust fit leaves out (bounded cost). */
export const MAX_OUTLIERS = 32;
const V_MAX = 0.98;

/** Net agreement of a pair, in [−1, 1]. */
export const netAgreement = (p: PairStats): number => (p.shared > 0 ? (2 * p.agree - p.shared) / p.shared : 0);

function fitFactor(pairs: readonly PairStats[], agentCount: number, skip: ReadonlySet<number>, v: number[]): void {
  const nbrs: { j: number; w: number; a: number }[][] = Array.from({ length: agentCount }, () => []);
  pairs.forEach((p, k) => {
    if (skip.has(k) || p.shared <= 0) return;
    const r = netAgreement(p);
    nbrs[p.a]?.push({ j: p.b, w: p.shared, a: r });
    nbrs[p.b]?.push({ j: p.a, w: p.shared, a: r });
  });
  for (let it = 0; it < SPECTRAL_ITERATIONS; it++) {
    let delta = 0;
    for (let i = 0; i < agentCount; i++) {
      let num = 0;
      let den = 0;
      for (const { j, w, a } of nbrs[i] ?? []) {
        const vj = v[j] ?? 0;
        num += w * a * vj;
        den += w * vj * vj;
      }
      const next = den > 0 ? Math.min(V_MAX, Math.max(-V_MAX, num / den)) : 0;
      delta = Math.max(delta, Math.abs(next - (v[i] ?? 0)));
      v[i] = next;
    }
    if (delta < 1e-9) break;
  }
}

const standardError = (vv: number, n: number): number => Math.sqrt(Math.max(0.05, 1 - vv * vv) / Math.max(n, 1e-9));

/**
 * Robust rank-one factor of the agreement matrix (unsigned: v and −v fit alike) and the pairs it left out.
 * `fixed` pairs (clones, or a copy group's: copy-group.ts) are never fitted and are not in `outliers`.
 */
export function robustFactor(
  pairs: readonly PairStats[],
  agentCount: number,
  fixed: ReadonlySet<number>,
  outlierZ: number,
): { v: number[]; outliers: number[] } {
  const skip = new Set(fixed);
  const v = new Array<number>(agentCount).fill(0.5);
  const outliers: number[] = [];
  fitFactor(pairs, agentCount, skip, v);
  while (outliers.length < MAX_OUTLIERS) {
    let worst = -1;
    let worstZ = outlierZ;
    pairs.forEach((p, k) => {
      if (skip.has(k) || p.shared <= 0) return;
      const z = standardisedExcess(p, v, p.shared);
      if (z > worstZ) {
        worstZ = z;
        worst = k;
      }
    });
    if (worst < 0) break;
    skip.add(worst);
    outliers.push(worst);
    fitFactor(pairs, agentCount, skip, v);
  }
  return { v, outliers };
}

/** A pair's net agreement beyond v_a·v_b, in standard errors of a sample of `n` shared markets. */
export function standardisedExcess(p: PairStats, v: readonly number[], n: number): number {
  const vv = (v[p.a] ?? 0) * (v[p.b] ?? 0);
  return (netAgreement(p) - vv) / standardError(vv, n);
}

/** d_ij of one pair (module doc); 1 for clones; 0 below `minShared` markets. */
export function pairDependence(p: PairStats, v: readonly number[], margin: number, minShared: number): number {
  if (p.n < minShared || p.shared <= 0) return 0;
  const vv = (v[p.a] ?? 0) * (v[p.b] ?? 0);
  if (vv >= 1) return 0;
  const excess = netAgreement(p) - vv - margin * standardError(vv, p.shared);
  return Math.min(1, Math.max(0, excess / (1 - vv)));
}

/** Symmetric lookup of d over agent indices. */
export class DependenceMatrix {
  private readonly d = new Map<number, number>();
  constructor(private readonly agentCount: number) {}
  set(a: number, b: number, d: number): void {
    if (d > 0) this.d.set(Math.min(a, b) * this.agentCount + Math.max(a, b), d);
  }
  get(a: number, b: number): number {
    return a === b ? 1 : (this.d.get(Math.min(a, b) * this.agentCount + Math.max(a, b)) ?? 0);
  }
  /** Every pair with d > 0, ascending (a, b). */
  entries(): { a: number; b: number; d: number }[] {
    return [...this.d.entries()]
      .sort((x, y) => x[0] - y[0])
      .map(([k, d]) => ({ a: Math.floor(k / this.agentCount), b: k % this.agentCount, d }));
  }
}

/**
 * Weight of each vote of a market: 1 / (1 + Σ d_ij over the other voters j on the same side). k voters who always
 * copy each other (d = 1) count as one; independent voters (d = 0) count fully. `sides[i]` is +1 or −1.
 */
export function dependenceWeights(
  agents: readonly number[],
  sides: readonly number[],
  dep: { get(a: number, b: number): number },
): number[] {
  return agents.map((a, i) => {
    let s = 1;
    agents.forEach((b, j) => {
      if (j !== i && sides[j] === sides[i]) s += dep.get(a, b);
    });
    return 1 / s;
  });
}

/** One yes/no answer as the shared-error check reads it. */
export interface ErrorVote {
  agent: number;
  /** +1 yes, −1 no. */
  sign: number;
  /** Log-odds this vote adds to its market's E-step sum (sign · logit(p) · weight). */
  contribution: number;
}

/**
 * Dependence from shared ERRORS, with a short memory (issue 20: a record built and then spent shows within a few
 * markets). For a pair (i, j) and a market both answered, r = the rest's P(yes): the E-step sum without i and j
 * (and without the soft outcome, which the pair may have decided), or the trusted ruling. O = [they agree on s] ·
 * P_rest(truth ≠ s): how much they were wrong together. Under independence with accuracies p_i, p_j the
 * expectation is E = 2r(1 − r)·p_i·p_j + (r² + (1 − r)²)·(1 − p_i)(1 − p_j), variance V. Each shared market weighs
 * 2^(−k / halfLife), k = later shared markets of the pair, and
 *
 *   d_err = clamp((Σ w·O − Σ w·E − z·√(Σ w²·V)) / Σ w·O, 0, 1)
 *
 * the share of their recent errors together that independence does not explain. Two accurate agents that start
 * giving the same wrong answer against the rest reach d ≈ 0.5 after one such market and ≈ 0.8 after three.
 * Cost O(Σ_m k_m²).
 */
export function sharedErrorDependence(
  markets: readonly ErrorVote[][],
  /** Per market: the trusted ruling (1 yes, 0 no) or undefined. */
  known: readonly (number | undefined)[],
  p: readonly number[],
  agentCount: number,
  halfLife: number,
  margin: number,
): Map<number, number> {
  const acc = new Map<number, { later: number; o: number; e: number; v: number }>();
  const sig = (x: number): number => (x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x)));
  for (let m = markets.length - 1; m >= 0; m--) {
    const vs = markets[m] ?? [];
    const truth = known[m];
    let total = 0;
    for (const v of vs) total += v.contribution;
    for (let x = 0; x < vs.length; x++) {
      for (let y = x + 1; y < vs.length; y++) {
        const vx = vs[x];
        const vy = vs[y];
        if (vx === undefined || vy === undefined) continue;
        const a = Math.min(vx.agent, vy.agent);
        const b = Math.max(vx.agent, vy.agent);
        const key = a * agentCount + b;
        let s = acc.get(key);
        if (s === undefined) {
          s = { later: 0, o: 0, e: 0, v: 0 };
          acc.set(key, s);
        }
        const w = halfLife > 0 ? 2 ** (-s.later / halfLife) : 1;
        s.later += 1;
        const r = truth ?? sig(total - vx.contribution - vy.contribution);
        const pi = p[vx.agent] ?? 0.5;
        const pj = p[vy.agent] ?? 0.5;
        const both = pi * pj;
        const none = (1 - pi) * (1 - pj);
        // P(both yes), P(both no) under independence given the rest; each weighted by P_rest(truth is the other).
        const yy = r * both + (1 - r) * none;
        const nn = (1 - r) * both + r * none;
        const e = yy * (1 - r) + nn * r;
        const e2 = yy * (1 - r) ** 2 + nn * r * r;
        const o = vx.sign !== vy.sign ? 0 : vx.sign > 0 ? 1 - r : r;
        s.o += w * o;
        s.e += w * e;
        s.v += w * w * Math.max(0, e2 - e * e);
      }
    }
  }
  const out = new Map<number, number>();
  for (const [key, s] of acc) {
    if (s.o <= 0) continue;
    const d = (s.o - s.e - margin * Math.sqrt(s.v)) / s.o;
    if (d > 0) out.set(key, Math.min(1, d));
  }
  return out;
}
