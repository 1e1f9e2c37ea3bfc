/**
 * The proposal lifecycle of IResolutionMarket v2 after `proposeResolution` (workflow/settle/): the permissionless
 * writes `finalize`, `dispute`, `requestCancel`/`cancelStale`, `publishFeedback`, `retryFeedback`, `countAdmission`
 * (the reads live in market-reads.ts and are re-exported here for existing importers). Each write checks the status first (a wrong
 * status is a precondition error naming it), lets the simulation decide time windows (their reverts explained with
 * ISO times through the one send path, send.ts), caps gas at min(2^24, block gas limit) and returns what the
 * receipt's events say.
 */
import { getAddress, parseEventLogs, zeroAddress, type Address, type Hex } from "viem";
import { marketReputationAbi, resolutionMarketAbi } from "./abis.js";
import { requireWallet, type ChainContext } from "./clients.js";
import { approveArbiterBond, marketDisputeBond, type BondApproval } from "./dispute-bond.js";
import { ChainError } from "./errors.js";
import { cappedGas, txGasCeiling, withHeadroom } from "./gas.js";
import {
  feedbackClientOf,
  getMarketConfig,
  getProposal,
  readMarket,
  readWriter,
  seatResults,
  type SeatResult,
} from "./market-reads.js";
import { readMarketStatus } from "./snapshot.js";
import type { RevertExplanations } from "./send.js";
import { sendContractTx, type ContractWrite, type WriteFunctionName } from "./writer.js";
import type { VerdictKind } from "../core/types.js";
import { VERDICT_CODE } from "../core/codes.js";
import { isoSeconds } from "../util/time.js";

export * from "./market-reads.js";

/** Seats whose ERC-8004 records `finalize` writes itself; the rest wait for `publishFeedback`. */
export const INLINE_FEEDBACK_SEATS = 10;
/**
 * Gas the market wants left before starting one seat's records (MarketReputation's FEEDBACK_WORKER_MIN_GAS, plus the 1/64 the
 * market keeps when it calls the writer, rounded up). The node's
 * estimate already contains the records it wrote; what it lacks is the slack of the last seat's check, so this is
 * added once, not per seat.
 */
export const FEEDBACK_SEAT_MIN_GAS = 760_000n;

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

const iso = (seconds: unknown) =>
  typeof seconds === "bigint" || typeof seconds === "number" ? isoSeconds(seconds) : "?";

/** The market's time-window reverts in words ("the dispute window is open until 2026-…"), for every write here. */
export const WINDOW_REVERTS: RevertExplanations = {
  DisputeWindowOpen: (a) => `the dispute window is open until ${iso(a.endsAt)}: finalize after it`,
  DisputeWindowOver: (a) => `the dispute window ended at ${iso(a.endedAt)}: the proposal can no longer be disputed`,
  GracePeriodNotOver: (a) => `the grace period runs until ${iso(a.endsAt)}: cancellation can be requested after it`,
  CancelWindowOpen: (a) => `the cancel window runs until ${iso(a.endsAt)}: a resolver may still propose until then`,
  ArbitrationNotExpired: (a) => `the arbiter has until ${iso(a.expiresAt)} to rule`,
};

type MarketWrite = WriteFunctionName<typeof resolutionMarketAbi>;

/** One ResolutionMarket write through the one send path, its window reverts (and `explain`'s) said in words. */
function sendMarketTx<F extends MarketWrite>(
  ctx: ChainContext,
  market: Address,
  write: Omit<ContractWrite<typeof resolutionMarketAbi, F>, "address" | "abi" | "label">,
  explain: RevertExplanations = {},
) {
  return sendContractTx(ctx, {
    ...write,
    address: market,
    abi: resolutionMarketAbi,
    label: `ResolutionMarket.${write.functionName}`,
    explain: { ...WINDOW_REVERTS, ...explain },
  });
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
  const { hash, receipt } = await sendMarketTx(ctx, market, {
    functionName: "finalize",
    args: [marketId],
    gas: await feedbackGas(ctx, "ResolutionMarket.finalize", Math.min(workerCount, INLINE_FEEDBACK_SEATS)),
  });
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
  fallbackBond?: BondApproval;
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
  // An UmaArbiter fallback pulls its bond from the disputer when the arbiter stays silent 30 days: approve it now
  // (a short balance is reported, not refused: anyone may fund the escalated claim then).
  const fallback = await readMarket(ctx, market, "fallbackArbiterOf", [marketId]);
  const fallbackBond =
    fallback !== zeroAddress && getAddress(fallback) !== getAddress(config.arbiter)
      ? await approveArbiterBond(ctx, fallback, { allowShortBalance: true })
      : undefined;
  // The disputer's bond covers 10 % of the pool and stakes on top of the market's bond (the proposer's).
  const bond = await marketDisputeBond(ctx, market, marketId);
  const sent = await sendMarketTx(ctx, market, {
    functionName: "dispute",
    args: [marketId, VERDICT_CODE[claimed]],
    value: bond,
  });
  return {
    txHash: sent.hash,
    blockNumber: sent.receipt.blockNumber,
    bond,
    arbiter: config.arbiter,
    proposed: proposal.verdict,
    ...(arbiterBond !== undefined ? { arbiterBond } : {}),
    ...(fallbackBond !== undefined ? { fallbackBond } : {}),
  };
}

