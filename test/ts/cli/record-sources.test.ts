/**
 * The three ways a resolver reads the track record give the estimator the same history: the daemon's index
 * (RecordIndex.history), `cresolver resolve --record-cache` (the same index over a cache file, synced on use) and
 * `--record-url` (a daemon's GET /track-record window document, verified against the head on-chain). Real chain
 * (Hardhat, RecordChainProbe), real SQLite files, a real Fastify server on loopback.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cachedTrackRecord, openRecordIndex, servedTrackRecord } from "../../../cli/commands/track-record-source.js";
import { mountTrackRecord } from "../../../daemon/record-api.js";
import { connect } from "../../../workflow/chain/clients.js";
import { readRecordHead } from "../../../workflow/chain/record.js";
import type { MarketSnapshot, WorkerSeat } from "../../../workflow/core/types.js";
import { decideVerdict } from "../../../workflow/core/vote.js";
import { createSafeHttpClient } from "../../../workflow/http/client.js";
import { type LimitedRpc, startLimitedRpc } from "../chain/helpers/limited-rpc.js";
import { deployRecordChain, type RecordChain } from "../chain/helpers/record-chain.js";

const PANEL = [1n, 2n, 3n, 4n, 5n, 6n, 7n];
let chain: RecordChain;
let rpc: LimitedRpc;
let dir: string;

beforeAll(async () => {
  chain = await deployRecordChain();
  await chain.record(1_500, { perTx: 300, seats: 7 });
  rpc = await startLimitedRpc(chain.provider);
  dir = mkdtempSync(join(tmpdir(), "record-sources-"));
}, 120_000);

afterAll(async () => {
  await rpc?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("track-record sources", () => {
  it("the daemon's index, a cache file and a served document give the same history and verdict", async () => {
    const ctx = await connect({ rpcUrl: rpc.url });
    const scope = { ctx, market: chain.probe, fromBlock: 0n };
    const daemon = openRecordIndex(join(dir, "daemon.sqlite"), scope);
    await daemon.index.sync(ctx);
    const app = Fastify();
    mountTrackRecord(app, ctx.chainId, new Map([[chain.probe.toLowerCase(), daemon.index]]));
    const base = await app.listen({ host: "127.0.0.1", port: 0 });
    const http = createSafeHttpClient({ allowLoopback: true });
    const cache = openRecordIndex(join(dir, "cache.sqlite"), scope);
    try {
      const snapshot = {
        chainId: ctx.chainId,
        marketAddress: chain.probe,
        marketId: 99_999n,
        workers: PANEL.map((agentId) => ({ agentId }) as WorkerSeat),
      } as MarketSnapshot;
      const head = await readRecordHead(ctx, chain.probe);
      const fromIndex = daemon.index.history(head, PANEL, ctx.chainId);
      const fromCache = await cachedTrackRecord(cache.index, scope).history(snapshot);
      const fromServed = await servedTrackRecord(http, base, scope).history(snapshot);
      expect(fromIndex.length).toBeGreaterThan(500);
      expect(fromCache).toEqual(fromIndex);
      expect(fromServed).toEqual(fromIndex);
      const reports = PANEL.map((_, i) => ({
        answer: i < 3 ? ("yes" as const) : ("no" as const),
        confidenceBps: 7000 + 300 * i,
        resQuality: 50,
        srcQuality: 50,
        analysisDepth: 50,
      }));
      const verdicts = [fromIndex, fromCache, fromServed].map((history) =>
        decideVerdict({ agentIds: PANEL, reports, history }),
      );
      expect(verdicts[1]).toEqual(verdicts[0]);
      expect(verdicts[2]).toEqual(verdicts[0]);

      // A server that alters the record is refused: the window no longer leads to the chain's head.
      const liar = Fastify();
      liar.get("/track-record", async (req) => {
        const res = await fetch(`${base}/track-record?${new URL(req.url, base).searchParams}`);
        const doc = (await res.json()) as { entries: string };
        const bytes = Buffer.from(doc.entries, "base64");
        bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
        return { ...doc, entries: bytes.toString("base64") };
      });
      const liarBase = await liar.listen({ host: "127.0.0.1", port: 0 });
      await expect(servedTrackRecord(http, liarBase, scope).history(snapshot)).rejects.toThrow(
        /do not lead to|malformed|out of range|trailing|refused/,
      );
      await liar.close();
    } finally {
      await http.close();
      await app.close();
      daemon.db.close();
      cache.db.close();
    }
  }, 120_000);
});
