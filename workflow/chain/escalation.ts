/**
 * A dispute whose arbiter stays silent (docs/DISPUTES.md "Escalation"): after 30 days anyone calls `expireDispute`,
 * which hands the case to the market's fallback arbiter once (or ends it Invalid when there is none, it refuses or
 * it was silent too). An UmaArbiter fallback pulls UMA's ERC-20 bond from the disputer at the hand-off; when it
 * cannot, the claim awaits its bond for the arbiter's funding window: anyone funds it (`fundAssertion`, becoming
 * the asserter), and after the window anyone delivers "the proposal stands" (`ruleAbandoned`). `settleSilentDispute`
 * does whichever of these steps is due; `fund` approves and posts UMA's bond from the wallet.
 */
import { getAddress, parseEventLogs, zeroAddress, type Address, type Hex } from "viem";
import { resolutionMarketAbi, umaArbiterAbi } from "./abis.js";
import { requireWallet, type ChainContext } from "./clients.js";
import { approveArbiterBond, arbiterBondOf, type BondApproval } from "./dispute-bond.js";
import { ChainError } from "./errors.js";
import { WINDOW_REVERTS } from "./lifecycle.js";
import { getMarketConfig, readMarket } from "./market-reads.js";
import { readView } from "./reads.js";
import { readMarketStatus } from "./snapshot.js";
import type { RevertExplanations } from "./send.js";
import { sendContractTx } from "./writer.js";
import { isoSeconds } from "../util/time.js";

/** UmaArbiter's `CaseStatus`, in its declaration order. */
export const UMA_CASE_STATUS = ["none", "asserted", "ruling-pending", "ruled", "awaiting-bond"] as const;
export type UmaCaseStatus = (typeof UMA_CASE_STATUS)[number];

export interface UmaCaseView {
  arbiter: Address;
  status: UmaCaseStatus;
  disputer: Address;
  /** Who posted UMA's bond (zero until asserted). */
  asserter: Address;
  /** End of an awaiting case's funding window (seconds; 0 when the bond was pulled at the hand-off). */
  fundingEndsAt: bigint;
  umaBond: bigint;
  assertionId: Hex;
}

const iso = isoSeconds;

/** The market's fallback arbiter (snapshotted at creation), or undefined when it has none. */
export async function fallbackArbiterOf(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
): Promise<Address | undefined> {
  const f = await readMarket(ctx, market, "fallbackArbiterOf", [marketId]);
  return f === zeroAddress ? undefined : getAddress(f);
}

/** `arbiter`'s case for the market, or undefined when `arbiter` is not an UmaArbiter (no ERC-20 bond). */
export async function umaCaseOf(
  ctx: ChainContext,
  arbiter: Address,
  market: Address,
  marketId: bigint,
): Promise<UmaCaseView | undefined> {
  if ((await arbiterBondOf(ctx, arbiter)) === undefined) return undefined;
  const address = getAddress(arbiter);
  const c = await readView(
    ctx,
    { address, abi: umaArbiterAbi, functionName: "getCase", args: [market, marketId] },
    "UmaArbiter.getCase",
  );
  return {
    arbiter: address,
    status: UMA_CASE_STATUS[c.status] ?? "none",
    disputer: getAddress(c.disputer),
    asserter: getAddress(c.asserter),
    fundingEndsAt: BigInt(c.fundingEndsAt),
    umaBond: c.umaBond,
    assertionId: c.assertionId,
  };
}

const UMA_REVERTS: RevertExplanations = {
  FundingWindowOver: (a) =>
    `the claim's funding window ended at ${typeof a.endedAt === "bigint" ? iso(a.endedAt) : "?"}: it can only be ruled abandoned now`,
  FundingWindowOpen: (a) =>
    `the claim can be funded until ${typeof a.endsAt === "bigint" ? iso(a.endsAt) : "?"}: it is not abandoned yet`,
};

/**
 * Funds an escalated UMA claim that awaits its bond: approves exactly UMA's bond (precondition error when the
 * wallet holds too little) and calls `fundAssertion`; the wallet becomes the asserter.
 */
export async function fundEscalatedClaim(
  ctx: ChainContext,
  arbiter: Address,
  market: Address,
  marketId: bigint,
): Promise<{ txHash: Hex; assertionId: Hex; approval: BondApproval | undefined }> {
  requireWallet(ctx);
  const approval = await approveArbiterBond(ctx, arbiter);
  const sent = await sendContractTx(ctx, {
    address: getAddress(arbiter),
    abi: umaArbiterAbi,
    functionName: "fundAssertion",
    args: [market, marketId],
    label: "UmaArbiter.fundAssertion",
    explain: UMA_REVERTS,
  });
  const [asserted] = parseEventLogs({ abi: umaArbiterAbi, eventName: "ClaimAsserted", logs: sent.receipt.logs });
  return { txHash: sent.hash, assertionId: asserted?.args.assertionId ?? "0x", approval };
}

