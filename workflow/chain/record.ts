/**
 * The on-chain track record (docs/RECORDS.md §3) through viem: `MarketRecorded` logs as RecordEntry, the current
 * `recordHead()` and a market's cut-off. The hashing and every check live in workflow/core/track-record.ts.
 */
import type { Address, Hex } from "viem";
import type { RecordCutoff } from "../core/record-document.js";
import type { RecordEntry } from "../core/track-record.js";
import { resolutionMarketAbi } from "./abis.js";
import type { ChainContext } from "./clients.js";
import { toChainError } from "./errors.js";
import { type DecodedLog, type LogChunk, type LogRange, scanContractLogs } from "./logs.js";

/** The market's ABI: `MarketRecorded`, `recordHead()` and `getMarket` (whose `recordCount`/`recordHead` are the cut-off). */
export const recordAbi = resolutionMarketAbi;

export type MarketRecordedLog = DecodedLog<typeof recordAbi, "MarketRecorded">;

/** A `MarketRecorded` log as an entry and the head the chain computed after it. */
export function entryOfLog(log: MarketRecordedLog): { entry: RecordEntry; head: Hex } {
  const { marketId, index, head, entry } = log.args;
  if (index > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`record index ${index} out of range`);
  return {
    head: head.toLowerCase() as Hex,
    entry: {
      index: Number(index),
      marketId,
      status: Number(entry.status),
      outcome: entry.outcome,
      disputed: entry.disputed,
      arbiter: entry.arbiter,
      creator: entry.creator,
      value: entry.value,
      seats: entry.seats.map((s) => ({
        agentId: s.agentId,
        answer: Number(s.answer),
        confidenceBps: s.confidenceBps,
        signed: s.signed,
      })),
    },
  };
}

/** `MarketRecorded` logs one answered request at a time (range splitting on provider limits: logs.ts). */
export function scanRecordLogs(
  ctx: ChainContext,
  market: Address,
  range: LogRange,
): AsyncGenerator<LogChunk<MarketRecordedLog>> {
  return scanContractLogs(ctx, market, recordAbi, "MarketRecorded", range);
}

/** The entry with index `index` and the head after it (one eth_getLogs on the indexed `index` topic). */
export async function recordedAt(
  ctx: ChainContext,
  market: Address,
  index: number,
  range: LogRange = {},
): Promise<{ entry: RecordEntry; head: Hex } | undefined> {
  for await (const chunk of scanContractLogs(ctx, market, recordAbi, "MarketRecorded", range, {
    index: BigInt(index),
  }))
    for (const log of chunk.logs) return entryOfLog(log);
  return undefined;
}

/** `recordHead()`: the record's entry count and head (at `blockNumber`, default latest). */
export async function readRecordHead(ctx: ChainContext, market: Address, blockNumber?: bigint): Promise<RecordCutoff> {
  try {
    const [count, head] = await ctx.publicClient.readContract({
      address: market,
      abi: recordAbi,
      functionName: "recordHead",
      ...(blockNumber !== undefined ? { blockNumber } : {}),
    });
    return { count: Number(count), head: head.toLowerCase() as Hex };
  } catch (error) {
    throw toChainError(error, "ResolutionMarket.recordHead");
  }
}

/** A market's cut-off, stored by `requestResolution` (docs/RECORDS.md §3); undefined before the request. */
export async function readCutoff(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
): Promise<RecordCutoff | undefined> {
  try {
    const info = await ctx.publicClient.readContract({
      address: market,
      abi: resolutionMarketAbi,
      functionName: "getMarket",
      args: [marketId],
    });
    if (info.requestedAt === 0n) return undefined;
    return { count: Number(info.recordCount), head: info.recordHead.toLowerCase() as Hex };
  } catch (error) {
    throw toChainError(error, "ResolutionMarket.getMarket");
  }
}
