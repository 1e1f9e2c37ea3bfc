/**
 * `GET /track-record` on the daemon's API: the served, verifiable record (docs/TRACK-RECORD.md) from the index.
 *
 *   ?market=0x…   the market contract (optional when the daemon watches one)
 *   ?count=N      the record as of N entries (default: the index's count; a market's cut-off for a DON)
 *   ?from=a       first entry of the page (default 0); the answer's `next` names the following page
 *   ?window=1     the estimator's window before `count` (what a DON fetches): ignores `from`
 */
import type { FastifyInstance } from "fastify";
import type { Address } from "viem";
import { encodeRecordDocument, encodeWindowDocument, RECORD_PAGE_BYTES } from "../workflow/core/record-document.js";
import type { RecordIndex } from "./record-index.js";

const uint = (v: unknown): number | undefined =>
  typeof v === "string" && /^\d{1,15}$/.test(v) ? Number(v) : v === undefined ? undefined : Number.NaN;

/** Entries a page may need: the page budget over the smallest entry (≥ 13 bytes), bounded. */
const PAGE_ENTRIES = Math.ceil(RECORD_PAGE_BYTES / 13);

export function mountTrackRecord(
  app: FastifyInstance,
  chainId: number,
  indexes: ReadonlyMap<string, RecordIndex>,
): void {
  app.get("/track-record", async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    const only = indexes.size === 1 ? [...indexes.keys()][0] : undefined;
    const market = typeof q.market === "string" ? q.market.toLowerCase() : only;
    if (market === undefined)
      return reply.code(400).send({ error: "several market contracts are configured: pass ?market=0x…" });
    const index = indexes.get(market);
    if (index === undefined) return reply.code(404).send({ error: "market contract not indexed by this daemon" });
    const stored = index.count();
    const count = uint(q.count) ?? stored;
    const from = uint(q.from) ?? 0;
    if (Number.isNaN(count) || Number.isNaN(from))
      return reply.code(400).send({ error: "count and from are decimal integers" });
    if (count > stored) return reply.code(404).send({ error: `the index holds ${stored} entries, not ${count}` });
    if (from > count) return reply.code(400).send({ error: `from ${from} is past count ${count}` });
    const head = (n: number) => {
      const h = index.headAt(n);
      if (h === undefined) throw new Error(`no head at ${n}`);
      return h;
    };
    if (q.window === "1" || q.window === "true") {
      const first = Math.max(0, count - 5_001);
      const loaded = index.entries(first, count);
      return encodeWindowDocument({
        chainId,
        market: market as Address,
        count,
        entryAt: (i) => loaded[i - first],
        headAt: head,
      });
    }
    return encodeRecordDocument({
      chainId,
      market: market as Address,
      count,
      from,
      headBefore: head(from),
      entries: index.entries(from, Math.min(count, from + PAGE_ENTRIES)),
    });
  });
}
