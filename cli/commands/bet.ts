/**
 * `cresolver bet place|claim|position`: the BettingMarket next to the resolution market (from the deployment file,
 * or `--betting <address>`). Bets close at the market's deadline; claims open once the market is final.
 */
import { Command, Option } from "commander";
import { formatEther, getAddress, type Address } from "viem";
import { betPosition, claimBet, placeBet, type BetSide } from "../../workflow/chain/betting.js";
import { parseAddress, parseEth, type DeploymentFile } from "../shared/config.js";
import { CliError } from "../shared/errors.js";
import { marketIdArgument } from "../shared/options.js";
import type { Runtime } from "../shared/runtime.js";

export async function bettingAddress(rt: Runtime, flag: string | undefined): Promise<Address> {
  if (flag !== undefined) return parseAddress(flag, "--betting");
  const file = (await rt.deployment({ required: true })) as DeploymentFile;
  const betting = file.contracts.BettingMarket?.address;
  if (betting === undefined) throw new CliError("this deployment has no BettingMarket: pass --betting <address>");
  return betting;
}

const bettingOption = () =>
  new Option("--betting <address>", "BettingMarket address (default: from the deployment file)");

function place(runtime: () => Runtime): Command {
  return new Command("place")
    .description("Bet on a market's outcome while it is open (before its deadline).")
    .addArgument(marketIdArgument())
    .addOption(new Option("--side <side>", "the outcome you bet on").choices(["yes", "no"]).makeOptionMandatory())
    .requiredOption("--amount <eth>", "stake in ETH")
    .addOption(bettingOption())
    .action(async (marketId: bigint, opts: { side: BetSide; amount: string; betting?: string }) => {
      const rt = runtime();
      const amount = parseEth(opts.amount, "--amount");
      rt.requireKey();
      const betting = await bettingAddress(rt, opts.betting);
      const market = await rt.marketAddress();
      const ctx = await rt.chain({ needsKey: true });
      const r = await placeBet(ctx, betting, market, marketId, opts.side, amount);
      rt.emit(
        { marketId, side: opts.side, amount, betting, ...r },
        `bet ${formatEther(amount)} ETH on ${opts.side.toUpperCase()} in market ${marketId}; your ${opts.side.toUpperCase()} position ${formatEther(r.positionOnSide)} ETH, pool ${formatEther(r.poolOnSide)} ETH\n  tx ${r.txHash}`,
      );
    });
}

function claim(runtime: () => Runtime): Command {
  return new Command("claim")
    .description("Claim your payout (the winning side) or refund (Invalid or Cancelled) once the market is final.")
    .addArgument(marketIdArgument())
    .addOption(bettingOption())
    .action(async (marketId: bigint, opts: { betting?: string }) => {
      const rt = runtime();
      rt.requireKey();
      const betting = await bettingAddress(rt, opts.betting);
      const ctx = await rt.chain({ needsKey: true });
      const r = await claimBet(ctx, betting, marketId);
      rt.emit(
        { marketId, betting, ...r },
        `claimed ${formatEther(r.amount)} ETH${r.refund ? " (refund)" : ""} from market ${marketId}\n  tx ${r.txHash}`,
      );
    });
}

function position(runtime: () => Runtime): Command {
  return new Command("position")
    .description("A bettor's stakes on each side, the pools, how the market settles now and what a claim would send.")
    .addArgument(marketIdArgument())
    .option("--account <address>", "whose position (default: the key's address)")
    .addOption(bettingOption())
    .action(async (marketId: bigint, opts: { account?: string; betting?: string }) => {
      const rt = runtime();
      const betting = await bettingAddress(rt, opts.betting);
      const ctx = await rt.chain();
      const account =
        opts.account !== undefined
          ? parseAddress(opts.account, "--account")
          : ctx.account !== undefined
            ? getAddress(ctx.account.address)
            : undefined;
      if (account === undefined) throw new CliError("give --account <address> (or a key)");
      const p = await betPosition(ctx, betting, marketId, account);
      const state =
        p.settlement === "payout"
          ? `pays ${p.outcome ? "YES" : "NO"}`
          : p.settlement === "refund"
            ? "refunds every bet"
            : "not final yet";
      rt.emit(
        { marketId, account, betting, ...p },
        [
          `market ${marketId}: ${state}; pools YES ${formatEther(p.pool.yes)} ETH, NO ${formatEther(p.pool.no)} ETH`,
          `  ${account}: YES ${formatEther(p.yesStake)} ETH, NO ${formatEther(p.noStake)} ETH; ${p.claimed ? "claimed" : `claimable ${formatEther(p.claimable)} ETH`}`,
        ].join("\n"),
      );
    });
}

export function betCommand(runtime: () => Runtime): Command {
  return new Command("bet")
    .description("Betting on market outcomes: place, claim, position")
    .addCommand(place(runtime))
    .addCommand(claim(runtime))
    .addCommand(position(runtime));
}
