/**
 * No coalition decides alone (issue 20, item 2). A verdict must survive the defection of (1) the k heaviest agents
 * on its side and (2) every dependent group on its side (voters linked by dependence d ≥ the group threshold,
 * transitively). Where removing one of them leaves the rest of the panel deciding the other side (its own
 * posterior reaching the threshold), and that rest
 * has more voters against the verdict (seats with weight, the unproven bloc's voters) than the coalition has
 * members, the verdict rests on a minority coalition alone: it is fragile. (A 2–1 split of three agents is a
 * majority, not a coalition.) Pure; O(n² + n log n) for n seats.
 */

export interface Weighed {
  agentId: bigint;
  /** +1 yes, −1 no. */
  sign: number;
  /** Weight in log-odds units (≥ 0). */
  weight: number;
}

export interface Coalition {
  /** Members (indices into the voters given). */
  members: number[];
  /** Log-odds of the rest of the panel without them (+ towards yes). */
  rest: number;
}

/**
 * The first coalition (heaviest first) whose defection turns the rest against the verdict `sign(s)`, or
 * undefined. `s` = Σ sign·weight + the bloc's signed weight (the bloc is never a coalition member here).
 */
export function fragileCoalition(
  voters: readonly Weighed[],
  s: number,
  k: number,
  groupDependence: number,
  dependence: (a: bigint, b: bigint) => number,
  /** 1 when the unproven bloc sides against the verdict (it counts as one voter, as in the vote). */
  otherBloc = 0,
  /** How far (log-odds) the rest must lean the other way: the rest must itself reach the threshold. */
  restMargin = 0,
  /** The same for the k heaviest (a stricter bar: honest heavy agents outvoting a weak rest is the norm). */
  heavyMargin = restMargin,
): Coalition | undefined {
  if (s === 0) return undefined;
  const side = Math.sign(s);
  const mine = voters.map((v, i) => ({ ...v, i })).filter((v) => v.sign === side && v.weight > 0);
  const candidates: { g: number[]; margin: number }[] = [];
  // Dependent groups on the winning side (union-find over pairs with d ≥ the threshold).
  const parent = mine.map((_, i) => i);
  const find = (x: number): number => {
    for (let up = parent[x] ?? x; up !== x; up = parent[x] ?? x) x = parent[x] = parent[up] ?? up;
    return x;
  };
  for (let i = 0; i < mine.length; i++)
    for (let j = i + 1; j < mine.length; j++)
      if (dependence(mine[i]?.agentId ?? 0n, mine[j]?.agentId ?? 0n) >= groupDependence) parent[find(j)] = find(i);
  const groups = new Map<number, number[]>();
  mine.forEach((v, i) => {
    const g = find(i);
    groups.set(g, [...(groups.get(g) ?? []), v.i]);
  });
  for (const g of groups.values()) if (g.length > 1) candidates.push({ g, margin: restMargin });
  // The k heaviest (ties by seat order).
  if (k > 0) {
    const heavy = [...mine].sort((a, b) => b.weight - a.weight || a.i - b.i).slice(0, k);
    candidates.push({ g: heavy.map((v) => v.i).sort((a, b) => a - b), margin: heavyMargin });
  }
  const weightOf = (g: readonly number[]): number => g.reduce((t, i) => t + (voters[i]?.weight ?? 0), 0);
  candidates.sort((a, b) => weightOf(b.g) - weightOf(a.g) || (a.g[0] ?? 0) - (b.g[0] ?? 0));
  // A coalition decides alone only against more voters than itself (seats with weight, the bloc's voters).
  const against = voters.filter((v) => v.sign === -side && v.weight > 0).length + otherBloc;
  for (const { g, margin } of candidates) {
    const rest = s - side * weightOf(g);
    if (rest * side <= -margin && g.length < against) return { members: g, rest };
  }
  return undefined;
}
