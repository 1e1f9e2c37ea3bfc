/**
 * `dispute`, `vote`, `finalize`, `cancel`, `publish-feedback`, `retry-feedback`, `settings`: the proposal lifecycle
 * of IResolutionMarket v2 (workflow/chain/lifecycle.ts) from the command line; `market show|status` is in
 * market-show.ts, the shared output helpers in market-format.ts.
 */
import { Command, Option } from "commander";
import { formatEther, getAddress, type Address } from "viem";
import { marketGovernanceAbi } from "../../workflow/chain/abis.js";
import type { ChainContext } from "../../workflow/chain/clients.js";
import { committeeVote } from "../../workflow/chain/committee.js";
import type { BondApproval } from "../../workflow/chain/dispute-bond.js";
import { settleSilentDispute, type UmaCaseView } from "../../workflow/chain/escalation.js";
import { ChainError } from "../../workflow/chain/errors.js";
import { CliError } from "../shared/errors.js";
import { readContractLogs } from "../../workflow/chain/logs.js";
import {
  cancelRequestedAt,
  cancelStale,
  dispute,
  feedbackPending as feedbackPendingOf,
  finalize,
  getDefaults,
  governanceOf,
  publishFeedback,
  readGovernance,
  requestCancel,
  retryFeedback,
} from "../../workflow/chain/lifecycle.js";
import { readMarketStatus } from "../../workflow/chain/snapshot.js";
import type { VerdictKind } from "../../workflow/core/types.js";
import { parseIntIn } from "../shared/config.js";
import { marketIdArgument } from "../shared/options.js";
import type { Runtime } from "../shared/runtime.js";

import { chainNow, formatDuration, iso, seatLine, VERDICT_TEXT } from "./market-format.js";
import { showCmd } from "./market-show.js";
import { HELP_TEXT, marketIdCommand } from "./help-text.js";

export { formatDuration, iso } from "./market-format.js";

function disputeCmd(runtime: () => Runtime): Command {
  return marketIdCommand("market-lifecycle dispute")
    .addOption(
      new Option("--claim <verdict>", "the verdict you claim is right")
        .choices(["yes", "no", "invalid"])
        .makeOptionMandatory(),
    )
    .action(async (marketId: bigint, opts: { claim: VerdictKind }) => {
      const rt = runtime();
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
          ...(r.arbiterBond !== undefined
            ? {
                arbiterBond: {
                  currency: r.arbiterBond.bond.currency,
                  amount: r.arbiterBond.bond.amount,
                  approveTxHash: r.arbiterBond.txHash ?? null,
                },
              }
            : {}),
          ...(r.fallbackBond !== undefined
            ? {
                fallbackBond: {
                  arbiter: r.fallbackBond.arbiter,
                  currency: r.fallbackBond.bond.currency,
                  amount: r.fallbackBond.bond.amount,
                  balance: r.fallbackBond.balance,
                  approveTxHash: r.fallbackBond.txHash ?? null,
                },
              }
            : {}),
        },
        `disputed market ${marketId}: proposal ${VERDICT_TEXT[r.proposed]}, your claim ${VERDICT_TEXT[opts.claim]}, bond ${formatEther(r.bond)} ETH${r.arbiterBond !== undefined ? ` + the arbiter's ${r.arbiterBond.bond.amount} of token ${r.arbiterBond.bond.currency}${r.arbiterBond.txHash !== undefined ? " (approved)" : ""}` : ""}; the arbiter ${r.arbiter} decides${fallbackLine(marketId, r.fallbackBond)}\n  tx ${r.txHash}`,
      );
    });
}

/** What the dispute means for an UmaArbiter fallback's bond: approved, and whether the key holds it. */
function fallbackLine(marketId: bigint, a: BondApproval | undefined): string {
  if (a === undefined) return "";
  const what = `${a.bond.amount} of token ${a.bond.currency}`;
  const head = `\n  if it stays silent 30 days, the fallback UmaArbiter ${a.arbiter} pulls ${what} from you (${a.txHash !== undefined ? "approved" : "already approved"})`;
  return a.balance >= a.bond.amount
    ? head
    : `${head}; you hold ${a.balance}: top up before then, or anyone (you included) funds it with \`cresolver market expire ${marketId} --fund\` within the fallback's funding window, else the proposal stands`;
}

