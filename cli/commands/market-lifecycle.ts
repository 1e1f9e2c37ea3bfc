/**
 * `market show|status`, `dispute`, `finalize`, `cancel`, `publish-feedback`, `retry-feedback`, `settings`: the
 * proposal lifecycle of IResolutionMarket v2 (workflow/chain/lifecycle.ts) from the command line.
 */
import { resolve as resolvePath } from "node:path";
import { Command, Option } from "commander";
import { formatEther, getAddress, type Address } from "viem";
import { marketGovernanceAbi, reputationRegistryAbi, resolutionMarketAbi } from "../../workflow/chain/abis.js";
import { admissionRule } from "../../workflow/chain/actions.js";
import type { ChainContext } from "../../workflow/chain/clients.js";
import { committeeVote } from "../../workflow/chain/committee.js";
import { ChainError } from "../../workflow/chain/errors.js";
import { readContractLogs } from "../../workflow/chain/logs.js";
import {
  cancelRequestedAt,
  cancelStale,
  dispute,
  feedbackClientOf,
  finalize,
  getDefaults,
  getReports,
  governanceOf,
  getSeatResults,
  publishFeedback,
  readGovernance,
  readMarket,
  requestCancel,
  retryFeedback,
  type SeatResult,
} from "../../workflow/chain/lifecycle.js";
import { viewCall } from "../../workflow/chain/reads.js";
import { explainInputOf, readAgentNames, readSettlementFacts } from "../../workflow/chain/market-facts.js";
import { readMany, readMarketState } from "../../workflow/chain/snapshot.js";
import { explainMarket, explanationLines, percentOfBps } from "../../workflow/core/explain.js";
import { visibleText } from "../../workflow/core/text.js";
import type { VerdictKind } from "../../workflow/core/types.js";
import { loadTrace, traceLines } from "../shared/bundle-trace.js";
import { parseIntIn, parseUint } from "../shared/config.js";
import type { Runtime } from "../shared/runtime.js";

export const iso = (seconds: bigint | number) => new Date(Number(seconds) * 1000).toISOString();

