/**
 * Reads a market and its frozen worker set in as few calls as possible: one multicall3 `aggregate3`
 * for the market (header, workers, config, proposal, feedback progress) and one for the workers'
 * reputation, both pinned to one block. Chains without multicall3 (Hardhat's in-process chain and
 * `hardhat node` have none) get the same reads as parallel `eth_call`s at that block.
 */
import { getAddress, type Abi, type Address, type Hex } from "viem";
import { marketReputationAbi, resolutionMarketAbi } from "./abis.js";
import { readView, viewCall, type ViewCall, type ViewFunctionName, type ViewResult } from "./reads.js";
import type { ChainContext } from "./clients.js";
import { STATUS_NAMES, type StatusName } from "../core/codes.js";
import { ChainError, toChainError, withAllErrors } from "./errors.js";
import { shapeConfig, shapeProposal, type MarketConfigView, type ProposalView } from "./market-reads.js";

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

export type ReadResult<T = unknown> = { status: "success"; result: T } | { status: "failure"; error: unknown };

/** The result of each call of `C`, in order, typed by the call's ABI and function. */
export type ReadResults<C extends readonly ViewCall[]> = {
  -readonly [K in keyof C]: C[K] extends ViewCall<infer A, infer F> ? ReadResult<ViewResult<A, F>> : ReadResult;
};

/** Each call re-checked against its own ABI, so a plain object literal with a misspelled name or wrong args fails too. */
type CheckedCalls<C extends readonly ViewCall[]> = {
  [K in keyof C]: C[K] extends { abi: infer A extends Abi; functionName: infer F }
    ? F extends ViewFunctionName<A>
      ? ViewCall<A, F>
      : ViewCall<A, ViewFunctionName<A>>
    : C[K];
};

/**
 * Runs `calls` (built with `viewCall`) at `blockNumber` through multicall3 when available, else in parallel. Never
 * throws for a failed call. Typed by each call's ABI; the implementation hands viem plain `Abi`s (see reads.ts).
 */
export function readMany<const C extends readonly ViewCall[]>(
  ctx: ChainContext,
  calls: C & CheckedCalls<C>,
  blockNumber: bigint,
): Promise<{ mode: ReadMode; results: ReadResults<C> }>;
export async function readMany(
  ctx: ChainContext,
  calls: readonly ViewCall[],
  blockNumber: bigint,
): Promise<{ mode: ReadMode; results: ReadResult[] }> {
  const mode = await readMode(ctx);
  if (calls.length === 0) return { mode, results: [] };
  if (mode === "multicall3") {
    const results = await ctx.publicClient
      .multicall({
        contracts: calls.map((c) => ({ ...c, abi: withAllErrors(c.abi) })),
        allowFailure: true,
        multicallAddress: MULTICALL3_ADDRESS,
        blockNumber,
      })
      .catch((error: unknown) => {
        throw toChainError(error, "multicall3 aggregate3");
      });
    return {
      mode,
      results: results.map(
        (r): ReadResult =>
          r.status === "success" ? { status: "success", result: r.result } : { status: "failure", error: r.error },
      ),
    };
  }
  const results = await Promise.all(
    calls.map((c) =>
      ctx.publicClient.readContract({ ...c, abi: withAllErrors(c.abi), blockNumber }).then(
        (result): ReadResult => ({ status: "success", result }),
        (error: unknown): ReadResult => ({ status: "failure", error }),
      ),
    ),
  );
  return { mode, results };
}

function unwrap<T>(r: ReadResult<T>, what: string): T {
  if (r.status === "failure") throw toChainError(r.error, what);
  return r.result;
}

export type { StatusName };

export interface WorkerState {
  address: Address;
  agentId: bigint;
  stake: bigint;
  /** The agent's record in this market contract (IResolutionMarket.Reputation; settled 0 = no track record). */
  reputation?: { settled: bigint; correctness: number; resQuality: number; srcQuality: number; analysisDepth: number };
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
  /** Settings snapshotted at creation (admission, stake, seats, grace, dispute window, bond, arbiter). */
  config: MarketConfigView;
  /** The proposal, once there is one. */
  proposal?: ProposalView;
  /** Seats still waiting for `publishFeedback` after finalization. */
  feedbackPending: bigint;
  /** Kept for callers of the v1 shape: `config.maxWorkers`, `config.gracePeriod`, `config.minStake`. */
  seatLimit: number;
  gracePeriod: number;
  minStake: bigint;
  workers: WorkerState[];
  mode: ReadMode;
}

type MarketInfoResult = ViewResult<typeof resolutionMarketAbi, "getMarket">;

/** True for the final statuses Resolved, Invalid and Cancelled (Proposed and Disputed are not final). */
export function isTerminalStatus(status: number): boolean {
  return status >= 3 && status <= 5;
}

