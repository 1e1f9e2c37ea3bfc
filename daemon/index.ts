/**
 * The resolver daemon: watches ResolutionRequested, keeps durable state in SQLite (bound to one chain and
 * deployment), runs one job per market through the seams (pipeline run → proposal → watch → finalize →
 * feedback), serves an HTTP API with the bundles. `cresolver daemon` calls startDaemon.
 */
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { createPublicClient, http, type PublicClient } from "viem";
import { buildApi, type ApiOptions } from "./api.js";
import { type DaemonConfig, type MarketSeams, parseDaemonConfig } from "./config.js";
import { loadOrCreateSigningKey, type SigningKey } from "./keys.js";
import { createLogger, sanitizeError } from "./log.js";
import { createMetrics, type DaemonMetrics } from "./metrics.js";
import { Runner } from "./runner.js";
import { type JobRow, Store, StoreMismatch } from "./store.js";
import { Trigger } from "./trigger.js";
import { retry } from "../workflow/util/retry.js";

export type {
  DaemonConfig,
  DaemonConfigInput,
  MarketOnChain,
  MarketSeams,
  ProposeInput,
  RunOutcome,
  Verdict,
} from "./config.js";
export { daemonConfigSchema, parseDaemonConfig } from "./config.js";
export { createMetrics, type DaemonMetrics } from "./metrics.js";
export { createLogger, sanitizeError } from "./log.js";
export { Store, StoreMismatch, JOB_STATES, type JobRow, type JobState } from "./store.js";

export interface DaemonDeps {
  /** Chain reads (trigger, RPC health). Default: an http client on config.rpcUrl. */
  publicClient?: PublicClient;
  /** The seams for a single watched market contract... */
  seams?: MarketSeams;
  /** ...or per market contract (required when several are configured). */
  seamsFor?: (market: `0x${string}`) => MarketSeams;
  logger?: Logger;
  /** Pass the same object to the pipeline so that its recordAgentCall lands in this daemon's /metrics. */
  metrics?: DaemonMetrics;
  /**
   * Called once the signing key is loaded and the API is built, before it listens and before any job runs:
   * mount extra routes/plugins (e.g. the Agora event stream) and pick up the signing key for the seams.
   */
  /** Serve the explorer web app at /explorer with these chain reads (the API's store supplies the bundles). */
  explorer?: ApiOptions["explorer"];
  registerApiPlugins?: (
    app: FastifyInstance,
    context: { signingKey: SigningKey; store: Store; chainId: number },
  ) => Promise<void> | void;
}

export interface DaemonHandle {
  /** Graceful stop: polling stops, running jobs get the grace time, then the API and the database close. */
  stop(): Promise<void>;
  /** Base URL of the HTTP API, e.g. http://127.0.0.1:8787 */
  url: string;
  address: { host: string; port: number };
  chainId: number;
  store: Store;
  /** Jobs with work left (Store.unfinishedJobs): read live while running, as they were at close after stop(). */
  unfinished(): JobRow[];
  metrics: DaemonMetrics;
  recordAgentCall: DaemonMetrics["recordAgentCall"];
  signingKey: SigningKey;
  logger: Logger;
}

function withRetries<T>(fn: () => Promise<T>, tries: number, delayMs: number): Promise<T> {
  return retry(() => fn(), { attempts: tries, delayMs: { baseMs: delayMs } });
}

/** Why the stored cursors do not belong to this chain, or undefined when they do. */
async function cursorGone(client: PublicClient, store: Store): Promise<string | undefined> {
  const cursors = store.cursors();
  if (cursors.length === 0) return undefined;
  const head = Number(await client.getBlockNumber({ cacheTime: 0 }));
  for (const c of cursors) {
    if (c.lastBlock > head) return `its cursor for ${c.market} is at block ${c.lastBlock}, the chain's head is ${head}`;
    if (c.blockHash === null) continue;
    const block = await client.getBlock({ blockNumber: BigInt(c.lastBlock) });
    if (block.hash?.toLowerCase() !== c.blockHash)
      return `block ${c.lastBlock} of its cursor for ${c.market} has another hash on this chain`;
  }
  return undefined;
}