export function formatDuration(seconds: number): string {
  if (seconds % 86400 === 0) return `${seconds / 86400}d`;
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

const VERDICT_TEXT: Record<VerdictKind, string> = { yes: "YES", no: "NO", invalid: "INVALID" };

async function chainNow(ctx: ChainContext): Promise<bigint> {
  return (await ctx.publicClient.getBlock({ blockTag: "latest" })).timestamp;
}

function seatLine(s: SeatResult): string {
  const answer =
    s.answer === "yes" || s.answer === "no"
      ? `${s.answer.toUpperCase()} at ${percentOfBps(s.confidenceBps)}`
      : s.answer;
  const scored = s.scored ? `correctness ${s.correctness}` : "not scored";
  const slashed = s.stakeSlashed > 0n ? `, stake slashed ${formatEther(s.stakeSlashed)} ETH` : "";
  return `    agent ${s.agentId}: ${answer}; ${scored}; reward ${formatEther(s.reward)} ETH; stake back ${formatEther(s.stakeReturned)} ETH${slashed}`;
}

function show(runtime: () => Runtime): Command {
  return new Command("show")
    .alias("status")
    .description(
      "Show a market: status, settings (admission rule), workers, the proposal (verdict, bundle, dispute window, disputer and claim) and the final per-worker results.",
    )
    .argument("<marketId>", "the market")
    .option(
      "--bundle <file>",
      "the resolution bundle to show the trace from (default: the proposal's bundle URI, when it is http(s))",
    )
    .option("--no-fetch-bundle", "do not fetch the bundle URI")
    .option("--allow-loopback", "let the bundle URI point at 127.0.0.1/::1 (a local daemon)")
    .option("--allow-private", "let the bundle URI point at private network addresses")
    .action(
      async (
        marketIdArg: string,
        opts: { bundle?: string; fetchBundle: boolean; allowLoopback?: boolean; allowPrivate?: boolean },
      ) => {
        const rt = runtime();
        const marketId = parseUint(marketIdArg, "marketId");
        const market = await rt.marketAddress();
        const ctx = await rt.chain();
        const s = await readMarketState(ctx, market, marketId);
        const now = await chainNow(ctx);
        const fromBlock = await rt.marketFromBlock();
        // ERC-8004 feedback this market wrote per worker (tag2 "cresolver"), best effort.
        const feedback: (bigint | null)[] = s.workers.map(() => null);
        try {
          const reputationRegistry = await readMarket(ctx, market, "reputationRegistry", []);
          const client = await feedbackClientOf(ctx, market);
          const { results } = await readMany(
            ctx,
            s.workers.map((w) =>
              viewCall(reputationRegistry, reputationRegistryAbi, "getSummary", [w.agentId, [client], "", "cresolver"]),
            ),
            s.blockNumber,
          );
          results.forEach((r, i) => {
            if (r.status === "success") feedback[i] = r.result[0];
          });
        } catch {
          /* registry without getSummary: leave null */
        }
        const workers = s.workers.map((w, i) => ({ ...w, feedbackCount: feedback[i] }));
        const proposal = s.proposal;
        const reports = proposal !== undefined ? await getReports(ctx, market, marketId, fromBlock) : [];
        const finalized = ["Resolved", "Invalid"].includes(s.statusName);
        const results = finalized ? await getSeatResults(ctx, market, marketId, fromBlock) : [];
        const cancellableAt =
          s.statusName === "ResolutionRequested" ? await cancelRequestedAt(ctx, market, marketId, fromBlock) : 0n;
        // Seats whose records the registry refused (e.g. the agent made the market its operator): retry-feedback.
        const refusedSeats: number[] = [];
        if (s.statusName === "Resolved") {
          const { results: pending } = await readMany(
            ctx,
            s.workers.map((_, i) => viewCall(market, resolutionMarketAbi, "pendingFeedback", [marketId, BigInt(i)])),
            s.blockNumber,
          );
          pending.forEach((r, i) => {
            if (r.status === "success" && r.result.some(Boolean)) refusedSeats.push(i);
          });
        }
        const windowOpen = proposal !== undefined && s.statusName === "Proposed" && now < proposal.disputeEndsAt;
        // The trace (answers, failures, scores, weights, posterior) lives in the bundle; its hash is on-chain.
        const bundleFile = opts.bundle !== undefined ? resolvePath(rt.io.cwd, opts.bundle) : undefined;
        const bundleUri = opts.fetchBundle && proposal?.bundleURI ? proposal.bundleURI : undefined;
        const { trace, error: traceError } =
          proposal === undefined
            ? { trace: null, error: null }
            : await loadTrace({
                ...(bundleFile !== undefined
                  ? { file: bundleFile }
                  : bundleUri !== undefined
                    ? { uri: bundleUri }
                    : {}),
                expectedHash: proposal.bundleHash,
                allowLoopback: opts.allowLoopback === true,
                allowPrivate: opts.allowPrivate === true,
              });
        const [facts, names] = await Promise.all([
          readSettlementFacts(ctx, market, marketId, {
            fromBlock,
            arbiter: s.config.arbiter,
            disputed: proposal?.dispute !== undefined,
          }),
          readAgentNames(
            ctx,
            market,
            s.workers.map((w) => w.agentId),
          ),
        ]);
        const explanation = explainMarket(
          explainInputOf(s, {
            now,
            reports,
            results,
            facts,
            names,
            ...(trace ? { bundle: trace.document } : {}),
          }),
        );
        const outcome = s.statusName === "Resolved" ? (s.outcome ? "YES" : "NO") : null;
        const result = {
          marketId,
          market,
          status: s.statusName,
          question: s.question,
          creator: s.creator,
          deadline: s.deadline,
          deadlineIso: iso(s.deadline),
          requestedAt: s.requestedAt,
          outcome,
          rewardPool: s.rewardPool,
          totalStake: s.totalStake,
          bundleHash: s.bundleHash,
          config: { ...s.config, admissionRule: admissionRule(s.config) },
          minStake: s.minStake,
          seatLimit: s.seatLimit,
          gracePeriod: s.gracePeriod,
          proposal:
            proposal === undefined
              ? null
              : { ...proposal, disputeEndsAtIso: iso(proposal.disputeEndsAt), windowOpen, reports },
          cancellableAt: cancellableAt === 0n ? null : cancellableAt,
          feedbackPending: s.feedbackPending,
          refusedSeats,
          results,
          blockNumber: s.blockNumber,
          chainTime: now,
          workers,
          explanation,
          trace: trace ? { ...trace, document: undefined } : null,
          traceError,
        };
        const lines = [
          `market ${marketId} at ${market}: ${s.statusName}${outcome ? ` → ${outcome}` : ""}`,
          `  question      ${visibleText(s.question)}`,
          ...explanationLines(
            explanation,
            (seat) => `agent ${seat.agentId}${seat.name !== undefined ? ` (${visibleText(seat.name)})` : ""}`,
          ),
          `  deadline      ${iso(s.deadline)}`,
          `  reward pool   ${formatEther(s.rewardPool)} ETH, total stake ${formatEther(s.totalStake)} ETH, min stake ${formatEther(s.minStake)} ETH`,
          `  admission     ${admissionRule(s.config)}`,
          `  settings      ${s.seatLimit} seats, grace ${formatDuration(s.gracePeriod)}, dispute window ${formatDuration(s.config.disputeWindow)}, bond ${formatEther(s.config.bond)} ETH, arbiter ${s.config.arbiter}`,
          `  workers       ${s.workers.length}/${s.seatLimit}`,
          ...workers.map(
            (w) =>
              `    agent ${w.agentId} ${w.address} stake ${formatEther(w.stake)} ETH; record ${w.reputation ? `${w.reputation.settled} settled, correctness ${w.reputation.correctness}` : "?"}; ERC-8004 feedback ${w.feedbackCount ?? "?"}`,
          ),
        ];
        if (cancellableAt > 0n)
          lines.push(
            `  cancel        requested; cancelStale possible from ${iso(cancellableAt)} unless a resolver proposes first`,
          );
        if (proposal !== undefined) {
          lines.push(
            `  proposal      ${VERDICT_TEXT[proposal.verdict]} by ${proposal.proposer}, bond ${formatEther(proposal.bond)} ETH`,
            `  bundle        ${proposal.bundleHash}${proposal.bundleURI ? ` at ${proposal.bundleURI}` : ""}`,
            `  window        ${windowOpen ? "open until" : "ended"} ${iso(proposal.disputeEndsAt)}`,
          );
          if (proposal.dispute)
            lines.push(
              `  disputed      by ${proposal.dispute.disputer}, claim ${VERDICT_TEXT[proposal.dispute.claimed]}, at ${iso(proposal.dispute.disputedAt)}; arbiter ${s.config.arbiter}`,
            );
          else if (s.statusName === "Proposed")
            lines.push(`  disputed      no${windowOpen ? "" : ": anyone can finalize"}`);
          lines.push(
            ...reports.map(
              (r, i) =>
                `    seat ${i}: ${r.answer}${r.answer === "yes" || r.answer === "no" ? ` at ${percentOfBps(r.confidenceBps)}, scores ${r.resQuality}/${r.srcQuality}/${r.analysisDepth}` : ""}`,
            ),
          );
        }
        if (trace) lines.push(...traceLines(trace));
        else if (traceError) lines.push(`  trace         unavailable: ${traceError}`);
        if (refusedSeats.length > 0)
          lines.push(
            `  refused       ERC-8004 records of seat(s) ${refusedSeats.join(", ")} were refused and stay pending: \`market retry-feedback ${marketId} --seat <n>\``,
          );
        if (results.length > 0)
          lines.push(
            `  results${s.feedbackPending > 0n ? ` (ERC-8004 feedback pending for ${s.feedbackPending} seats: run \`market publish-feedback ${marketId}\`)` : ""}`,
            ...results.map(seatLine),
          );
        rt.emit(result, lines.join("\n"));
      },
    );
}

function disputeCmd(runtime: () => Runtime): Command {
  return new Command("dispute")
    .description(
      "Dispute a proposal during its window: posts the market's bond and escalates to its arbiter with your claimed verdict.",
    )
    .argument("<marketId>", "the market")
    .addOption(
      new Option("--claim <verdict>", "the verdict you claim is right")
        .choices(["yes", "no", "invalid"])
        .makeOptionMandatory(),
    )
    .action(async (marketIdArg: string, opts: { claim: VerdictKind }) => {
      const rt = runtime();
      const marketId = parseUint(marketIdArg, "marketId");
      const { market, ctx } = await rt.marketSigner();
      const r = await dispute(ctx, market, marketId, opts.claim);
      rt.emit(
        {
          marketId,
          claimed: opts.claim,
          proposed: r.proposed,
          bond: r.bond,
          arbiter: r.arbiter,
          disputer: ctx.account?.address,
          txHash: r.txHash,
          blockNumber: r.blockNumber,
        },
        `disputed market ${marketId}: proposal ${VERDICT_TEXT[r.proposed]}, your claim ${VERDICT_TEXT[opts.claim]}, bond ${formatEther(r.bond)} ETH; the arbiter ${r.arbiter} decides\n  tx ${r.txHash}`,
      );
    });
}

function voteCmd(runtime: () => Runtime): Command {
  return new Command("vote")
    .description(
      "As a member of the market's CommitteeArbiter: vote the verdict of a disputed market. At the committee's threshold the market is finalized with it.",
    )
    .argument("<marketId>", "the market")
    .addOption(new Option("--verdict <verdict>", "your ruling").choices(["yes", "no", "invalid"]).makeOptionMandatory())
    .action(async (marketIdArg: string, opts: { verdict: VerdictKind }) => {
      const rt = runtime();
      const marketId = parseUint(marketIdArg, "marketId");
      const { market, ctx } = await rt.marketSigner();
      const r = await committeeVote(ctx, market, marketId, opts.verdict);
      rt.emit(
        { marketId, verdict: opts.verdict, ...r },
        `voted ${VERDICT_TEXT[opts.verdict]} on market ${marketId} (committee ${r.arbiter}, threshold ${r.threshold}); the market is now ${r.status}\n  tx ${r.txHash}`,
      );
    });
}

function finalizeCmd(runtime: () => Runtime): Command {
  return new Command("finalize")
    .description(
      "Finalize an undisputed proposal after its window (anyone): rewards, stakes, reputation and ERC-8004 records are written.",
    )
    .argument("<marketId>", "the market")
    .action(async (marketIdArg: string) => {
      const rt = runtime();
      const marketId = parseUint(marketIdArg, "marketId");
      const { market, ctx } = await rt.marketSigner();
      const r = await finalize(ctx, market, marketId);
      const head = `market ${marketId} finalized: ${r.status}${r.status === "Resolved" ? ` → ${r.outcome ? "YES" : "NO"}` : ""} (gas ${r.gasUsed})`;
      const tail =
        r.feedbackPending > 0n
          ? [
              `  ERC-8004 feedback pending for ${r.feedbackPending} seats: run \`cresolver market publish-feedback ${marketId}\``,
            ]
          : [];
      rt.emit({ marketId, ...r }, [head, ...r.seats.map(seatLine), ...tail, `  tx ${r.txHash}`].join("\n"));
    });
}

function cancelCmd(runtime: () => Runtime): Command {
  return new Command("cancel")
    .alias("cancel-stale")
    .description(
      "Cancel a market nobody proposed on, in two steps: after the grace period this requests cancellation; run it again once the cancel window is over to cancel (full refunds). A resolver may still propose in between.",
    )
    .argument("<marketId>", "the market")
    .action(async (marketIdArg: string) => {
      const rt = runtime();
      const marketId = parseUint(marketIdArg, "marketId");
      const { market, ctx } = await rt.marketSigner();
      const requested = await cancelRequestedAt(ctx, market, marketId, await rt.marketFromBlock());
      if (requested === 0n) {
        const r = await requestCancel(ctx, market, marketId);
        rt.emit(
          { marketId, step: "requested", cancellableAt: r.cancellableAt, txHash: r.txHash, blockNumber: r.blockNumber },
          `requested cancellation of market ${marketId}: run this again from ${iso(r.cancellableAt)} (unless a resolver proposes first)\n  tx ${r.txHash}`,
        );
        return;
      }
      const now = await chainNow(ctx);
      if (now < requested)
        throw new ChainError(
          "precondition",
          `market ${marketId}: cancellation was requested; it can be executed from ${iso(requested)} (chain time ${iso(now)})`,
        );
      const r = await cancelStale(ctx, market, marketId);
      rt.emit(
        { marketId, step: "cancelled", txHash: r.txHash, blockNumber: r.blockNumber },
        `cancelled market ${marketId}: creator, workers and bettors are refunded (withdraw to collect)\n  tx ${r.txHash}`,
      );
    });
}

function publishCmd(runtime: () => Runtime): Command {
  return new Command("publish-feedback")
    .description(
      "Write the pending ERC-8004 records of a finalized market (seats past the 10 written at finalization). Permissionless.",
    )
    .argument("<marketId>", "the market")
    .option("--max <seats>", "seats per transaction (1-100)", "25")
    .action(async (marketIdArg: string, opts: { max: string }) => {
      const rt = runtime();
      const marketId = parseUint(marketIdArg, "marketId");
      const max = parseIntIn(opts.max, "--max", 1, 100);
      const { market, ctx } = await rt.marketSigner();
      const r = await publishFeedback(ctx, market, marketId, max);
      rt.emit(
        { marketId, ...r },
        `published ERC-8004 feedback of ${r.published} seats of market ${marketId}; ${r.pending} still pending${r.pending > 0n ? " (run again)" : ""}\n  tx ${r.txHash}`,
      );
    });
}

function retryCmd(runtime: () => Runtime): Command {
  return new Command("retry-feedback")
    .description(
      "Retry the ERC-8004 records of one seat that the registry refused (e.g. the agent had approved the market as its operator). Permissionless.",
    )
    .argument("<marketId>", "the market")
    .requiredOption("--seat <n>", "the seat, 0-based in join order (see `market show`)")
    .action(async (marketIdArg: string, opts: { seat: string }) => {
      const rt = runtime();
      const marketId = parseUint(marketIdArg, "marketId");
      const seat = parseIntIn(opts.seat, "--seat", 0, 99);
      const { market, ctx } = await rt.marketSigner();
      const r = await retryFeedback(ctx, market, marketId, seat);
      rt.emit(
        { marketId, seat, ...r },
        `market ${marketId} seat ${seat}: wrote ${r.written} record(s), ${r.stillPending} still refused\n  tx ${r.txHash}`,
      );
    });
}

interface ResolverState {
  resolver: Address;
  activeFrom: bigint;
}

/** Resolvers queued and not removed since, from the owner's events, with when each becomes active. */
async function resolvers(ctx: ChainContext, market: Address, fromBlock: bigint): Promise<ResolverState[]> {
  const governance = await governanceOf(ctx, market);
  const queued = await readContractLogs(ctx, governance, marketGovernanceAbi, "ResolverQueued", { fromBlock });
  const unique = [...new Set(queued.map((l) => getAddress(l.args.resolver)))];
  const out: ResolverState[] = [];
  for (const r of unique) {
    const activeFrom = await readGovernance(ctx, market, "resolverActiveFrom", [r]);
    if (activeFrom > 0n) out.push({ resolver: r, activeFrom });
  }
  return out;
}

function settingsCmd(runtime: () => Runtime): Command {
  return new Command("settings")
    .description(
      "The market contract's owner, defaults for new markets, resolvers (queued, active for markets created from when) and the queued default arbiter (effective at).",
    )
    .action(async () => {
      const rt = runtime();
      const market = await rt.marketAddress();
      const ctx = await rt.chain();
      const [owner, defaults, pending, list, now] = await Promise.all([
        readGovernance(ctx, market, "owner", []),
        getDefaults(ctx, market),
        readGovernance(ctx, market, "pendingDefaultArbiter", []),
        rt.marketFromBlock().then((from) => resolvers(ctx, market, from)),
        chainNow(ctx),
      ]);
      const [pendingArbiter, effectiveAt] = pending;
      const queuedArbiter = /^0x0{40}$/i.test(pendingArbiter)
        ? null
        : { arbiter: getAddress(pendingArbiter), effectiveAt };
      const result = {
        market,
        owner,
        defaults,
        resolvers: list.map((r) => ({ ...r, active: r.activeFrom <= now })),
        queuedArbiter,
        chainTime: now,
      };
      const lines = [
        `market contract ${market}, owner ${owner}`,
        `  defaults      min stake ${formatEther(defaults.minStake)} ETH, ${defaults.maxWorkers} seats, grace ${formatDuration(defaults.gracePeriod)}, dispute window ${formatDuration(defaults.disputeWindow)}, bond ${formatEther(defaults.bond)} ETH, arbiter ${defaults.arbiter}`,
        ...list.map(
          (r) =>
            `  resolver      ${r.resolver}: proposes on markets created from ${iso(r.activeFrom)}${r.activeFrom > now ? " (queued, timelocked)" : ""}`,
        ),
        queuedArbiter
          ? `  arbiter       ${queuedArbiter.arbiter} queued, default for markets created from ${iso(queuedArbiter.effectiveAt)}`
          : `  arbiter       no change queued`,
      ];
      rt.emit(result, lines.join("\n"));
    });
}

export function lifecycleCommands(runtime: () => Runtime): Command[] {
  return [
    show(runtime),
    disputeCmd(runtime),
    voteCmd(runtime),
    finalizeCmd(runtime),
    cancelCmd(runtime),
    publishCmd(runtime),
    retryCmd(runtime),
    settingsCmd(runtime),
  ];
}
