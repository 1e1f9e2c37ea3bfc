/**
 * Reads a market and its frozen worker set in as few calls as possible: one multicall3 `aggregate3`
 * for the market (header, workers, limits, minStake, marketCount) and one for the workers'
 * reputation, both pinned to one block. Chains without multicall3 (Hardhat's in-process chain and
 * `hardhat node` have none) get the same reads as parallel `eth_call`s at that block.
 */
import { getAddress, type Address, type Hex } from "viem";
import { resolutionMarketAbi } from "./abis.js";
import type { ChainContext } from "./clients.js";
import { ChainError, STATUS_NAMES, toChainError, withAllErrors } from "./errors.js";

/** The canonical multicall3 deployment (same address on nearly every chain). */
export const MULTICALL3_ADDRESS: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";

export type ReadMode = "multicall3" | "parallel";

const modeCache = new WeakMap<ChainContext, Promise<ReadMode>>();

/** "multicall3" when the chain has code at the canonical multicall3 address. Cached per context. */
export function readMode(ctx: ChainContext): Promise<ReadMode> {
  let mode = modeCache.get(ctx);
  if (!mode) {
    mode = ctx.publicClient.getCode({ address: MULTICALL3_ADDRESS }).then(
      (code) => (code !== undefined && code !== "0x" ? "multicall3" : "parallel"),
      (error: unknown) => {
        modeCache.delete(ctx);
        throw toChainError(error, "multicall3 detection");
      },
    );
    modeCache.set(ctx, mode);
  }
  return mode;
}

export interface ReadCall {
  address: Address;
  abi: readonly unknown[];
  functionName: string;
  args?: readonly unknown[];
}

export type ReadResult = { status: "success"; result: unknown } | { status: "failure"; error: unknown };

/** Runs `calls` at `blockNumber` through multicall3 when available, else in parallel. Never throws for a failed call. */
export async function readMany(ctx: ChainContext, calls: readonly ReadCall[], blockNumber: bigint): Promise<{ mode: ReadMode; results: ReadResult[] }> {
  const mode = await readMode(ctx);
  if (calls.length === 0) return { mode, results: [] };
  if (mode === "multicall3") {
    const results = await ctx.publicClient
      .multicall({
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        contracts: calls.map((c) => ({ ...c, abi: withAllErrors(c.abi as any) })) as any,
        allowFailure: true,
        multicallAddress: MULTICALL3_ADDRESS,
        blockNumber,
      })
      .catch((error: unknown) => {
        throw toChainError(error, "multicall3 aggregate3");
      });
    return {
      mode,
      results: (results as { status: string; result?: unknown; error?: unknown }[]).map((r) =>
        r.status === "success" ? { status: "success", result: r.result } : { status: "failure", error: r.error },
      ),
    };
  }
  const results = await Promise.all(
    calls.map((c) =>
      ctx.publicClient
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        .readContract({ ...c, abi: withAllErrors(c.abi as any), blockNumber } as any)
        .then(
          (result): ReadResult => ({ status: "success", result }),
          (error: unknown): ReadResult => ({ status: "failure", error }),
        ),
    ),
  );
  return { mode, results };
}

function unwrap<T>(r: ReadResult, what: string): T {
  if (r.status === "failure") throw toChainError(r.error, what);
  return r.result as T;
}

export type StatusName = (typeof STATUS_NAMES)[number];

export interface WorkerState {
  address: Address;
  agentId: bigint;
  stake: bigint;
  /** Market-level averages (count 0 = never scored). */
  reputation?: { count: bigint; resQuality: number; srcQuality: number; analysisDepth: number };
}

export interface MarketState {
  market: Address;
  marketId: bigint;
  blockNumber: bigint;
  status: number;
  statusName: StatusName;
  creator: Address;
  question: string;
  deadline: bigint;
  requestedAt: bigint;
  outcome: boolean;
  workerCount: number;
  rewardPool: bigint;
  totalStake: bigint;
  bundleHash: Hex;
  seatLimit: number;
  gracePeriod: number;
  feedbackPending: bigint;
  /** Current minimum stake for joins (market-wide). */
  minStake: bigint;
  workers: WorkerState[];
  mode: ReadMode;
}

interface MarketInfoResult {
  creator: Address;
  deadline: bigint;
  requestedAt: bigint;
  status: number;
  outcome: boolean;
  workerCount: number;
  rewardPool: bigint;
  totalStake: bigint;
  bundleHash: Hex;
  question: string;
}

/** True for Resolved, Invalid and Cancelled. */
export function isTerminalStatus(status: number): boolean {
  return status >= 3;
}

export interface ReadMarketOptions {
  /** Also read each worker's market reputation (a second round). Default true. */
  reputation?: boolean;
  /** Default: the latest block. */
  blockNumber?: bigint;
}

