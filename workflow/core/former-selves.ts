/**
 * Setting a changed agent's record apart (docs/TRUTH.md §9, "changed agents"): its answers before the change
 * become those of a former self, under a fresh negative id — ERC-8004 ids are uint256, so a former self can never
 * meet a real agent — and the estimate is made again on that record. Pure.
 */
import type { AgentAccuracy } from "./accuracy-types.js";
import type { HistoryMarket } from "./types.js";

/** A changed agent: `before` = indices (in the history) of the markets whose answers its former self takes. */
export interface FormerSelf {
  agentId: bigint;
  before: ReadonlySet<number>;
}

/** The history with each changed agent's earlier answers under its former self's id (−1, −2, … in order). */
export function setApart(history: readonly HistoryMarket[], changed: readonly FormerSelf[]): HistoryMarket[] {
  const former = new Map(changed.map((c, k) => [c.agentId, { before: c.before, id: -BigInt(k + 1) }]));
  return history.map((m, i) => {
    if (!changed.some((c) => c.before.has(i))) return m;
    return {
      ...m,
      answers: m.answers.map((a) => {
        const f = former.get(a.agentId);
        return f?.before.has(i) === true ? { ...a, agentId: f.id } : a;
      }),
    };
  });
}

/**
 * The estimate's agents with `changedAfter` set on the changed ones, and a clone group rooted at a former self
 * (a negative id) named by its smallest real member instead (or dropped when no real member is listed).
 */
export function nameChanged(agents: readonly AgentAccuracy[], changed: readonly FormerSelf[]): AgentAccuracy[] {
  const size = new Map(changed.map((c) => [c.agentId, c.before.size]));
  const realRoot = new Map<bigint, bigint>();
  for (const a of agents) {
    const g = a.cloneGroup;
    if (g !== undefined && g < 0n && (realRoot.get(g) ?? a.agentId) >= a.agentId) realRoot.set(g, a.agentId);
  }
  return agents.map((a) => {
    const { cloneGroup, ...rest } = a;
    const group = cloneGroup !== undefined && cloneGroup < 0n ? realRoot.get(cloneGroup) : cloneGroup;
    const after = size.get(a.agentId);
    return {
      ...rest,
      ...(group !== undefined ? { cloneGroup: group } : {}),
      ...(after !== undefined ? { changedAfter: after } : {}),
    };
  });
}
