/**
 * The watcher's review of one proposal (issue 20, item 4) from public data only: the proposal and its per-seat
 * reports (chain), the panel's track record at the market's cut-off (the `MarketRecorded` chain, docs/RECORDS.md §3,
 * with rulings of allowed or configured arbiters as known truth), and the evidence bundle at the proposal's URI,
 * checked against its on-chain hash. The vote is recomputed with `decideVerdict` under the watcher's stricter
 * coalition rule and judged by `watchProposal` (workflow/core/watch.ts). Reads only: disputing is `act.ts`.
 *
 * A bad bundle (unreachable, too large, not the schema, another hash) never stops a review: the vote is recomputed
 * from the on-chain reports, which are what settles the market, and the bundle's state is reported.
 */
import { getAddress, type Address } from "viem";
import { bundleHash, canonicalJson, MAX_BUNDLE_BYTES } from "../core/bundle.js";
import { parseStoredBundle } from "../core/bundle-schema.js";
import { ZERO_HEAD } from "../core/track-record.js";
import type { HistoryMarket, VerdictKind, WorkerReport } from "../core/types.js";
import { decideVerdict, type VerdictConfigInput, type VerdictDecision } from "../core/vote.js";
import { DEFAULT_WATCH_CONFIG, type WatchConfig, type WatchVerdict, watchProposal } from "../core/watch.js";
import type { ChainContext } from "../chain/clients.js";
import { ChainError } from "../chain/errors.js";
import { getMarketConfig, getProposal, getReports, type ProposalView, readMarket } from "../chain/lifecycle.js";
import { marketDisputeBond } from "../chain/dispute-bond.js";
import { type LogRange, readLogs } from "../chain/logs.js";
import { readCutoff } from "../chain/record.js";
import { readMarketStatus } from "../chain/snapshot.js";
import { markAllowedRulings } from "../allowed-rulings.js";
import { recordHistory } from "../chain/track-record.js";
import { chainAllowList, trustedArbitersOf } from "../chain/trusted-rulings.js";

/** The watcher's coalition rule: the verdict must survive the defection of its 2 heaviest agents (vote.ts). */
export const WATCH_VOTE: Readonly<VerdictConfigInput> = Object.freeze({ coalitionK: 2 });

export interface ReviewOptions {
  /** When to dispute (share of the yes/no seats against the proposal). Default: core/watch.ts. */
  watch?: Partial<WatchConfig>;
  /** The recomputed vote's parameters. Default: `WATCH_VOTE`. */
  vote?: VerdictConfigInput;
  /** Arbiters whose rulings are known truth besides those the deployment allows. */
  trustedArbiters?: readonly Address[];
  /** Reads an http(s) bundle (the safe HTTP client's `getText`, capped); absent: bundles are not fetched. */
  fetchText?: (url: string) => Promise<string>;
  /** Where the market's logs start (its deployment block) and the eth_getLogs chunk. */
  range?: Pick<LogRange, "fromBlock" | "chunkBlocks">;
}

export type BundleState =
  | { status: "verified"; verdict?: VerdictKind }
  | { status: "mismatch" | "unreadable" | "not-fetched"; detail: string };

export interface ProposalReview {
  marketId: bigint;
  proposal: ProposalView;
  arbiter: Address;
  /** The arbiter is on the deployment's allow-list (or its default arbiter) or configured as trusted. */
  arbiterTrusted: boolean;
  /** What a dispute costs in ETH (`governance().disputeBond`: the market's bond plus 10 % of pool and stakes). */
  disputeBond: bigint;
  bundle: BundleState;
  /** Finalized markets of the panel's agents in the recomputed vote's record (trusted rulings among them). */
  history: { markets: number; trustedRulings: number };
  recomputed: Pick<VerdictDecision, "verdict" | "reason" | "posterior">;
  watch: WatchVerdict;
  /** The verdict a dispute claims (absent when the review finds nothing to dispute). */
  claim?: VerdictKind;
}

/** The panel's track record at the market's cut-off, trusted rulings marked (RECORDS §3-§4). */
export async function watchHistory(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  agentIds: readonly bigint[],
  options: Pick<ReviewOptions, "trustedArbiters" | "range"> = {},
): Promise<HistoryMarket[]> {
  const cutoff = (await readCutoff(ctx, market, marketId)) ?? { count: 0, head: ZERO_HEAD };
  const history = await recordHistory(ctx, market, cutoff, agentIds, {
    ...options.range,
    ...(options.trustedArbiters !== undefined ? { trustedArbiters: options.trustedArbiters } : {}),
  });
  return markAllowedRulings(history, chainAllowList(ctx, market));
}

