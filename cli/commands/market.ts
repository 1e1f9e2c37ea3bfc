import { Command } from "commander";
import { formatEther, type Address } from "viem";
import { reputationRegistryAbi, resolutionMarketAbi } from "../../workflow/chain/abis.js";
import { createMarket, joinMarket, requestResolution, withdraw } from "../../workflow/chain/actions.js";
import { readMany, readMarketState } from "../../workflow/chain/snapshot.js";
import { parseDeadline, parseEth, parseUint } from "../config.js";
import { CliError } from "../errors.js";
import type { Runtime } from "../runtime.js";

const MAX_QUESTION_BYTES = 1024;
const iso = (seconds: bigint) => new Date(Number(seconds) * 1000).toISOString();

function create(runtime: () => Runtime): Command {
  return new Command("create")
    .description("Create a market with a reward pool. Prints the marketId.")
    .requiredOption("--question <text>", "the yes/no question (≤ 1024 bytes)")
    .requiredOption("--deadline <when>", "joining closes then: Unix seconds, an ISO date, or +<n>s|m|h|d from now (chain time)")
    .requiredOption("--reward <eth>", "reward pool in ETH, e.g. 0.1")
    .action(async (opts: { question: string; deadline: string; reward: string }) => {
      const rt = runtime();
      rt.requireKey();
      if (opts.question.trim() === "") throw new CliError("--question must not be empty");
      const bytes = Buffer.byteLength(opts.question, "utf8");
      if (bytes > MAX_QUESTION_BYTES) throw new CliError(`--question is ${bytes} bytes, the market accepts at most ${MAX_QUESTION_BYTES}`);
      const reward = parseEth(opts.reward, "--reward");
      // Syntax first, before any network access.
      parseDeadline(opts.deadline, 0n);
      const market = await rt.marketAddress();
      const ctx = await rt.chain({ needsKey: true });
      const now = (await ctx.publicClient.getBlock({ blockTag: "latest" })).timestamp;
      const deadline = parseDeadline(opts.deadline, now);
      if (deadline > now + 365n * 86400n) throw new CliError(`--deadline ${iso(deadline)} is more than 365 days ahead`);
      const code = await ctx.publicClient.getCode({ address: market });
      if (code === undefined || code === "0x") throw new CliError(`no contract at market address ${market} on chain ${ctx.chainId}`);
      const r = await createMarket(ctx, market, opts.question, deadline, reward);
      rt.emit(
        { marketId: r.marketId, market, question: opts.question, deadline, reward, txHash: r.txHash, blockNumber: r.blockNumber },
        `created market ${r.marketId}: "${opts.question}" (deadline ${iso(deadline)}, reward ${formatEther(reward)} ETH)\n  tx ${r.txHash}`,
      );
    });
}

function join(runtime: () => Runtime): Command {
  return new Command("join")
    .description("Join a market as a worker for an agent you control (owner, operator or its agent wallet), with a stake.")
    .argument("<marketId>", "the market")
    .requiredOption("--agent-id <id>", "the ERC-8004 agent")
    .requiredOption("--stake <eth>", "stake in ETH (at least the market's minStake)")
    .action(async (marketIdArg: string, opts: { agentId: string; stake: string }) => {
      const rt = runtime();
      const marketId = parseUint(marketIdArg, "marketId");
      const agentId = parseUint(opts.agentId, "--agent-id");
      const stake = parseEth(opts.stake, "--stake");
      rt.requireKey();
      const market = await rt.marketAddress();
      const ctx = await rt.chain({ needsKey: true });
      const r = await joinMarket(ctx, market, marketId, agentId, stake);
      rt.emit({ marketId, agentId, worker: ctx.account?.address, stake, txHash: r.txHash, blockNumber: r.blockNumber }, `joined market ${marketId} with agent ${agentId}, stake ${formatEther(stake)} ETH\n  tx ${r.txHash}`);
    });
}

function request(runtime: () => Runtime): Command {
  return new Command("request-resolution")
    .description("After the deadline: freeze the worker set and ask for resolution (a market nobody joined is cancelled and refunded).")
    .argument("<marketId>", "the market")
    .action(async (marketIdArg: string) => {
      const rt = runtime();
      const marketId = parseUint(marketIdArg, "marketId");
      rt.requireKey();
      const market = await rt.marketAddress();
      const ctx = await rt.chain({ needsKey: true });
      const r = await requestResolution(ctx, market, marketId);
      rt.emit({ marketId, status: r.status, txHash: r.txHash, blockNumber: r.blockNumber }, `market ${marketId} is now ${r.status}\n  tx ${r.txHash}`);
    });
}

