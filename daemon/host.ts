/**
 * The production daemon in one call: `startResolverDaemon(options)` is what `cresolver daemon`, the demo
 * and the end-to-end tests run.
 *
 * - Chain: the resolver's ChainContext from `{ rpcUrl, privateKey }` (workflow/chain/clients.ts `connect`,
 *   retrying transport) or a given `ctx` (must carry the resolver's wallet). The daemon's trigger polls with
 *   its own non-retrying client on `rpcUrl` (it has its own backoff), or with `ctx.publicClient` when no URL
 *   is given (in-process providers).
 * - Seams: one `createPipelineSeams` per watched market contract, created on the first job of that contract
 *   and cached, with the daemon's `recordAgentCall` (agent latencies by protocol in `/metrics`).
 * - Agora Arena: match tokens are signed with the daemon's own ES256 key (daemon/keys.ts, kept in the
 *   SQLite file), so agents verify them against the daemon's `/.well-known/jwks.json`; the AAP event stream
 *   (`GET /agora/matches/:matchId/events`, WebSocket; protocols/agora/platform-host.ts) is mounted on the daemon's
 *   API and verifies the presented match token locally against the same public key; streamed events go to one
 *   `AgoraEventStore` that the agora adapter reads into the bundle.
 * - Credentials: per-agent bearer tokens / HMAC secrets (`{ "<agentId>": { bearerToken?, hmacSecret? } }`,
 *   validated by the credential schema) stay in memory; nothing here logs them, the private key or the RPC URL.
 *
 * `close()` stops the daemon (graceful: running jobs get `shutdownGraceMs`) and then releases the seams'
 * HTTP connection pools. Signals are NOT handled here by default (`handleSignals: false`): the caller (the
 * CLI) installs its own SIGTERM/SIGINT handlers and calls `close()`.
 */
import type { MarketGuardOptions } from "../workflow/settle/index.js";
import type { Logger } from "pino";
import type { Address, Hex } from "viem";
import { AGORA_STREAM_PATH, AgoraEventStore } from "../protocols/agora/event-stream.js";
import { agoraHostSigner, mountAgoraEventStream } from "../protocols/agora/platform-host.js";
import type { AgoraAdapterConfig } from "../protocols/agora/adapter.js";
import {
  type BoundAgentCredentials,
  type CredentialStore,
  createCredentialStore,
} from "../workflow/adapters/credentials.js";
import { connect, type ChainContext, type RetryOptions } from "../workflow/chain/clients.js";
import type { EvaluatorConfig } from "../workflow/evaluate/index.js";
import { createSafeHttpClient, type SafeHttpConfig } from "../workflow/http/index.js";
import type { ResolutionConfig } from "../workflow/ports.js";
import { type DaemonConfigInput, parseDaemonConfig } from "./config.js";
import { createLogger, type DaemonHandle, sanitizeError, startDaemon } from "./index.js";
import type { SigningKey } from "./keys.js";
import { createMetrics } from "./metrics.js";
import { mountTrackRecord } from "./record-api.js";
import { AnswerRelayCache, mountAnswerRelay } from "./answer-relay.js";
import { donCompatibleHttp, type DonLimits } from "../workflow/don-limits.js";
import { RecordIndex } from "./record-index.js";
import { createPipelineSeams, type PipelineSeams } from "./seams.js";
import { ChainError } from "../workflow/chain/errors.js";

export type MarketOption = Address | `0x${string}` | { address: Address | `0x${string}`; startBlock?: number | bigint };

export interface ResolverDaemonOptions {
  /** JSON-RPC endpoint (secret: never logged). Required unless `ctx` is given. */
  rpcUrl?: string;
  /** A ready chain context with the resolver's wallet (e.g. `connectProvider` over an in-process chain). */
  ctx?: ChainContext;
  /** The resolver's key (a resolver of every watched market). Required with `rpcUrl`; ignored with `ctx`. */
  privateKey?: Hex;
  /** Retry policy of the chain context built from `rpcUrl` (pipeline reads and writes). */
  rpcRetry?: RetryOptions;
  /** ResolutionMarket contracts to watch. */
  markets: MarketOption[];
  /** Default: each market's identityRegistry(). */
  identityRegistry?: Address | undefined;
  /** SQLite file (created 0600). */
  dbPath: string;

