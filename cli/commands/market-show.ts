/** `market show|status`: a market's state, proposal, dispute, settled seats and the resolution trace. */
import { resolve as resolvePath } from "node:path";
import { Command } from "commander";
import { formatEther } from "viem";
import { marketReputationAbi, reputationRegistryAbi } from "../../workflow/chain/abis.js";
import { admissionRule } from "../../workflow/chain/actions.js";
import {
  cancelRequestedAt,
  feedbackClientOf,
  getReports,
  getSeatResults,
  readMarket,
} from "../../workflow/chain/lifecycle.js";
import { viewCall } from "../../workflow/chain/reads.js";
import { explainInputOf, readAgentNames, readSettlementFacts } from "../../workflow/chain/market-facts.js";
import { readMany, readMarketState } from "../../workflow/chain/snapshot.js";
import { explainMarket, explanationLines, percentOfBps } from "../../workflow/core/explain.js";
import { visibleText } from "../../workflow/core/text.js";
import { loadTrace, traceLines } from "../shared/bundle-trace.js";
import { allowLoopbackOption, allowPrivateOption, localAddressPolicy, marketIdArgument } from "../shared/options.js";
import type { Runtime } from "../shared/runtime.js";
import { chainNow, formatDuration, iso, seatLine, VERDICT_TEXT } from "./market-format.js";

export function showCmd(runtime: () => Runtime): Command {
  return new Command("show")
    .alias("status")
    .description(
      "Show a market: status, settings (admission rule), workers, the proposal (verdict, bundle, dispute window, disputer and claim) and the final per-worker results.",
    )
    .addArgument(marketIdArgument())
    .option(
      "--bundle <file>",
      "the resolution bundle to show the trace from (default: the proposal's bundle URI, when it is http(s))",
    )
    .option("--no-fetch-bundle", "do not fetch the bundle URI")
    .addOption(allowLoopbackOption("the bundle URI"))
    .addOption(allowPrivateOption("the bundle URI"))
    .action(
      async (
        marketId: bigint,
        opts: { bundle?: string; fetchBundle: boolean; allowLoopback?: boolean; allowPrivate?: boolean },
      ) => {
        const rt = runtime();
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
          const writer = await feedbackClientOf(ctx, market);
          const { results: pending } = await readMany(
            ctx,
            s.workers.map((_, i) => viewCall(writer, marketReputationAbi, "pendingFeedback", [marketId, BigInt(i)])),
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
                ...localAddressPolicy(opts),
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
