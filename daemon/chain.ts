/**
 * What the daemon reads from a v2 ResolutionMarket to decide a job's next step: status, the proposal (window,
 * dispute) and the chain's clock. Every decision is taken on a fresh read (no cache). The fragment below is
 * the part of IResolutionMarket the daemon needs, so reading does not depend on a regenerated ABI file.
 */
import { BaseError, ContractFunctionRevertedError, parseAbi, type Address, type Hex, type PublicClient } from "viem";
import type { MarketOnChain, Verdict } from "./config.js";

export const daemonMarketAbi = parseAbi([
  "function getMarket(uint256 marketId) view returns ((address creator, uint64 deadline, uint64 requestedAt, uint8 status, bool outcome, uint32 workerCount, uint256 rewardPool, uint256 totalStake, bytes32 bundleHash, string question))",
  "function getProposal(uint256 marketId) view returns ((address proposer, uint8 verdict, uint64 proposedAt, uint64 disputeEndsAt, uint96 bond, address disputer, uint8 claimed, uint64 disputedAt, bytes32 bundleHash, string bundleURI))",
  "function finalize(uint256 marketId)",
  "function publishFeedback(uint256 marketId, uint256 maxWorkers) returns (uint256 published)",
  "error MarketNotFound(uint256 marketId)",
]);

/** True for the market's own "no such market" revert (an id never created reads as status None). */
function isMarketNotFound(err: unknown): boolean {
  if (!(err instanceof BaseError)) return false;
  const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError);
  return reverted instanceof ContractFunctionRevertedError && reverted.data?.errorName === "MarketNotFound";
}

/** IResolutionMarket.Status, in order. */
export const STATUS_BY_CODE: readonly MarketOnChain["status"][] = [
  "none",
  "open",
  "requested",
  "resolved",
  "invalid",
  "cancelled",
  "proposed",
  "disputed",
];
/** IResolutionMarket.Verdict, in order. */
export const VERDICT_BY_CODE: readonly Verdict[] = ["no", "yes", "invalid"];

const ZERO: Address = "0x0000000000000000000000000000000000000000";

export async function readMarketOnChain(
  client: PublicClient,
  market: Address,
  marketId: bigint,
): Promise<MarketOnChain> {
  const [info, block] = await Promise.all([
    client
      .readContract({ address: market, abi: daemonMarketAbi, functionName: "getMarket", args: [marketId] })
      .catch((err: unknown) => {
        if (isMarketNotFound(err)) return undefined;
        throw err;
      }),
    client.getBlock({ blockTag: "latest" }),
  ]);
  if (info === undefined) return { status: "none", chainTime: Number(block.timestamp) };
  const status = STATUS_BY_CODE[Number(info.status)] ?? "none";
  const out: MarketOnChain = { status, chainTime: Number(block.timestamp) };
  if (status === "resolved") out.outcome = info.outcome;
  if (status === "proposed" || status === "disputed" || status === "resolved" || status === "invalid") {
    const p = await client.readContract({
      address: market,
      abi: daemonMarketAbi,
      functionName: "getProposal",
      args: [marketId],
    });
    if (p.proposer !== ZERO) {
      out.proposal = {
        proposer: p.proposer as Hex,
        verdict: VERDICT_BY_CODE[Number(p.verdict)] ?? "invalid",
        disputeEndsAt: Number(p.disputeEndsAt),
        bundleHash: p.bundleHash,
        bundleURI: p.bundleURI,
        ...(p.disputer !== ZERO
          ? { disputer: p.disputer as Hex, claimed: VERDICT_BY_CODE[Number(p.claimed)] ?? "invalid" }
          : {}),
      };
    }
  }
  return out;
}
