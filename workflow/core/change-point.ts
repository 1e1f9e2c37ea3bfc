/**
 * Change detection for the accuracy estimate (docs/TRUTH.md §2, "changed agents"): has an agent's behaviour
 * changed recently, so that its old record no longer describes it?
 *
 * The attack this answers: two agents answer accurately for 40 markets, then both give the same wrong answer.
 * Without ground truth a one-coin model prefers "the two with the long record are still right and the five
 * others were all wrong together". With one more option, "these agents' last m answers come from new agents" (a
 * change point), the record is explained by two changed agents — but only trusted rulings make that reading
 * clearly the better one: on inferred labels alone the likelihood can as well split the honest agents
 * (docs/TRUTH.md §9, tried and dropped). Hence the anchor below; majority-break.ts covers the case without rulings.
 *
 * Method: candidates are the agents a trusted ruling found wrong (≥ `minKnownWrong` times) within the longest
 * length tried, the `candidates` most accurate of them. A move is one candidate, or two whose recent answers agree
 * on ≥ 3/4 of the markets they share (a coalition's strike moves both). For a move and a length m from the ladder,
 * each moved agent's last m yes/no answers go to a fresh pseudo-agent, the model is refitted (MAP EM,
 * warm-started, from two starts: the pseudo-agents at the prior mean, and turned against their old selves) and
 * the gain in log-likelihood measured. The move with the largest gain net of `penalty` per agent moved is taken
 * when that net is positive; the search repeats with it in place, up to `maxChanges` agents. Cost: nothing without
 * a ruling against a candidate; otherwise ≤ (candidates + pairs) × lengths × 2 refits of O(iterations × answers)
 * per round.
 *
 * The likelihood is the one the EM maximises: each answer weighs c (recency × attestation × dependence share),
 * P(T) ∝ e^{±soft/2} for an undisputed outcome, known truths fixed, at the MAP estimates (the prior is not counted
 * again: the penalty stands for the split's extra parameters).
 * Pure and deterministic (sums in market and vote order).
 */

/** One yes/no answer as the change search reads it. */
export interface ChangeVote {
  agent: number;
  /** +1 yes, −1 no. */
  sign: number;
  /** Weight in the likelihood: recency × attestation × dependence share. */
  c: number;
}

export interface ChangeSearch {
  /** Nats a split must gain. */
  penalty: number;
  /** Splits at most. */
  maxChanges: number;
  /** Agents tried per round (highest current accuracy first). */
  candidates: number;
  /** Recent answers moved to the pseudo-agent, ascending. */
  lengths: readonly number[];
  /** Answers an agent must keep before the change. */
  minBefore: number;
  /** Wrong answers on trusted rulings a changed agent must have among its recent answers. */
  minKnownWrong: number;
  iterations: number;
  tolerance: number;
  /** Beta prior (α, β) and clamp [lo, hi] of the estimate. */
  alpha: number;
  beta: number;
  lo: number;
  hi: number;
}

/** A detected change: the agent's last `recent` answers describe it now; `gain` in nats. */
export interface Change {
  agent: number;
  recent: number;
  gain: number;
}

interface Flat {
  start: number[];
  agent: Int32Array;
  sign: Int8Array;
  c: Float64Array;
  known: (number | undefined)[];
  soft: number[];
}

const sigmoid = (x: number): number => (x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x)));
const logAddExp = (a: number, b: number): number =>
  a > b ? a + Math.log1p(Math.exp(b - a)) : b + Math.log1p(Math.exp(a - b));

/** MAP EM from `start` over `flat` (agents as in `flat.agent`); returns the estimate and its objective. */
interface Fit {
  p: number[];
  ll: number;
}

