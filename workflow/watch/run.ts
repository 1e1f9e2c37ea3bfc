/**
 * One watcher pass over a market contract: every proposal still in its dispute window (or the given markets) is
 * reviewed (review.ts) and acted on (act.ts). One market that cannot be reviewed (a transport error, a malformed
 * proposal) is reported on its line; the others go on.
 */
import type { Address } from "viem";
import type { ChainContext } from "../chain/clients.js";
import { type ActOptions, actOnReview, reviewLine, type WatchAction } from "./act.js";
import { openProposals, type ProposalReview, type ReviewOptions, reviewProposal } from "./review.js";

export interface WatchPassOptions extends ReviewOptions, ActOptions {
  /** Review these markets instead of every open proposal. */
  marketIds?: readonly bigint[];
}

export type WatchResult =
  | { marketId: bigint; review: ProposalReview; action: WatchAction; line: string }
  | { marketId: bigint; error: string; line: string };

const firstLine = (error: unknown): string =>
  ((error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "error").slice(0, 300);

export async function watchPass(ctx: ChainContext, market: Address, options: WatchPassOptions): Promise<WatchResult[]> {
  const ids = options.marketIds ?? (await openProposals(ctx, market, options.range));
  const out: WatchResult[] = [];
  for (const marketId of ids) {
    try {
      const review = await reviewProposal(ctx, market, marketId, options);
      const now = (await ctx.publicClient.getBlock({ blockTag: "latest" })).timestamp;
      const action = await actOnReview(ctx, market, review, now, options);
      out.push({ marketId, review, action, line: reviewLine(review, action) });
    } catch (error) {
      const message = firstLine(error);
      out.push({ marketId, error: message, line: `market ${marketId}: not reviewed: ${message}` });
    }
  }
  return out;
}
