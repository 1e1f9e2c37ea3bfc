/**
 * The track-record index (daemon/record-index.ts) on a real chain and a real SQLite file: cold build, incremental
 * sync, a reorg detected by block hash, a stored head the chain disagrees with. The chain is Hardhat in-process
 * with RecordChainProbe emitting `MarketRecorded` (heads computed in Solidity), served over loopback JSON-RPC.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RecordIndex } from "../../../daemon/record-index.js";
import { DatabaseSync } from "../../../daemon/sqlite.js";
import { type ChainContext, connect } from "../../../workflow/chain/clients.js";
import { chainHead, ZERO_HEAD } from "../../../workflow/core/track-record.js";
import { type LimitedRpc, startLimitedRpc } from "../chain/helpers/limited-rpc.js";
import { deployRecordChain, type RecordChain } from "../chain/helpers/record-chain.js";

let chain: RecordChain;
let rpc: LimitedRpc;
let ctx: ChainContext;
let dir: string;
let db: DatabaseSync;
let index: RecordIndex;

beforeAll(async () => {
  chain = await deployRecordChain();
  rpc = await startLimitedRpc(chain.provider);
  ctx = await connect({ rpcUrl: rpc.url });
  dir = mkdtempSync(join(tmpdir(), "record-index-"));
  db = new DatabaseSync(join(dir, "index.sqlite"));
  index = new RecordIndex(db, { chainId: ctx.chainId, market: chain.probe });
}, 120_000);

afterAll(async () => {
  db?.close();
  await rpc?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const getLogs = () => rpc.counts.get("eth_getLogs") ?? 0;

describe("RecordIndex on a real chain", () => {
  it("builds cold from the deployment block, then reads only new blocks", async () => {
    expect(index.count()).toBe(0);
    expect(index.headAt(0)).toBe(ZERO_HEAD);
    await chain.record(3, { perTx: 1, seats: 7 });
    rpc.reset();
    const cold = await index.sync(ctx);
    expect(cold).toMatchObject({ count: 3, added: 3, dropped: 0 });
    expect(cold.head).toBe((await chain.recordHead()).head);
    // The TypeScript chain step reaches the head Solidity computed.
    expect(cold.head).toBe(chainHead(ZERO_HEAD, chain.recorded));
    expect(index.entries(0, 3)).toEqual(chain.recorded);
    expect(getLogs()).toBe(1);

    rpc.reset();
    const idle = await index.sync(ctx);
    expect(idle).toMatchObject({ count: 3, added: 0, dropped: 0 });
    expect(getLogs()).toBe(0);

    await chain.record(2, { perTx: 1, seats: 7 });
    rpc.reset();
    const warm = await index.sync(ctx);
    expect(warm).toMatchObject({ count: 5, added: 2, dropped: 0 });
    expect(getLogs()).toBe(1);
    const asked = rpc.getLogs[0];
    expect(asked.to - asked.from + 1n).toBe(2n); // only the two new blocks
    expect(index.entries(0, 5)).toEqual(chain.recorded);
  });

  it("survives a reorg: entries of replaced blocks are dropped and read again", async () => {
    const snap = await chain.snapshot();
    const before = chain.recorded.length;
    await chain.record(2, { perTx: 1, seats: 3, seed: 101 });
    expect((await index.sync(ctx)).count).toBe(before + 2);
    const replaced = index.entries(before, before + 2);

    await chain.revert(snap, before);
    await chain.record(3, { perTx: 1, seats: 3, seed: 202 }); // other entries in blocks of the same heights
    const synced = await index.sync(ctx);
    expect(synced).toMatchObject({ count: before + 3, added: 3, dropped: 2 });
    expect(synced.head).toBe((await chain.recordHead()).head);
    expect(index.entries(0, before + 3)).toEqual(chain.recorded);
    expect(index.entries(before, before + 2)).not.toEqual(replaced);
  });

  it("a reorg that only shortens the chain drops the lost entries", async () => {
    const snap = await chain.snapshot();
    const before = chain.recorded.length;
    await chain.record(1, { perTx: 1, seed: 7 });
    await chain.mine(3);
    expect((await index.sync(ctx)).count).toBe(before + 1);
    await chain.revert(snap, before);
    const synced = await index.sync(ctx);
    expect(synced).toMatchObject({ count: before, dropped: 1, added: 0 });
    expect(synced.head).toBe((await chain.recordHead()).head);
  });

  it("refuses a window whose cut-off head is not the index's", async () => {
    const head = await chain.recordHead();
    expect(index.window(head).length).toBe(head.count);
    expect(() => index.window({ count: head.count, head: ZERO_HEAD })).toThrow(/not the chain's cut-off head/);
    expect(() => index.window({ count: head.count + 1, head: head.head })).toThrow(/holds \d+ entries, the cut-off is/);
  });

  it("a stored record the chain disagrees with is cleared and rebuilt", async () => {
    const { count, head } = await chain.recordHead();
    db.prepare("UPDATE record_entries SET head = ? WHERE market = ? AND idx = ?").run(
      `0x${"ab".repeat(32)}`,
      chain.probe.toLowerCase(),
      count - 1,
    );
    await expect(index.sync(ctx)).rejects.toThrow(/disagrees with recordHead\(\).*cleared, it is rebuilt/);
    expect(index.count()).toBe(0);
    const rebuilt = await index.sync(ctx);
    expect(rebuilt).toMatchObject({ count, head, added: count });
  });

  it("an event whose head is not the RECORDS §3 step is refused, nothing stored", async () => {
    // A stored head the chain never had (a corrupted file): the step from it does not give the next event's head.
    const other = new RecordIndex(new DatabaseSync(join(dir, "forged.sqlite")), {
      chainId: ctx.chainId,
      market: chain.probe,
    });
    await other.sync(ctx);
    const n = other.count();
    const forgedDb = new DatabaseSync(join(dir, "forged.sqlite"));
    forgedDb.prepare("UPDATE record_entries SET head = ? WHERE idx = ?").run(`0x${"cd".repeat(32)}`, n - 1);
    forgedDb.close();
    await chain.record(1, { perTx: 1, seed: 9 });
    await expect(other.sync(ctx)).rejects.toThrow(/entry \d+: the event's head is not the RECORDS §3 step/);
    expect(other.count()).toBe(n);
  });
});
