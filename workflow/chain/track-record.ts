/**
 * The public track record from the chain alone (docs/RECORDS.md §3), for a resolver without the daemon's index
 * (`cresolver resolve` without --record-cache or --record-url, the watcher, an explorer outside a daemon): the
 * `MarketRecorded` entries before a cut-off, read from the deployment block, every head recomputed and the last one
 * compared with the cut-off's. One path: a market contract without the record chain (no `recordHead()`) is refused
 * with the chain's error, never read another way.
 */
import type { Address } from "viem";
import type { RecordCutoff } from "../core/record-document.js";
import {
  chainHead,
  type RecordEntry,
  recordWindow,
  TrackRecordError,
  windowHistory,
  ZERO_HEAD,
} from "../core/track-record.js";
import type { HistoryMarket } from "../core/types.js";
import type { ChainContext } from "./clients.js";
import type { LogRange } from "./logs.js";
import { entryOfLog, readCutoff, readRecordHead, scanRecordLogs } from "./record.js";

export type TrackRecordOptions = Pick<LogRange, "fromBlock" | "chunkBlocks">;

/**
 * Entries [0, cutoff.count) from the `MarketRecorded` logs, checked: none missing, and the RECORDS §3 chain over
 * them ends on the cut-off's head. The scan stops once every entry is read.
 */
export async function readRecordEntries(
  ctx: ChainContext,
  market: Address,
  cutoff: RecordCutoff,
  options: TrackRecordOptions = {},
): Promise<RecordEntry[]> {
  const out: RecordEntry[] = [];
  if (cutoff.count === 0) return out;
  let found = 0;
  for await (const chunk of scanRecordLogs(ctx, market, { ...options })) {
    for (const log of chunk.logs) {
      if (log.removed) continue;
      const { entry } = entryOfLog(log);
      if (entry.index >= cutoff.count || out[entry.index] !== undefined) continue;
      out[entry.index] = entry;
      found += 1;
    }
    if (found === cutoff.count) break;
  }
  if (found !== cutoff.count)
    throw new TrackRecordError(`the logs hold ${found} of the record's first ${cutoff.count} entries`);
  if (chainHead(ZERO_HEAD, out) !== cutoff.head.toLowerCase())
    throw new TrackRecordError(`the logs' ${cutoff.count} record entries do not chain to the cut-off head`);
  return out;
}

/** The cut-off a resolution of `marketId` uses: stored by `requestResolution`, else the current head (a manual run). */
export async function cutoffFor(ctx: ChainContext, market: Address, marketId: bigint): Promise<RecordCutoff> {
  return (await readCutoff(ctx, market, marketId)) ?? (await readRecordHead(ctx, market));
}

/**
 * The panel's history: the estimator's window before `cutoff` (recordWindow), the markets where one of `agents`
 * sat, rulings of `trustedArbiters` as known truth (the deployment's allowed ones are marked by the caller's
 * `withAllowedRulings`).
 */
export async function recordHistory(
  ctx: ChainContext,
  market: Address,
  cutoff: RecordCutoff,
  agents: Iterable<bigint>,
  options: TrackRecordOptions & { trustedArbiters?: ReadonlySet<string> | readonly string[] } = {},
): Promise<HistoryMarket[]> {
  const entries = await readRecordEntries(ctx, market, cutoff, options);
  const window = recordWindow(cutoff.count, (i) => entries[i]);
  return windowHistory(entries.slice(window.start), agents, {
    chainId: ctx.chainId,
    market,
    ...(options.trustedArbiters !== undefined ? { trustedArbiters: options.trustedArbiters } : {}),
  });
}