async function checkBundle(proposal: ProposalView, fetchText: ReviewOptions["fetchText"]): Promise<BundleState> {
  const uri = proposal.bundleURI;
  if (!/^https?:\/\//i.test(uri))
    return { status: "not-fetched", detail: uri === "" ? "no bundle URI" : `not http(s): ${uri.slice(0, 80)}` };
  if (fetchText === undefined) return { status: "not-fetched", detail: "bundle fetching is off" };
  try {
    const doc = parseStoredBundle(await fetchText(uri), MAX_BUNDLE_BYTES);
    if (bundleHash(canonicalJson(doc)) !== proposal.bundleHash.toLowerCase())
      return { status: "mismatch", detail: `${uri.slice(0, 80)} does not hash to the on-chain ${proposal.bundleHash}` };
    return "workers" in doc && doc.decision !== undefined
      ? { status: "verified", verdict: doc.decision.verdict }
      : { status: "verified" };
  } catch (error) {
    const line = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "unreadable";
    return { status: "unreadable", detail: line.slice(0, 200) };
  }
}

/**
 * The verdict a dispute claims: the recomputed yes/no when it differs; for a fragile proposal, the side the rest of
 * the panel favours; for a proposal against the seats, the seats' majority; Invalid when none of these names a side.
 */
export function claimFor(
  proposed: VerdictKind,
  reports: readonly WorkerReport[],
  recomputed: Pick<VerdictDecision, "verdict" | "fragility">,
): VerdictKind {
  if (recomputed.verdict !== "invalid" && recomputed.verdict !== proposed) return recomputed.verdict;
  const rest = recomputed.fragility?.restLogOdds;
  if (rest !== undefined && rest !== 0) {
    const side = rest > 0 ? "yes" : "no";
    if (side !== proposed) return side;
  }
  const yes = reports.filter((r) => r.answer === "yes").length;
  const no = reports.filter((r) => r.answer === "no").length;
  const majority = yes > no ? "yes" : no > yes ? "no" : undefined;
  if (majority !== undefined && majority !== proposed) return majority;
  return proposed === "invalid" ? (recomputed.verdict === "invalid" ? "yes" : recomputed.verdict) : "invalid";
}

/** Reviews the proposal of `marketId` (which must have one). */
export async function reviewProposal(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  options: ReviewOptions = {},
): Promise<ProposalReview> {
  const proposal = await getProposal(ctx, market, marketId);
  if (proposal === undefined) throw new ChainError("precondition", `market ${marketId} has no proposal to review`);
  const [reports, [, agentIds], config, disputeBond] = await Promise.all([
    getReports(ctx, market, marketId, options.range?.fromBlock ?? 0n),
    readMarket(ctx, market, "getWorkers", [marketId]),
    getMarketConfig(ctx, market, marketId),
    marketDisputeBond(ctx, market, marketId),
  ]);
  if (reports.length !== agentIds.length)
    throw new ChainError("precondition", `market ${marketId}: ${reports.length} reports for ${agentIds.length} seats`);
  const [history, bundle, arbiterTrusted] = await Promise.all([
    watchHistory(ctx, market, marketId, agentIds, options),
    checkBundle(proposal, options.fetchText),
    trustedArbitersOf(ctx, market, [config.arbiter], options.trustedArbiters).then((s) =>
      s.has(config.arbiter.toLowerCase()),
    ),
  ]);
  const decision = decideVerdict({ agentIds, reports, history }, options.vote ?? WATCH_VOTE);
  const watch = watchProposal(proposal.verdict, reports, decision, { ...DEFAULT_WATCH_CONFIG, ...options.watch });
  return {
    marketId,
    proposal,
    arbiter: getAddress(config.arbiter),
    arbiterTrusted,
    disputeBond,
    bundle,
    history: { markets: history.length, trustedRulings: history.filter((m) => m.trustedRuling === true).length },
    recomputed: {
      verdict: decision.verdict,
      ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
      posterior: decision.posterior,
    },
    watch,
    ...(watch.dispute ? { claim: claimFor(proposal.verdict, reports, decision) } : {}),
  };
}

/** Markets with a proposal still in `Proposed` (newest proposal per market, from `ResolutionProposed` logs). */
export async function openProposals(
  ctx: ChainContext,
  market: Address,
  range: ReviewOptions["range"] = {},
): Promise<bigint[]> {
  const logs = await readLogs(ctx, market, "ResolutionProposed", { ...range });
  const ids = [...new Set(logs.map((l) => l.args.marketId))];
  const out: bigint[] = [];
  for (const id of ids) if ((await readMarketStatus(ctx, market, id)).statusName === "Proposed") out.push(id);
  return out;
}
