/**
 * Copy groups: which reading of the agreement matrix the estimate starts from (pure, deterministic; used by
 * accuracy-em.ts).
 *
 * A few agents that copy one shared source, each with its own noise, agree with each other far more than with
 * anyone else. The record then has two readings that fit it about equally well: the truth is what the independent
 * agents read and the copiers are a dependent group, or the truth is the copiers' source and the independent agents
 * are the ones that agree for some other reason. The answers alone cannot tell which hidden answer is the truth
 * (docs/TRUTH.md §9), and the plain robust fit (dependence.ts) takes the block that agrees most, the copiers'.
 *
 * The prior that breaks the tie: copying is the exception, so a group is a reading's cost, and it must buy a better
 * account of everyone else. For a candidate group, both readings are scored on the pairs OUTSIDE the group: Σ
 * max(0, z)² over the pairs each fits (z a pair's excess agreement in standard errors of its raw count of shared
 * markets; raw counts because the agreement pattern is a long-run property and they give the comparison its full
 * power) plus `penalty` per pair its robust fit left out. The group reading also pays `penalty` per pair of the
 * group. It is chosen when it explains the others better by more than that: the block was pulling the factor away
 * from them. A group of k agents costs k(k − 1)/2 pairs, so of two mirror readings the one calling fewer agents
 * copies wins: three copiers (3 pairs) against four independent agents (6 pairs). Each pair of the group must also
 * agree beyond what the group reading predicts for it by `margin` standard errors (copies agree for their own
 * reason; the strongest honest agents do not).
 *
 * Candidates: groups of 3 to `MAX_GROUP` agents grown from the pair that agrees most (each step adds the agent whose
 * lowest agreement with the members is highest), always fewer than half of the agents met on ≥ `minShared`
 * markets (no group at all below 7 such agents). Two agents sharing a source cannot pull the factor: the pairwise
 * dependence covers them. The largest gain wins. A chosen group's pairs are left out of the fit (the factor is then
 * the others' reading) and get d = 1 (accuracy-em.ts): the group counts as one voter, like clones.
 *
 * Measured (bench:integrity, 20 seeds; docs/TRUTH.md §9): the correlated crowd moves from worse than a head count
 * to better; on honest panels of 7–11 agents without colluders, a chance group of the best agents in a few seeds
 * costs up to about a point of correct markets.
 *
 * Cost: up to MAX_GROUP − 2 more robust fits (dependence.ts), O(P × agents) to grow the group.
 */
import { netAgreement, type PairStats, robustFactor, standardisedExcess } from "./dependence.js";

/** Largest copy group tried. */
export const MAX_GROUP = 8;

export interface AgreementReading {
  /** The rank-one factor of the chosen reading. */
  v: number[];
  /** Agent indices of the copy group, ascending; empty when the plain fit wins. */
  group: number[];
}

/** Chooses the reading of the agreement matrix (module doc). `penalty` 0: the plain robust fit only. */
export function readAgreement(
  pairs: readonly PairStats[],
  agentCount: number,
  fixed: ReadonlySet<number>,
  opts: { outlierZ: number; penalty: number; minShared: number; margin: number },
): AgreementReading {
  const plain = robustFactor(pairs, agentCount, fixed, opts.outlierZ);
  let best: AgreementReading = { v: plain.v, group: [] };
  if (opts.penalty <= 0) return best;
  // Misfit of a reading over the pairs outside `members` (module doc): `penalty` per pair left out, z² over the rest.
  const misfit = (fit: { v: number[]; outliers: number[] }, members: ReadonlySet<number>): number => {
    const left = new Set(fit.outliers);
    let s = 0;
    pairs.forEach((p, k) => {
      if (fixed.has(k) || p.shared <= 0 || (members.has(p.a) && members.has(p.b))) return;
      s += left.has(k) ? opts.penalty : Math.max(0, standardisedExcess(p, fit.v, p.n)) ** 2;
    });
    return s;
  };
  let bestGain = 0;
  const { order, established } = growthOrder(pairs, fixed, agentCount, opts.minShared);
  const largest = Math.min(MAX_GROUP, order.length, Math.floor((established - 1) / 2));
  for (let k = 3; k <= largest; k++) {
    const members = new Set(order.slice(0, k));
    const groupPairs = new Set<number>();
    pairs.forEach((p, i) => {
      if (!fixed.has(i) && members.has(p.a) && members.has(p.b)) groupPairs.add(i);
    });
    const fit = robustFactor(pairs, agentCount, new Set([...fixed, ...groupPairs]), opts.outlierZ);
    // Copies agree beyond what the reading predicts for them: every pair of the group by `margin` standard errors.
    let copies = true;
    for (const i of groupPairs) {
      const p = pairs[i];
      if (p !== undefined && standardisedExcess(p, fit.v, p.n) < opts.margin) copies = false;
    }
    if (!copies) continue;
    const gain = misfit(plain, members) - misfit(fit, members) - opts.penalty * groupPairs.size;
    if (gain > bestGain + 1e-9) {
      bestGain = gain;
      best = { v: fit.v, group: [...members].sort((x, y) => x - y) };
    }
  }
  return best;
}

/**
 * Agents in the order a copy group grows: the two of the pair that agrees most (clone pairs excluded), then, each
 * step, the agent whose lowest net agreement with the members is highest. Only pairs that met on ≥ `minShared`
 * markets count; `established` is how many agents have such a pair.
 */
function growthOrder(
  pairs: readonly PairStats[],
  fixed: ReadonlySet<number>,
  agentCount: number,
  minShared: number,
): { order: number[]; established: number } {
  const agree = new Map<number, number>();
  const seen = new Set<number>();
  let top: PairStats | undefined;
  pairs.forEach((p, k) => {
    if (p.shared <= 0 || p.n < minShared) return;
    agree.set(p.a * agentCount + p.b, netAgreement(p));
    seen.add(p.a).add(p.b);
    if (!fixed.has(k) && (top === undefined || netAgreement(p) > netAgreement(top))) top = p;
  });
  if (top === undefined) return { order: [], established: seen.size };
  const order = [top.a, top.b];
  const lowest = (c: number): number => {
    let m = Number.POSITIVE_INFINITY;
    for (const o of order) m = Math.min(m, agree.get(Math.min(c, o) * agentCount + Math.max(c, o)) ?? -2);
    return m;
  };
  while (order.length < MAX_GROUP) {
    let next = -1;
    let nextLowest = -2;
    for (const c of seen) {
      if (order.includes(c)) continue;
      const l = lowest(c);
      if (l > nextLowest || (l === nextLowest && c < next)) {
        nextLowest = l;
        next = c;
      }
    }
    if (next < 0) break;
    order.push(next);
  }
  return { order, established: seen.size };
}
