/**
 * HTTP API (fastify, 127.0.0.1 by default): health, Prometheus metrics, job + bundle per market, the
 * bundles at stable URLs (GET /bundles/<keccak256>.json, the exact bytes the hash is of), JWKS, and the
 * bearer-protected manual trigger (refused unless the chain says ResolutionRequested). Requests are logged
 * at debug: monitoring polls must not drown the job lines.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from "fastify";
import type { Logger } from "pino";
import { EXPLORER_PREFIX, explorerPlugin, type ExplorerOptions } from "../explorer/plugin.js";
import { parseStoredBundle, type StoredBundleDocument } from "../workflow/core/bundle-schema.js";
import { jwks } from "./keys.js";
import { ipfsCid } from "./cid.js";
import type { MarketOnChain } from "./config.js";
import { sanitizeError } from "./log.js";
import type { DaemonMetrics } from "./metrics.js";
import type { JobRow, Store } from "./store.js";
import type { TriggerStatus } from "./trigger.js";

const UINT256_MAX = 2n ** 256n - 1n;

export interface ApiOptions {
  store: Store;
  metrics: DaemonMetrics;
  logger: Logger;
  chainId: number;
  markets: `0x${string}`[];
  apiToken?: string | undefined;
  pollIntervalMs: number;
  triggerStatus: () => TriggerStatus;
  /** A manual request was recorded: wake the runner. */
  onManual: () => void;
  /** Fresh chain read of one market (the manual trigger checks the status). */
  readMarket: (market: `0x${string}`, marketId: bigint) => Promise<MarketOnChain>;
  secrets?: readonly string[];
  /** Mounts the explorer web app at /explorer (reads the chain; bundles from this daemon's store first). */
  explorer?: Omit<ExplorerOptions, "localBundle">;
}

/** Constant-time bearer check: compares SHA-256 digests, so neither content nor length leaks through timing. */
export function bearerMatches(header: string | undefined, token: string | undefined): boolean {
  if (!token || typeof header !== "string") return false;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  const given = createHash("sha256")
    .update(m?.[1] ?? "")
    .digest();
  const expected = createHash("sha256").update(token).digest();
  return timingSafeEqual(given, expected) && m !== null;
}

function parseMarketId(raw: string): bigint | undefined {
  if (!/^\d{1,78}$/.test(raw)) return undefined;
  const id = BigInt(raw);
  return id <= UINT256_MAX ? id : undefined;
}

export function jobView(job: JobRow) {
  return {
    chainId: job.chainId,
    market: job.market,
    marketId: job.marketId.toString(10),
    state: job.state,
    attempts: job.attempts,
    sendAttempts: job.sendAttempts,
    lastOutcome: job.lastOutcome,
    lastError: job.lastError,
    verdict: job.verdict,
    reason: job.reason,
    bundleHash: job.bundleHash,
    bundleUri: job.bundleUri,
    txHash: job.txHash,
    disputeEndsAt: job.disputeEndsAt === null ? null : new Date(job.disputeEndsAt * 1000).toISOString(),
    dispute:
      job.disputer === null
        ? null
        : { disputer: job.disputer, claimed: job.claimed, action: job.disputeAction, txHash: job.disputeTx },
    finalStatus: job.finalStatus,
    finalVerdict: job.finalVerdict,
    overturned: job.finalVerdict === null || job.verdict === null ? null : job.finalVerdict !== job.verdict,
    finalizeTx: job.finalizeTx,
    feedback: job.feedback,
    source: job.source,
    requestedBlock: job.requestedBlock,
    requestedTx: job.requestedTx,
    createdAt: new Date(job.createdAt).toISOString(),
    updatedAt: new Date(job.updatedAt).toISOString(),
    startedAt: job.startedAt === null ? null : new Date(job.startedAt).toISOString(),
    finishedAt: job.finishedAt === null ? null : new Date(job.finishedAt).toISOString(),
    nextAttemptAt: new Date(job.nextAttemptAt).toISOString(),
  };
}