/** True once a market has left ResolutionRequested (Proposed, Disputed, Resolved, Invalid, Cancelled): nothing to propose. */
export function isPastRequest(status: number): boolean {
  return status > 2;
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
export async function readMarketState(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  options: ReadMarketOptions = {},
): Promise<MarketState> {
  const blockNumber =
    options.blockNumber ??
    (await ctx.publicClient.getBlockNumber({ cacheTime: 0 }).catch((e: unknown) => {
      throw toChainError(e, "eth_blockNumber");
    }));
  const abi = resolutionMarketAbi;
  const { mode, results } = await readMany(
    ctx,
    [
      viewCall(market, abi, "getMarket", [marketId]),
      viewCall(market, abi, "getWorkers", [marketId]),
      viewCall(market, abi, "getMarketConfig", [marketId]),
      viewCall(market, abi, "getProposal", [marketId]),
      viewCall(market, abi, "reputation", []),
    ],
    blockNumber,
  );
  if (results[0].status === "failure") {
    const code = await ctx.publicClient.getCode({ address: market, blockNumber }).catch(() => undefined);
    if (code === undefined || code === "0x")
      throw new ChainError("precondition", `no contract at market address ${market} on chain ${ctx.chainId}`);
    const e = toChainError(results[0].error, "ResolutionMarket.getMarket");
    if (e.errorName === "MarketNotFound")
      throw new ChainError("precondition", `unknown market ${marketId}: no such market at ${market}`);
    throw e;
  }
  const info = unwrap(results[0], "ResolutionMarket.getMarket");
  if (Number(info.status) === 0)
    throw new ChainError("precondition", `unknown market ${marketId}: no such market at ${market}`);
  const [addresses, agentIds, stakes] = unwrap(results[1], "ResolutionMarket.getWorkers");
  const config = shapeConfig(unwrap(results[2], "ResolutionMarket.getMarketConfig"));
  const proposal = shapeProposal(unwrap(results[3], "ResolutionMarket.getProposal"));
  // Feedback progress lives in the market's writer (MarketReputation); only a Resolved market has any.
  const writer = unwrap(results[4], "ResolutionMarket.reputation");
  const feedbackPending =
    STATUS_NAMES[Number(info.status)] === "Resolved"
      ? (
          await readView(
            ctx,
            viewCall(writer, marketReputationAbi, "feedbackStatus", [marketId]),
            "MarketReputation.feedbackStatus",
            blockNumber,
          )
        )[1]
      : 0n;
  if (
    addresses.length !== info.workerCount ||
    agentIds.length !== addresses.length ||
    stakes.length !== addresses.length
  ) {
    throw new ChainError(
      "precondition",
      `market ${marketId}: worker arrays disagree with workerCount ${info.workerCount}`,
    );
  }
  const workers = addresses.map((address, i): WorkerState => {
    const agentId = agentIds[i];
    const stake = stakes[i];
    if (agentId === undefined || stake === undefined)
      throw new ChainError("precondition", `market ${marketId}: worker arrays disagree`);
    return { address: getAddress(address), agentId, stake };
  });

  if ((options.reputation ?? true) && workers.length > 0) {
    const rep = await readMany(
      ctx,
      workers.map((w) => viewCall(market, abi, "getReputation", [w.agentId])),
      blockNumber,
    );
    rep.results.forEach((r, i) => {
      const v = unwrap(r, "ResolutionMarket.getReputation");
      const worker = workers[i];
      if (worker === undefined)
        throw new ChainError("precondition", `market ${marketId}: more reputations than workers`);
      worker.reputation = {
        settled: BigInt(v.settled),
        correctness: Number(v.correctness),
        resQuality: Number(v.resQuality),
        srcQuality: Number(v.srcQuality),
        analysisDepth: Number(v.analysisDepth),
      };
    });
  }

  return {
    market,
    marketId,
    blockNumber,
    status: Number(info.status),
    statusName: STATUS_NAMES[Number(info.status)] ?? "None",
    creator: getAddress(info.creator),
    question: info.question,
    deadline: info.deadline,
    requestedAt: info.requestedAt,
    outcome: info.outcome,
    workerCount: info.workerCount,
    rewardPool: info.rewardPool,
    totalStake: info.totalStake,
    bundleHash: info.bundleHash,
    config,
    ...(proposal !== undefined ? { proposal } : {}),
    feedbackPending,
    seatLimit: config.maxWorkers,
    gracePeriod: config.gracePeriod,
    minStake: config.minStake,
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
export async function readMarketStatus(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
): Promise<MarketStatusView> {
  let info: MarketInfoResult;
  try {
    info = await ctx.publicClient.readContract({
      address: market,
      abi: resolutionMarketAbi,
      functionName: "getMarket",
      args: [marketId],
    });
  } catch {
    const state = await readMarketState(ctx, market, marketId, { reputation: false });
    return { status: state.status, statusName: state.statusName, bundleHash: state.bundleHash };
  }
  return { status: info.status, statusName: STATUS_NAMES[info.status] ?? "None", bundleHash: info.bundleHash };
}