/** Both cancel steps need a wallet and a market still waiting for a proposal. */
async function requireCancellable(ctx: ChainContext, market: Address, marketId: bigint): Promise<void> {
  requireWallet(ctx);
  await requireStatus(
    ctx,
    market,
    marketId,
    ["ResolutionRequested"],
    "only a market waiting for a proposal can be cancelled",
  );
}

/** Step 1 of cancelling a market nobody proposed on (after the grace period). Returns when step 2 is possible. */
export async function requestCancel(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
): Promise<{ txHash: Hex; blockNumber: bigint; cancellableAt: bigint }> {
  await requireCancellable(ctx, market, marketId);
  const sent = await sendMarketTx(ctx, market, { functionName: "requestCancel", args: [marketId] });
  const [ev] = parseEventLogs({ abi: resolutionMarketAbi, eventName: "CancelRequested", logs: sent.receipt.logs });
  return { txHash: sent.hash, blockNumber: sent.receipt.blockNumber, cancellableAt: ev?.args.cancellableAt ?? 0n };
}

/** Step 2: full refunds, once the cancel window is over and still nobody proposed. */
export async function cancelStale(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
): Promise<{ txHash: Hex; blockNumber: bigint }> {
  await requireCancellable(ctx, market, marketId);
  const { hash, receipt } = await sendMarketTx(
    ctx,
    market,
    { functionName: "cancelStale", args: [marketId] },
    {
      CancelNotRequested: () =>
        `cancellation of market ${marketId} was not requested yet (run it once to request, again when due)`,
    },
  );
  return { txHash: hash, blockNumber: receipt.blockNumber };
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
  const [correctness, quality] = await readWriter(ctx, market, "pendingFeedback", [marketId, BigInt(seat)]);
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

/** One seat a `countAdmission` counted (the `AdmissionCounted` event). */
export interface AdmissionCount {
  agentId: bigint;
  /** floor(log2(value per seat in wei)). */
  bucket: bigint;
  correctness: number;
}

/**
 * Anyone, once per Resolved market: counts it for TrackRecord admission (RECORDS §5) through the market's
 * MarketReputation; the caller pays. Finalization counts nothing: an agent's owner counts the markets it wants
 * admitted. Returns the seats counted (none when no seat met the rule).
 */
export async function countAdmission(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
): Promise<{ txHash: Hex; blockNumber: bigint; gasUsed: bigint; counted: AdmissionCount[] }> {
  requireWallet(ctx);
  await requireStatus(ctx, market, marketId, ["Resolved"], "only a Resolved market counts for admission");
  if (await readWriter(ctx, market, "admissionCounted", [marketId]))
    throw new ChainError("precondition", `market ${marketId} is already counted for admission`);
  const { hash, receipt } = await sendContractTx(ctx, {
    address: await feedbackClientOf(ctx, market),
    abi: marketReputationAbi,
    functionName: "countAdmission",
    args: [marketId],
    label: "MarketReputation.countAdmission",
  });
  const events = parseEventLogs({ abi: marketReputationAbi, eventName: "AdmissionCounted", logs: receipt.logs });
  return {
    txHash: hash,
    blockNumber: receipt.blockNumber,
    gasUsed: receipt.gasUsed,
    counted: events.map((e) => ({ agentId: e.args.agentId, bucket: e.args.bucket, correctness: e.args.correctness })),
  };
}