function status(runtime: () => Runtime): Command {
  return new Command("status")
    .description("Show a market: status, outcome, workers, stakes, bundle hash, reputation (market averages and ERC-8004 feedback count).")
    .argument("<marketId>", "the market")
    .action(async (marketIdArg: string) => {
      const rt = runtime();
      const marketId = parseUint(marketIdArg, "marketId");
      const market = await rt.marketAddress();
      const ctx = await rt.chain();
      const s = await readMarketState(ctx, market, marketId);
      // ERC-8004 feedback this market wrote per worker (tag2 "cresolver"), best effort.
      const feedback: (bigint | null)[] = s.workers.map(() => null);
      try {
        const reputationRegistry = (await ctx.publicClient.readContract({ address: market, abi: resolutionMarketAbi, functionName: "reputationRegistry" })) as Address;
        const { results } = await readMany(
          ctx,
          s.workers.map((w) => ({ address: reputationRegistry, abi: reputationRegistryAbi, functionName: "getSummary", args: [w.agentId, [market], "", "cresolver"] })),
          s.blockNumber,
        );
        results.forEach((r, i) => {
          if (r.status === "success") feedback[i] = (r.result as readonly [bigint, bigint, number])[0];
        });
      } catch {
        /* registry without getSummary: leave null */
      }
      const workers = s.workers.map((w, i) => ({ ...w, feedbackCount: feedback[i] }));
      const settled = s.statusName === "Resolved";
      const result = {
        marketId,
        market,
        status: s.statusName,
        question: s.question,
        creator: s.creator,
        deadline: s.deadline,
        deadlineIso: iso(s.deadline),
        requestedAt: s.requestedAt,
        outcome: settled ? (s.outcome ? "YES" : "NO") : null,
        rewardPool: s.rewardPool,
        totalStake: s.totalStake,
        bundleHash: s.bundleHash,
        minStake: s.minStake,
        seatLimit: s.seatLimit,
        gracePeriod: s.gracePeriod,
        feedbackPending: s.feedbackPending,
        blockNumber: s.blockNumber,
        workers,
      };
      const lines = [
        `market ${marketId} at ${market}: ${s.statusName}${settled ? ` → ${s.outcome ? "YES" : "NO"}` : ""}`,
        `  question      ${s.question}`,
        `  deadline      ${iso(s.deadline)}`,
        `  reward pool   ${formatEther(s.rewardPool)} ETH, total stake ${formatEther(s.totalStake)} ETH, min stake ${formatEther(s.minStake)} ETH`,
        `  bundle hash   ${s.bundleHash}`,
        `  workers       ${s.workers.length}/${s.seatLimit}`,
        ...workers.map(
          (w) =>
            `    agent ${w.agentId} ${w.address} stake ${formatEther(w.stake)} ETH; reputation ${w.reputation ? `${w.reputation.count} markets, ${w.reputation.resQuality}/${w.reputation.srcQuality}/${w.reputation.analysisDepth}` : "?"}; ERC-8004 feedback ${w.feedbackCount ?? "?"}`,
        ),
      ];
      rt.emit(result, lines.join("\n"));
    });
}

function withdrawCmd(runtime: () => Runtime): Command {
  return new Command("withdraw")
    .description("Withdraw everything the market credited to your address (rewards, stakes, refunds).")
    .action(async () => {
      const rt = runtime();
      rt.requireKey();
      const market = await rt.marketAddress();
      const ctx = await rt.chain({ needsKey: true });
      const r = await withdraw(ctx, market);
      rt.emit({ account: ctx.account?.address, amount: r.amount, txHash: r.txHash, blockNumber: r.blockNumber }, `withdrew ${formatEther(r.amount)} ETH to ${ctx.account?.address}\n  tx ${r.txHash}`);
    });
}

export function marketCommand(runtime: () => Runtime): Command {
  return new Command("market")
    .description("Resolution markets: create, join, request resolution, status, withdraw")
    .addCommand(create(runtime))
    .addCommand(join(runtime))
    .addCommand(request(runtime))
    .addCommand(status(runtime))
    .addCommand(withdrawCmd(runtime));
}
