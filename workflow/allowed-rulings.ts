/**
 * Which disputed markets of the track record count as known truth (docs/RECORDS.md §4): a ruling by an arbiter the
 * deployment allows (or the operator configured) is truth; any other ruling stays soft evidence. The one place the
 * daemon, `cresolver resolve` and the CRE workflow mark them: each wraps its TrackRecordSource with
 * `withAllowedRulings` and supplies only the allow-list read (chain/trusted-rulings.ts over RPC, one Multicall3 read on
 * a DON), so the three give the estimator the same known truths.
 */
import type { Address, HistoryMarket } from "./core/types.js";
import type { TrackRecordSource } from "./ports.js";

/** The deployment's arbiter allow-list as one environment reads it. */
export interface ArbiterAllowList {
  /**
   * The subset of `arbiters` (distinct, lower-case) whose rulings are known truth, lower-case. Throws on an
   * infrastructure failure (the resolution then stops rather than vote on other weights).
   */
  allowed(arbiters: readonly Address[]): Promise<ReadonlySet<string>>;
}

/** `history` with each ruling not already trusted re-marked by `allowed` (lower-case arbiters). */
export function markRulings(history: readonly HistoryMarket[], allowed: ReadonlySet<string>): HistoryMarket[] {
  return history.map((m) =>
    m.arbiter === undefined || m.trustedRuling === true
      ? m
      : { ...m, trustedRuling: allowed.has(m.arbiter.toLowerCase()) },
  );
}

/** The arbiters whose rulings `history` holds and that are not trusted yet (distinct, lower-case, first seen first). */
export function rulingArbiters(history: readonly HistoryMarket[]): Address[] {
  const out = new Set<string>();
  for (const m of history) if (m.arbiter !== undefined && m.trustedRuling !== true) out.add(m.arbiter.toLowerCase());
  return [...out] as Address[];
}

/** `history` with rulings by allowed arbiters marked as known truth; no allow-list read when nothing was ruled. */
export async function markAllowedRulings(
  history: HistoryMarket[],
  allowList: ArbiterAllowList,
): Promise<HistoryMarket[]> {
  const ruled = rulingArbiters(history);
  if (ruled.length === 0) return history;
  return markRulings(history, await allowList.allowed(ruled));
}

/** `source` with rulings by allowed arbiters marked as known truth (`markAllowedRulings`). */
export function withAllowedRulings(source: TrackRecordSource, allowList: ArbiterAllowList): TrackRecordSource {
  return { history: async (market) => markAllowedRulings(await source.history(market), allowList) };
}
