import { Command, Option } from "commander";
import { formatEther } from "viem";
import {
  admissionRule,
  createMarket,
  joinMarket,
  requestResolution,
  withdraw,
  type MarketParamsInput,
} from "../../workflow/chain/actions.js";
import { ADMISSION_NAMES, getMarketConfig, type AdmissionName } from "../../workflow/chain/lifecycle.js";
import {
  parseAddress,
  parseDeadline,
  parseDeadlineSpec,
  parseEth,
  parseIntIn,
  parseUint,
  referenceTime,
} from "../shared/config.js";
import { checkQuestion } from "../../workflow/core/text.js";
import { CliError } from "../shared/errors.js";
import { marketSettingOptions, parseMarketSettings, withOptions, type MarketSettingFlags } from "../shared/options.js";
import type { Runtime } from "../shared/runtime.js";
import { marketListCommand } from "./market-list.js";
import { formatDuration, iso, lifecycleCommands } from "./market-lifecycle.js";
import { describedCommand, marketIdCommand } from "./help-text.js";

const MAX_QUESTION_BYTES = 1024;
const MAX_ALLOW_LIST = 100;

const collect = (value: string, previous: string[]) => [
  ...previous,
  ...value.split(",").filter((v) => v.trim() !== ""),
];

interface CreateOptions extends MarketSettingFlags {
  question: string;
  deadline: string;
  reward: string;
  admission: AdmissionName;
  minCorrectness?: string;
  minSettled?: string;
  allow: string[];
  arbiter?: string;
}

/** Flags → MarketParams, all checked before anything is sent. */
function marketParams(opts: CreateOptions): MarketParamsInput {
  const params: MarketParamsInput = { admission: opts.admission };
  const trackOnly = [opts.minCorrectness, opts.minSettled].some((v) => v !== undefined);
  if (trackOnly && opts.admission !== "track-record")
    throw new CliError("--min-correctness / --min-settled need --admission track-record");
  if (opts.allow.length > 0 && opts.admission !== "allow-list")
    throw new CliError("--allow needs --admission allow-list");
  if (opts.admission === "track-record") {
    if (opts.minCorrectness === undefined && opts.minSettled === undefined)
      throw new CliError("--admission track-record needs --min-settled and/or --min-correctness");
    params.minCorrectness =
      opts.minCorrectness !== undefined ? parseIntIn(opts.minCorrectness, "--min-correctness", 0, 100) : 0;
    params.minSettled =
      opts.minSettled !== undefined ? parseIntIn(opts.minSettled, "--min-settled", 0, 2 ** 32 - 1) : 0;
  }
  if (opts.admission === "allow-list") {
    if (opts.allow.length === 0) throw new CliError("--admission allow-list needs --allow <agentId,...>");
    const ids = opts.allow.map((a) => parseUint(a.trim(), "--allow"));
    if (new Set(ids.map(String)).size !== ids.length) throw new CliError("--allow lists an agent id twice");
    if (ids.length > MAX_ALLOW_LIST)
      throw new CliError(`--allow lists ${ids.length} agents, the market accepts at most ${MAX_ALLOW_LIST}`);
    params.allowedAgents = ids;
  }
  Object.assign(params, parseMarketSettings(opts));
  if (opts.arbiter !== undefined) params.arbiter = parseAddress(opts.arbiter, "--arbiter");
  return params;
}