export async function buildApi(o: ApiOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: o.logger.child({ component: "api" }) as FastifyBaseLogger,
    bodyLimit: 16 * 1024,
    return503OnClosing: true,
    forceCloseConnections: true,
    // Fastify's own per-request lines are off; the hook below logs each request at debug (pollers would drown job lines).
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.addHook("onResponse", async (req, reply) => {
    req.log.debug(
      { method: req.method, url: req.url, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      "api request",
    );
  });

  const resolveMarket = (req: FastifyRequest, reply: FastifyReply): `0x${string}` | undefined => {
    const q = (req.query as { market?: unknown }).market;
    if (q === undefined) {
      if (o.markets.length === 1) return o.markets[0];
      void reply.code(400).send({ error: "several market contracts are configured: pass ?market=0x…" });
      return undefined;
    }
    const addr = typeof q === "string" ? q.toLowerCase() : "";
    const found = o.markets.find((m) => m === addr);
    if (!found) {
      void reply.code(404).send({ error: "market contract not watched by this daemon" });
      return undefined;
    }
    return found;
  };

  app.get("/health", async (_req, reply) => {
    const t = o.triggerStatus();
    const staleAfter = Math.max(10 * o.pollIntervalMs, 30_000);
    const ok = !o.store.isClosed && t.lastPollOkAt !== undefined && Date.now() - t.lastPollOkAt <= staleAfter;
    return reply.code(ok ? 200 : 503).send({
      ok,
      chainId: o.chainId,
      head: t.head ?? null,
      lastPollOkAt: t.lastPollOkAt === undefined ? null : new Date(t.lastPollOkAt).toISOString(),
      lastError: t.lastError ?? null,
      markets: t.markets.map((m) => ({
        market: m.market,
        lastProcessedBlock: m.lastProcessedBlock ?? null,
        lag: m.lag ?? null,
      })),
    });
  });

  app.get("/metrics", async (_req, reply) => {
    const body = await o.metrics.registry.metrics();
    return reply.header("content-type", o.metrics.registry.contentType).send(body);
  });

  app.get("/.well-known/jwks.json", async (_req, reply) => {
    return reply.header("cache-control", "public, max-age=300").send(jwks(o.store));
  });

  app.get<{ Params: { id: string } }>("/markets/:id", async (req, reply) => {
    const marketId = parseMarketId(req.params.id);
    if (marketId === undefined) return reply.code(400).send({ error: "market id must be a decimal uint256" });
    const market = resolveMarket(req, reply);
    if (!market) return reply;
    const job = o.store.getJob({ chainId: o.chainId, market, marketId });
    if (!job) return reply.code(404).send({ error: "no job for this market" });
    const bundles = o.store.bundles(job.id);
    // The proposal's bundle once there is one, else the last run's.
    const latest = (job.bundleHash ? bundles.find((b) => b.hash === job.bundleHash) : undefined) ?? bundles.at(-1);
    return reply.send({
      job: jobView(job),
      bundle: latest
        ? {
            attempt: latest.attempt,
            hash: latest.hash,
            path: `/bundles/${latest.hash}.json`,
            ipfsUri: `ipfs://${await ipfsCid(latest.json)}`,
            json: latest.json,
            ...storedDocument(latest.json),
          }
        : null,
      bundles: bundles.map((b) => ({
        attempt: b.attempt,
        hash: b.hash,
        txHash: b.txHash,
        path: `/bundles/${b.hash}.json`,
      })),
    });
  });

  app.get<{ Params: { file: string } }>("/bundles/:file", async (req, reply) => {
    const hash = /^(0x[0-9a-fA-F]{64})\.json$/.exec(req.params.file)?.[1];
    if (hash === undefined) return reply.code(400).send({ error: "expected /bundles/<0x-prefixed keccak256>.json" });
    const json = o.store.bundleByHash(hash);
    if (json === undefined) return reply.code(404).send({ error: "no bundle with this hash" });
    // Exactly the stored canonical text: keccak256 of the body is the hash in the URL (and on chain).
    return reply
      .header("content-type", "application/json; charset=utf-8")
      .header("cache-control", "public, max-age=31536000, immutable")
      .send(Buffer.from(json, "utf8"));
  });

  app.post<{ Params: { id: string } }>("/markets/:id/resolve", async (req, reply) => {
    if (!bearerMatches(req.headers.authorization, o.apiToken)) {
      return reply
        .code(401)
        .header("www-authenticate", 'Bearer realm="cresolver-daemon"')
        .send({ error: "unauthorized" });
    }
    const marketId = parseMarketId(req.params.id);
    if (marketId === undefined) return reply.code(400).send({ error: "market id must be a decimal uint256" });
    const market = resolveMarket(req, reply);
    if (!market) return reply;
    // Only the chain decides whether a market awaits a proposal: a premature trigger is refused, never an attempt.
    let chain: MarketOnChain;
    try {
      chain = await o.readMarket(market, marketId);
    } catch (err) {
      return reply
        .code(503)
        .send({ error: `cannot read the market from the chain: ${sanitizeError(err, o.secrets ?? [])}` });
    }
    const existing = o.store.getJob({ chainId: o.chainId, market, marketId });
    if (chain.status !== "requested") {
      req.log.info(
        { market, marketId: marketId.toString(10), chainStatus: chain.status },
        "manual resolution request refused: market not awaiting resolution",
      );
      return reply.code(409).send({
        error: `market is not awaiting resolution (chain status: ${chain.status})`,
        chainStatus: chain.status,
        job: existing ? jobView(existing) : null,
      });
    }
    const { job, action } = o.store.manualRequest({ chainId: o.chainId, market, marketId });
    if (action !== "unchanged") o.onManual();
    req.log.info({ market, marketId: marketId.toString(10), action, state: job.state }, "manual resolution request");
    return reply.code(202).send({ action, job: jobView(job) });
  });

  if (o.explorer)
    await app.register(explorerPlugin, {
      ...o.explorer,
      localBundle: (hash) => o.store.bundleByHash(hash),
      prefix: EXPLORER_PREFIX,
    });

  return app;
}

/** The stored bundle as a checked document; a bundle that fails the schema is still served, with the reason. */
function storedDocument(json: string): { document: StoredBundleDocument | null; documentError?: string } {
  try {
    return { document: parseStoredBundle(json) };
  } catch (e) {
    return { document: null, documentError: e instanceof Error ? e.message : String(e) };
  }
}
