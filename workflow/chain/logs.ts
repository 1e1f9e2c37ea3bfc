/**
 * Event logs of the market contract in chunks of `chunkBlocks` (public RPC providers refuse wide eth_getLogs
 * ranges), from `fromBlock` (the contract's deployment block when known) to `toBlock` (default: latest).
 */
import type { Abi, Address, ContractEventArgs, ContractEventName, Log } from "viem";
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

/** A mined `eventName` log of `A`, its arguments decoded (strict: logs that do not decode are dropped). */
export type DecodedLog<A extends Abi = Abi, E extends ContractEventName<A> = ContractEventName<A>> = Log<
  bigint,
  number,
  false,
  undefined,
  true,
  A,
  E
>;

type MarketEventName = ContractEventName<typeof resolutionMarketAbi>;

/** All `eventName` logs of `market` in the range (optionally filtered on indexed `args`), oldest first. */
export function readLogs<E extends MarketEventName>(
  ctx: ChainContext,
  market: Address,
  eventName: E,
  range: LogRange = {},
  args?: ContractEventArgs<typeof resolutionMarketAbi, E>,
): Promise<DecodedLog<typeof resolutionMarketAbi, E>[]> {
  return readContractLogs(ctx, market, resolutionMarketAbi, eventName, range, args);
}

/**
 * `readLogs` for any contract and ABI (the identity registry, the betting market). Typed by the ABI; the
 * implementation hands viem a plain `Abi` (its conditional types do not resolve for a generic one).
 */
export function readContractLogs<const A extends Abi, E extends ContractEventName<A>>(
  ctx: ChainContext,
  address: Address,
  abi: A,
  eventName: E,
  range?: LogRange,
  args?: ContractEventArgs<A, E>,
): Promise<DecodedLog<A, E>[]>;
export async function readContractLogs(
  ctx: ChainContext,
  address: Address,
  abi: Abi,
  eventName: string,
  range: LogRange = {},
  args?: ContractEventArgs,
): Promise<DecodedLog[]> {
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
      out.push(
        ...(await ctx.publicClient.getContractEvents({
          address,
          abi,
          eventName,
          fromBlock: start,
          toBlock: end,
          strict: true,
          ...(args ? { args } : {}),
        })),
      );
    } catch (error) {
      throw toChainError(error, `eth_getLogs ${eventName} ${start}..${end}`);
    }
  }
  return out;
}