function refit(flat: Flat, start: readonly number[], s: ChangeSearch): Fit {
  const n = start.length;
  let p = [...start];
  const markets = flat.start.length - 1;
  const q = new Float64Array(markets);
  const eStep = (): void => {
    const lg = p.map((x) => Math.log(x / (1 - x)));
    for (let m = 0; m < markets; m++) {
      const k = flat.known[m];
      if (k !== undefined) {
        q[m] = k;
        continue;
      }
      let t = flat.soft[m] ?? 0;
      for (let v = flat.start[m] ?? 0; v < (flat.start[m + 1] ?? 0); v++)
        t += (flat.sign[v] ?? 0) * (flat.c[v] ?? 0) * (lg[flat.agent[v] ?? 0] ?? 0);
      q[m] = sigmoid(t);
    }
  };
  const right = new Float64Array(n);
  const total = new Float64Array(n);
  for (let v = 0; v < flat.agent.length; v++) {
    const a = flat.agent[v] ?? 0;
    total[a] = (total[a] ?? 0) + (flat.c[v] ?? 0);
  }
  eStep();
  for (let it = 0; it < s.iterations; it++) {
    right.fill(0);
    for (let m = 0; m < markets; m++) {
      const qm = q[m] ?? 0.5;
      for (let v = flat.start[m] ?? 0; v < (flat.start[m + 1] ?? 0); v++) {
        const a = flat.agent[v] ?? 0;
        right[a] = (right[a] ?? 0) + (flat.c[v] ?? 0) * ((flat.sign[v] ?? 0) > 0 ? qm : 1 - qm);
      }
    }
    let delta = 0;
    const next = p.map((old, a) => {
      const x = Math.min(s.hi, Math.max(s.lo, (s.alpha + (right[a] ?? 0)) / (s.alpha + s.beta + (total[a] ?? 0))));
      delta = Math.max(delta, Math.abs(x - old));
      return x;
    });
    p = next;
    eStep();
    if (delta <= s.tolerance) break;
  }
  // Objective: Σ_m log Σ_T P(T) Π c-weighted likelihoods, plus the Beta prior of every agent.
  const lp = p.map(Math.log);
  const lq = p.map((x) => Math.log(1 - x));
  let ll = 0;
  for (let m = 0; m < markets; m++) {
    const half = (flat.soft[m] ?? 0) / 2;
    let yes = half;
    let no = -half;
    for (let v = flat.start[m] ?? 0; v < (flat.start[m + 1] ?? 0); v++) {
      const a = flat.agent[v] ?? 0;
      const c = flat.c[v] ?? 0;
      if ((flat.sign[v] ?? 0) > 0) {
        yes += c * (lp[a] ?? 0);
        no += c * (lq[a] ?? 0);
      } else {
        yes += c * (lq[a] ?? 0);
        no += c * (lp[a] ?? 0);
      }
    }
    const k = flat.known[m];
    ll += k === undefined ? logAddExp(yes, no) - logAddExp(half, -half) : k === 1 ? yes : no;
  }
  return { p, ll };
}

/**
 * Searches the record for agents whose recent answers are better explained as a new agent's (see the module doc).
 * `p0` is the current estimate (one per agent index), `candidates` the agent indices that may be split.
 */
