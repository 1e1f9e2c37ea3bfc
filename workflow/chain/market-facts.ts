/**
 * What the market summary (workflow/core/explain.ts) needs from the chain beyond the market snapshot: the
 * settlement events (DisputeResolved, DisputeExpired, StakeSlashed, CreatorRefunded, FeedbackFailed), the
 * arbiter's case (a CommitteeArbiter's votes or an UmaArbiter's assertion, recognised from their views) and the
 * seated agents' registration-file names. Best effort where it is only decoration: a name or a case that cannot be
 * read is left out, never an error.
 */
import type { Address } from "viem";
import type { StoredBundleDocument } from "../core/bundle-schema.js";
import type { ArbitrationFacts, ExplainInput, SettlementFacts } from "../core/explain.js";
import type { VerdictKind, WorkerReport } from "../core/types.js";
import { decodeAgentUri, type UriFetcher } from "../registration/index.js";
import { VERDICT_NAMES } from "../core/codes.js";
import { committeeArbiterAbi, marketReputationAbi, umaArbiterAbi } from "./abis.js";
import type { ChainContext } from "./clients.js";
import { feedbackClientOf, type SeatResult } from "./lifecycle.js";
import { readContractLogs, readLogs } from "./logs.js";
import { createChainPorts } from "./ports.js";
import { readView, viewCall } from "./reads.js";
import type { MarketState } from "./snapshot.js";

const verdictOf = (code: number | bigint): VerdictKind => VERDICT_NAMES[Number(code)] ?? "invalid";

/** The arbiter's case of a disputed market: committee, UMA, or just its address when neither answers. */
export async function readArbitration(
  ctx: ChainContext,
  arbiter: Address,
  market: Address,
  marketId: bigint,
): Promise<ArbitrationFacts> {
  try {
    const [c, threshold, members] = await Promise.all([
      readView(ctx, viewCall(arbiter, committeeArbiterAbi, "getCase", [market, marketId]), "CommitteeArbiter.getCase"),
      readView(ctx, viewCall(arbiter, committeeArbiterAbi, "threshold", []), "CommitteeArbiter.threshold"),
      readView(ctx, viewCall(arbiter, committeeArbiterAbi, "getMembers", []), "CommitteeArbiter.getMembers"),
    ]);
    const [no, yes, invalid] = c.votes;
    return {
      kind: "committee",
      address: arbiter,
      members: members.length,
      threshold: Number(threshold),
      votes: { no: Number(no), yes: Number(yes), invalid: Number(invalid) },
    };
  } catch {
    /* not a committee */
  }
  try {
    const c = await readView(
      ctx,
      viewCall(arbiter, umaArbiterAbi, "getCase", [market, marketId]),
      "UmaArbiter.getCase",
    );
    return {
      kind: "uma",
      address: arbiter,
      assertionId: c.assertionId,
      countered: c.assertionDisputed,
      settled: Number(c.status) >= 2,
    };
  } catch {
    return { kind: "other", address: arbiter };
  }
}

/** Settlement events of one market and, once disputed, its arbiter's case. */
export async function readSettlementFacts(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  options: { fromBlock?: bigint; arbiter?: Address; disputed: boolean },
): Promise<SettlementFacts> {
  const range = { fromBlock: options.fromBlock ?? 0n };
  // The ERC-8004 writer (MarketReputation) emits FeedbackFailed itself since the contract split.
  const writer = await feedbackClientOf(ctx, market);
  const [resolved, expired, slashed, refunded, failed] = await Promise.all([
    readLogs(ctx, market, "DisputeResolved", range, { marketId }),
    readLogs(ctx, market, "DisputeExpired", range, { marketId }),
    readLogs(ctx, market, "StakeSlashed", range, { marketId }),
    readLogs(ctx, market, "CreatorRefunded", range, { marketId }),
    readContractLogs(ctx, writer, marketReputationAbi, "FeedbackFailed", range, { marketId }),
  ]);
  const r = resolved.at(-1)?.args;
  const refund = refunded.at(-1)?.args;
  const facts: SettlementFacts = {
    disputeExpired: expired.length > 0,
    slashes: slashed.map(({ args }) => ({ agentId: args.agentId, beneficiary: args.beneficiary, amount: args.amount })),
    feedbackFailed: failed.length,
    ...(r ? { disputeResolved: { verdict: verdictOf(r.verdict), winner: r.winner, bondPaid: r.bondPaid } } : {}),
    ...(refund ? { creatorRefund: { creator: refund.creator, amount: refund.amount } } : {}),
  };
  if (options.disputed && options.arbiter !== undefined)
    facts.arbitration = await readArbitration(ctx, options.arbiter, market, marketId);
  return facts;
}

/** Longest registration name kept (names are untrusted text shown beside every seat). */
export const MAX_AGENT_NAME = 80;

/**
 * Registration-file names of agents (tokenURI → data:, or http(s) through `fetcher`), by decimal id. Agents whose
 * file cannot be read or has no name are left out.
 */
export async function readAgentNames(
  ctx: ChainContext,
  market: Address,
  agentIds: readonly bigint[],
  options: { fetcher?: UriFetcher; timeoutMs?: number } = {},
): Promise<Map<string, string>> {
  const directory = createChainPorts({ ctx, marketAddress: market }).directory;
  const out = new Map<string, string>();
  await Promise.all(
    [...new Set(agentIds)].map(async (id) => {
      try {
        const uri = await directory.agentURI(id);
        if (uri === undefined) return;
        const file = await decodeAgentUri(uri, {
          ...(options.fetcher ? { fetcher: options.fetcher } : {}),
          maxBytes: 256 * 1024,
          timeoutMs: options.timeoutMs ?? 5_000,
        });
        const name = file.name.trim().slice(0, MAX_AGENT_NAME);
        if (name !== "") out.set(id.toString(), name);
      } catch {
        /* unreadable registration: no name */
      }
    }),
  );
  return out;
}

/** The summary's input from a market snapshot and the reads above (explorer and `market show` alike). */
export function explainInputOf(
  state: MarketState,
  extra: {
    now: bigint;
    reports: readonly WorkerReport[];
    results: readonly SeatResult[];
    facts?: SettlementFacts;
    names?: ReadonlyMap<string, string>;
    bundle?: StoredBundleDocument;
    betting?: { yes: bigint; no: bigint; settlement: string };
  },
): ExplainInput {
  const p = state.proposal;
  return {
    status: state.statusName,
    outcome: state.outcome,
    rewardPool: state.rewardPool,
    creator: state.creator,
    deadline: state.deadline,
    now: extra.now,
    ...(p !== undefined
      ? {
          proposal: {
            verdict: p.verdict,
            proposer: p.proposer,
            bond: p.bond,
            disputeEndsAt: p.disputeEndsAt,
            ...(p.dispute ? { dispute: { disputer: p.dispute.disputer, claimed: p.dispute.claimed } } : {}),
          },
        }
      : {}),
    workers: state.workers.map((w) => ({ agentId: w.agentId, address: w.address, stake: w.stake })),
    reports: extra.reports.map((r) => ({ answer: r.answer, confidenceBps: r.confidenceBps })),
    results: [...extra.results],
    feedbackPending: state.feedbackPending,
    ...(extra.bundle !== undefined ? { bundle: extra.bundle } : {}),
    ...(extra.facts !== undefined ? { facts: extra.facts } : {}),
    ...(extra.names !== undefined ? { names: extra.names } : {}),
    ...(extra.betting !== undefined ? { betting: extra.betting } : {}),
  };
}
