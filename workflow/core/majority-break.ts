/**
 * Breaks with the majority (docs/TRUTH.md §9, "changed agents"): an agent that agreed with the rest of its panels
 * and lately stands against them. The reference is the head count of the other established agents in each market
 * (≥ `minBefore` earlier answers; a clone group counting once), which a farmed record cannot move: the estimator's own labels follow whoever carries the
 * weight, the head count of the others does not.
 *
 * For an agent's yes/no answers in order, x = 1 when the answer agrees with the others' majority (ties skipped).
 * For each length m of the ladder, the recent m against the earlier ones: a Bernoulli change-point log-likelihood
 * ratio, counted only when the recent agreement rate is the lower. The largest ratio over the ladder is the agent's
 * break; above `penalty` nats the agent counts as changed at that m. Pure, deterministic, O(answers × seats).
 */

/** One yes/no answer as the test reads it. */
export interface MajorityVote {
  agent: number;
  sign: number;
}

export interface MajorityBreak {
  agent: number;
  recent: number;
  gain: number;
}

const xlogy = (x: number, y: number): number => (x === 0 ? 0 : x * Math.log(y));
const bernoulliLl = (k: number, n: number): number => (n === 0 ? 0 : xlogy(k, k / n) + xlogy(n - k, (n - k) / n));

export function majorityBreaks(
  votes: readonly (readonly MajorityVote[])[],
  cloneGroup: readonly number[],
  candidates: readonly number[],
  lengths: readonly number[],
  minBefore: number,
  penalty: number,
): MajorityBreak[] {
  const wanted = new Set(candidates);
  const seq = new Map<number, number[]>();
  // Answers seen so far per agent: only established agents (≥ minBefore earlier answers) make the majority, so a
  // swarm of fresh agents cannot turn it before the clone rule has grouped them.
  const seen = new Map<number, number>();
  for (const all of votes) {
    const vs = all.filter((v) => (seen.get(v.agent) ?? 0) >= minBefore);
    for (const v of all) seen.set(v.agent, (seen.get(v.agent) ?? 0) + 1);
    // Weight of each vote: 1 / (members of its clone group answering here).
    const size = new Map<number, number>();
    for (const v of vs) {
      const g = cloneGroup[v.agent] ?? v.agent;
      size.set(g, (size.get(g) ?? 0) + 1);
    }
    let total = 0;
    const w = vs.map((v) => 1 / (size.get(cloneGroup[v.agent] ?? v.agent) ?? 1));
    vs.forEach((v, i) => {
      total += v.sign * (w[i] ?? 0);
    });
    vs.forEach((v, i) => {
      if (!wanted.has(v.agent)) return;
      const others = total - v.sign * (w[i] ?? 0);
      if (Math.abs(others) < 1e-9) return;
      const list = seq.get(v.agent) ?? [];
      list.push(Math.sign(others) === v.sign ? 1 : 0);
      seq.set(v.agent, list);
    });
  }
  const out: MajorityBreak[] = [];
  for (const a of [...wanted].sort((x, y) => x - y)) {
    const xs = seq.get(a) ?? [];
    let best: MajorityBreak | undefined;
    const all = xs.reduce((s, x) => s + x, 0);
    for (const m of lengths) {
      if (xs.length - m < minBefore) break;
      const recent = xs.slice(xs.length - m).reduce((s, x) => s + x, 0);
      const before = all - recent;
      const n0 = xs.length - m;
      if (recent / m >= before / n0) continue;
      const gain = bernoulliLl(recent, m) + bernoulliLl(before, n0) - bernoulliLl(all, xs.length);
      if (gain > penalty && (best === undefined || gain > best.gain)) best = { agent: a, recent: m, gain };
    }
    if (best !== undefined) out.push(best);
  }
  return out;
}
