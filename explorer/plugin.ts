/**
 * The explorer as a fastify plugin, mounted under /explorer by the daemon's API (with the daemon's bundle store)
 * and by `cresolver explorer` (chain and bundle URIs only). Pages are server-rendered; one small ES module
 * (client/explorer.js) refreshes the market list from /explorer/api/markets and checks the bundle hash with
 * keccak-256 from @noble/hashes (viem's own copy, served as ES modules: no bundler, no CDN).
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { getAddress, isAddress, type Address } from "viem";
import { parseStoredBundle, type StoredBundleDocument } from "../workflow/core/bundle-schema.js";
import {
  agentDetail,
  agentNames,
  agentsOf,
  listMarkets,
  MAX_AGENT_MARKETS,
  type MarketPage,
  marketDetail,
  marketRow,
  type ExplorerSource,
} from "./data.js";
import { importMapOf, layout, STYLE, type Page } from "./html.js";
import { agentPage, agentsPage, errorPage, marketPage, marketsPage, pageCaption, rowView } from "./pages.js";

export type ExplorerOptions = ExplorerSource;

export const EXPLORER_PREFIX = "/explorer";
const UINT256_MAX = 2n ** 256n - 1n;
/** How long one read of the market list serves the list page and its pollers. */
const LIST_CACHE_MS = 1_000;

const CLIENT_DIR = join(dirname(fileURLToPath(import.meta.url)), "client");
/** viem's @noble/hashes (a declared dependency of viem, so always installed with it), ESM build. */
const NOBLE_DIR = (() => {
  const fromViem = createRequire(createRequire(import.meta.url).resolve("viem"));
  return join(dirname(fromViem.resolve("@noble/hashes/sha3")), "esm");
})();
const NOBLE_FILES = new Set(["sha3.js", "_u64.js", "utils.js", "crypto.js"]);

const sha256b64 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

function parseId(raw: string): bigint | undefined {
  if (!/^\d{1,78}$/.test(raw)) return undefined;
  const id = BigInt(raw);
  return id <= UINT256_MAX ? id : undefined;
}

const oneLine = (err: unknown) =>
  ((err instanceof Error ? err.message : String(err)).split("\n")[0] ?? "").slice(0, 500);

