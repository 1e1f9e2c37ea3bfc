/**
 * The proposal lifecycle of IResolutionMarket v2 after `proposeResolution` (workflow/settle/): reads of a market's
 * config, proposal and reports, and the permissionless writes `finalize`, `dispute`, `requestCancel`/`cancelStale`,
 * `publishFeedback`, `retryFeedback`. Each write checks the status first (a wrong status is a precondition error
 * naming it), lets the simulation decide time windows (their reverts are decoded with ISO times), caps gas at
 * min(2^24, block gas limit) and returns what the receipt's events say.
 */
import { getAddress, parseEventLogs, zeroAddress, type Address, type ContractFunctionReturnType, type Hex } from "viem";
import { marketGovernanceAbi, marketReputationAbi, resolutionMarketAbi } from "./abis.js";
import { requireWallet, type ChainContext } from "./clients.js";
import { ChainError, toChainError } from "./errors.js";
import { approveArbiterBond, type BondApproval } from "./dispute-bond.js";
import { cappedGas, txGasCeiling, withHeadroom } from "./gas.js";
import { readLogs } from "./logs.js";
import { readView, viewCall, type ViewArgs, type ViewFunctionName, type ViewResult } from "./reads.js";
import { readMarketStatus } from "./snapshot.js";
import { sendContractTx } from "./writer.js";
import type { AnswerKind, VerdictKind, WorkerReport } from "../core/types.js";
import { ANSWER_NAMES, decodeReport, VERDICT_CODE, VERDICT_NAMES } from "../settle/reports.js";

export const ADMISSION_NAMES = ["open", "track-record", "allow-list"] as const;
export type AdmissionName = (typeof ADMISSION_NAMES)[number];

/** Seats whose ERC-8004 records `finalize` writes itself; the rest wait for `publishFeedback`. */
export const INLINE_FEEDBACK_SEATS = 10;
/**
 * Gas the market wants left before starting one seat's records (MarketReputation's FEEDBACK_WORKER_MIN_GAS, plus the 1/64 the
 * market keeps when it calls the writer, rounded up). The node's
 * estimate already contains the records it wrote; what it lacks is the slack of the last seat's check, so this is
 * added once, not per seat.
 */
export const FEEDBACK_SEAT_MIN_GAS = 760_000n;

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
  if (c.admission === "track-record") {
    const r = await getReputation(ctx, market, agentId);
    return r.settled >= BigInt(c.minSettled) && r.correctness >= c.minCorrectness;
  }
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

export interface FinalizeResult {
  txHash: Hex;
  blockNumber: bigint;
  gasUsed: bigint;
  status: string;
  outcome: boolean;
  disputed: boolean;
  seats: SeatResult[];
  /** Seats still waiting for `publishFeedback` after this transaction. */
  feedbackPending: bigint;
}

type Log = Parameters<typeof parseEventLogs>[0]["logs"][number];