function create(runtime: () => Runtime): Command {
  const command = describedCommand("market create")
    .requiredOption(
      "--question <text>",
      "the yes/no question (≤ 1024 bytes; line breaks become spaces; control and bidi characters are refused)",
    )
    .requiredOption(
      "--deadline <when>",
      "joining closes then: Unix seconds, an ISO date, or +<n>s|m|h|d from now (wall clock, or the chain's time if it is ahead)",
    )
    .requiredOption("--reward <eth>", "reward pool in ETH, e.g. 0.1")
    .addOption(new Option("--admission <rule>", "who may take a seat").choices([...ADMISSION_NAMES]).default("open"))
    .option("--min-correctness <0-100>", "track-record: minimum average correctness of the agent in this contract")
    .option("--min-settled <n>", "track-record: minimum number of settled markets of the agent in this contract")
    .option(
      "--allow <agentIds>",
      "allow-list: agent ids (comma-separated, repeatable, ≤ 100)",
      collect,
      [] as string[],
    );
  return withOptions(command, marketSettingOptions())
    .option("--arbiter <address>", "arbiter of disputes (default: the contract's default arbiter at creation)")
    .action(async (opts: CreateOptions) => {
      const rt = runtime();
      rt.requireKey();
      const checked = checkQuestion(opts.question);
      if (!checked.ok) throw new CliError(`--question ${checked.reason}`);
      const question = checked.question;
      const bytes = Buffer.byteLength(question, "utf8");
      if (bytes > MAX_QUESTION_BYTES)
        throw new CliError(`--question is ${bytes} bytes, the market accepts at most ${MAX_QUESTION_BYTES}`);
      const reward = parseEth(opts.reward, "--reward");
      // Syntax first, before any network access.
      parseDeadlineSpec(opts.deadline);
      const params = marketParams(opts);
      const market = await rt.marketAddress();
      const ctx = await rt.chain({ needsKey: true });
      const now = referenceTime((await ctx.publicClient.getBlock({ blockTag: "latest" })).timestamp);
      const deadline = parseDeadline(opts.deadline, now);
      if (deadline > now + 365n * 86400n) throw new CliError(`--deadline ${iso(deadline)} is more than 365 days ahead`);
      const code = await ctx.publicClient.getCode({ address: market });
      if (code === undefined || code === "0x")
        throw new CliError(`no contract at market address ${market} on chain ${ctx.chainId}`);
      if (params.arbiter !== undefined) {
        const arbiterCode = await ctx.publicClient.getCode({ address: params.arbiter });
        if (arbiterCode === undefined || arbiterCode === "0x")
          throw new CliError(`--arbiter ${params.arbiter} is not a contract on chain ${ctx.chainId}`);
      }
      const r = await createMarket(ctx, market, question, deadline, reward, params);
      const config = await getMarketConfig(ctx, market, r.marketId);
      rt.emit(
        {
          marketId: r.marketId,
          market,
          question,
          deadline,
          reward,
          config,
          allowedAgents: params.allowedAgents ?? [],
          txHash: r.txHash,
          blockNumber: r.blockNumber,
        },
        [
          `created market ${r.marketId}: "${question}" (deadline ${iso(deadline)}, reward ${formatEther(reward)} ETH)`,
          `  admission ${admissionRule(config)}${params.allowedAgents ? ` (${params.allowedAgents.join(", ")})` : ""}; min stake ${formatEther(config.minStake)} ETH; ${config.maxWorkers} seats`,
          `  dispute window ${formatDuration(config.disputeWindow)}, bond ${formatEther(config.bond)} ETH, arbiter ${config.arbiter}`,
          `  tx ${r.txHash}`,
        ].join("\n"),
      );
    });
}

function join(runtime: () => Runtime): Command {
  return marketIdCommand("market join")
    .requiredOption("--agent-id <id>", "the ERC-8004 agent")
    .requiredOption("--stake <eth>", "stake in ETH (at least the market's minStake)")
    .action(async (marketId: bigint, opts: { agentId: string; stake: string }) => {
      const rt = runtime();
      const agentId = parseUint(opts.agentId, "--agent-id");
      const stake = parseEth(opts.stake, "--stake");
      const { market, ctx } = await rt.marketSigner();
      const r = await joinMarket(ctx, market, marketId, agentId, stake, await rt.marketFromBlock());
      rt.emit(
        { marketId, agentId, worker: ctx.account?.address, stake, txHash: r.txHash, blockNumber: r.blockNumber },
        `joined market ${marketId} with agent ${agentId}, stake ${formatEther(stake)} ETH\n  tx ${r.txHash}`,
      );
    });
}

function request(runtime: () => Runtime): Command {
  return marketIdCommand("market request-resolution").action(async (marketId: bigint) => {
    const rt = runtime();
    const { market, ctx } = await rt.marketSigner();
    const r = await requestResolution(ctx, market, marketId);
    rt.emit(
      { marketId, status: r.status, txHash: r.txHash, blockNumber: r.blockNumber },
      `market ${marketId} is now ${r.status}\n  tx ${r.txHash}`,
    );
  });
}

function withdrawCmd(runtime: () => Runtime): Command {
  return new Command("withdraw")
    .description("Withdraw everything the market credited to your address (rewards, stakes, refunds).")
    .action(async () => {
      const rt = runtime();
      const { market, ctx } = await rt.marketSigner();
      const r = await withdraw(ctx, market);
      rt.emit(
        { account: ctx.account?.address, amount: r.amount, txHash: r.txHash, blockNumber: r.blockNumber },
        `withdrew ${formatEther(r.amount)} ETH to ${ctx.account?.address}\n  tx ${r.txHash}`,
      );
    });
}

export function marketCommand(runtime: () => Runtime): Command {
  const cmd = describedCommand("market market")
    .addCommand(marketListCommand(runtime))
    .addCommand(create(runtime))
    .addCommand(join(runtime))
    .addCommand(request(runtime));
  for (const sub of lifecycleCommands(runtime)) cmd.addCommand(sub);
  return cmd.addCommand(withdrawCmd(runtime));
}