export async function explorerPlugin(app: FastifyInstance, src: ExplorerOptions): Promise<void> {
  const base = EXPLORER_PREFIX;
  const multi = src.markets.length > 1;
  // Only our own scripts and the two constant inline blocks run: a question with markup cannot execute anything.
  const csp = [
    "default-src 'none'",
    `script-src 'self' ${sha256b64(importMapOf(base))}`,
    `style-src ${sha256b64(STYLE)}`,
    "connect-src 'self'",
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
  const html = (reply: FastifyReply, page: Page, code = 200) =>
    reply
      .code(code)
      .header("content-type", "text/html; charset=utf-8")
      .header("content-security-policy", csp)
      .header("x-content-type-options", "nosniff")
      .header("cache-control", "no-store")
      .send(layout(base, page));

  const pickMarket = (req: FastifyRequest): Address | undefined => {
    const q = (req.query as { market?: unknown }).market;
    if (q === undefined) return src.markets[0];
    if (typeof q !== "string" || !isAddress(q, { strict: false })) return undefined;
    const a = getAddress(q);
    return src.markets.find((m) => getAddress(m) === a);
  };

  // Every open list page polls: concurrent and back-to-back requests share one chain read per second (per page).
  const listings = new Map<number, { at: number; rows: Promise<MarketPage> }>();
  const listed = (page: number, perPage?: number): Promise<MarketPage> => {
    const key = perPage === undefined ? page : -perPage;
    const hit = listings.get(key);
    if (hit !== undefined && Date.now() - hit.at <= LIST_CACHE_MS) return hit.rows;
    if (listings.size > 64) listings.clear();
    const rows = listMarkets(src, page, perPage);
    listings.set(key, { at: Date.now(), rows });
    rows.catch(() => {
      if (listings.get(key)?.rows === rows) listings.delete(key);
    });
    return rows;
  };
  const pageOf = (req: FastifyRequest): number => {
    const raw = (req.query as { page?: unknown }).page;
    return typeof raw === "string" && /^[1-9]\d{0,5}$/.test(raw) ? Number(raw) : 1;
  };

  app.get("/", async (req, reply) => {
    try {
      const listing = await listed(pageOf(req));
      return html(
        reply,
        marketsPage(
          base,
          listing.rows.map((r) => rowView(base, r, multi)),
          listing,
        ),
      );
    } catch (err) {
      return html(reply, errorPage(`cannot read the markets: ${oneLine(err)}`), 502);
    }
  });

  app.get("/api/markets", async (req, reply) => {
    try {
      const listing = await listed(pageOf(req));
      return reply.header("cache-control", "no-store").send({
        rows: listing.rows.map((r) => rowView(base, r, multi)),
        caption: pageCaption(listing.rows.length, listing),
      });
    } catch (err) {
      return reply.code(502).send({ error: `cannot read the markets: ${oneLine(err)}` });
    }
  });

  app.get<{ Params: { id: string } }>("/api/markets/:id", async (req, reply) => {
    const id = parseId(req.params.id);
    if (id === undefined) return reply.code(400).send({ error: "market id must be a decimal uint256" });
    const market = pickMarket(req);
    if (market === undefined) return reply.code(404).send({ error: "unknown market contract" });
    try {
      return reply
        .header("cache-control", "no-store")
        .send({ row: rowView(base, await marketRow(src, market, id), multi) });
    } catch (err) {
      const msg = oneLine(err);
      return reply
        .code(/unknown market|no such market/i.test(msg) ? 404 : 502)
        .send({ error: `cannot read market ${id}: ${msg}` });
    }
  });

  const detailOf = async (req: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
    const id = parseId(req.params.id);
    if (id === undefined) return void html(reply, errorPage("market id must be a decimal uint256"), 400);
    const market = pickMarket(req);
    if (market === undefined)
      return void html(reply, errorPage("unknown market contract: pass ?market= one of the shown contracts"), 404);
    try {
      return { market, id, detail: await marketDetail(src, market, id) };
    } catch (err) {
      const msg = oneLine(err);
      return void html(
        reply,
        errorPage(`cannot read market ${id}: ${msg}`),
        /unknown market|no such market/i.test(msg) ? 404 : 502,
      );
    }
  };

  app.get<{ Params: { id: string } }>("/markets/:id", async (req, reply) => {
    const got = await detailOf(req, reply);
    if (got === undefined) return reply;
    const { detail, id, market } = got;
    let trace: StoredBundleDocument | undefined;
    let traceError: string | undefined;
    if (detail.bundle.state === "loaded") {
      try {
        trace = parseStoredBundle(detail.bundle.text);
      } catch (err) {
        traceError = oneLine(err);
      }
    }
    const query = multi ? `?market=${market}` : "";
    return html(
      reply,
      marketPage(
        base,
        detail,
        trace,
        traceError,
        `${base}/markets/${id}/bundle.json${query}`,
        `${base}/api/markets/${id}${query}`,
      ),
    );
  });

  // The exact bytes the page's trace was rendered from: the browser hashes them against the on-chain bundleHash.
  app.get<{ Params: { id: string } }>("/markets/:id/bundle.json", async (req, reply) => {
    const got = await detailOf(req, reply);
    if (got === undefined) return reply;
    if (got.detail.bundle.state !== "loaded") return reply.code(404).send({ error: got.detail.bundle.reason });
    return reply
      .header("content-type", "application/json; charset=utf-8")
      .header("cache-control", "no-store")
      .send(Buffer.from(got.detail.bundle.text, "utf8"));
  });

  app.get("/agents", async (_req, reply) => {
    try {
      const agents = agentsOf((await listed(1, MAX_AGENT_MARKETS)).rows);
      const names = await agentNames(
        src,
        agents.map((a) => a.agentId),
      );
      return html(
        reply,
        agentsPage(
          base,
          agents.map((a) => {
            const name = names.get(a.agentId.toString());
            return name !== undefined ? { ...a, name } : a;
          }),
        ),
      );
    } catch (err) {
      return html(reply, errorPage(`cannot read the agents: ${oneLine(err)}`), 502);
    }
  });

  app.get<{ Params: { id: string } }>("/agents/:id", async (req, reply) => {
    const id = parseId(req.params.id);
    if (id === undefined) return html(reply, errorPage("agent id must be a decimal uint256"), 400);
    try {
      return html(reply, agentPage(base, await agentDetail(src, id)));
    } catch (err) {
      return html(reply, errorPage(`cannot read agent ${id}: ${oneLine(err)}`), 502);
    }
  });

  const js = (reply: FastifyReply, body: Buffer) =>
    reply
      .header("content-type", "text/javascript; charset=utf-8")
      .header("cache-control", "public, max-age=300")
      .header("x-content-type-options", "nosniff")
      .send(body);
  app.get("/assets/explorer.js", async (_req, reply) => js(reply, await readFile(join(CLIENT_DIR, "explorer.js"))));
  app.get<{ Params: { file: string } }>("/assets/noble/:file", async (req, reply) => {
    if (!NOBLE_FILES.has(req.params.file)) return reply.code(404).send({ error: "not found" });
    return js(reply, await readFile(join(NOBLE_DIR, req.params.file)));
  });
}
