/**
 * What the daemon reads from a v2 ResolutionMarket to decide a job's next step: status, the proposal (window,
 * dispute) and the chain's clock. Every decision is taken on a fresh read (no cache), typed by the generated
 * market ABI (workflow/chain/abis.ts); the enum codes come from workflow/core/codes.ts.
 */
import { BaseError, ContractFunctionRevertedError, type Address, type PublicClient } from "viem";
import { resolutionMarketAbi } from "../workflow/chain/abis.js";
import { nameOf, STATUS_NAMES, VERDICT_NAMES, type StatusName } from "../workflow/core/codes.js";
import type { MarketOnChain } from "./config.js";

/** True for the market's own "no such market" revert (an id never created reads as status None). */
function isMarketNotFound(err: unknown): boolean {
  if (!(err instanceof BaseError)) return false;
  const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError);
  return reverted instanceof ContractFunctionRevertedError && reverted.data?.errorName === "MarketNotFound";
}

/** The daemon's short name of each IResolutionMarket.Status. */
const DAEMON_STATUS: Readonly<Record<StatusName, MarketOnChain["status"]>> = {
  None: "none",
  Open: "open",
  ResolutionRequested: "requested",
  Resolved: "resolved",
  Invalid: "invalid",
  Cancelled: "cancelled",
  Proposed: "proposed",
  Disputed: "disputed",
};

const ZERO: Address = "0x0000000000000000000000000000000000000000";

export async function readMarketOnChain(
  client: PublicClient,
  market: Address,
  marketId: bigint,
): Promise<MarketOnChain> {
  const [info, block] = await Promise.all([
    client
      .readContract({ address: market, abi: resolutionMarketAbi, functionName: "getMarket", args: [marketId] })
      .catch((err: unknown) => {
        if (isMarketNotFound(err)) return undefined;
        throw err;
      }),
    client.getBlock({ blockTag: "latest" }),
  ]);
  if (info === undefined) return { status: "none", chainTime: Number(block.timestamp) };
  const status = DAEMON_STATUS[nameOf(STATUS_NAMES, info.status, "None")];
  const out: MarketOnChain = { status, chainTime: Number(block.timestamp) };
  if (status === "resolved") out.outcome = info.outcome;
  if (status === "proposed" || status === "disputed" || status === "resolved" || status === "invalid") {
    const p = await client.readContract({
      address: market,
      abi: resolutionMarketAbi,
      functionName: "getProposal",
      args: [marketId],
    });
    if (p.proposer !== ZERO) {
      out.proposal = {
        proposer: p.proposer,
        verdict: nameOf(VERDICT_NAMES, p.verdict, "invalid"),
        disputeEndsAt: Number(p.disputeEndsAt),
        bundleHash: p.bundleHash,
        bundleURI: p.bundleURI,
        ...(p.disputer !== ZERO ? { disputer: p.disputer, claimed: nameOf(VERDICT_NAMES, p.claimed, "invalid") } : {}),
      };
    }
  }
  return out;
}