  // --- daemon (daemon/config.ts; defaults there)
  apiHost?: string;
  /** 0 = any free port. */
  apiPort?: number;
  /** Bearer of POST /markets/:id/resolve (≥ 16 chars); without it manual triggers get 401. */
  apiToken?: string | undefined;
  confirmations?: number | undefined;
  pollIntervalMs?: number | undefined;
  maxBlockRange?: number;
  startBlock?: number | bigint;
  concurrency?: number | undefined;
  maxAttempts?: number | undefined;
  backoffMs?: number;
  maxBackoffMs?: number;
  jobTimeoutMs?: number;
  shutdownGraceMs?: number;
  instanceIndex?: number;
  instanceCount?: number;
  staggerMs?: number;
  /** Public base URL of the API: proposals carry `<publicUrl>/bundles/<hash>.json` as their bundle URI. */
  publicUrl?: string | undefined;
  /** A BettingMarket whose pools the explorer (/explorer) shows per market. */
  explorerBetting?: Address;
  /** A dispute of our proposal: escalate (default) or concede. */
  onDispute?: "escalate" | "concede";
  watchIntervalMs?: number;
  /** Blocks per eth_getLogs of the track-record index before provider limits split it. Default 2,000,000. */
  recordChunkBlocks?: bigint;
  /** Wipe a database bound to another chain or deployment instead of refusing to start. */
  resetStore?: boolean;
  /** What the settler refuses (workflow/settle/guard.ts): largest bond it pays, arbiters trusted besides the allow-list. */
  settlerGuard?: MarketGuardOptions;
  /** What escalating a dispute takes for a market's arbiter (default: nothing to send, e.g. a committee). */
  escalate?: (market: Address, marketId: bigint) => Promise<{ action: string; txHash?: Hex }>;
  /** Let startDaemon install its own SIGTERM/SIGINT handlers (they do not close the seams). Default false. */
  handleSignals?: boolean;

  // --- pipeline
  /** Per-agent secrets `{ "<agentId>": { origin, bearerToken?, hmacSecret? } }` (validated) or a ready store. */
  credentials?: Record<string, BoundAgentCredentials> | CredentialStore | undefined;
  /** Default: the rubric. */
  evaluator?: EvaluatorConfig;
  /** Outbound destination policy. Production: leave allowLoopback/allowPrivate unset. */
  http?: SafeHttpConfig;
  /** Worker call deadlines (defaults 30 s / 15 s). */
  resolveTimeoutMs?: number;
  challengeTimeoutMs?: number;
  resolution?: ResolutionConfig;
  /**
   * DON-compatible relay mode (`--don-mode`, docs/CRE.md): resolve every market as a DON with these limits, this
   * daemon's `/answers` as its `answerRelay` and its `/track-record` as its `trackRecord` does — from the same relay
   * document, with the DON's reply cap and deadlines, `cresolver` seats and the rubric only — so both give one bundle.
   */
  donMode?: { limits: DonLimits };
  /** Agora adapter tuning (the signer and event store are the daemon's). */
  agora?: Omit<AgoraAdapterConfig, "http" | "signer" | "eventSink"> & {
    /** Lifetime of a match token. Default 300 s. */
    tokenTtlSeconds?: number;
    /** `iss` claim of match tokens (agents may pin it). Default none. */
    issuer?: string;
  };

  // --- logs
  logger?: Logger;
  /** pino level when no logger is given. Default info. */
  logLevel?: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
}

export interface ResolverDaemonHandle extends DaemonHandle {
  /** The resolver's chain context (reads and writes of the pipeline). */
  ctx: ChainContext;
  /** The resolver's address. */
  resolver: Address;
  /** Where Agora agents verify match tokens: `${url}/.well-known/jwks.json`. */
  jwksUrl: string;
  /**
   * Base WebSocket URL of the Agora event stream, `ws://host:port` — what Agora agents are configured with
   * (the reference agent's `agoraStreamUrl`); they connect to `${agoraStreamUrl}/agora/matches/<matchId>/events`.
   */
  agoraStreamUrl: string;
  agoraEvents: AgoraEventStore;
  /** Stops the daemon, then releases the pipelines' HTTP pools. Idempotent. */
  close(): Promise<void>;
}

