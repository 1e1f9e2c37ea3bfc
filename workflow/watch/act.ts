/**
 * What the watcher does with a review (review.ts): nothing, report what it would dispute (the default: a dispute
 * risks a bond), or dispute with its own bond through the market's arbiter (`dispute`: lifecycle.ts, which also
 * approves an UmaArbiter's ERC-20 bond). Refused without a transaction, each with one line: the proposer's own
 * proposal, a closed window, a bond above the cap, an arbiter neither the deployment allows nor the operator trusts
 * (its ruling could take the bond whatever the truth).
 */
import { type Address, formatEther, getAddress, type Hex } from "viem";
import type { VerdictKind } from "../core/types.js";
import type { ChainContext } from "../chain/clients.js";
import { dispute } from "../chain/lifecycle.js";
import type { ProposalReview } from "./review.js";

/** Default cap on the dispute bond the watcher puts up for one dispute (1 ETH, as the settler's). */
export const DEFAULT_WATCH_MAX_BOND = 10n ** 18n;

export interface ActOptions {
  /** Send disputes (an irreversible bond); otherwise only report them. */
  dispute: boolean;
  /** Largest dispute bond (wei, `governance().disputeBond`) put up for one dispute. Default 1 ETH. */
  maxBond?: bigint;
}

export type WatchAction =
  | { kind: "none" }
  | { kind: "would-dispute"; claim: VerdictKind }
  | { kind: "refused"; claim: VerdictKind; why: string }
  | { kind: "disputed"; claim: VerdictKind; txHash: Hex; bond: bigint; arbiterBond?: bigint }
  | { kind: "failed"; claim: VerdictKind; why: string };

/** Acts on one review at chain time `now` (seconds). Never throws for a failed dispute: it is reported. */
export async function actOnReview(
  ctx: ChainContext,
  market: Address,
  review: ProposalReview,
  now: bigint,
  options: ActOptions,
): Promise<WatchAction> {
  const claim = review.claim;
  if (!review.watch.dispute || claim === undefined) return { kind: "none" };
  const p = review.proposal;
  const me = ctx.account?.address;
  const refuse = (why: string): WatchAction => ({ kind: "refused", claim, why });
  if (me !== undefined && getAddress(me) === p.proposer) return refuse("it is this key's own proposal");
  if (p.dispute !== undefined) return refuse(`already disputed by ${p.dispute.disputer}`);
  if (now >= p.disputeEndsAt) return refuse("its dispute window is over");
  const maxBond = options.maxBond ?? DEFAULT_WATCH_MAX_BOND;
  // What this key would pay: the dispute bond (the market's bond plus 10 % of pool and stakes), not the proposer's.
  const bond = review.disputeBond;
  if (bond > maxBond)
    return refuse(`its dispute bond ${formatEther(bond)} ETH exceeds the watcher's cap ${formatEther(maxBond)} ETH`);
  if (!review.arbiterTrusted)
    return refuse(`its arbiter ${review.arbiter} is neither allowed by the deployment nor trusted (--trusted-arbiter)`);
  if (!options.dispute) return { kind: "would-dispute", claim };
  try {
    const r = await dispute(ctx, market, review.marketId, claim);
    return {
      kind: "disputed",
      claim,
      txHash: r.txHash,
      bond: r.bond,
      ...(r.arbiterBond !== undefined ? { arbiterBond: r.arbiterBond.bond.amount } : {}),
    };
  } catch (error) {
    const line = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "dispute failed";
    return { kind: "failed", claim, why: line.slice(0, 300) };
  }
}

const NAME = { yes: "YES", no: "NO", invalid: "INVALID" } as const;

/** One line per reviewed market, e.g. "market 7: proposal NO, recomputed YES (differs, against-seats) → disputed …". */
export function reviewLine(review: ProposalReview, action: WatchAction): string {
  const r = review.recomputed;
  const head = `market ${review.marketId}: proposal ${NAME[review.proposal.verdict]}, recomputed ${NAME[r.verdict]}${r.reason !== undefined ? ` (${r.reason})` : ""} over ${review.history.markets} market(s)`;
  const seats = `${review.watch.against}/${review.watch.answered} seats against`;
  const bundle =
    review.bundle.status === "verified" ? "bundle verified" : `bundle ${review.bundle.status}: ${review.bundle.detail}`;
  const why = review.watch.reasons.join(", ");
  switch (action.kind) {
    case "none":
      return `${head}, ${seats}, ${bundle}: no dispute`;
    case "would-dispute":
      return `${head}, ${seats}, ${bundle}: WOULD DISPUTE claiming ${NAME[action.claim]} (${why}); pass --dispute to send it`;
    case "refused":
      return `${head}, ${seats}, ${bundle}: should be disputed claiming ${NAME[action.claim]} (${why}), not disputing: ${action.why}`;
    case "disputed":
      return `${head}, ${seats}, ${bundle}: DISPUTED claiming ${NAME[action.claim]} (${why}), bond ${formatEther(action.bond)} ETH, tx ${action.txHash}`;
    case "failed":
      return `${head}, ${seats}, ${bundle}: dispute claiming ${NAME[action.claim]} (${why}) FAILED: ${action.why}`;
  }
}