function expireCmd(runtime: () => Runtime): Command {
  return marketIdCommand("market-lifecycle expire")
    .option("--fund", "post an UmaArbiter fallback's UMA bond from this key (approved first)")
    .action(async (marketId: bigint, opts: { fund?: boolean }) => {
      const rt = runtime();
      const { market, ctx } = await rt.marketSigner();
      const r = await settleSilentDispute(ctx, market, marketId, { fund: opts.fund === true });
      const s = r.step;
      const claimLine = (c: UmaCaseView | undefined) =>
        c === undefined
          ? ""
          : c.status === "awaiting-bond"
            ? `; its UMA claim awaits its bond (${c.umaBond} of the arbiter's currency) until ${iso(c.fundingEndsAt)}: fund it with \`cresolver market expire ${marketId} --fund\`, else the proposal stands`
            : `; UMA claim asserted by ${c.asserter} (assertion ${c.assertionId})`;
      const text =
        s.kind === "escalated"
          ? `market ${marketId}: the silent arbiter's case went to the fallback arbiter ${s.fallback}${claimLine(s.claim)}`
          : s.kind === "expired"
            ? `market ${marketId}: dispute expired, market ${r.status}: each bond back (withdraw to collect)`
            : s.kind === "funded"
              ? `market ${marketId}: funded the escalated UMA claim (assertion ${s.assertionId}); you are its asserter`
              : `market ${marketId}: nobody funded the escalated UMA claim: the proposal stands, market ${r.status}`;
      rt.emit(
        {
          marketId,
          step: s.kind,
          status: r.status,
          txHash: r.txHash,
          ...(s.kind === "escalated" ? { fallback: s.fallback, claim: s.claim ?? null, funded: s.funded ?? null } : {}),
          ...(s.kind === "funded" ? { arbiter: s.arbiter, assertionId: s.assertionId } : {}),
          ...(s.kind === "abandoned" ? { arbiter: s.arbiter } : {}),
          ...(r.approval !== undefined
            ? { umaBond: { amount: r.approval.bond.amount, approveTxHash: r.approval.txHash ?? null } }
            : {}),
        },
        `${text}\n  tx ${r.txHash}`,
      );
    });
}

function voteCmd(runtime: () => Runtime): Command {
  return marketIdCommand("market-lifecycle vote")
    .addOption(new Option("--verdict <verdict>", "your ruling").choices(["yes", "no", "invalid"]).makeOptionMandatory())
    .action(async (marketId: bigint, opts: { verdict: VerdictKind }) => {
      const rt = runtime();
      const { market, ctx } = await rt.marketSigner();
      const r = await committeeVote(ctx, market, marketId, opts.verdict);
      const verdict = VERDICT_TEXT[opts.verdict];
      const tally = `${r.votesFor} of ${r.threshold} votes for ${verdict} (committee ${r.arbiter}: ${r.members} members, ${r.threshold} needed)`;
      const outcome =
        r.status === "Disputed"
          ? `market ${marketId} stays Disputed until ${r.threshold} members vote the same verdict`
          : `the committee ruled ${verdict}: market ${marketId} is now ${r.status}`;
      rt.emit({ marketId, verdict: opts.verdict, ...r }, `voted ${verdict}: ${tally}; ${outcome}\n  tx ${r.txHash}`);
    });
}

function finalizeCmd(runtime: () => Runtime): Command {
  return marketIdCommand("market-lifecycle finalize").action(async (marketId: bigint) => {
    const rt = runtime();
    const { market, ctx } = await rt.marketSigner();
    const now = await readMarketStatus(ctx, market, marketId);
    if (now.statusName === "Resolved" || now.statusName === "Invalid" || now.statusName === "Cancelled") {
      // The goal is met (the daemon or someone else finalized it): nothing to send.
      rt.emit(
        { marketId, status: now.statusName, alreadyFinal: true },
        `market ${marketId} is already final (${now.statusName}): nothing sent; \`market show ${marketId}\` has the results`,
      );
      return;
    }
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
    .addArgument(marketIdArgument())
    .action(async (marketId: bigint) => {
      const rt = runtime();
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
  return marketIdCommand("market-lifecycle publish-feedback")
    .option("--max <seats>", "seats per transaction (1-100)", "25")
    .action(async (marketId: bigint, opts: { max: string }) => {
      const rt = runtime();
      const max = parseIntIn(opts.max, "--max", 1, 100);
      const { market, ctx } = await rt.marketSigner();
      const pending = await feedbackPendingOf(ctx, market, marketId);
      if (pending === 0n) {
        // Nothing pending on a final market: every record is written, the goal is met (exit 0). Before
        // finalization there is nothing to publish yet: that is a wrong call, refused like any other.
        const { statusName } = await readMarketStatus(ctx, market, marketId);
        if (statusName !== "Resolved" && statusName !== "Invalid")
          throw new CliError(
            `market ${marketId} is ${statusName}: its feedback is written when it is finalized; nothing sent`,
          );
        rt.emit(
          { marketId, published: 0n, pending: 0n, status: statusName },
          `market ${marketId}: no ERC-8004 feedback pending, every record is written; nothing sent`,
        );
        return;
      }
      const r = await publishFeedback(ctx, market, marketId, max);
      rt.emit(
        { marketId, ...r },
        `published ERC-8004 feedback of ${r.published} seats of market ${marketId}; ${r.pending} still pending${r.pending > 0n ? " (run again)" : ""}\n  tx ${r.txHash}`,
      );
    });
}

function retryCmd(runtime: () => Runtime): Command {
  return marketIdCommand("market-lifecycle retry-feedback")
    .requiredOption("--seat <n>", "the seat, 0-based in join order (see `market show`)")
    .action(async (marketId: bigint, opts: { seat: string }) => {
      const rt = runtime();
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
  return new Command("settings").description(HELP_TEXT["market-lifecycle settings"]).action(async () => {
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
    showCmd(runtime),
    disputeCmd(runtime),
    expireCmd(runtime),
    voteCmd(runtime),
    finalizeCmd(runtime),
    cancelCmd(runtime),
    publishCmd(runtime),
    retryCmd(runtime),
    settingsCmd(runtime),
  ];
}