function credentialStore(given: ResolverDaemonOptions["credentials"]): CredentialStore | undefined {
  if (given === undefined) return undefined;
  if (typeof (given as CredentialStore).forEndpoint === "function") return given as CredentialStore;
  try {
    return createCredentialStore(given);
  } catch (err) {
    // Never echo values: the zod issues name paths (agent ids and fields) only.
    const issues = (err as { issues?: { path: PropertyKey[]; message: string }[] }).issues;
    const detail =
      issues?.map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`).join("; ") ?? "invalid shape";
    throw new Error(`invalid credentials: ${detail}`);
  }
}

/** Drops the undefined entries, so the result's keys are absent rather than present-and-undefined. */
type Defined<T> = { [K in keyof T]?: Exclude<T[K], undefined> };
function defined<T extends Record<string, unknown>>(o: T): Defined<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Defined<T>;
}

export async function startResolverDaemon(options: ResolverDaemonOptions): Promise<ResolverDaemonHandle> {
  const credentials = credentialStore(options.credentials);
  const don = options.donMode;
  if (don !== undefined && options.evaluator !== undefined && options.evaluator.kind !== "rubric")
    throw new Error("invalid daemon config: DON mode scores with the rubric (a DON cannot run the LLM evaluator)");
  // The DON's reply cap and deadlines (workflow/don-limits.ts), or replies a DON refuses would be accepted here.
  const donHttp = don !== undefined ? donCompatibleHttp(don.limits) : undefined;
  const startBlockOf = (market: string): bigint | undefined => {
    const m = options.markets.find(
      (x) => (typeof x === "string" ? x : x.address).toLowerCase() === market.toLowerCase(),
    );
    const b = typeof m === "object" ? m.startBlock : undefined;
    return b !== undefined ? BigInt(b) : options.startBlock !== undefined ? BigInt(options.startBlock) : undefined;
  };
  const markets = options.markets.map((m) =>
    typeof m === "string"
      ? m
      : { address: m.address, ...(m.startBlock !== undefined ? { startBlock: Number(m.startBlock) } : {}) },
  );
  const daemonConfig: DaemonConfigInput = {
    markets,
    dbPath: options.dbPath,
    handleSignals: options.handleSignals ?? false,
    ...defined({
      rpcUrl: options.rpcUrl,
      apiHost: options.apiHost,
      apiPort: options.apiPort,
      apiToken: options.apiToken,
      confirmations: options.confirmations,
      pollIntervalMs: options.pollIntervalMs,
      maxBlockRange: options.maxBlockRange,
      startBlock: options.startBlock === undefined ? undefined : Number(options.startBlock),
      concurrency: options.concurrency,
      maxAttempts: options.maxAttempts,
      backoffMs: options.backoffMs,
      maxBackoffMs: options.maxBackoffMs,
      jobTimeoutMs: options.jobTimeoutMs,
      shutdownGraceMs: options.shutdownGraceMs,
      instanceIndex: options.instanceIndex,
      instanceCount: options.instanceCount,
      staggerMs: options.staggerMs,
      publicUrl: options.publicUrl,
      onDispute: options.onDispute,
      watchIntervalMs: options.watchIntervalMs,
      resetStore: options.resetStore,
      logLevel: options.logLevel,
    }),
  };
  // Validate everything before touching the network (messages name keys, never values).
  parseDaemonConfig(daemonConfig);

  const secrets = [options.rpcUrl, options.privateKey, options.apiToken].filter(
    (s): s is string => typeof s === "string" && s !== "",
  );
  let ctx: ChainContext;
  if (options.ctx !== undefined) {
    ctx = options.ctx;
  } else {
    if (options.rpcUrl === undefined) throw new Error("startResolverDaemon needs rpcUrl or ctx");
    if (options.privateKey === undefined)
      throw new Error("startResolverDaemon needs the resolver's privateKey to write resolutions");
    try {
      ctx = await connect({
        rpcUrl: options.rpcUrl,
        privateKey: options.privateKey,
        ...(options.rpcRetry ? { retry: options.rpcRetry } : {}),
      });
    } catch (err) {
      throw new Error(sanitizeError(err, secrets));
    }
  }
  if (ctx.walletClient === undefined || ctx.account === undefined)
    throw new Error("startResolverDaemon needs a chain context with the resolver's key");

  const logger = options.logger ?? createLogger(options.logLevel !== undefined ? { level: options.logLevel } : {});
  const metrics = createMetrics();
  const agoraEvents = new AgoraEventStore();
  const { tokenTtlSeconds, issuer, ...agoraTuning } = options.agora ?? {};

  // Set by registerApiPlugins, which startDaemon calls before the API listens and before any job runs.
  let signingKey: SigningKey | undefined;
  let closed = false;
  const seams = new Map<string, PipelineSeams>();
  // One relay document per market, served by GET /answers and (DON mode) read by the daemon's own run.
  const relayDocuments = new AnswerRelayCache((market, marketId) => seamsFor(market).gatherAnswers(marketId), 256);
  // The track-record index per market contract, built (synced from the deployment block) before any job runs.
  const indexes = new Map<string, RecordIndex>();
  const seamsFor = (market: `0x${string}`): PipelineSeams => {
    const key = market.toLowerCase();
    let s = seams.get(key);
    if (s === undefined) {
      if (closed) throw new Error("the resolver daemon is closing");
      if (signingKey === undefined) throw new Error("the daemon's signing key is not loaded yet");
      const escalate = options.escalate;
      s = createPipelineSeams({
        ctx,
        market: market as Address,
        recordAgentCall: metrics.recordAgentCall,
        agora: { ...agoraTuning, signer: agoraHostSigner(signingKey, tokenTtlSeconds, issuer), eventSink: agoraEvents },
        ...defined({
          identityRegistry: options.identityRegistry,
          http: donHttp !== undefined ? { ...options.http, maxResponseBytes: donHttp.maxResponseBytes } : options.http,
          credentials,
          evaluator: options.evaluator,
          resolveTimeoutMs: donHttp?.resolveTimeoutMs ?? options.resolveTimeoutMs,
          challengeTimeoutMs: donHttp?.challengeTimeoutMs ?? options.challengeTimeoutMs,
          donMode:
            don === undefined
              ? undefined
              : {
                  limits: don.limits,
                  relayDocument: (marketId: bigint) => relayDocuments.get(key as Address, marketId).then((g) => g.text),
                },
          resolution: options.resolution,
          settlerGuard: options.settlerGuard,
          escalate: escalate === undefined ? undefined : (id: bigint) => escalate(market as Address, id),
          recordIndex: indexes.get(key),
          recordFromBlock: startBlockOf(key),
        }),
      });
      seams.set(key, s);
    }
    return s;
  };

  // The explorer's own client (bundles of other resolvers' proposals, https registration files), same destination policy.
  const explorerHttp = createSafeHttpClient({ ...options.http, userAgent: "cresolver-explorer" });
  const handle = await startDaemon(daemonConfig, {
    ...(options.rpcUrl === undefined ? { publicClient: ctx.publicClient } : {}),
    seamsFor,
    logger,
    metrics,
    explorer: {
      ctx,
      http: explorerHttp,
      markets: markets.map((m) => (typeof m === "string" ? m : m.address) as Address),
      // Agent pages read the track record from the daemon's index (filled below, before the API serves).
      records: (market) => indexes.get(market.toLowerCase()),
      ...(options.explorerBetting ? { betting: options.explorerBetting } : {}),
    },
    registerApiPlugins: async (app, { signingKey: key, store, chainId }) => {
      signingKey = key;
      for (const m of markets) {
        const address = (typeof m === "string" ? m : m.address).toLowerCase() as Address;
        const index = new RecordIndex(store.db, {
          chainId,
          market: address,
          fromBlock: startBlockOf(address) ?? 0n,
          ...(options.recordChunkBlocks !== undefined ? { chunkBlocks: options.recordChunkBlocks } : {}),
        });
        // One record path (docs/RECORDS.md §3): a market contract without `recordHead()` stops the start here.
        const synced = await index.sync(ctx).catch((err: unknown) => {
          if (err instanceof ChainError && /recordHead/.test(err.message))
            throw new ChainError(
              err.kind,
              `market contract ${address} has no track-record chain (docs/RECORDS.md §3): ${err.message.split("\n")[0]}`,
            );
          throw err;
        });
        logger.info({ market: address, entries: synced.count, added: synced.added }, "track-record index ready");
        indexes.set(address, index);
      }
      mountTrackRecord(app, chainId, indexes);
      mountAnswerRelay(app, {
        markets: markets.map((m) => (typeof m === "string" ? m : m.address).toLowerCase()),
        cache: relayDocuments,
      });
      await mountAgoraEventStream(app, key, agoraEvents, issuer);
    },
  }).catch(async (err: unknown) => {
    await explorerHttp.close();
    throw err;
  });
  if (handle.chainId !== ctx.chainId) {
    await handle.stop();
    await explorerHttp.close();
    throw new Error(
      `the daemon's RPC is on chain ${handle.chainId} but the resolver's chain context is on chain ${ctx.chainId}`,
    );
  }

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      closed = true;
      try {
        await handle.stop();
      } finally {
        await Promise.allSettled([...seams.values()].map((s) => s.close()).concat(explorerHttp.close()));
      }
    })();
    return closing;
  };

  logger.info(
    { resolver: ctx.account.address, jwks: `${handle.url}/.well-known/jwks.json`, agoraStream: AGORA_STREAM_PATH },
    "resolver daemon ready",
  );

  return {
    ...handle,
    // stop() on the handle also releases the pipelines, like close().
    stop: close,
    close,
    ctx,
    resolver: ctx.account.address,
    jwksUrl: `${handle.url}/.well-known/jwks.json`,
    agoraStreamUrl: handle.url.replace(/^http/, "ws"),
    agoraEvents,
  };
}