/**
 * Reads market `marketId` at one block. Throws a precondition ChainError naming the problem when
 * `market` has no code or the market does not exist.
 */
export async function readMarketState(ctx: ChainContext, market: Address, marketId: bigint, options: ReadMarketOptions = {}): Promise<MarketState> {
  const blockNumber = options.blockNumber ?? (await ctx.publicClient.getBlockNumber({ cacheTime: 0 }).catch((e: unknown) => {
    throw toChainError(e, "eth_blockNumber");
  }));
  const abi = resolutionMarketAbi;
  const { mode, results } = await readMany(
    ctx,
    [
      { address: market, abi, functionName: "marketCount" },
      { address: market, abi, functionName: "minStake" },
      { address: market, abi, functionName: "getMarket", args: [marketId] },
      { address: market, abi, functionName: "getWorkers", args: [marketId] },
      { address: market, abi, functionName: "marketLimits", args: [marketId] },
      { address: market, abi, functionName: "feedbackStatus", args: [marketId] },
    ],
    blockNumber,
  );
  if (results[0].status === "failure") {
    const code = await ctx.publicClient.getCode({ address: market, blockNumber }).catch(() => undefined);
    if (code === undefined || code === "0x") throw new ChainError("precondition", `no contract at market address ${market} on chain ${ctx.chainId}`);
  }
  const count = unwrap<bigint>(results[0], "ResolutionMarket.marketCount");
  if (marketId < 1n || marketId > count) {
    throw new ChainError("precondition", `unknown market ${marketId}: the market at ${market} has ${count} market${count === 1n ? "" : "s"} (ids 1..${count})`);
  }
  const minStake = unwrap<bigint>(results[1], "ResolutionMarket.minStake");
  const info = unwrap<MarketInfoResult>(results[2], "ResolutionMarket.getMarket");
  const [addresses, agentIds, stakes] = unwrap<readonly [readonly Address[], readonly bigint[], readonly bigint[]]>(results[3], "ResolutionMarket.getWorkers");
  const [seatLimit, gracePeriod] = unwrap<readonly [number, number]>(results[4], "ResolutionMarket.marketLimits");
  const [, feedbackPending] = unwrap<readonly [bigint, bigint]>(results[5], "ResolutionMarket.feedbackStatus");
  if (addresses.length !== info.workerCount || agentIds.length !== addresses.length || stakes.length !== addresses.length) {
    throw new ChainError("precondition", `market ${marketId}: worker arrays disagree with workerCount ${info.workerCount}`);
  }
  const workers: WorkerState[] = addresses.map((address, i) => ({ address: getAddress(address), agentId: agentIds[i], stake: stakes[i] }));

  if ((options.reputation ?? true) && workers.length > 0) {
    const rep = await readMany(
      ctx,
      workers.map((w) => ({ address: market, abi, functionName: "getReputation", args: [w.agentId] })),
      blockNumber,
    );
    rep.results.forEach((r, i) => {
      const [count_, resQuality, srcQuality, analysisDepth] = unwrap<readonly [bigint, number, number, number]>(r, "ResolutionMarket.getReputation");
      workers[i].reputation = { count: count_, resQuality, srcQuality, analysisDepth };
    });
  }

  return {
    market,
    marketId,
    blockNumber,
    status: info.status,
    statusName: STATUS_NAMES[info.status] ?? "None",
    creator: getAddress(info.creator),
    question: info.question,
    deadline: info.deadline,
    requestedAt: info.requestedAt,
    outcome: info.outcome,
    workerCount: info.workerCount,
    rewardPool: info.rewardPool,
    totalStake: info.totalStake,
    bundleHash: info.bundleHash,
    seatLimit,
    gracePeriod,
    feedbackPending,
    minStake,
    workers,
    mode,
  };
}

export interface MarketStatusView {
  status: number;
  statusName: StatusName;
  bundleHash: Hex;
}

/**
 * The status of a market in one `getMarket` call — for the checks before a run and before a write,
 * which need nothing else. When the call fails (unknown id, no contract) the full snapshot is read
 * instead, so the error names the problem exactly as `readMarketState` does.
 */
export async function readMarketStatus(ctx: ChainContext, market: Address, marketId: bigint): Promise<MarketStatusView> {
  let info: MarketInfoResult;
  try {
    info = (await ctx.publicClient.readContract({ address: market, abi: resolutionMarketAbi, functionName: "getMarket", args: [marketId] })) as MarketInfoResult;
  } catch {
    const state = await readMarketState(ctx, market, marketId, { reputation: false });
    return { status: state.status, statusName: state.statusName, bundleHash: state.bundleHash };
  }
  return { status: info.status, statusName: STATUS_NAMES[info.status] ?? "None", bundleHash: info.bundleHash };
}
