/**
 * `GET /answers/<marketId>` on the daemon's API: the daemon as a relay of agent-signed answers (docs/CRE.md
 * "Signed-answer relay"). On the first request for a market in ResolutionRequested it asks the panel itself
 * (workflow/relay/gather.ts) and keeps the document, so every DON node — and any later reader — gets the same bytes.
 * It can only leave answers out: every answer in it carries the agent's own signature, which readers verify.
 *
 *   ?market=0x…   the market contract (optional when the daemon watches one)
 *
 * 200 the document · 400 bad id / market · 404 market contract not watched · 409 the market cannot be resolved now
 * (not ResolutionRequested) · 503 still gathering after `waitMs` (try again).
 */
import type { FastifyInstance } from "fastify";
import type { GatheredAnswers } from "../workflow/relay/gather.js";
import { sanitizeError } from "./log.js";

export interface AnswerRelayOptions {
  /** Watched market contracts (lower-case). */
  markets: readonly string[];
  /** Gathers one market's document (the daemon: the market's seams). Rejects when the market cannot be resolved. */
  gather?(market: `0x${string}`, marketId: bigint): Promise<GatheredAnswers>;
  /** A cache shared with others who read the same documents (the daemon's own DON-mode runs); else one over `gather`. */
  cache?: AnswerRelayCache;
  /** How long a request waits for a gathering in progress, ms (a DON's HTTP call gives up after 10 s). Default 8,000. */
  waitMs?: number;
  /** Documents kept (oldest dropped first) by the cache built over `gather`. Default 256. */
  maxDocuments?: number;
}

const UINT256_MAX = 2n ** 256n - 1n;

/** Gathers each market's document once (concurrent requests share it); a failed gathering is forgotten. */
export class AnswerRelayCache {
  readonly #documents = new Map<string, Promise<GatheredAnswers>>();
  constructor(
    private readonly gather: NonNullable<AnswerRelayOptions["gather"]>,
    private readonly max: number,
  ) {}

  get(market: `0x${string}`, marketId: bigint): Promise<GatheredAnswers> {
    const key = `${market}:${marketId}`;
    let doc = this.#documents.get(key);
    if (doc === undefined) {
      doc = this.gather(market, marketId);
      this.#documents.set(key, doc);
      doc.catch(() => {
        if (this.#documents.get(key) === doc) this.#documents.delete(key);
      });
      while (this.#documents.size > this.max) {
        const oldest = this.#documents.keys().next().value;
        if (oldest === undefined) break;
        this.#documents.delete(oldest);
      }
    }
    return doc;
  }
}

const TIMED_OUT = Symbol("timed out");

export function mountAnswerRelay(app: FastifyInstance, options: AnswerRelayOptions): AnswerRelayCache {
  let cache = options.cache;
  if (cache === undefined) {
    if (options.gather === undefined) throw new Error("mountAnswerRelay needs gather or cache");
    cache = new AnswerRelayCache(options.gather, options.maxDocuments ?? 256);
  }
  const documents = cache;
  const waitMs = options.waitMs ?? 8_000;
  app.get("/answers/:marketId", async (req, reply) => {
    const raw = (req.params as { marketId?: unknown }).marketId;
    const id = typeof raw === "string" && /^\d{1,78}$/.test(raw) ? BigInt(raw) : undefined;
    if (id === undefined || id > UINT256_MAX) return reply.code(400).send({ error: "marketId is a decimal uint256" });
    const q = (req.query as { market?: unknown }).market;
    const only = options.markets.length === 1 ? options.markets[0] : undefined;
    const market = typeof q === "string" ? q.toLowerCase() : only;
    if (market === undefined)
      return reply.code(400).send({ error: "several market contracts are configured: pass ?market=0x…" });
    if (!options.markets.includes(market))
      return reply.code(404).send({ error: "market contract not watched by this daemon" });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
      timer = setTimeout(() => resolve(TIMED_OUT), waitMs);
    });
    try {
      const out = await Promise.race([documents.get(market as `0x${string}`, id), timeout]);
      if (out === TIMED_OUT)
        return reply.code(503).header("retry-after", "5").send({ error: "still gathering the panel's answers" });
      return reply.code(200).header("content-type", "application/json; charset=utf-8").send(out.text);
    } catch (error) {
      return reply
        .code(409)
        .send({ error: `market ${id} cannot be relayed now: ${sanitizeError(error).split("\n")[0]?.slice(0, 300)}` });
    } finally {
      clearTimeout(timer);
    }
  });
  return documents;
}
