/**
 * Admission that costs what it protects (docs/RECORDS.md §5), the vote's side: which past markets make an agent
 * "proven". A market counts for agent a only when
 *   - its recorded `value` (reward pool + stakes) is at least the gated market's floor (when a floor is given);
 *   - its creator is none of a's controllers (owner, operator, wallet), when they are known;
 *   - it was settled by an allowed arbiter (`trustedRuling`), or another seat answered yes/no whose agent shares
 *     no controller with a (farming on one's own markets with one's own Sybils does not count).
 * Pure; O(Σ answers × controllers).
 */
import type { HistoryMarket } from "./types.js";

export interface Admission {
  /** The gated market's own value floor, wei (markets without a recorded value then do not count). */
  minValue?: bigint;
  /** Owner, operator and wallet of each agent (compared case-insensitively). */
  controllers?: ReadonlyMap<bigint, readonly string[]>;
}

/**
 * The track record as admission sees it: markets below the floor dropped, and in each remaining market the
 * answers of agents for whom it does not count (their controller created it, or no independent seat answered
 * and no allowed arbiter ruled) dropped. The estimate and the "proven" count both read this record.
 */
export function admittedHistory(history: readonly HistoryMarket[], admission: Admission): HistoryMarket[] {
  const ctl = new Map<bigint, Set<string>>();
  for (const [id, list] of admission.controllers ?? []) ctl.set(id, new Set(list.map((x) => x.toLowerCase())));
  const shares = (a: bigint, b: bigint): boolean => {
    if (a === b) return true;
    const ca = ctl.get(a);
    const cb = ctl.get(b);
    if (ca === undefined || cb === undefined) return false;
    for (const x of ca) if (cb.has(x)) return true;
    return false;
  };
  const out: HistoryMarket[] = [];
  for (const m of history) {
    if (admission.minValue !== undefined && (m.value === undefined || m.value < admission.minValue)) continue;
    const creator = m.creator?.toLowerCase();
    const voters = [...new Set(m.answers.filter((x) => x.answer === "yes" || x.answer === "no").map((x) => x.agentId))];
    const counts = (id: bigint): boolean => {
      if (creator !== undefined && ctl.get(id)?.has(creator) === true) return false;
      return (m.disputed && m.trustedRuling === true) || voters.some((b) => !shares(id, b));
    };
    const ok = new Map(voters.map((id) => [id, counts(id)]));
    const answers = m.answers.filter((x) => ok.get(x.agentId) !== false);
    if (answers.length > 0) out.push({ ...m, answers });
  }
  return out;
}