export async function startDaemon(configInput: unknown, deps: DaemonDeps = {}): Promise<DaemonHandle> {
  const config: DaemonConfig = parseDaemonConfig(configInput);
  const secrets = [config.apiToken, config.rpcUrl].filter((s): s is string => typeof s === "string");
  const logger = deps.logger ?? createLogger({ level: config.logLevel });
  const metrics = deps.metrics ?? createMetrics();

  let seamsFor: (market: `0x${string}`) => MarketSeams;
  if (deps.seamsFor) {
    seamsFor = deps.seamsFor;
  } else if (deps.seams) {
    if (config.markets.length > 1) throw new Error("several markets configured: pass deps.seamsFor(market)");
    const seams = deps.seams;
    seamsFor = () => seams;
  } else {
    throw new Error("startDaemon needs deps.seams (or deps.seamsFor)");
  }

  let client = deps.publicClient;
  if (!client) {
    if (!config.rpcUrl) throw new Error("startDaemon needs config.rpcUrl or deps.publicClient");
    client = createPublicClient({ transport: http(config.rpcUrl, { timeout: 15_000, retryCount: 0 }) }) as PublicClient;
  }

  const chainId = await withRetries(() => client.getChainId(), 5, 500).catch((err: unknown) => {
    throw new Error(`cannot reach the RPC to read the chain id: ${sanitizeError(err, secrets)}`);
  });

  const genesisHash = await withRetries(() => client.getBlock({ blockNumber: 0n }), 5, 500).then(
    (b) => b.hash,
    (err: unknown) => {
      throw new Error(`cannot reach the RPC to read the genesis block: ${sanitizeError(err, secrets)}`);
    },
  );

  const store = new Store(config.dbPath);
  let api: Awaited<ReturnType<typeof buildApi>> | undefined;
  try {
    const binding = store.bind(
      { chainId, genesisHash, markets: config.markets.map((m) => m.address) },
      config.resetStore,
    );
    if (binding.reset)
      logger.warn(
        { dbPath: config.dbPath, chainId },
        "database belonged to another chain or deployment: reset (resetStore)",
      );
    // Same genesis, same addresses, yet another chain (a local node restarted with a fixed genesis): the blocks the
    // cursors point at are gone or different.
    const gone = await withRetries(() => cursorGone(client, store), 5, 500);
    if (gone !== undefined) {
      if (!config.resetStore) {
        throw new StoreMismatch(
          `database ${config.dbPath} cannot be used: ${gone} (a restarted chain?); use another database file, or reset it (resetStore / --reset-db)`,
        );
      }
      store.reset();
      store.bind({ chainId, genesisHash, markets: config.markets.map((m) => m.address) }, false);
      logger.warn(
        { dbPath: config.dbPath, chainId },
        "database cursors pointed at blocks this chain does not have: reset (resetStore)",
      );
    }
    const recovered = store.recoverRunning();
    const signingKey = await loadOrCreateSigningKey(store);
    const markets = config.markets.map((m) => ({ address: m.address, startBlock: m.startBlock ?? config.startBlock }));

    metrics.setJobCounts(() => (store.isClosed ? undefined : store.countByState()));

    const runner = new Runner({
      store,
      client,
      seamsFor,
      concurrency: config.concurrency,
      maxAttempts: config.maxAttempts,
      backoffMs: config.backoffMs,
      maxBackoffMs: config.maxBackoffMs,
      jobTimeoutMs: config.jobTimeoutMs,
      watchIntervalMs: config.watchIntervalMs,
      onDispute: config.onDispute,
      ...(config.publicUrl !== undefined ? { publicUrl: config.publicUrl } : {}),
      logger: logger.child({ component: "runner" }),
      metrics,
      secrets,
    });
    const trigger = new Trigger({
      client,
      store,
      chainId,
      markets,
      confirmations: config.confirmations,
      pollIntervalMs: config.pollIntervalMs,
      maxBlockRange: config.maxBlockRange,
      maxBackoffMs: config.maxBackoffMs,
      logger: logger.child({ component: "trigger" }),
      metrics,
      onJobs: () => runner.poke(),
      firstRunDelay: (marketId) =>
        config.instanceCount > 1
          ? Number((marketId + BigInt(config.instanceIndex)) % BigInt(config.instanceCount)) * config.staggerMs
          : 0,
      secrets,
    });
    metrics.setChainStatus(() => trigger.status());

    api = await buildApi({
      store,
      metrics,
      logger,
      chainId,
      markets: markets.map((m) => m.address),
      apiToken: config.apiToken,
      pollIntervalMs: config.pollIntervalMs,
      triggerStatus: () => trigger.status(),
      onManual: () => runner.poke(),
      readMarket: (market, marketId) => seamsFor(market).read(marketId),
      secrets,
      ...(deps.explorer ? { explorer: deps.explorer } : {}),
    });
    if (deps.registerApiPlugins) await deps.registerApiPlugins(api, { signingKey, store, chainId });
    await api.listen({ host: config.apiHost, port: config.apiPort });
    const addr = api.server.address();
    if (!addr || typeof addr === "string") throw new Error("API did not bind a TCP port");
    const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;

    runner.start();
    trigger.start();
    logger.info(
      {
        chainId,
        markets: markets.map((m) => m.address),
        confirmations: config.confirmations,
        concurrency: config.concurrency,
        instance: `${config.instanceIndex + 1}/${config.instanceCount}`,
        maxAttempts: config.maxAttempts,
        onDispute: config.onDispute,
        publicUrl: config.publicUrl ?? null,
        recoveredRunningJobs: recovered,
        api: `http://${host}:${addr.port}`,
        kid: signingKey.kid,
        manualTrigger: config.apiToken ? "enabled" : "disabled",
      },
      "daemon started",
    );

    let stopping: Promise<void> | undefined;
    let leftAtStop: JobRow[] | undefined;
    const onSignal = (signal: NodeJS.Signals) => {
      logger.info({ signal }, "daemon: signal received, stopping");
      // A second signal while stopping: leave at once (jobs left running are redone on restart).
      if (stopping) process.exit(1);
      void stop().then(() => {
        setTimeout(() => process.exit(0), 5_000).unref();
      });
    };
    const stop = (): Promise<void> => {
      stopping ??= (async () => {
        // The trigger re-checks `stopped` before recording anything, so a scan stuck in a slow RPC call is not waited for.
        await Promise.race([trigger.stop(), new Promise((r) => setTimeout(r, 1_000).unref())]);
        await runner.stop(config.shutdownGraceMs);
        await api?.close();
        leftAtStop = store.unfinishedJobs();
        store.close();
        logger.info("daemon stopped");
      })();
      return stopping;
    };
    if (config.handleSignals) {
      process.once("SIGTERM", onSignal);
      process.once("SIGINT", onSignal);
    }

    return {
      stop: async () => {
        if (config.handleSignals) {
          process.off("SIGTERM", onSignal);
          process.off("SIGINT", onSignal);
        }
        await stop();
      },
      url: `http://${host}:${addr.port}`,
      address: { host: addr.address, port: addr.port },
      chainId,
      store,
      unfinished: () => leftAtStop ?? (store.isClosed ? [] : store.unfinishedJobs()),
      metrics,
      recordAgentCall: metrics.recordAgentCall,
      signingKey,
      logger,
    };
  } catch (err) {
    await api?.close().catch(() => {});
    store.close();
    throw err;
  }
}
