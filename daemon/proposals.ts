/**
 * Pure helpers of the proposal lifecycle (daemon/runner.ts): what a job becomes when the chain has moved on,
 * the bundle URI, the fallback bundle of an invalid proposal without a run, the stored payload.
 */
import { keccak256, stringToBytes } from "viem";
import { DAEMON_INVALID_SCHEMA } from "../workflow/core/bundle.js";
import type { DaemonInvalidDocument } from "../workflow/core/bundle-schema.js";
import type { Hex } from "../workflow/core/types.js";
import type { MarketOnChain, Verdict } from "./config.js";
import type { FinishUpdate, JobRow } from "./store.js";

/** The small document the daemon proposes invalid with when no run produced a bundle. */
export function fallbackInvalidBundle(job: JobRow, reason: string): { json: string; hash: Hex } {
  // Keys in sorted order, plain strings only: canonical JSON as workflow/core/bundle.ts defines it.
  const doc: DaemonInvalidDocument = {
    chainId: job.chainId,
    market: job.market,
    marketId: job.marketId.toString(10),
    reason,
    schema: DAEMON_INVALID_SCHEMA,
  };
  const json = JSON.stringify(doc);
  return { json, hash: keccak256(stringToBytes(json)) };
}

export function bundleUrl(publicUrl: string | undefined, hash: string): string {
  return publicUrl ? `${publicUrl}/bundles/${hash.toLowerCase()}.json` : "";
}

export const jsonPayload = (payload: unknown): string =>
  JSON.stringify(payload ?? null, (_k, v: unknown) => (typeof v === "bigint" ? v.toString(10) : v));

/** The final verdict of a market that is Resolved or Invalid on chain. */
export function finalVerdictOf(chain: MarketOnChain): Verdict {
  return chain.status === "invalid" ? "invalid" : chain.outcome ? "yes" : "no";
}

/**
 * The job's state when the chain no longer awaits a proposal. A proposal of ours (same proposer) is adopted
 * with the stored bundle it names; anything else is someone else's.
 */
export function adoptFromChain(
  account: string,
  chain: MarketOnChain,
  hasBundle: (hash: string) => boolean,
): FinishUpdate | undefined {
  const p = chain.proposal;
  const ours = p !== undefined && p.proposer.toLowerCase() === account.toLowerCase();
  const known = p !== undefined && hasBundle(p.bundleHash);
  switch (chain.status) {
    case "proposed":
    case "disputed":
      if (!ours) return { state: "proposed-elsewhere", lastOutcome: "proposed-elsewhere", lastError: null };
      return {
        state: chain.status,
        lastOutcome: "proposed",
        lastError: null,
        verdict: p.verdict,
        bundleHash: p.bundleHash.toLowerCase(),
        bundleUri: p.bundleURI,
        disputeEndsAt: p.disputeEndsAt,
        ...(p.disputer !== undefined ? { disputer: p.disputer.toLowerCase(), claimed: p.claimed ?? null } : {}),
        ...(known ? {} : { lastError: "the on-chain proposal names a bundle this database does not hold" }),
      };
    case "resolved":
    case "invalid":
      if (ours) {
        const final = finalVerdictOf(chain);
        return {
          state: "finalized",
          lastOutcome: "finalized",
          lastError: null,
          verdict: p.verdict,
          finalStatus: chain.status,
          finalVerdict: final,
          feedback: chain.status === "resolved" ? "pending" : "done",
        };
      }
      return { state: "already-settled", lastOutcome: chain.status, lastError: null };
    case "cancelled":
      return { state: "already-settled", lastOutcome: "cancelled", lastError: null };
    default:
      return undefined;
  }
}
