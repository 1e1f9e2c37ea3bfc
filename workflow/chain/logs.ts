/**
 * Event logs of the market contract in chunks of `chunkBlocks` (public RPC providers refuse wide eth_getLogs
 * ranges), from `fromBlock` (the contract's deployment block when known) to `toBlock` (default: latest).
 */
import type { Abi, Address, Log } from "viem";
import { resolutionMarketAbi } from "./abis.js";
import type { ChainContext } from "./clients.js";
import { toChainError } from "./errors.js";

export interface LogRange {
  /** First block to scan (the market contract's deployment block). Default 0. */
  fromBlock?: bigint;
  /** Last block. Default: the latest. */
  toBlock?: bigint;
  /** Blocks per eth_getLogs request. Default 10,000. */
  chunkBlocks?: bigint;
}

export type DecodedLog = Log & { args: Record<string, unknown>; eventName: string };

/** All `eventName` logs of `market` in the range (optionally filtered on indexed `args`), oldest first. */
export function readLogs(ctx: ChainContext, market: Address, eventName: string, range: LogRange = {}, args?: Record<string, unknown>): Promise<DecodedLog[]> {
  return readContractLogs(ctx, market, resolutionMarketAbi, eventName, range, args);
}

/** `readLogs` for any contract and ABI (the identity registry, the betting market). */
export async function readContractLogs(ctx: ChainContext, address: Address, abi: Abi, eventName: string, range: LogRange = {}, args?: Record<string, unknown>): Promise<DecodedLog[]> {
  const from = range.fromBlock ?? 0n;
  const chunk = range.chunkBlocks ?? 10_000n;
  const to =
    range.toBlock ??
    (await ctx.publicClient.getBlockNumber({ cacheTime: 0 }).catch((e: unknown) => {
      throw toChainError(e, "eth_blockNumber");
    }));
  const out: DecodedLog[] = [];
  for (let start = from; start <= to; start += chunk) {
    const end = start + chunk - 1n < to ? start + chunk - 1n : to;
    try {
      const logs = await ctx.publicClient.getContractEvents({ address, abi, eventName, fromBlock: start, toBlock: end, strict: true, ...(args ? { args } : {}) } as never);
      out.push(...(logs as unknown as DecodedLog[]));
    } catch (error) {
      throw toChainError(error, `eth_getLogs ${eventName} ${start}..${end}`);
    }
  }
  return out;
}