export function detectChanges(
  votes: readonly (readonly ChangeVote[])[],
  known: readonly (number | undefined)[],
  soft: readonly number[],
  p0: readonly number[],
  candidates: readonly number[],
  s: ChangeSearch,
): Change[] {
  const start = [0];
  const agent: number[] = [];
  const sign: number[] = [];
  const c: number[] = [];
  for (const vs of votes) {
    for (const v of vs) {
      agent.push(v.agent);
      sign.push(v.sign);
      c.push(v.c);
    }
    start.push(agent.length);
  }
  const flat: Flat = {
    start,
    agent: Int32Array.from(agent),
    sign: Int8Array.from(sign),
    c: Float64Array.from(c),
    known: [...known],
    soft: [...soft],
  };
  // Positions of each agent's answers, oldest first.
  const positions = new Map<number, number[]>();
  agent.forEach((a, v) => {
    const list = positions.get(a) ?? [];
    list.push(v);
    positions.set(a, list);
  });
  const prior = s.alpha / (s.alpha + s.beta);
  let baseFit: Fit | undefined;
  const changes: Change[] = [];
  const split = new Set<number>();
  /** Sign of an agent's answer by market, for the "changed together" test of a pair. */
  const marketOf = new Int32Array(agent.length);
  for (let m = 0; m + 1 < start.length; m++) for (let v = start[m] ?? 0; v < (start[m + 1] ?? 0); v++) marketOf[v] = m;
  const recentSigns = (a: number, m: number): Map<number, number> => {
    const pos = positions.get(a) ?? [];
    return new Map(pos.slice(pos.length - m).map((v) => [marketOf[v] ?? 0, sign[v] ?? 0]));
  };
  const knownWrong = (a: number, m: number): number => {
    const pos = positions.get(a) ?? [];
    let n = 0;
    for (const v of pos.slice(pos.length - m)) {
      const k = known[marketOf[v] ?? 0];
      if (k !== undefined && (sign[v] ?? 0) !== (k === 1 ? 1 : -1)) n += 1;
    }
    return n;
  };
  while (changes.length < s.maxChanges) {
    const now = baseFit?.p ?? p0;
    // Candidates: agents a ruling found wrong within the longest recent stretch tried, most accurate first.
    const longest = s.lengths[s.lengths.length - 1] ?? 0;
    const order = candidates
      .filter(
        (a) =>
          !split.has(a) &&
          (positions.get(a)?.length ?? 0) >= s.minBefore + (s.lengths[0] ?? 1) &&
          knownWrong(a, longest) >= s.minKnownWrong,
      )
      .sort((x, y) => (now[y] ?? 0) - (now[x] ?? 0) || x - y)
      .slice(0, s.candidates);
    // Moves: one agent, or two that changed together (their recent answers agree on ≥ 3/4 of the markets they
    // share): a coalition's strike moves both, and splitting one alone leaves the other holding the old reading.
    const moves: number[][] = order.map((a) => [a]);
    if (changes.length + 2 <= s.maxChanges)
      for (let i = 0; i < order.length; i++)
        for (let j = i + 1; j < order.length; j++) moves.push([order[i] ?? 0, order[j] ?? 0]);
    let best: { moved: number[]; recent: number; gain: number; net: number; fit: Fit; agents: Int32Array } | undefined;
    for (const move of moves) {
      for (const m of s.lengths) {
        if (move.some((a) => (positions.get(a)?.length ?? 0) - m < s.minBefore)) break;
        // Anchored in trusted truth: an agent counts as changed only where rulings in its recent answers say it
        // was wrong — inferred labels alone would let the record's own errors split the honest agents.
        if (move.some((a) => knownWrong(a, m) < s.minKnownWrong)) continue;
        const [x, y] = move;
        if (x !== undefined && y !== undefined) {
          const sx = recentSigns(x, m);
          let shared = 0;
          let agree = 0;
          for (const [mk, sg] of recentSigns(y, m)) {
            const other = sx.get(mk);
            if (other === undefined) continue;
            shared += 1;
            if (other === sg) agree += 1;
          }
          if (shared === 0 || agree * 4 < shared * 3) continue;
        }
        // The refit without a change, made once it is needed (most records have no ruling to anchor one).
        baseFit ??= refit(flat, p0, s);
        const base = baseFit;
        const moved = Int32Array.from(flat.agent);
        move.forEach((a, k) => {
          const pos = positions.get(a) ?? [];
          for (const v of pos.slice(pos.length - m)) moved[v] = base.p.length + k;
        });
        // Two starts: the new agents at the prior, and turned against their old selves (which finds the reading
        // where the others were right all along while the old records still carry the labels).
        const trial = [
          refit({ ...flat, agent: moved }, [...base.p, ...move.map(() => prior)], s),
          refit({ ...flat, agent: moved }, [...base.p, ...move.map((a) => 1 - (base.p[a] ?? prior))], s),
        ].reduce((u, w) => (w.ll > u.ll ? w : u));
        const gain = trial.ll - base.ll;
        const net = gain - s.penalty * move.length;
        if (net > 0 && (best === undefined || net > best.net))
          best = { moved: move, recent: m, gain, net, fit: trial, agents: moved };
      }
    }
    if (best === undefined) break;
    for (const a of best.moved) {
      changes.push({ agent: a, recent: best.recent, gain: best.gain });
      split.add(a);
    }
    flat.agent = best.agents;
    baseFit = best.fit;
  }
  return changes;
}
