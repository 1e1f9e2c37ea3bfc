/**
 * Flags and arguments several commands share, each defined once: the `<marketId>` argument, the local-address
 * flags (`--allow-loopback`, `--allow-private`) and the market settings `market create` and `owner defaults` take.
 */
import { Argument, Option } from "commander";
import { parseDuration, parseEth, parseIntIn, parseUint } from "./config.js";
import { parsePortFlag } from "./inputs.js";
import { CliError } from "./errors.js";

/** The `<marketId>` argument, parsed to a bigint before the action runs (a bad id is a CliError). */
export function marketIdArgument(): Argument {
  return new Argument("<marketId>", "the market").argParser((value) => parseUint(value, "marketId"));
}

/** What the local-address flags say; absent means not allowed. */
export interface LocalAddressFlags {
  allowLoopback?: boolean;
  allowPrivate?: boolean;
}

/** `--allow-loopback`: let `what` be on a loopback address. */
export function allowLoopbackOption(what: string): Option {
  return new Option("--allow-loopback", `let ${what} be on a loopback address (127.0.0.1/::1; local testing only)`);
}

/** `--allow-private`: let `what` be on a private-network address. */
export function allowPrivateOption(what: string): Option {
  return new Option("--allow-private", `let ${what} be on a private-network address`);
}

/** The HTTP client's address policy the two flags ask for. */
export function localAddressPolicy(flags: LocalAddressFlags): { allowLoopback: boolean; allowPrivate: boolean } {
  return { allowLoopback: flags.allowLoopback === true, allowPrivate: flags.allowPrivate === true };
}

/** IResolutionMarket's MIN_DISPUTE_WINDOW / MAX_DISPUTE_WINDOW. */
const MIN_DISPUTE_WINDOW = 600;
const MAX_DISPUTE_WINDOW = 30 * 86400;

/** The market settings flags, as Commander hands them over. */
export interface MarketSettingFlags {
  minStake?: string;
  maxWorkers?: string;
  disputeWindow?: string;
  bond?: string;
}

/** The settings that were given, parsed and checked against the contract's bounds. */
export interface MarketSettings {
  minStake?: bigint;
  maxWorkers?: number;
  disputeWindow?: number;
  bond?: bigint;
}

/** `--min-stake`, `--max-workers`, `--dispute-window`, `--bond`: a market's stake, seats and proposal bond. */
export function marketSettingOptions(): Option[] {
  return [
    new Option("--min-stake <eth>", "minimum stake per seat in ETH (never below the contract's floor)"),
    new Option("--max-workers <n>", "seat limit (1-100)"),
    new Option("--dispute-window <duration>", "how long a proposal can be disputed: 600, 10m, 2h, 1d (10m to 30d)"),
    new Option("--bond <eth>", "bond of a proposal and of a dispute, in ETH"),
  ];
}

/** The market settings flags that were given, parsed; a value out of the contract's bounds is a CliError. */
export function parseMarketSettings(flags: MarketSettingFlags): MarketSettings {
  const settings: MarketSettings = {};
  if (flags.minStake !== undefined) settings.minStake = parseEth(flags.minStake, "--min-stake");
  if (flags.maxWorkers !== undefined) settings.maxWorkers = parseIntIn(flags.maxWorkers, "--max-workers", 1, 100);
  if (flags.disputeWindow !== undefined) {
    const window = parseDuration(flags.disputeWindow, "--dispute-window");
    if (window < MIN_DISPUTE_WINDOW || window > MAX_DISPUTE_WINDOW)
      throw new CliError(`--dispute-window must be from 10m to 30d, got ${window} s`);
    settings.disputeWindow = window;
  }
  if (flags.bond !== undefined) settings.bond = parseEth(flags.bond, "--bond");
  return settings;
}

/** `command` with `options` added in order. */
export function withOptions<C extends { addOption(option: Option): C }>(command: C, options: readonly Option[]): C {
  return options.reduce((c, option) => c.addOption(option), command);
}

/** `--port <n>`: the port a server the command runs listens on (0: one the OS picks), parsed to a number. */
export function portOption(defaultPort: number): Option {
  return new Option("--port <n>", "port (0 = ephemeral)")
    .argParser((value) => parsePortFlag(value, "--port"))
    .default(defaultPort);
}

/** `--host <host>`: the interface a server the command runs listens on (loopback unless told otherwise). */
export function hostOption(): Option {
  return new Option("--host <host>", "interface to listen on").default("127.0.0.1");
}
