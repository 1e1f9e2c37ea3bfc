/**
 * The `cresolver` command tree (commander 14) and `run(argv, io)`, which never calls process.exit:
 * it returns the exit code. Results go to stdout (one JSON object with --json), progress and
 * errors to stderr; an error is one line `error: …`.
 */
import { Command, CommanderError, Option } from "commander";
import { ChainError } from "../workflow/chain/errors.js";
import { agentSecretsInEnv } from "./shared/agent-auth.js";
import { agentCommand } from "./commands/agent.js";
import { betCommand } from "./commands/bet.js";
import { daemonCommand } from "./commands/daemon.js";
import { deployCommand } from "./commands/deploy.js";
import { explorerCommand } from "./commands/explorer.js";
import { owedCommand } from "./commands/inspect.js";
import { ownerCommand } from "./commands/owner.js";
import { marketCommand } from "./commands/market.js";
import { resolveCommand } from "./commands/resolve.js";
import { DEFAULT_RPC_URL, ENV } from "./shared/config.js";
import { CliError } from "./shared/errors.js";
import type { ResolvePipeline } from "./shared/resolve-pipeline.js";
import { Runtime, type GlobalOptions, type Io } from "./shared/runtime.js";
import { redactSecrets } from "../workflow/util/redact.js";
import { VERSION } from "./version.js";

export { VERSION };

export interface ProgramOptions {
  /** The resolution workflow used by `resolve` (default: not wired, `--plan` only). */
  resolvePipeline?: ResolvePipeline;
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

export function buildProgram(io: Io, options: ProgramOptions = {}): Command {
  const program = new Command("cresolver");
  let runtime: Runtime | undefined;
  const getRuntime = () => (runtime ??= new Runtime(io, program.opts<GlobalOptions>()));
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
    .option("--json", "print one JSON object on stdout (progress and errors go to stderr)")
    .addCommand(deployCommand(getRuntime))
    .addCommand(agentCommand(getRuntime))
    .addCommand(marketCommand(getRuntime))
    .addCommand(betCommand(getRuntime))
    .addCommand(owedCommand(getRuntime))
    .addCommand(ownerCommand(getRuntime))
    .addCommand(resolveCommand(getRuntime, options.resolvePipeline))
    .addCommand(daemonCommand(getRuntime))
    .addCommand(explorerCommand(getRuntime));
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
    for (const flag of ["--private-key", "--wallet-key"]) {
      if (arg === flag && argv[i + 1]) secrets.push(argv[i + 1]);
      if (arg.startsWith(`${flag}=`)) secrets.push(arg.slice(flag.length + 1));
    }
  });
  secrets.push(...agentSecretsInEnv(argv, env));
  return secrets;
}

/** Runs the CLI; resolves with the exit code. */
export async function run(argv: string[], io: Io, options: ProgramOptions = {}): Promise<number> {
  const secrets = secretsIn(argv, io.env);
  const safeIo: Io = {
    ...io,
    stderr: (s) => io.stderr(redactSecrets(s, secrets, CLI_SECRET_FLOOR)),
    stdout: (s) => io.stdout(redactSecrets(s, secrets, CLI_SECRET_FLOOR)),
  };
  const program = buildProgram(safeIo, options);
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
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
    } else if (error instanceof ChainError) {
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
