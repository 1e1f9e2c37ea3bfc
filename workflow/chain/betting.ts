/**
 * BettingMarket: bets on a resolution market's outcome while it is Open, claims once it is final (Resolved pays the
 * winning side, Invalid/Cancelled refund). Proposed and Disputed markets are not final: claims wait.
 */
import { getAddress, parseEventLogs, type Address, type Hex } from "viem";
import { bettingMarketAbi } from "./abis.js";
import { requireWallet, type ChainContext } from "./clients.js";
import { ChainError } from "./errors.js";
import { readView, viewCall, type ViewArgs, type ViewFunctionName, type ViewResult } from "./reads.js";
import { readMarketStatus } from "./snapshot.js";
import { sendContractTx } from "./writer.js";

export type BetSide = "yes" | "no";
const SIDE_CODE: Record<BetSide, number> = { no: 0, yes: 1 };
const SETTLEMENTS = ["pending", "payout", "refund"] as const;

type BettingAbi = typeof bettingMarketAbi;

function read<F extends ViewFunctionName<BettingAbi>>(
  ctx: ChainContext,
  betting: Address,
  functionName: F,
  args: ViewArgs<BettingAbi, F>,
): Promise<ViewResult<BettingAbi, F>> {
  return readView(ctx, viewCall(betting, bettingMarketAbi, functionName, args), `BettingMarket.${functionName}`);
}

export interface BetPosition {
  yesStake: bigint;
  noStake: bigint;
  claimed: boolean;
  /** What a claim would send now (0 while pending). */
  claimable: bigint;
  settlement: (typeof SETTLEMENTS)[number];
  /** Meaningful when settlement is "payout": true = YES won. */
  outcome: boolean;
  pool: { yes: bigint; no: bigint };
}

export async function betPosition(
  ctx: ChainContext,
  betting: Address,
  marketId: bigint,
  bettor: Address,
): Promise<BetPosition> {
  const [[yesStake, noStake, claimed], claimable, [settlement, outcome], [yes, no]] = await Promise.all([
    read(ctx, betting, "getPosition", [marketId, bettor]),
    read(ctx, betting, "claimable", [marketId, bettor]),
    read(ctx, betting, "settlementOf", [marketId]),
    read(ctx, betting, "getPool", [marketId]),
  ]);
  return {
    yesStake,
    noStake,
    claimed,
    claimable,
    settlement: SETTLEMENTS[Number(settlement)] ?? "pending",
    outcome,
    pool: { yes, no },
  };
}

/** Checks the market is Open before betting; the contract checks the deadline. */
export async function placeBet(
  ctx: ChainContext,
  betting: Address,
  market: Address,
  marketId: bigint,
  side: BetSide,
  amount: bigint,
): Promise<{ txHash: Hex; blockNumber: bigint; positionOnSide: bigint; poolOnSide: bigint }> {
  requireWallet(ctx);
  const status = await readMarketStatus(ctx, market, marketId);
  if (status.statusName !== "Open")
    throw new ChainError("precondition", `market ${marketId} is ${status.statusName}: betting is closed`);
  const { hash, receipt } = await sendContractTx(ctx, {
    address: betting,
    abi: bettingMarketAbi,
    functionName: "bet",
    args: [marketId, SIDE_CODE[side]],
    value: amount,
    label: "BettingMarket.bet",
  });
  const [ev] = parseEventLogs({ abi: bettingMarketAbi, eventName: "BetPlaced", logs: receipt.logs });
  return {
    txHash: hash,
    blockNumber: receipt.blockNumber,
    positionOnSide: ev?.args.positionOnSide ?? 0n,
    poolOnSide: ev?.args.poolOnSide ?? 0n,
  };
}

/** Claims a payout or refund; refused before sending while the market is not final or nothing is owed. */
export async function claimBet(
  ctx: ChainContext,
  betting: Address,
  marketId: bigint,
): Promise<{ txHash: Hex; blockNumber: bigint; amount: bigint; refund: boolean }> {
  const { account } = requireWallet(ctx);
  const pos = await betPosition(ctx, betting, marketId, getAddress(account.address));
  if (pos.settlement === "pending")
    throw new ChainError(
      "precondition",
      `market ${marketId} is not final yet (a proposal or a dispute is still open): claims wait for finalization`,
    );
  if (pos.claimed) throw new ChainError("precondition", `${account.address} already claimed on market ${marketId}`);
  if (pos.claimable === 0n)
    throw new ChainError("precondition", `nothing to claim on market ${marketId} for ${account.address}`);
  const { hash, receipt } = await sendContractTx(ctx, {
    address: betting,
    abi: bettingMarketAbi,
    functionName: "claim",
    args: [marketId],
    label: "BettingMarket.claim",
  });
  const [ev] = parseEventLogs({ abi: bettingMarketAbi, eventName: "Claimed", logs: receipt.logs });
  return {
    txHash: hash,
    blockNumber: receipt.blockNumber,
    amount: ev?.args.amount ?? pos.claimable,
    refund: ev?.args.refund ?? pos.settlement === "refund",
  };
}
