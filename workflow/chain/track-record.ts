/**
 * The public track record from chain logs alone: every finalized market's proposed per-seat reports
 * (`ResolutionProposed`), its final state (`MarketFinalized`) and the seats' agent ids (`WorkerSettled`, in seat
 * order). Any resolver with an RPC endpoint rebuilds the same history, so a disputer can recompute a proposal's
 * accuracy weights.
 *
 * Logs are read in chunks of `chunkBlocks` from the deployment block. Only markets finalized at or before the
 * block in which the current market's resolution was requested count (so the history a proposal used is fixed and
 * reproducible later), oldest first by (block, log index). Cancelled markets carry no answers and are absent.
 */
import { getAddress, type Address, type ContractEventArgs, type ContractEventName, type Log } from "viem";
import type { resolutionMarketAbi } from "./abis.js";
import type { ChainContext } from "./clients.js";
import { readMarket } from "./lifecycle.js";
import { readLogs, type LogRange } from "./logs.js";
import type { HistoryAnswer, HistoryMarket } from "../core/types.js";
import { ANSWER_NAMES } from "../core/codes.js";

export type TrackRecordOptions = Pick<LogRange, "fromBlock" | "chunkBlocks">;

const STATUS_RESOLVED = 3;

/** The track record's logs: `readLogs` over [from, to] in `chunk`-block requests. */
const logsOf = <E extends ContractEventName<typeof resolutionMarketAbi>>(
  ctx: ChainContext,
  market: Address,
  eventName: E,
  from: bigint,
  to: bigint,
  chunk: bigint,
  args?: ContractEventArgs<typeof resolutionMarketAbi, E>,
) => readLogs(ctx, market, eventName, { fromBlock: from, toBlock: to, chunkBlocks: chunk }, args);

const order = (a: Log<bigint, number, false>, b: Log<bigint, number, false>) =>
  a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1;

/** The block in which `marketId`'s resolution was requested (undefined when it was not). */
export async function resolutionRequestedBlock(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  options: TrackRecordOptions = {},
): Promise<bigint | undefined> {
  const latest = await ctx.publicClient.getBlockNumber({ cacheTime: 0 });
  const logs = await logsOf(
    ctx,
    market,
    "ResolutionRequested",
    options.fromBlock ?? 0n,
    latest,
    options.chunkBlocks ?? 10_000n,
    { marketId },
  );
  return logs[0]?.blockNumber ?? undefined;
}

/**
 * Finalized markets up to `toBlock` (default: latest), oldest first, excluding `excludeMarketId`.
 * Each seat's agent id comes from `WorkerSettled` (emitted in seat order at finalization), else from `getWorkers`.
 */
export async function readTrackRecord(
  ctx: ChainContext,
  market: Address,
  options: TrackRecordOptions & { toBlock?: bigint; excludeMarketId?: bigint } = {},
): Promise<HistoryMarket[]> {
  const from = options.fromBlock ?? 0n;
  const chunk = options.chunkBlocks ?? 10_000n;
  const to = options.toBlock ?? (await ctx.publicClient.getBlockNumber({ cacheTime: 0 }));
  if (to < from) return [];
  const [proposed, finalized, settled] = await Promise.all([
    logsOf(ctx, market, "ResolutionProposed", from, to, chunk),
    logsOf(ctx, market, "MarketFinalized", from, to, chunk),
    logsOf(ctx, market, "WorkerSettled", from, to, chunk),
  ]);
  const reportsOf = new Map<bigint, readonly { answer: number; confidenceBps: number }[]>();
  for (const log of proposed) reportsOf.set(log.args.marketId, log.args.reports);
  const agentsOf = new Map<bigint, bigint[]>();
  for (const log of [...settled].sort(order)) {
    const id = log.args.marketId;
    agentsOf.set(id, [...(agentsOf.get(id) ?? []), log.args.agentId]);
  }
  const key = (id: bigint) => `${ctx.chainId}:${getAddress(market).toLowerCase()}:${id}`;
  const out: HistoryMarket[] = [];
  for (const log of [...finalized].sort(order)) {
    const id = log.args.marketId;
    if (id === options.excludeMarketId) continue;
    const reports = reportsOf.get(id);
    if (reports === undefined) continue; // finalized without a proposal in range: nothing to learn from
    let agents = agentsOf.get(id);
    if (agents === undefined || agents.length !== reports.length) {
      const [, ids] = await readMarket(ctx, market, "getWorkers", [id]);
      agents = [...ids];
    }
    const seatAgents = agents;
    const answers: HistoryAnswer[] = reports.map((r, seat) => ({
      agentId: seatAgents[seat] ?? 0n,
      answer: ANSWER_NAMES[Number(r.answer)] ?? "failed",
      confidenceBps: Number(r.confidenceBps),
    }));
    const status = Number(log.args.status);
    out.push({
      key: key(id),
      final: status === STATUS_RESOLVED ? log.args.outcome : "invalid",
      disputed: log.args.disputed,
      answers,
    });
  }
  return out;
}

/**
 * The track record a proposal on `marketId` uses: markets finalized at or before the block that requested its
 * resolution (latest when it was not requested), the market itself excluded.
 */
export async function trackRecordFor(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  options: TrackRecordOptions = {},
): Promise<HistoryMarket[]> {
  const requested = await resolutionRequestedBlock(ctx, market, marketId, options);
  return readTrackRecord(ctx, market, {
    ...options,
    ...(requested !== undefined ? { toBlock: requested } : {}),
    excludeMarketId: marketId,
  });
}
