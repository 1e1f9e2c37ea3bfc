/**
 * Restart safety with real process death: a daemon runs in a child process (same chain over JSON-RPC/HTTP,
 * its own SQLite file), is killed with SIGKILL at a chosen point of a run, and a new daemon is started on the
 * same database file. Also a graceful SIGTERM. No timed assertions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Store } from "../../../daemon/index.js";
import { startTestChain, STATUS, waitFor, type TestChain } from "./helpers/chain.js";
import { startTestDaemon, tempDbPath, type TestDaemon } from "./helpers/daemon.js";
import { spawnChildDaemon, type ChildDaemon } from "./helpers/process.js";

let chain: TestChain;
const children: ChildDaemon[] = [];
const daemons: TestDaemon[] = [];

const nextBlock = async () => Number(await chain.publicClient.getBlockNumber({ cacheTime: 0 })) + 1;

beforeAll(async () => {
  chain = await startTestChain();
});
afterAll(async () => {
  for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill("SIGKILL");
  for (const d of daemons) await d.handle.stop();
  await chain?.close();
});

/** Each test stops its daemons: a daemon left running would resolve the next test's markets. */
async function stopDaemon(d: TestDaemon): Promise<void> {
  await d.handle.stop();
  daemons.splice(daemons.indexOf(d), 1);
}

async function child(mode: string, dbPath: string, startBlock: number): Promise<ChildDaemon> {
  const c = spawnChildDaemon({
    rpcUrl: chain.rpcUrl,
    chainId: chain.chainId,
    market: chain.market,
    resolver: chain.resolvers[0],
    dbPath,
    startBlock,
    mode,
  });
  children.push(c);
  await c.waitForLine("READY");
  return c;
}

function jobIn(dbPath: string, id: bigint) {
  const s = new Store(dbPath);
  try {
    return s.getJob({ chainId: chain.chainId, market: chain.market, marketId: id });
  } finally {
    s.close();
  }
}

describe("SIGKILL and restart", () => {
  it("killed after evaluation but before its write: the market is resolved exactly once after restart", async () => {
    const startBlock = await nextBlock();
    const [id] = await chain.requestedMarkets(["Killed before the write?"]);
    const dbPath = tempDbPath();
    const c = await child("hang-before-write", dbPath, startBlock);
    await c.waitForLine(`EVALUATED ${id}`);
    c.proc.kill("SIGKILL");
    expect((await c.exited).signal).toBe("SIGKILL");

    expect(jobIn(dbPath, id)).toMatchObject({ state: "running", attempts: 1 });
    expect((await chain.getMarket(id)).status).toBe(STATUS.ResolutionRequested);

    const d = await startTestDaemon(chain, { dbPath, config: { startBlock } });
    daemons.push(d);
    await waitFor(() => d.handle.store.getJob({ chainId: chain.chainId, market: chain.market, marketId: id })?.state === "written", "written after restart");
    const job = d.handle.store.getJob({ chainId: chain.chainId, market: chain.market, marketId: id })!;
    expect(job.attempts).toBe(2); // the interrupted run stays counted
    expect(d.job.stats.runs.get(id)).toBe(1); // redone exactly once
    expect(d.job.stats.writes.get(id)).toBe(1);
    expect((await chain.settlementLogs()).resolved.get(id)).toBe(1);
    expect(d.handle.store.bundles(job.id).at(-1)!.hash).toBe((await chain.getMarket(id)).bundleHash);
    await stopDaemon(d);
  });

  it("killed after its write (before recording it): the restart re-reads the chain and does not write again", async () => {
    const startBlock = await nextBlock();
    const [id] = await chain.requestedMarkets(["Killed after the write?"]);
    const dbPath = tempDbPath();
    const c = await child("hang-after-write", dbPath, startBlock);
    await c.waitForLine(`WRITTEN ${id}`);
    c.proc.kill("SIGKILL");
    await c.exited;

    expect(jobIn(dbPath, id)).toMatchObject({ state: "running", attempts: 1 });
    expect((await chain.getMarket(id)).status).toBe(STATUS.Resolved);

    const d = await startTestDaemon(chain, { dbPath, config: { startBlock } });
    daemons.push(d);
    await waitFor(() => d.handle.store.getJob({ chainId: chain.chainId, market: chain.market, marketId: id })?.state === "already-settled", "already-settled");
    expect(d.job.stats.runs.get(id)).toBe(1);
    expect(d.job.stats.writes.get(id)).toBeUndefined();
    expect((await chain.settlementLogs()).resolved.get(id)).toBe(1);
    await stopDaemon(d);
  });
});

describe("SIGTERM", () => {
  it("stops polling, aborts the running job after the grace time (attempt given back), closes the database and exits 0", async () => {
    const startBlock = await nextBlock();
    const [id] = await chain.requestedMarkets(["Stopped gracefully?"]);
    const dbPath = tempDbPath();
    const c = await child("slow", dbPath, startBlock);
    await c.waitForLine(`STARTED ${id}`);
    c.proc.kill("SIGTERM");
    const exit = await c.exited;
    expect(exit.code).toBe(0);
    expect(jobIn(dbPath, id)).toMatchObject({ state: "requested", attempts: 0, lastOutcome: "aborted" });
    expect((await chain.getMarket(id)).status).toBe(STATUS.ResolutionRequested);

    const d = await startTestDaemon(chain, { dbPath, config: { startBlock } });
    daemons.push(d);
    await waitFor(() => d.handle.store.getJob({ chainId: chain.chainId, market: chain.market, marketId: id })?.state === "written", "written after restart");
    expect((await chain.settlementLogs()).resolved.get(id)).toBe(1);
    await stopDaemon(d);
  });
});
