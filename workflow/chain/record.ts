/**
 * The on-chain track record (docs/RECORDS.md §3) through viem: `MarketRecorded` logs as RecordEntry, the current
 * `recordHead()` and a market's cut-off. The hashing and every check live in workflow/core/track-record.ts.
 */
import { parseAbi, type Address, type Hex } from "viem";
import type { RecordCutoff } from "../core/record-document.js";
import type { RecordEntry } from "../core/track-record.js";
import { resolutionMarketAbi } from "./abis.js";
import type { ChainContext } from "./clients.js";
import { toChainError } from "./errors.js";
import { type DecodedLog, type LogChunk, type LogRange, scanContractLogs } from "./logs.js";

/** The record's event and views (provisional until the market's generated ABI carries them). */
export const recordAbi = parseAbi([
  "struct SeatRecord { uint256 agentId; uint8 answer; uint16 confidenceBps; bool signed; }",
  "struct RecordEntry { uint8 status; bool outcome; bool disputed; address arbiter; address creator; uint256 value; SeatRecord[] seats; }",
  "event MarketRecorded(uint256 indexed marketId, uint256 indexed index, bytes32 head, RecordEntry entry)",
  "function recordHead() view returns (uint256 count, bytes32 head)",
]);

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
      status: entry.status,
      outcome: entry.outcome,
      disputed: entry.disputed,
      arbiter: entry.arbiter,
      creator: entry.creator,
      value: entry.value,
      seats: entry.seats.map((s) => ({
        agentId: s.agentId,
        answer: s.answer,
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

/**
 * A market's cut-off: `recordHead()` at the block of its `ResolutionRequested` (the record as the request found
 * it). Provisional until the market stores the cut-off (docs/RECORDS.md §3); undefined when it was not requested.
 */
export async function readCutoff(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  range: LogRange = {},
): Promise<RecordCutoff | undefined> {
  for await (const chunk of scanContractLogs(ctx, market, resolutionMarketAbi, "ResolutionRequested", range, {
    marketId,
  }))
    for (const log of chunk.logs) return readRecordHead(ctx, market, log.blockNumber);
  return undefined;
}
