/**
 * Pure helpers of the proposal lifecycle (daemon/runner.ts): what a job becomes when the chain has moved on,
 * the bundle URI, the fallback bundle of an invalid proposal without a run, the stored payload.
 */
import { keccak256, stringToBytes } from "viem";
import { z } from "zod";
import { DAEMON_INVALID_SCHEMA } from "../workflow/core/bundle.js";
import type { DaemonInvalidDocument } from "../workflow/core/bundle-schema.js";
import { hash32Schema, workerReportSchema } from "../workflow/core/report-schema.js";
import type { Hex, WorkerReport } from "../workflow/core/types.js";
import { CresolverError } from "../workflow/util/errors.js";
import type { MarketOnChain, ProposeInput, Verdict } from "./config.js";
import type { AdoptedState } from "./state.js";
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
): (FinishUpdate & { state: AdoptedState }) | undefined {
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

/** A stored proposal that cannot be sent as it is (a row edited by hand, or written by another version). */
export class StoredProposalError extends CresolverError {}

/** What a `proposing` job stored before its send (state.ts): the verdict, the bundle it names and the payload. */
const storedProposalSchema = z.object({
  verdict: z.enum(["yes", "no", "invalid"]),
  bundleHash: hash32Schema,
  bundleUri: z.string().nullable(),
  txHash: hash32Schema.nullable(),
  payload: z.string().nullable(),
});

/** The proposal of a `proposing` job, checked before it goes on-chain. */
export function storedProposal(job: JobRow): ProposeInput {
  const parsed = storedProposalSchema.safeParse(job);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StoredProposalError(
      `stored proposal of job ${job.id} is malformed${issue === undefined ? "" : ` (${issue.path.join(".")}: ${issue.message})`}`,
    );
  }
  const p = parsed.data;
  let payload: unknown = null;
  if (p.payload !== null) {
    try {
      payload = JSON.parse(p.payload);
    } catch (err) {
      throw new StoredProposalError(`stored proposal of job ${job.id}: the payload is not JSON`, { cause: err });
    }
  }
  return {
    verdict: p.verdict,
    payload,
    bundleHash: p.bundleHash,
    bundleURI: p.bundleUri ?? "",
    // Linked at broadcast: a restart with it pending waits for it instead of sending a second proposal.
    ...(p.txHash !== null ? { sentTx: p.txHash } : {}),
  };
}

/** The daemon's proposal payload (seams.ts): the per-seat reports, or null when no run produced any. */
const proposalPayloadSchema = z.object({ reports: z.array(workerReportSchema).max(1_000) }).nullable();

/** The reports in a stored payload, checked; undefined when there are none (every seat is then sent as failed). */
export function payloadReports(payload: unknown): WorkerReport[] | undefined {
  const parsed = proposalPayloadSchema.safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StoredProposalError(
      `stored proposal payload is malformed${issue === undefined ? "" : ` (${issue.path.join(".")}: ${issue.message})`}`,
    );
  }
  return parsed.data?.reports;
}
