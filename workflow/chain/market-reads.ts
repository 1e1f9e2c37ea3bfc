/**
 * Reads of IResolutionMarket v2 and its governance: a market's config, proposal, reports, allow-list, admission,
 * reputation and per-seat results, typed by the generated ABIs. The writes that use them are in lifecycle.ts; the
 * one-block snapshot (snapshot.ts) reuses the shapers.
 */
import { getAddress, parseEventLogs, zeroAddress, type Address, type ContractFunctionReturnType, type Hex } from "viem";
import { marketGovernanceAbi, marketReputationAbi, resolutionMarketAbi } from "./abis.js";
import type { ChainContext } from "./clients.js";
import { readLogs } from "./logs.js";
import { readView, viewCall, type ViewArgs, type ViewFunctionName, type ViewResult } from "./reads.js";
import type { AnswerKind, VerdictKind, WorkerReport } from "../core/types.js";
import { ANSWER_NAMES, VERDICT_NAMES } from "../core/codes.js";
import { decodeReport } from "./report-tuple.js";

export const ADMISSION_NAMES = ["open", "track-record", "allow-list"] as const;
export type AdmissionName = (typeof ADMISSION_NAMES)[number];

type MarketAbi = typeof resolutionMarketAbi;

/** A ResolutionMarket view, typed by the generated ABI (a wrong name or argument does not compile). */
export function readMarket<F extends ViewFunctionName<MarketAbi>>(
  ctx: ChainContext,
  market: Address,
  functionName: F,
  args: ViewArgs<MarketAbi, F>,
  blockNumber?: bigint,
): Promise<ViewResult<MarketAbi, F>> {
  return readView(
    ctx,
    viewCall(market, resolutionMarketAbi, functionName, args),
    `ResolutionMarket.${functionName}`,
    blockNumber,
  );
}

export interface MarketConfigView {
  createdAt: bigint;
  admission: AdmissionName;
  minCorrectness: number;
  minSettled: number;
  minStake: bigint;
  maxWorkers: number;
  gracePeriod: number;
  disputeWindow: number;
  bond: bigint;
  arbiter: Address;
}

/** What `getMarketConfig`/`getDefaults` return, as viem decodes it from the generated ABI. */
type RawConfig = ContractFunctionReturnType<typeof resolutionMarketAbi, "view", "getMarketConfig">;

export function shapeConfig(c: RawConfig): MarketConfigView {
  return {
    createdAt: BigInt(c.createdAt),
    admission: ADMISSION_NAMES[Number(c.admission)] ?? "open",
    minCorrectness: Number(c.minCorrectness),
    minSettled: Number(c.minSettled),
    minStake: BigInt(c.minStake),
    maxWorkers: Number(c.maxWorkers),
    gracePeriod: Number(c.gracePeriod),
    disputeWindow: Number(c.disputeWindow),
    bond: BigInt(c.bond),
    arbiter: getAddress(c.arbiter),
  };
}

export async function getMarketConfig(ctx: ChainContext, market: Address, marketId: bigint): Promise<MarketConfigView> {
  return shapeConfig(await readMarket(ctx, market, "getMarketConfig", [marketId]));
}

/** The market's MarketGovernance (the bounded owner: resolvers, default arbiter, defaults). */
export function governanceOf(ctx: ChainContext, market: Address): Promise<Address> {
  return readMarket(ctx, market, "governance", []);
}

/** The market's MarketReputation: the ERC-8004 client of its records (read summaries with it as the client). */
export function feedbackClientOf(ctx: ChainContext, market: Address): Promise<Address> {
  return readMarket(ctx, market, "reputation", []);
}

/** One view of the market's feedback writer (MarketReputation: records, pending feedback, reputation book). */
export async function readWriter<F extends ViewFunctionName<typeof marketReputationAbi>>(
  ctx: ChainContext,
  market: Address,
  functionName: F,
  args: ViewArgs<typeof marketReputationAbi, F>,
  blockNumber?: bigint,
): Promise<ViewResult<typeof marketReputationAbi, F>> {
  const writer = await feedbackClientOf(ctx, market);
  return readView(
    ctx,
    viewCall(writer, marketReputationAbi, functionName, args),
    `MarketReputation.${functionName}`,
    blockNumber,
  );
}

/** One view of the market's governance contract, with the error labelled by contract and function. */
export async function readGovernance<F extends ViewFunctionName<typeof marketGovernanceAbi>>(
  ctx: ChainContext,
  market: Address,
  functionName: F,
  args: ViewArgs<typeof marketGovernanceAbi, F>,
): Promise<ViewResult<typeof marketGovernanceAbi, F>> {
  const governance = await governanceOf(ctx, market);
  return readView(
    ctx,
    viewCall(governance, marketGovernanceAbi, functionName, args),
    `MarketGovernance.${functionName}`,
  );
}

/** The settings a market created now with zero params would get. */
export async function getDefaults(ctx: ChainContext, market: Address): Promise<MarketConfigView> {
  return shapeConfig(await readGovernance(ctx, market, "getDefaults", []));
}