export type SilentDisputeStep =
  /** The fallback has the case (`claim`: its UMA case when it is an UmaArbiter). */
  | { kind: "escalated"; fallback: Address; claim?: UmaCaseView; funded?: { txHash: Hex; assertionId: Hex } }
  /** No fallback, a refused hand-off or a silent fallback: Invalid, each bond back. */
  | { kind: "expired" }
  /** The wallet funded an escalated claim awaiting its bond. */
  | { kind: "funded"; arbiter: Address; assertionId: Hex }
  /** Nobody funded the escalated claim in its window: the proposal stands. */
  | { kind: "abandoned"; arbiter: Address };

export interface SilentDisputeResult {
  step: SilentDisputeStep;
  txHash: Hex;
  /** UMA's bond approval made for `fund`, when one was needed. */
  approval?: BondApproval;
  status: string;
}

/**
 * The next step of a dispute its arbiter left silent. On an escalated UMA claim awaiting its bond: with `fund`, fund
 * it; after its window, rule it abandoned; inside it without `fund`, a precondition error saying how to fund it.
 * Otherwise `expireDispute` (the market refuses it before its 30 days, said in words); with `fund` and an UmaArbiter
 * fallback, UMA's bond is approved first (the hand-off pulls it at once when the wallet is the disputer) and an
 * escalated claim still awaiting its bond is funded in a second transaction.
 */
export async function settleSilentDispute(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  options: { fund?: boolean } = {},
): Promise<SilentDisputeResult> {
  requireWallet(ctx);
  const fund = options.fund === true;
  const before = await readMarketStatus(ctx, market, marketId);
  if (before.statusName !== "Disputed")
    throw new ChainError(
      "precondition",
      `market ${marketId} is ${before.statusName}, not Disputed: only a disputed market's silence can be settled`,
    );
  const config = await getMarketConfig(ctx, market, marketId);
  const current = await umaCaseOf(ctx, config.arbiter, market, marketId);
  const status = async () => (await readMarketStatus(ctx, market, marketId)).statusName;
  if (current?.status === "awaiting-bond") {
    const now = (await ctx.publicClient.getBlock()).timestamp;
    const open = now < current.fundingEndsAt;
    if (open && fund) {
      const r = await fundEscalatedClaim(ctx, current.arbiter, market, marketId);
      return {
        step: { kind: "funded", arbiter: current.arbiter, assertionId: r.assertionId },
        txHash: r.txHash,
        ...(r.approval !== undefined ? { approval: r.approval } : {}),
        status: await status(),
      };
    }
    if (open)
      throw new ChainError(
        "precondition",
        `market ${marketId}: the fallback UmaArbiter ${current.arbiter} awaits the claim's UMA bond (${current.umaBond} of its currency) until ${iso(current.fundingEndsAt)}; fund it with \`cresolver market expire ${marketId} --fund\` (you become the asserter), or after that rule it abandoned with \`cresolver market expire ${marketId}\` (the proposal stands)`,
      );
    if (fund)
      throw new ChainError(
        "precondition",
        `market ${marketId}: the claim's funding window ended at ${iso(current.fundingEndsAt)}; run without --fund to rule it abandoned (the proposal stands)`,
      );
    const sent = await sendContractTx(ctx, {
      address: current.arbiter,
      abi: umaArbiterAbi,
      functionName: "ruleAbandoned",
      args: [market, marketId],
      label: "UmaArbiter.ruleAbandoned",
      explain: UMA_REVERTS,
    });
    return { step: { kind: "abandoned", arbiter: current.arbiter }, txHash: sent.hash, status: await status() };
  }

  const fallback = await fallbackArbiterOf(ctx, market, marketId);
  const handOff = fallback !== undefined && fallback !== getAddress(config.arbiter);
  // With --fund: approve UMA's bond before the hand-off (it pulls from the disputer at once; anyone else funds after).
  const approval = fund && handOff ? await approveArbiterBond(ctx, fallback, { allowShortBalance: false }) : undefined;
  const sent = await sendContractTx(ctx, {
    address: market,
    abi: resolutionMarketAbi,
    functionName: "expireDispute",
    args: [marketId],
    label: "ResolutionMarket.expireDispute",
    explain: WINDOW_REVERTS,
  });
  const [escalated] = parseEventLogs({
    abi: resolutionMarketAbi,
    eventName: "DisputeEscalated",
    logs: sent.receipt.logs,
  });
  const withApproval = approval !== undefined ? { approval } : {};
  if (escalated === undefined)
    return { step: { kind: "expired" }, txHash: sent.hash, ...withApproval, status: await status() };
  const to = getAddress(escalated.args.fallbackArbiter);
  let claim = await umaCaseOf(ctx, to, market, marketId);
  let funded: { txHash: Hex; assertionId: Hex } | undefined;
  if (fund && claim?.status === "awaiting-bond") {
    const r = await fundEscalatedClaim(ctx, to, market, marketId);
    funded = { txHash: r.txHash, assertionId: r.assertionId };
    claim = await umaCaseOf(ctx, to, market, marketId);
  }
  return {
    step: {
      kind: "escalated",
      fallback: to,
      ...(claim !== undefined ? { claim } : {}),
      ...(funded !== undefined ? { funded } : {}),
    },
    txHash: sent.hash,
    ...withApproval,
    status: await status(),
  };
}
