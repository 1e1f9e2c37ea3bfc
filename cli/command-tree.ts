/**
 * A plain-data description of commander commands (names, aliases, descriptions, arguments, options with their
 * defaults and choices) and the way back. `npm run build:cli` writes the description of every command to
 * dist/cli/command-tree.json, so `cresolver <command> --help` is answered from it without importing the command's
 * module; the command itself still loads its module when it runs. The round trip keeps help text identical
 * (test/ts/cli/lazy.test.ts compares every command's help).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { Argument, Command, Option } from "commander";

export interface ArgumentShape {
  /** `<name>`, `[name]`, `<name...>`. */
  term: string;
  description: string;
  defaultValue?: unknown;
  defaultValueDescription?: string;
  choices?: string[];
}

export interface OptionShape {
  flags: string;
  description: string;
  defaultValue?: unknown;
  defaultValueDescription?: string;
  choices?: string[];
  mandatory?: true;
  hidden?: true;
}

export interface CommandShape {
  name: string;
  aliases?: string[];
  description: string;
  summary?: string;
  arguments?: ArgumentShape[];
  options?: OptionShape[];
  commands?: CommandShape[];
}

/** The file version: a reader ignores a description written by another layout. */
const TREE_VERSION = 1;

function describeArgument(arg: Argument): ArgumentShape {
  const name = `${arg.name()}${arg.variadic ? "..." : ""}`;
  return {
    term: arg.required ? `<${name}>` : `[${name}]`,
    description: arg.description,
    ...(arg.defaultValue !== undefined ? { defaultValue: arg.defaultValue } : {}),
    ...(arg.defaultValueDescription !== undefined ? { defaultValueDescription: arg.defaultValueDescription } : {}),
    ...(arg.argChoices !== undefined ? { choices: [...arg.argChoices] } : {}),
  };
}

function describeOption(opt: Option): OptionShape {
  return {
    flags: opt.flags,
    description: opt.description,
    ...(opt.defaultValue !== undefined ? { defaultValue: opt.defaultValue } : {}),
    ...(opt.defaultValueDescription !== undefined ? { defaultValueDescription: opt.defaultValueDescription } : {}),
    ...(opt.argChoices !== undefined ? { choices: [...opt.argChoices] } : {}),
    ...(opt.mandatory ? { mandatory: true as const } : {}),
    ...(opt.hidden ? { hidden: true as const } : {}),
  };
}

/** The description of `cmd` and its subcommands. */
export function describeCommand(cmd: Command): CommandShape {
  const summary = cmd.summary();
  return {
    name: cmd.name(),
    ...(cmd.aliases().length > 0 ? { aliases: [...cmd.aliases()] } : {}),
    description: cmd.description(),
    ...(summary !== "" ? { summary } : {}),
    ...(cmd.registeredArguments.length > 0 ? { arguments: cmd.registeredArguments.map(describeArgument) } : {}),
    ...(cmd.options.length > 0 ? { options: cmd.options.map(describeOption) } : {}),
    ...(cmd.commands.length > 0 ? { commands: cmd.commands.map(describeCommand) } : {}),
  };
}

/** A command that prints the same help as the one `shape` describes; it has no actions. */
export function commandFromShape(shape: CommandShape): Command {
  const cmd = new Command(shape.name).description(shape.description);
  if (shape.summary !== undefined) cmd.summary(shape.summary);
  if (shape.aliases !== undefined) cmd.aliases(shape.aliases);
  for (const a of shape.arguments ?? []) {
    const arg = new Argument(a.term, a.description);
    if (a.choices !== undefined) arg.choices(a.choices);
    if (a.defaultValue !== undefined || a.defaultValueDescription !== undefined)
      arg.default(a.defaultValue, a.defaultValueDescription);
    cmd.addArgument(arg);
  }
  for (const o of shape.options ?? []) {
    const opt = new Option(o.flags, o.description);
    if (o.choices !== undefined) opt.choices(o.choices);
    if (o.defaultValue !== undefined || o.defaultValueDescription !== undefined)
      opt.default(o.defaultValue, o.defaultValueDescription);
    if (o.mandatory) opt.makeOptionMandatory();
    if (o.hidden) opt.hideHelp();
    cmd.addOption(opt);
  }
  for (const sub of shape.commands ?? []) cmd.addCommand(commandFromShape(sub));
  return cmd;
}

export interface CommandTree {
  version: number;
  commands: CommandShape[];
}

/** Writes the description of `commands` (the build does, from the built modules). */
export function writeCommandTree(path: string, commands: Command[]): void {
  const tree: CommandTree = { version: TREE_VERSION, commands: commands.map(describeCommand) };
  writeFileSync(path, `${JSON.stringify(tree)}\n`);
}

function isTree(value: unknown): value is CommandTree {
  return (
    typeof value === "object" &&
    value !== null &&
    "version" in value &&
    value.version === TREE_VERSION &&
    "commands" in value &&
    Array.isArray(value.commands)
  );
}

/** The description next to the built CLI, or undefined (a source checkout, or a file from another layout). */
export function readCommandTree(url: URL): CommandTree | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(url, "utf8"));
    return isTree(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
