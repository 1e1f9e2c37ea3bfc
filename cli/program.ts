/**
 * The `cresolver` command tree (commander 14) and `run(argv, io)`, which never calls process.exit:
 * it returns the exit code. Results go to stdout (one JSON object with --json), progress and
 * errors to stderr; an error is one line `error: …`.
 */
import { Command, CommanderError, Option } from "commander";
import { commandFromShape, readCommandTree, type CommandTree } from "./command-tree.js";
import { agentSecretsInEnv, DEFAULT_RPC_URL, ENV } from "./shared/env.js";
import { CliError } from "./shared/errors.js";
import { COMMANDS, LIGHT_SUBCOMMANDS, type CommandContext } from "./registry.js";
import type { ResolvePipeline } from "./shared/resolve-pipeline.js";
import type { GlobalOptions, Io, Runtime } from "./shared/runtime.js";
import { TxJournal } from "./shared/tx-journal.js";
import { redactSecrets } from "../workflow/util/redact.js";
import { VERSION } from "./version.js";

export { VERSION };

export interface ProgramOptions {
  /** The resolution workflow used by `resolve` (default: the real pipeline). */
  resolvePipeline?: ResolvePipeline;
  /**
   * The description of every command that answers help and stands in for the commands that do not run (default:
   * dist/cli/command-tree.json next to the built CLI; null: none, every command module is loaded).
   */
  commandTree?: CommandTree | null;
  /** Where the runtime records the transactions it sends (for the Ctrl-C report; run() makes one). */
  txJournal?: TxJournal;
}

/** The built CLI's command description (absent in a source checkout: then every command module is loaded). */
const BUILT_TREE = new URL("./command-tree.json", import.meta.url);

/** The top-level command `argv` names (after the global options), and whether it only asks for help. */
export function commandWord(
  argv: readonly string[],
  program: Command,
): { name: string; helpOnly: boolean; sub?: string } | undefined {
  const takesValue = new Set(program.options.filter((o) => o.required || o.optional).flatMap((o) => [o.long, o.short]));
  let i = 0;
  while (i < argv.length) {
    const arg = argv[i] ?? "";
    if (arg === "--") return undefined;
    if (!arg.startsWith("-")) break;
    i += takesValue.has(arg) ? 2 : 1;
  }
  let name = argv[i];
  if (name === undefined) return undefined;
  if (name === "help") {
    name = argv[i + 1];
    return name === undefined || name.startsWith("-") ? undefined : { name, helpOnly: true };
  }
  const rest = argv.slice(i + 1);
  const end = rest.indexOf("--");
  const helpOnly = (end === -1 ? rest : rest.slice(0, end)).some((a) => a === "--help" || a === "-h");
  const sub = rest[0];
  return sub !== undefined && !sub.startsWith("-") ? { name, helpOnly, sub } : { name, helpOnly };
}

/** Stand-ins answer help only; running one would be a silent no-op, so each leaf refuses instead. */
function refuseToRun(cmd: Command): Command {
  if (cmd.commands.length === 0)
    cmd.action(() => {
      throw new CliError(`internal error: \`${cmd.name()}\` was not loaded; please report this`, 1);
    });
  for (const sub of cmd.commands) refuseToRun(sub);
  return cmd;
}

function configureAll(cmd: Command, io: Io): void {
  cmd.exitOverride();
  cmd.configureOutput({
    writeOut: (s) => io.stdout(s),
    writeErr: (s) => io.stderr(s),
    outputError: (s, write) => write(`${s.trim().split("\n")[0]}\n`),
  });
  cmd.configureHelp({ showGlobalOptions: true });
  for (const sub of cmd.commands) configureAll(sub, io);
}

/**
 * The command tree. With `argv`, only the command it runs is loaded (the others, and the one whose help is asked
 * for, come from the command description when there is one); without, every command module is loaded.
 */