function seatResults(logs: readonly Log[]): SeatResult[] {
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

export async function requireStatus(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  wanted: readonly string[],
  hint: string,
): Promise<string> {
  const s = await readMarketStatus(ctx, market, marketId);
  if (!wanted.includes(s.statusName))
    throw new ChainError("precondition", `market ${marketId} is ${s.statusName}, not ${wanted.join(" or ")}: ${hint}`);
  return s.statusName;
}

const iso = (seconds: bigint | number) => new Date(Number(seconds) * 1000).toISOString();

/** Makes window reverts readable: "the dispute window ends at 2026-…". */
function explainWindow(error: unknown, label: string): never {
  const e = toChainError(error, label);
  const a = e.args ?? {};
  const at = (k: string) => (typeof a[k] === "bigint" || typeof a[k] === "number" ? iso(a[k] as bigint) : "?");
  const text: Record<string, string> = {
    DisputeWindowOpen: `the dispute window is open until ${at("endsAt")}: finalize after it`,
    DisputeWindowOver: `the dispute window ended at ${at("endedAt")}: the proposal can no longer be disputed`,
    GracePeriodNotOver: `the grace period runs until ${at("endsAt")}: cancellation can be requested after it`,
    CancelWindowOpen: `the cancel window runs until ${at("endsAt")}: a resolver may still propose until then`,
    ArbitrationNotExpired: `the arbiter has until ${at("expiresAt")} to rule`,
  };
  if (e.errorName !== undefined && text[e.errorName] !== undefined)
    throw new ChainError("precondition", `${label}: ${text[e.errorName]}`, {
      errorName: e.errorName,
      args: a,
      cause: e,
    });
  throw e;
}

/** Gas for writes that write ERC-8004 records for up to `seats` seats (finalize, publishFeedback). */
async function feedbackGas(ctx: ChainContext, label: string, seats: number): Promise<(estimate: bigint) => bigint> {
  const ceiling = await txGasCeiling(ctx);
  return (estimate) =>
    cappedGas(label, estimate, withHeadroom(estimate) + (seats > 0 ? FEEDBACK_SEAT_MIN_GAS : 0n), ceiling);
}

/** Seats of a finalized market whose ERC-8004 records are not written yet (0 before finalization). */
export async function feedbackPending(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  blockNumber?: bigint,
): Promise<bigint> {
  const [, pending] = await readWriter(ctx, market, "feedbackStatus", [marketId], blockNumber);
  return pending;
}

/** Anyone, after an undisputed proposal's window: the market's final state, rewards and inline records. */
export async function finalize(ctx: ChainContext, market: Address, marketId: bigint): Promise<FinalizeResult> {
  requireWallet(ctx);
  await requireStatus(
    ctx,
    market,
    marketId,
    ["Proposed"],
    "only an undisputed proposal is finalized (a disputed one waits for its arbiter)",
  );
  const workerCount = Number((await readMarket(ctx, market, "getMarket", [marketId])).workerCount);
  const label = "ResolutionMarket.finalize";
  let sent;
  try {
    sent = await sendContractTx(ctx, {
      address: market,
      abi: resolutionMarketAbi,
      functionName: "finalize",
      args: [marketId],
      label,
      gas: await feedbackGas(ctx, label, Math.min(workerCount, INLINE_FEEDBACK_SEATS)),
    });
  } catch (error) {
    explainWindow(error, label);
  }
  const { hash, receipt } = sent;
  const [fin] = parseEventLogs({ abi: resolutionMarketAbi, eventName: "MarketFinalized", logs: receipt.logs });
  const after = await readMarketStatus(ctx, market, marketId);
  return {
    txHash: hash,
    blockNumber: receipt.blockNumber,
    gasUsed: receipt.gasUsed,
    status: after.statusName,
    outcome: fin?.args.outcome ?? false,
    disputed: fin?.args.disputed ?? false,
    seats: seatResults(receipt.logs),
    feedbackPending: await feedbackPending(ctx, market, marketId, receipt.blockNumber),
  };
}

/** Anyone, during the window, with the proposal's bond: escalates to the market's arbiter. */
export async function dispute(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  claimed: VerdictKind,
): Promise<{
  txHash: Hex;
  blockNumber: bigint;
  bond: bigint;
  arbiter: Address;
  proposed: VerdictKind;
  arbiterBond?: BondApproval;
}> {
  requireWallet(ctx);
  await requireStatus(ctx, market, marketId, ["Proposed"], "only a proposal in its dispute window can be disputed");
  const proposal = await getProposal(ctx, market, marketId);
  if (proposal === undefined) throw new ChainError("precondition", `market ${marketId} has no proposal`);
  if (proposal.verdict === claimed)
    throw new ChainError(
      "precondition",
      `market ${marketId}: the proposal already says ${claimed}; a dispute claims another verdict`,
    );
  const config = await getMarketConfig(ctx, market, marketId);
  // An UmaArbiter pulls UMA's ERC-20 bond inside `dispute`: approve it first (dispute-bond.ts).
  const arbiterBond = await approveArbiterBond(ctx, config.arbiter);
  const label = "ResolutionMarket.dispute";
  let sent;
  try {
    sent = await sendContractTx(ctx, {
      address: market,
      abi: resolutionMarketAbi,
      functionName: "dispute",
      args: [marketId, VERDICT_CODE[claimed]],
      value: proposal.bond,
      label,
    });
  } catch (error) {
    explainWindow(error, label);
  }
  return {
    txHash: sent.hash,
    blockNumber: sent.receipt.blockNumber,
    bond: proposal.bond,
    arbiter: config.arbiter,
    proposed: proposal.verdict,
    ...(arbiterBond !== undefined ? { arbiterBond } : {}),
  };
}

/** Step 1 of cancelling a market nobody proposed on (after the grace period). Returns when step 2 is possible. */
export async function requestCancel(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
): Promise<{ txHash: Hex; blockNumber: bigint; cancellableAt: bigint }> {
  requireWallet(ctx);
  await requireStatus(
    ctx,
    market,
    marketId,
    ["ResolutionRequested"],
    "only a market waiting for a proposal can be cancelled",
  );
  const label = "ResolutionMarket.requestCancel";
  let sent;
  try {
    sent = await sendContractTx(ctx, {
      address: market,
      abi: resolutionMarketAbi,
      functionName: "requestCancel",
      args: [marketId],
      label,
    });
  } catch (error) {
    explainWindow(error, label);
  }
  const [ev] = parseEventLogs({ abi: resolutionMarketAbi, eventName: "CancelRequested", logs: sent.receipt.logs });
  return { txHash: sent.hash, blockNumber: sent.receipt.blockNumber, cancellableAt: ev?.args.cancellableAt ?? 0n };
}

/** Step 2: full refunds, once the cancel window is over and still nobody proposed. */
export async function cancelStale(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
): Promise<{ txHash: Hex; blockNumber: bigint }> {
  requireWallet(ctx);
  await requireStatus(
    ctx,
    market,
    marketId,
    ["ResolutionRequested"],
    "only a market waiting for a proposal can be cancelled",
  );
  const label = "ResolutionMarket.cancelStale";
  try {
    const { hash, receipt } = await sendContractTx(ctx, {
      address: market,
      abi: resolutionMarketAbi,
      functionName: "cancelStale",
      args: [marketId],
      label,
    });
    return { txHash: hash, blockNumber: receipt.blockNumber };
  } catch (error) {
    const e = toChainError(error, label);
    if (e.errorName === "CancelNotRequested")
      throw new ChainError(
        "precondition",
        `${label}: cancellation of market ${marketId} was not requested yet (run it once to request, again when due)`,
        { cause: e },
      );
    explainWindow(e, label);
  }
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

/** Writes pending ERC-8004 feedback of a finalized market for up to `maxSeats` seats (sent to its MarketReputation). */
export async function publishFeedback(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  maxSeats: number,
): Promise<{ txHash: Hex; blockNumber: bigint; gasUsed: bigint; published: bigint; pending: bigint }> {
  requireWallet(ctx);
  const before = await feedbackPending(ctx, market, marketId);
  if (before === 0n) throw new ChainError("precondition", `market ${marketId} has no pending feedback to publish`);
  const label = "MarketReputation.publishFeedback";
  const { hash, receipt, result } = await sendContractTx(ctx, {
    address: await feedbackClientOf(ctx, market),
    abi: marketReputationAbi,
    functionName: "publishFeedback",
    args: [marketId, BigInt(maxSeats)],
    label,
    gas: await feedbackGas(ctx, label, Math.min(maxSeats, Number(before))),
  });
  const pending = await feedbackPending(ctx, market, marketId, receipt.blockNumber);
  return {
    txHash: hash,
    blockNumber: receipt.blockNumber,
    gasUsed: receipt.gasUsed,
    published: result ?? before - pending,
    pending,
  };
}

/** Retries the refused ERC-8004 records of one seat (0-based, in join order), through the market's MarketReputation. */
export async function retryFeedback(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  seat: number,
): Promise<{ txHash: Hex; blockNumber: bigint; written: bigint; stillPending: bigint }> {
  requireWallet(ctx);
  const writer = await feedbackClientOf(ctx, market);
  const [correctness, quality] = await readView(
    ctx,
    viewCall(writer, marketReputationAbi, "pendingFeedback", [marketId, BigInt(seat)]),
    "MarketReputation.pendingFeedback",
  );
  if (!correctness && !quality)
    throw new ChainError("precondition", `market ${marketId} seat ${seat} has no refused records to retry`);
  const label = "MarketReputation.retryFeedback";
  const { hash, receipt } = await sendContractTx(ctx, {
    address: writer,
    abi: marketReputationAbi,
    functionName: "retryFeedback",
    args: [marketId, BigInt(seat)],
    label,
    gas: await feedbackGas(ctx, label, 1),
  });
  const [ev] = parseEventLogs({ abi: marketReputationAbi, eventName: "FeedbackRetried", logs: receipt.logs });
  return {
    txHash: hash,
    blockNumber: receipt.blockNumber,
    written: ev?.args.written ?? 0n,
    stillPending: ev?.args.stillPending ?? 0n,
  };
}
