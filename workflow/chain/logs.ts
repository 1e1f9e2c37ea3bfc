/**
 * Event logs of the market contract in chunks of `chunkBlocks` (public RPC providers refuse wide eth_getLogs
 * ranges), from `fromBlock` (the contract's deployment block when known) to `toBlock` (default: latest).
 *
 * Provider limits are not failures of the read: a range refused for its size or its result count ("query returned
 * more than 10000 results", "block range is too large", Infura's -32005 with "Try with this block range [a, b]")
 * is split — to the range the provider names, else in halves — down to one block; the chunk then grows back. Only
 * a single block that is still refused fails, with the provider's message kept. The retrying transport
 * (clients.ts) passes these answers through at once instead of retrying them as a rate limit (`isRangeLimit`).
 */
import { BaseError, type Abi, type Address, type ContractEventArgs, type ContractEventName, type Log } from "viem";
import { resolutionMarketAbi } from "./abis.js";
import type { ChainContext } from "./clients.js";
import { ChainError, toChainError } from "./errors.js";
import { causes } from "../util/cause.js";
import { isRangeLimit } from "./range-limit.js";

export { isRangeLimit };

const firstLine = (text: string): string => (text.split("\n", 1)[0] ?? "").slice(0, 300);

/** The provider's own words in a viem error chain (its `details`), first line, capped. */
export function providerMessage(error: unknown): string | undefined {
  for (const e of causes(error)) {
    const details = e instanceof BaseError ? e.details : undefined;
    if (typeof details === "string" && details !== "") return firstLine(details);
  }
  for (const e of causes(error)) if (e instanceof Error && isRangeLimit(e.message)) return firstLine(e.message);
  return undefined;
}

/** viem's own cap on an answer's body, when that is what failed. */
function bodyTooLarge(error: unknown): string | undefined {
  for (const e of causes(error))
    if (e instanceof Error && /response body exceeded the size limit/i.test(e.message))
      return "response size exceeded (the client's body cap)";
  return undefined;
}

/** The range the provider suggests ("[0x…, 0x…]"), when it names one. */
function suggestedEnd(message: string, start: bigint, end: bigint): bigint | undefined {
  const m = /\[\s*(0x[0-9a-f]+|\d+)\s*,\s*(0x[0-9a-f]+|\d+)\s*\]/i.exec(message);
  if (m?.[1] === undefined || m[2] === undefined) return undefined;
  const [a, b] = [BigInt(m[1]), BigInt(m[2])];
  return a === start && b >= start && b < end ? b : undefined;
}

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
 * What a log query names: the contract, its ABI (typing the event and its indexed arguments), the event, the block
 * range and the indexed-argument filter. Untyped (`Abi`, any event name) in the implementations.
 */
export type LogQuery<A extends Abi = Abi, E extends ContractEventName<A> = ContractEventName<A>> = [
  ctx: ChainContext,
  address: Address,
  abi: A,
  eventName: E,
  range?: LogRange,
  args?: ContractEventArgs<A, E>,
];

/**
 * `readLogs` for any contract and ABI (the identity registry, the betting market). Typed by the ABI; the
 * implementation hands viem a plain `Abi` (its conditional types do not resolve for a generic one).
 */
export function readContractLogs<const A extends Abi, E extends ContractEventName<A>>(
  ...query: LogQuery<A, E>
): Promise<DecodedLog<A, E>[]>;
export async function readContractLogs(...query: LogQuery): Promise<DecodedLog[]> {
  const out: DecodedLog[] = [];
  for await (const chunk of scanContractLogs(...query)) out.push(...chunk.logs);
  return out;
}

/** One answered eth_getLogs request of a scan: its range and its logs. */
export interface LogChunk<L> {
  fromBlock: bigint;
  toBlock: bigint;
  logs: L[];
}

/**
 * The logs of `readContractLogs`, one answered request at a time (a long scan holds one chunk in memory; the
 * caller can commit progress after each). Splits refused ranges as the module comment says.
 */
export function scanContractLogs<const A extends Abi, E extends ContractEventName<A>>(
  ...query: LogQuery<A, E>
): AsyncGenerator<LogChunk<DecodedLog<A, E>>>;
export async function* scanContractLogs(...query: LogQuery): AsyncGenerator<LogChunk<DecodedLog>> {
  const [ctx, address, abi, eventName, range = {}, args] = query;
  const from = range.fromBlock ?? 0n;
  const chunk = range.chunkBlocks ?? 10_000n;
  if (chunk < 1n) throw new RangeError("chunkBlocks must be at least 1");
  const to =
    range.toBlock ??
    (await ctx.publicClient.getBlockNumber({ cacheTime: 0 }).catch((e: unknown) => {
      throw toChainError(e, "eth_blockNumber");
    }));
  let span = chunk;
  // Never grow back past a span the provider refused (a range cap stays a cap; a result cap is per region).
  let ceiling = chunk;
  // The widest span answered: growing back toward the ceiling is a binary search between the two, not a walk.
  let good = 0n;
  let start = from;
  while (start <= to) {
    let end = start + span - 1n < to ? start + span - 1n : to;
    let logs: DecodedLog[];
    for (;;) {
      try {
        logs = await ctx.publicClient.getContractEvents({
          address,
          abi,
          eventName,
          fromBlock: start,
          toBlock: end,
          strict: true,
          ...(args ? { args } : {}),
        });
        break;
      } catch (error) {
        // viem refuses an answer over its 10 MB body cap (≈ 5,000 seven-seat records): a limit like the provider's.
        const said = bodyTooLarge(error) ?? providerMessage(error);
        if (said === undefined || !isRangeLimit(said))
          throw toChainError(error, `eth_getLogs ${eventName} ${start}..${end}`);
        if (end === start)
          throw new ChainError(
            "rpc",
            `eth_getLogs ${eventName} block ${start}: the provider refused one block: ${said}`,
            {
              cause: error,
            },
          );
        const refused = end - start + 1n;
        if (refused - 1n < ceiling) ceiling = refused - 1n;
        end =
          suggestedEnd(said, start, end) ??
          (good > 0n && good < refused ? start + good - 1n : start + (end - start) / 2n);
        span = end - start + 1n;
      }
    }
    yield { fromBlock: start, toBlock: end, logs };
    if (end - start + 1n > good) good = end - start + 1n;
    start = end + 1n;
    if (span < ceiling) {
      const halfway = good < ceiling ? good + (ceiling - good + 1n) / 2n : ceiling;
      span = [span * 2n, ceiling, halfway].reduce((a, b) => (b < a ? b : a));
    }
  }
}
