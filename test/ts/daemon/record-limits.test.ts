/**
 * Provider limits and the served record at scale, on a real chain: 10,050 `MarketRecorded` entries (RecordChainProbe)
 * behind a loopback JSON-RPC that enforces a 10,000-result cap, then a block-range cap; the index builds through
 * both, a single refused block fails with the provider's own message, and GET /track-record pages the whole record
 * into documents whose heads chain to recordHead().
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mountTrackRecord } from "../../../daemon/record-api.js";
import { RecordIndex } from "../../../daemon/record-index.js";
import { DatabaseSync } from "../../../daemon/sqlite.js";
import { connect } from "../../../workflow/chain/clients.js";
import { readRecordHead } from "../../../workflow/chain/record.js";
import {
  decodeRecordDocument,
  RECORD_PAGE_BYTES,
  verifyWindowDocument,
} from "../../../workflow/core/record-document.js";
import { recordWindow, ZERO_HEAD } from "../../../workflow/core/track-record.js";
import { type LimitedRpc, startLimitedRpc } from "../chain/helpers/limited-rpc.js";
import { deployRecordChain, type RecordChain } from "../chain/helpers/record-chain.js";

const N = 10_050;
let chain: RecordChain;
let dir: string;
const open: { close(): unknown }[] = [];

beforeAll(async () => {
  chain = await deployRecordChain();
  await chain.record(N, { perTx: 700, seats: 1 });
  dir = mkdtempSync(join(tmpdir(), "record-limits-"));
}, 300_000);

afterAll(async () => {
  for (const o of open.reverse()) await o.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function indexOver(rpc: LimitedRpc, name: string, chunkBlocks?: bigint) {
  const ctx = await connect({ rpcUrl: rpc.url });
  const db = new DatabaseSync(join(dir, `${name}.sqlite`));
  open.push(db);
  const index = new RecordIndex(db, {
    chainId: ctx.chainId,
    market: chain.probe,
    ...(chunkBlocks !== undefined ? { chunkBlocks } : {}),
  });
  return { ctx, index };
}

describe("the index under a provider's limits", () => {
  it("builds through the 10,000-result cap by taking the provider's suggested range, without retries", async () => {
    const rpc = await startLimitedRpc(chain.provider, { maxResults: 10_000 });
    open.push(rpc);
    const { ctx, index } = await indexOver(rpc, "cap");
    const synced = await index.sync(ctx);
    expect(synced.count).toBe(N);
    expect(synced.head).toBe((await chain.recordHead()).head);
    const refused = rpc.getLogs.filter((g) => g.refused);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    // Each refused range was asked once (a range limit is not retried as a rate limit), then split.
    const keys = refused.map((g) => `${g.from}-${g.to}`);
    expect(new Set(keys).size).toBe(keys.length);
    // The whole range first, then exactly the range the provider suggested (it ends before the 10,001st result).
    const [first, second] = rpc.getLogs;
    expect(first).toMatchObject({ refused: true });
    expect(second).toMatchObject({ from: first?.from, refused: false });
    expect(second?.to).toBeLessThan(first?.to ?? 0n);
    expect(rpc.getLogs.length).toBeLessThanOrEqual(6);
  }, 120_000);

  it("builds through a block-range cap, finding the cap by halving then a binary search", async () => {
    await chain.mine(40); // a chain taller than the cap
    const rpc = await startLimitedRpc(chain.provider, { maxRange: 8 });
    open.push(rpc);
    const { ctx, index } = await indexOver(rpc, "range", 1_000n);
    const synced = await index.sync(ctx);
    expect(synced.count).toBe(N);
    const answered = rpc.getLogs.filter((g) => !g.refused);
    expect(answered.every((g) => g.to - g.from + 1n <= 8n)).toBe(true);
    // Halving from 1,000 blocks finds a span under the cap; growing back is a binary search up to it, not a walk.
    const firstAnswer = rpc.getLogs.findIndex((g) => !g.refused);
    const refusedAfter = rpc.getLogs.slice(firstAnswer).filter((g) => g.refused);
    expect(refusedAfter.length).toBeLessThanOrEqual(3);
    expect(answered.slice(-5).every((g) => g.to - g.from + 1n === 8n || g.to === answered.at(-1)?.to)).toBe(true);
  }, 120_000);

  it("a single block over the cap fails with the provider's message kept", async () => {
    const rpc = await startLimitedRpc(chain.provider, { maxResults: 100 });
    open.push(rpc);
    const { ctx, index } = await indexOver(rpc, "one-block");
    const err = await index.sync(ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    const message = (err as Error).message;
    expect(message).toMatch(/the provider refused one block: query returned more than 100 results/);
    expect(message.split("\n")).toHaveLength(1);
    // The first block already holds 700 entries: nothing stored, the next sync starts over.
    expect(index.count()).toBe(0);
  }, 120_000);
});

describe("GET /track-record", () => {
  let app: FastifyInstance;
  let base: string;
  let index: RecordIndex;
  let chainId: number;
  let rpc: LimitedRpc;

  beforeAll(async () => {
    rpc = await startLimitedRpc(chain.provider);
    open.push(rpc);
    const built = await indexOver(rpc, "api");
    index = built.index;
    chainId = built.ctx.chainId;
    await index.sync(built.ctx);
    app = Fastify();
    mountTrackRecord(app, chainId, new Map([[chain.probe.toLowerCase(), index]]));
    base = await app.listen({ host: "127.0.0.1", port: 0 });
    open.push({ close: () => app.close() });
  }, 120_000);

  const get = async (query: string) => {
    const res = await fetch(`${base}/track-record${query}`);
    return { status: res.status, text: await res.text() };
  };

  it("pages the whole record; every page is bounded and the heads chain to recordHead()", async () => {
    const onChain = await chain.recordHead();
    let from: number | undefined = 0;
    let headBefore = ZERO_HEAD;
    let entries = 0;
    let pages = 0;
    while (from !== undefined) {
      const { status, text } = await get(`?from=${from}`);
      expect(status).toBe(200);
      const { doc, entries: got } = decodeRecordDocument(text);
      expect(doc.headBefore).toBe(headBefore);
      expect(doc.from).toBe(from);
      expect(doc.count).toBe(N);
      expect(Buffer.from(doc.entries, "base64").length + 20 * doc.addresses.length).toBeLessThanOrEqual(
        RECORD_PAGE_BYTES,
      );
      expect(got).toEqual(chain.recorded.slice(doc.from, doc.to));
      entries += got.length;
      headBefore = doc.head;
      from = doc.next;
      pages += 1;
    }
    expect(pages).toBeGreaterThan(1);
    expect(entries).toBe(N);
    expect(headBefore).toBe(onChain.head);
  }, 120_000);

  it("serves the record as of an earlier count and the estimator's window, verified against the chain", async () => {
    const at = 4_321;
    const { doc } = decodeRecordDocument((await get(`?count=${at}&from=${at - 10}`)).text);
    expect(doc).toMatchObject({ count: at, from: at - 10, to: at });
    expect(doc.next).toBeUndefined();
    expect(doc.head).toBe(index.headAt(at));

    const cutoff = await readRecordHead(await connect({ rpcUrl: rpc.url }), chain.probe);
    const { text } = await get("?window=1");
    const { entries, window } = verifyWindowDocument(text, cutoff, { chainId, market: chain.probe });
    const expected = recordWindow(N, (i) => chain.recorded[i]);
    expect(window.start).toBe(expected.start);
    expect(entries).toEqual(chain.recorded.slice(expected.start));
  }, 120_000);

  it("answers bad queries with one-line errors", async () => {
    expect(await get(`?count=${N + 1}`)).toMatchObject({ status: 404 });
    expect(JSON.parse((await get(`?count=${N + 1}`)).text).error).toMatch(/holds 10050 entries/);
    expect((await get("?from=-1")).status).toBe(400);
    expect((await get("?count=12&from=13")).status).toBe(400);
    expect((await get("?market=0x0000000000000000000000000000000000000001")).status).toBe(404);
  });
});
