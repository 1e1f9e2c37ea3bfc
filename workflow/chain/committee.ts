/**
 * The CommitteeArbiter from the command line: a member's vote on a disputed market whose arbiter is a committee.
 */
import type { Address, Hex } from "viem";
import { committeeArbiterAbi } from "./abis.js";
import { requireWallet, type ChainContext } from "./clients.js";
import { ChainError, toChainError } from "./errors.js";
import { getMarketConfig, requireStatus } from "./lifecycle.js";
import { readView, viewCall, type ViewArgs, type ViewFunctionName, type ViewResult } from "./reads.js";
import { readMarketStatus } from "./snapshot.js";
import { sendContractTx } from "./writer.js";
import type { VerdictKind } from "../core/types.js";
import { VERDICT_CODE } from "../core/codes.js";

/**
 * A CommitteeArbiter member's vote on a disputed market (the market's own arbiter). When the votes for one verdict
 * reach the threshold the committee rules and the market is finalized with that verdict.
 */
export async function committeeVote(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  verdict: VerdictKind,
): Promise<{
  txHash: Hex;
  blockNumber: bigint;
  arbiter: Address;
  status: string;
  threshold: bigint;
  /** Votes for `verdict` after ours (k of `threshold`). */
  votesFor: number;
  /** Committee members (m). */
  members: number;
}> {
  const { account } = requireWallet(ctx);
  await requireStatus(ctx, market, marketId, ["Disputed"], "only a disputed market is voted on");
  const { arbiter } = await getMarketConfig(ctx, market, marketId);
  const readArbiter = async <F extends ViewFunctionName<typeof committeeArbiterAbi>>(
    functionName: F,
    args: ViewArgs<typeof committeeArbiterAbi, F>,
  ): Promise<ViewResult<typeof committeeArbiterAbi, F>> => {
    try {
      return await readView(
        ctx,
        viewCall(arbiter, committeeArbiterAbi, functionName, args),
        `CommitteeArbiter.${functionName}`,
      );
    } catch (error) {
      const e = toChainError(error, `CommitteeArbiter.${functionName}`);
      if (e.kind === "revert")
        throw new ChainError(
          "precondition",
          `market ${marketId}'s arbiter ${arbiter} is not a CommitteeArbiter (${e.message})`,
        );
      throw e;
    }
  };
  const [member, voted, threshold] = await Promise.all([
    readArbiter("isMember", [account.address]),
    readArbiter("hasVoted", [market, marketId, account.address]),
    readArbiter("threshold", []),
  ]);
  if (!member) throw new ChainError("precondition", `${account.address} is not a member of the committee ${arbiter}`);
  if (voted) throw new ChainError("precondition", `${account.address} already voted on market ${marketId}`);
  const { hash, receipt } = await sendContractTx(ctx, {
    address: arbiter,
    abi: committeeArbiterAbi,
    functionName: "vote",
    args: [market, marketId, VERDICT_CODE[verdict]],
    label: "CommitteeArbiter.vote",
  });
  const [after, tally, members] = await Promise.all([
    readMarketStatus(ctx, market, marketId),
    readArbiter("getCase", [market, marketId]),
    readArbiter("getMembers", []),
  ]);
  return {
    txHash: hash,
    blockNumber: receipt.blockNumber,
    arbiter,
    status: after.statusName,
    threshold,
    votesFor: tally.votes[VERDICT_CODE[verdict]] ?? 0,
    members: members.length,
  };
}