export async function buildProgram(io: Io, options: ProgramOptions = {}, argv?: readonly string[]): Promise<Command> {
  const program = new Command("cresolver");
  let runtime: Runtime | undefined;
  // runtime.ts brings viem and the chain layer: loaded (below) only when a command module is.
  let RuntimeClass: typeof Runtime | undefined;
  const getRuntime = (): Runtime => {
    if (RuntimeClass === undefined) throw new CliError("internal error: the runtime was not loaded", 1);
    runtime ??= new RuntimeClass(io, program.opts<GlobalOptions>(), options.txJournal);
    return runtime;
  };
  program
    .description("Resolve prediction markets with ERC-8004 AI worker agents and settle the result on-chain.")
    .version(VERSION, "-V, --version")
    .addOption(new Option("--rpc-url <url>", `JSON-RPC endpoint (env ${ENV.rpcUrl}; default ${DEFAULT_RPC_URL})`))
    .addOption(
      new Option(
        "--private-key <hex>",
        `key that signs transactions (env ${ENV.privateKey}; prefer the environment: flags show up in process lists)`,
      ),
    )
    .addOption(
      new Option(
        "--deployment <file>",
        `deployment file (env ${ENV.deployment}; default deployments/<network>.json for the connected chain)`,
      ),
    )
    .addOption(new Option("--market <address>", "ResolutionMarket address (overrides the deployment file)"))
    .addOption(
      new Option(
        "--identity <address>",
        "IdentityRegistry address (overrides the deployment file; for deploy: an existing registry, with --reputation)",
      ),
    )
    .addOption(
      new Option(
        "--rpc-timeout <seconds>",
        `how long one RPC request may take, retries included, before the command says what it waited on (env ${ENV.rpcTimeout}; default 30)`,
      ),
    )
    .option("--json", "print one JSON object on stdout (progress and errors go to stderr)");
  const context: CommandContext = {
    runtime: getRuntime,
    ...(options.resolvePipeline ? { resolvePipeline: options.resolvePipeline } : {}),
  };
  const tree =
    argv === undefined
      ? undefined
      : options.commandTree === undefined
        ? readCommandTree(BUILT_TREE)
        : (options.commandTree ?? undefined);
  const target = argv !== undefined && tree !== undefined ? commandWord(argv, program) : undefined;
  // A known command that runs needs no stand-ins beside it (they serve help and unknown-command suggestions only).
  const runsKnown = target !== undefined && !target.helpOnly && COMMANDS.some(([name]) => name === target.name);
  for (const [name, load] of COMMANDS) {
    const shape = tree?.commands.find((c) => c.name === name);
    const runs = target?.name === name && !target.helpOnly;
    if (shape !== undefined && !runs) {
      if (!runsKnown) program.addCommand(refuseToRun(commandFromShape(shape)));
      continue;
    }
    RuntimeClass ??= (await import("./shared/runtime.js")).Runtime;
    const light = LIGHT_SUBCOMMANDS.find(([parent, sub]) => parent === name && sub === target?.sub);
    if (shape !== undefined && light !== undefined) {
      program.addCommand(refuseToRun(commandFromShape({ ...shape, commands: [] })).addCommand(await light[2](context)));
      continue;
    }
    program.addCommand(await load(context));
  }
  configureAll(program, io);
  return program;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}

/** Every line the CLI prints is filtered: values shorter than this are too likely to be ordinary output. */
const CLI_SECRET_FLOOR = { minChars: 16 };

function secretsIn(argv: string[], env: Io["env"]): string[] {
  const secrets = [env[ENV.privateKey], env[ENV.walletKey], env.OPENAI_API_KEY].filter(
    (s): s is string => typeof s === "string" && s !== "",
  );
  argv.forEach((arg, i) => {
    const next = argv[i + 1];
    for (const flag of ["--private-key", "--wallet-key"]) {
      if (arg === flag && next) secrets.push(next);
      if (arg.startsWith(`${flag}=`)) secrets.push(arg.slice(flag.length + 1));
    }
  });
  secrets.push(...agentSecretsInEnv(argv, env));
  return secrets;
}

/**
 * Commands that stop gracefully on SIGINT/SIGTERM themselves, with their exit code after Ctrl-C (0 after SIGTERM);
 * the others are interrupted (130). The daemon exits 130 after Ctrl-C like an interrupted command, once it has
 * stopped and said what it sent and what is left.
 */
const SELF_STOPPING = new Map([
  ["daemon", 130],
  ["explorer", 0],
  ["agent serve", 0],
]);

/** Whether `signal` aborted before `work` settled (work's failure is rethrown when it came first). */
function untilAborted(signal: AbortSignal, work: Promise<unknown>): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(true);
  return new Promise<boolean>((resolve, reject) => {
    const onAbort = () => resolve(true);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve(false);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** Runs the CLI; resolves with the exit code. */
export async function run(argv: string[], io: Io, options: ProgramOptions = {}): Promise<number> {
  const secrets = secretsIn(argv, io.env);
  const safeIo: Io = {
    ...io,
    stderr: (s) => io.stderr(redactSecrets(s, secrets, CLI_SECRET_FLOOR)),
    stdout: (s) => io.stdout(redactSecrets(s, secrets, CLI_SECRET_FLOOR)),
  };
  const journal = new TxJournal();
  try {
    const program = await buildProgram(safeIo, { ...options, txJournal: journal }, argv);
    const parsed = program.parseAsync(argv, { from: "user" });
    const target = commandWord(argv, program);
    const stopCode = target === undefined ? undefined : SELF_STOPPING.get(`${target.name} ${target.sub ?? ""}`.trim());
    if (io.signal === undefined || stopCode !== undefined) {
      await parsed;
      return io.signal?.aborted === true ? (stopCode ?? 0) : 0;
    }
    // Ctrl-C (main.ts aborts the signal): say what was and was not sent, and leave with 130 at once.
    const interrupted = await untilAborted(io.signal, parsed);
    if (!interrupted) return 0;
    parsed.catch(() => undefined);
    safeIo.stderr(journal.interruptReport());
    return 130;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return 0;
      if (error.code === "commander.help") return error.exitCode === 0 ? 0 : 2;
      return 2;
    }
    let message: string;
    let code: number;
    if (error instanceof CliError) {
      message = error.message;
      code = error.exitCode;
    } else if (error instanceof (await import("../workflow/chain/chain-error.js")).ChainError) {
      message = error.message;
      code = error.kind === "precondition" ? 2 : 1;
    } else {
      message = error instanceof Error ? error.message : String(error);
      code = 1;
    }
    safeIo.stderr(`error: ${oneLine(message)}\n`);
    return code;
  }
}
