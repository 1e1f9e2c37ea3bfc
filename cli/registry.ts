/**
 * The table of top-level commands: name → the module that builds it, imported only when that command runs (or, in
 * a source checkout without a command description, when help is shown). Each module pulls in viem, the chain layer
 * and more; importing all of them for every run cost ~1.3 s of CPU for `--help`.
 *
 * To add a command: add one row here (the order is the order in `cresolver --help`); `npm run build:cli` describes
 * it in dist/cli/command-tree.json for the fast help path.
 */
import type { Command } from "commander";
import type { ResolvePipeline } from "./shared/resolve-pipeline.js";
import type { Runtime } from "./shared/runtime.js";

export interface CommandContext {
  runtime: () => Runtime;
  /** The resolution workflow used by `resolve` (default: the real pipeline). */
  resolvePipeline?: ResolvePipeline;
}

/** Builds one top-level command; loads its module on call. */
export type CommandLoader = (context: CommandContext) => Promise<Command>;

export const COMMANDS: ReadonlyArray<readonly [name: string, load: CommandLoader]> = [
  ["deploy", async (c) => (await import("./commands/deploy.js")).deployCommand(c.runtime)],
  ["agent", async (c) => (await import("./commands/agent.js")).agentCommand(c.runtime)],
  ["market", async (c) => (await import("./commands/market.js")).marketCommand(c.runtime)],
  ["bet", async (c) => (await import("./commands/bet.js")).betCommand(c.runtime)],
  ["owed", async (c) => (await import("./commands/inspect.js")).owedCommand(c.runtime)],
  ["owner", async (c) => (await import("./commands/owner.js")).ownerCommand(c.runtime)],
  ["resolve", async (c) => (await import("./commands/resolve.js")).resolveCommand(c.runtime, c.resolvePipeline)],
  ["watch", async (c) => (await import("./commands/watch.js")).watchCommand(c.runtime)],
  ["track-record", async (c) => (await import("./commands/track-record.js")).trackRecordCommand(c.runtime)],
  ["daemon", async (c) => (await import("./commands/daemon.js")).daemonCommand(c.runtime)],
  ["explorer", async (c) => (await import("./commands/explorer.js")).explorerCommand(c.runtime)],
];

/**
 * Subcommands that load without their parent's module when they run (the parent's other subcommands come from the
 * command description): `market list` reads the chain without viem, so it starts almost as fast as `--version`.
 */
export const LIGHT_SUBCOMMANDS: ReadonlyArray<readonly [parent: string, name: string, load: CommandLoader]> = [
  ["market", "list", async (c) => (await import("./commands/market-list.js")).marketListCommand(c.runtime)],
];
