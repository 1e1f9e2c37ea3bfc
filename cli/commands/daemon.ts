/**
 * `cresolver daemon`: the production resolver daemon (daemon/host.ts `startResolverDaemon`) — watches
 * ResolutionRequested on the market contract, resolves each requested market exactly once through the
 * workflow, and serves the HTTP API, until SIGTERM (graceful stop, exit 0) or Ctrl-C (graceful stop, exit 130). After
 * the stop it says what this run sent and what is left (cli/commands/daemon-stop.ts).
 *
 * Logs are pino JSON lines on stderr (pretty when stderr is a terminal); stdout only gets the final result
 * (one JSON object with --json). Secrets (the key, the API token, per-agent credentials, the RPC URL's path)
 * are never printed.
 */
import { resolve as resolvePath } from "node:path";
import { Writable } from "node:stream";
import { Command, Option } from "commander";
import type { Address } from "viem";
import { createLogger } from "../../daemon/log.js";
import { LOCAL_CHAIN_IDS } from "../../workflow/chain/clients.js";
import { parseAddress, parseSettlerGuard, SETTLER_GUARD_HELP } from "../shared/config.js";
import { loadCredentialsFile } from "../shared/credentials-file.js";
import { requireResolverKey } from "../../workflow/chain/actions.js";
import { CliError } from "../shared/errors.js";
import { llmEvaluatorFromEnv } from "../shared/resolve-pipeline.js";
import type { Runtime } from "../shared/runtime.js";
import { stopReport, untilStopSignal } from "./daemon-stop.js";
import { HELP_TEXT } from "./help-text.js";
import type { DonLimits } from "../../workflow/don-limits.js";
import { donLimitsInputSchema, donLimitsOf } from "../../workflow/don-limits-input.js";

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

interface DaemonOpts {
  maxBond?: string;
  trustedArbiter?: string[];
  db: string;
  apiHost: string;
  apiPort: string;
  apiTokenEnv?: string;
  confirmations?: string;
  pollIntervalMs?: string;
  startBlock?: string;
  maxAttempts?: string;
  concurrency?: string;
  credentialsFile?: string;
  evaluator: "rubric" | "llm";
  allowLoopback?: boolean;
  allowPrivate?: boolean;
  logLevel: LogLevel;
  publicUrl?: string;
  /** false only with an explicit --no-publish. */
  publish: boolean;
  onDispute: "escalate" | "concede";
  resetDb?: boolean;
  watch?: boolean;
  watchDispute?: boolean;
  watchIntervalMs?: string;
  donMode?: boolean;
  donLimits?: string;
}

/** `--don-limits`: the CRE workflow config's `limits` object, as JSON (workflow/don-limits-input.ts). */
function donLimitsFlag(value: string | undefined): DonLimits {
  let json: unknown = {};
  if (value !== undefined) {
    try {
      json = JSON.parse(value);
    } catch {
      throw new CliError(`--don-limits must be a JSON object like '{"httpCalls":15}', got "${value.slice(0, 40)}"`);
    }
  }
  const parsed = donLimitsInputSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CliError(
      `--don-limits: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"} (keys as in the CRE workflow config's "limits")`,
    );
  }
  return donLimitsOf(parsed.data);
}

function intFlag(value: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[0-9]+$/.test(value))
    throw new CliError(`${flag} must be a non-negative integer, got "${value.slice(0, 40)}"`);
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new CliError(`${flag} must be between ${min} and ${max}`);
  return n;
}

function apiTokenFrom(env: Record<string, string | undefined>, name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    throw new CliError(`--api-token-env must name an environment variable, got "${name.slice(0, 40)}"`);
  const token = env[name];
  if (token === undefined || token === "") throw new CliError(`--api-token-env ${name}: the variable is not set`);
  if (token.length < 16) throw new CliError(`--api-token-env ${name}: the token must be at least 16 characters`);
  return token;
}