export interface ProposalView {
  proposer: Address;
  verdict: VerdictKind;
  proposedAt: bigint;
  disputeEndsAt: bigint;
  bond: bigint;
  bundleHash: Hex;
  bundleURI: string;
  /** Present once disputed. */
  dispute?: { disputer: Address; claimed: VerdictKind; disputedAt: bigint };
}

type RawProposal = ViewResult<MarketAbi, "getProposal">;

/** undefined before a proposal (proposer zero). */
export function shapeProposal(p: RawProposal): ProposalView | undefined {
  if (p.proposer === zeroAddress) return undefined;
  return {
    proposer: getAddress(p.proposer),
    verdict: VERDICT_NAMES[Number(p.verdict)] ?? "invalid",
    proposedAt: BigInt(p.proposedAt),
    disputeEndsAt: BigInt(p.disputeEndsAt),
    bond: BigInt(p.bond),
    bundleHash: p.bundleHash,
    bundleURI: p.bundleURI,
    ...(p.disputer !== zeroAddress
      ? {
          dispute: {
            disputer: getAddress(p.disputer),
            claimed: VERDICT_NAMES[Number(p.claimed)] ?? "invalid",
            disputedAt: BigInt(p.disputedAt),
          },
        }
      : {}),
  };
}

/** The proposal of a market, or undefined before one. */
export async function getProposal(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  blockNumber?: bigint,
): Promise<ProposalView | undefined> {
  return shapeProposal(await readMarket(ctx, market, "getProposal", [marketId], blockNumber));
}

/** The reports posted with the proposal, seat order (from its `ResolutionProposed` event); empty before one. */
export async function getReports(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  fromBlock = 0n,
): Promise<WorkerReport[]> {
  const logs = await readLogs(ctx, market, "ResolutionProposed", { fromBlock }, { marketId });
  return (logs.at(-1)?.args.reports ?? []).map(decodeReport);
}

/** The allow-list a market was created with (its `MarketConfigured` event). */
export async function getAllowedAgents(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  fromBlock = 0n,
): Promise<bigint[]> {
  const logs = await readLogs(ctx, market, "MarketConfigured", { fromBlock }, { marketId });
  return [...(logs.at(-1)?.args.allowedAgents ?? [])];
}

/** Whether `agentId` passes the market's admission rule now (the contract's rule, evaluated from its views). */
export async function isAdmitted(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  agentId: bigint,
  config?: MarketConfigView,
  fromBlock = 0n,
): Promise<boolean> {
  const c = config ?? (await getMarketConfig(ctx, market, marketId));
  if (c.admission === "allow-list") return (await getAllowedAgents(ctx, market, marketId, fromBlock)).includes(agentId);
  // The counters by value bucket (docs/RECORDS.md §5): the contract's own check, one view.
  if (c.admission === "track-record") return readWriter(ctx, market, "admits", [marketId, agentId]);
  return true;
}

export interface ReputationView {
  settled: bigint;
  correctness: number;
  resQuality: number;
  srcQuality: number;
  analysisDepth: number;
}

export async function getReputation(ctx: ChainContext, market: Address, agentId: bigint): Promise<ReputationView> {
  const r = await readMarket(ctx, market, "getReputation", [agentId]);
  return {
    settled: BigInt(r.settled),
    correctness: Number(r.correctness),
    resQuality: Number(r.resQuality),
    srcQuality: Number(r.srcQuality),
    analysisDepth: Number(r.analysisDepth),
  };
}

/** One seat's settlement (WorkerSettled). */
export interface SeatResult {
  agentId: bigint;
  worker: Address;
  answer: AnswerKind;
  confidenceBps: number;
  scored: boolean;
  correctness: number;
  resQuality: number;
  srcQuality: number;
  analysisDepth: number;
  reward: bigint;
  stakeReturned: bigint;
  stakeSlashed: bigint;
}

type Log = Parameters<typeof parseEventLogs>[0]["logs"][number];

export function seatResults(logs: readonly Log[]): SeatResult[] {
  const events = parseEventLogs({ abi: resolutionMarketAbi, eventName: "WorkerSettled", logs: [...logs] });
  return events.map(({ args: { agentId, worker, result: r } }) => ({
    agentId,
    worker: getAddress(worker),
    answer: ANSWER_NAMES[Number(r.answer)] ?? "failed",
    confidenceBps: Number(r.confidenceBps),
    scored: r.scored,
    correctness: Number(r.correctness),
    resQuality: Number(r.resQuality),
    srcQuality: Number(r.srcQuality),
    analysisDepth: Number(r.analysisDepth),
    reward: r.reward,
    stakeReturned: r.stakeReturned,
    stakeSlashed: r.stakeSlashed,
  }));
}

/** The final per-seat results of a market (its WorkerSettled events, seat order); empty before finalization. */
export async function getSeatResults(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  fromBlock = 0n,
): Promise<SeatResult[]> {
  return seatResults(await readLogs(ctx, market, "WorkerSettled", { fromBlock }, { marketId }));
}

/** Cancel state of a market waiting for a proposal: when step 2 becomes possible (0 = not requested). */
export async function cancelRequestedAt(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  fromBlock = 0n,
): Promise<bigint> {
  const logs = await readLogs(ctx, market, "CancelRequested", { fromBlock }, { marketId });
  return logs.at(-1)?.args.cancellableAt ?? 0n;
}