export function daemonCommand(runtime: () => Runtime): Command {
  return new Command("daemon")
    .description(HELP_TEXT["daemon daemon"])
    .option("--db <path>", "SQLite state file (created 0600; one daemon per file)", "./cresolver-daemon.sqlite")
    .option(
      "--api-host <host>",
      "HTTP API address (keep it on loopback; put a TLS proxy in front to expose it)",
      "127.0.0.1",
    )
    .option("--api-port <port>", "HTTP API port (0 = any free port)", "8787")
    .option(
      "--api-token-env <VAR>",
      "environment variable holding the bearer token (≥ 16 chars) of POST /markets/:id/resolve; without it manual triggers are refused",
    )
    .option("--confirmations <n>", "blocks a ResolutionRequested event must be buried under (default 2)")
    .option("--poll-interval-ms <ms>", "pause between scans once caught up (default 4000)")
    .option(
      "--start-block <n>",
      "first block to scan when the database has no cursor (default: the market's deployment block from the deployment file, else 0)",
    )
    .option("--max-attempts <n>", "pipeline runs per market before the daemon proposes Invalid (default 5)")
    .option("--concurrency <n>", "markets resolved at once (default 4)")
    .option(
      "--credentials-file <path>",
      'per-agent secrets, JSON { "<agentId>": { "origin", "bearerToken"?, "hmacSecret"? } } (each sent only to its origin); chmod 600, outside the repository',
    )
    .addOption(
      new Option(
        "--evaluator <kind>",
        "worker evaluator (llm reads CRESOLVER_EVAL_MODEL, OPENAI_BASE_URL, OPENAI_API_KEY)",
      )
        .choices(["rubric", "llm"])
        .default("rubric"),
    )
    .option("--allow-loopback", "let the workflow reach agents on loopback addresses (local testing only)")
    .option("--allow-private", "let the workflow reach agents on private networks")
    .addOption(new Option("--log-level <level>", "log level").choices([...LOG_LEVELS]).default("info"))
    .option(
      "--public-url <url>",
      "public base URL of the API: proposals (and ERC-8004 feedback) carry <url>/bundles/<hash>.json as their bundle URI; required on a public chain unless --no-publish",
    )
    .option(
      "--no-publish",
      "run without publishing bundles (empty bundle URIs: nobody else can fetch or verify a trace); without it a public chain needs --public-url",
    )
    .addOption(
      new Option("--on-dispute <policy>", "when one of our proposals is disputed")
        .choices(["escalate", "concede"])
        .default("escalate"),
    )
    .option("--max-bond <eth>", SETTLER_GUARD_HELP.maxBond)
    .option("--trusted-arbiter <address...>", SETTLER_GUARD_HELP.trustedArbiter)
    .option(
      "--reset-db",
      "wipe a database that belongs to another chain or deployment instead of refusing to start (the signing key is kept)",
    )
    .option(
      "--watch",
      "also run the watcher (docs/WATCH.md): review every open proposal from public data each interval and log what it would dispute",
    )
    .option(
      "--watch-dispute",
      "with --watch: send those disputes with this key's bond (within --max-bond, only to allowed or --trusted-arbiter arbiters)",
    )
    .option("--watch-interval-ms <ms>", "with --watch: pause between two watcher passes (default 60000)")
    .option(
      "--don-mode",
      "resolve as a CRE DON configured with this daemon's /answers (answerRelay) and /track-record (trackRecord) does: from its own relayed signed answers, cresolver seats and the rubric only, the DON's reply cap, deadlines and challenge budget — one bundle for both (docs/CRE.md)",
    )
    .option(
      "--don-limits <json>",
      "with --don-mode: the DON's quotas as the CRE workflow config's \"limits\" (e.g. '{\"httpCalls\":15}'; default the published ones)",
    )
    .action(async (opts: DaemonOpts) => {
      const rt = runtime();
      const env = rt.io.env;
      // Every flag is checked before anything touches the network.
      const apiPort = intFlag(opts.apiPort, "--api-port", 0, 65_535) ?? 8787;
      const confirmations = intFlag(opts.confirmations, "--confirmations", 0, 1_000);
      const pollIntervalMs = intFlag(opts.pollIntervalMs, "--poll-interval-ms", 10, 3_600_000);
      let startBlock = intFlag(opts.startBlock, "--start-block", 0, Number.MAX_SAFE_INTEGER);
      const maxAttempts = intFlag(opts.maxAttempts, "--max-attempts", 1, 100);
      const concurrency = intFlag(opts.concurrency, "--concurrency", 1, 256);
      const apiToken = apiTokenFrom(env, opts.apiTokenEnv);
      const watchIntervalMs = intFlag(opts.watchIntervalMs, "--watch-interval-ms", 1_000, 86_400_000) ?? 60_000;
      if ((opts.watchDispute === true || opts.watchIntervalMs !== undefined) && opts.watch !== true)
        throw new CliError("--watch-dispute / --watch-interval-ms need --watch");
      if (opts.donLimits !== undefined && opts.donMode !== true) throw new CliError("--don-limits needs --don-mode");
      const donLimits = opts.donMode === true ? donLimitsFlag(opts.donLimits) : undefined;
      if (donLimits !== undefined && opts.evaluator !== "rubric")
        throw new CliError("--don-mode scores with the rubric, as a DON does: drop --evaluator llm");
      const settlerGuard = parseSettlerGuard(opts);
      if (opts.apiHost.trim() === "") throw new CliError("--api-host must not be empty");
      const credentials =
        opts.credentialsFile !== undefined
          ? loadCredentialsFile(resolvePath(rt.io.cwd, opts.credentialsFile), (m) => rt.io.stderr(`${m}\n`))
          : undefined;
      const evaluator =
        opts.evaluator === "llm" ? llmEvaluatorFromEnv(env as NodeJS.ProcessEnv) : ({ kind: "rubric" } as const);
      const identity = rt.globals.identity !== undefined ? parseAddress(rt.globals.identity, "--identity") : undefined;
      const rpcUrl = rt.rpcUrl;
      rt.requireKey();

      const ctx = await rt.chain({ needsKey: true });
      const market: Address = await rt.marketAddress();
      if (startBlock === undefined && rt.globals.market === undefined) {
        startBlock = (await rt.deployment({ required: true }))?.contracts.ResolutionMarket.blockNumber;
      }
      if (startBlock === undefined && !LOCAL_CHAIN_IDS.has(ctx.chainId)) {
        rt.io.stderr(
          `warning: no --start-block: the first start scans chain ${ctx.chainId} from block 0 (give the market's deployment block)\n`,
        );
      }
      if (opts.publicUrl === undefined && opts.publish) {
        const unpublished =
          "without --public-url the bundles are not published: proposals and ERC-8004 feedback carry an empty bundle URI, so nobody else can fetch or verify a trace";
        if (!LOCAL_CHAIN_IDS.has(ctx.chainId))
          throw new CliError(
            `chain ${ctx.chainId}: ${unpublished}; give --public-url https://<host> (see docs/DEPLOY.md) or --no-publish`,
          );
        rt.io.stderr(`warning: ${unpublished} (local chain; --no-publish silences this)\n`);
      }
      await requireResolverKey(ctx, market);

      const logger = process.stderr.isTTY
        ? createLogger({ level: opts.logLevel, pretty: true, prettyFd: 2 })
        : createLogger({
            level: opts.logLevel,
            pretty: false,
            destination: new Writable({
              write(chunk: Buffer | string, _enc, done) {
                rt.io.stderr(String(chunk));
                done();
              },
            }),
          });

      let handle;
      try {
        // Loaded on use: the daemon (SQLite, fastify, the whole pipeline) is not needed by other commands.
        const { startResolverDaemon } = await import("../../daemon/host.js");
        handle = await startResolverDaemon({
          ctx,
          rpcUrl,
          markets: [startBlock !== undefined ? { address: market, startBlock } : market],
          identityRegistry: identity,
          dbPath: resolvePath(rt.io.cwd, opts.db),
          apiHost: opts.apiHost,
          apiPort,
          apiToken,
          confirmations,
          pollIntervalMs,
          maxAttempts,
          concurrency,
          credentials,
          evaluator,
          http: { allowLoopback: opts.allowLoopback === true, allowPrivate: opts.allowPrivate === true },
          logger,
          logLevel: opts.logLevel,
          publicUrl: opts.publicUrl,
          onDispute: opts.onDispute,
          resetStore: opts.resetDb === true,
          settlerGuard,
          ...(donLimits !== undefined ? { donMode: { limits: donLimits } } : {}),
        });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (/^invalid (daemon config|credentials)/.test(message)) throw new CliError(message);
        if (error instanceof Error && error.name === "StoreMismatch") throw new CliError(message);
        if (/EADDRINUSE|address already in use/i.test(message))
          throw new CliError(`--api-host/--api-port: ${opts.apiHost}:${apiPort} is already in use`);
        throw error;
      }

      // The watcher beside the resolver (daemon/watch.ts): reviews every open proposal, disputes only with --watch-dispute.
      const watcher =
        opts.watch === true
          ? (await import("../../daemon/watch.js")).startWatchLoop({
              ctx,
              market,
              intervalMs: watchIntervalMs,
              logger,
              pass: {
                dispute: opts.watchDispute === true,
                range: { fromBlock: BigInt(startBlock ?? 0) },
                ...(settlerGuard.trustedArbiters !== undefined
                  ? { trustedArbiters: settlerGuard.trustedArbiters }
                  : {}),
                ...(settlerGuard.maxBond !== undefined ? { maxBond: settlerGuard.maxBond } : {}),
              },
            })
          : undefined;

      // Until SIGTERM or Ctrl-C; a second signal while stopping leaves at once.
      const signal = await untilStopSignal(rt.io.signal);
      const again = () => process.exit(1);
      process.once("SIGINT", again);
      process.once("SIGTERM", again);
      logger.info({ signal }, "stopping");
      await watcher?.stop();
      await handle.close();
      logger.flush();
      // What this run sent and what the store still holds, as the Ctrl-C report of the other commands says it.
      const report = stopReport(rt.journal, signal, handle.unfinished());
      rt.io.stderr(report.text);
      rt.emit(
        {
          status: "stopped",
          signal,
          api: handle.url,
          market,
          resolver: handle.resolver,
          transactions: report.transactions,
        },
        `daemon stopped (${signal})`,
      );
      process.off("SIGINT", again);
      process.off("SIGTERM", again);
    });
}
