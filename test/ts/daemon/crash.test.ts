/**
 * Restart safety with real process death: a daemon runs in a child process (same chain over JSON-RPC/HTTP,
 * its own SQLite file), is killed with SIGKILL at a chosen point of a run, and a new daemon is started on the
 * same database file. Also a graceful SIGTERM. No timed assertions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Store } from "../../../daemon/index.js";
import { startTestChain, STATUS, waitFor, type TestChain } from "../../helpers/daemon/chain.js";
import { startTestDaemon, tempDbPath, type TestDaemon } from "../../helpers/daemon/daemon.js";
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
  it("killed right before sending its proposal: the verdict and bundle are already stored; the restart sends them without a new run", async () => {
    const startBlock = await nextBlock();
    const [id] = await chain.requestedMarkets(["Killed before the send?"]);
    const dbPath = tempDbPath();
    const c = await child("hang-before-write", dbPath, startBlock);
    await c.waitForLine(`EVALUATED ${id}`);
    c.proc.kill("SIGKILL");
    expect((await c.exited).signal).toBe("SIGKILL");

    const dead = jobIn(dbPath, id)!;
    expect(dead).toMatchObject({ state: "proposing", attempts: 1, verdict: "yes", txHash: null });
    expect(dead.bundleHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await chain.getMarket(id)).status).toBe(STATUS.ResolutionRequested);

    const d = await startTestDaemon(chain, { dbPath, config: { startBlock } });
    daemons.push(d);
    await waitFor(
      () => d.handle.store.getJob({ chainId: chain.chainId, market: chain.market, marketId: id })?.state === "proposed",
      "proposed after restart",
    );
    const job = d.handle.store.getJob({ chainId: chain.chainId, market: chain.market, marketId: id })!;
    expect(job.attempts).toBe(1);
    expect(d.job.stats.runs.get(id)).toBeUndefined(); // the stored verdict is sent, no new run
    expect(d.job.stats.writes.get(id)).toBe(1);
    expect((await chain.settlementLogs()).proposed.get(id)).toBe(1);
    expect((await chain.getMarket(id)).bundleHash).toBe(dead.bundleHash);
    await stopDaemon(d);
  });

  it("killed while its proposal is pending (sent, receipt not seen): the restart finds the bundle and the tx hash, and sends nothing (issue 13.12)", async () => {
    const startBlock = await nextBlock();
    const [id] = await chain.requestedMarkets(["Killed while pending?"]);
    const dbPath = tempDbPath();
    const c = await child("hang-after-send", dbPath, startBlock);
    const sent = await c.waitForLine(`SENT ${id}`);
    const txHash = sent.split(" ")[2];
    c.proc.kill("SIGKILL");
    await c.exited;

    const dead = jobIn(dbPath, id)!;
    expect(dead).toMatchObject({ state: "proposing", txHash });
    await chain.publicClient.waitForTransactionReceipt({ hash: txHash as `0x${string}` });
    expect((await chain.getMarket(id)).status).toBe(STATUS.Proposed);

    const d = await startTestDaemon(chain, { dbPath, config: { startBlock } });
    daemons.push(d);
    await waitFor(
      () => d.handle.store.getJob({ chainId: chain.chainId, market: chain.market, marketId: id })?.state === "proposed",
      "adopted after restart",
    );
    const job = d.handle.store.getJob({ chainId: chain.chainId, market: chain.market, marketId: id })!;
    expect(job).toMatchObject({ txHash, lastError: null });
    expect(d.job.stats.runs.get(id)).toBeUndefined();
    expect(d.job.stats.writes.get(id)).toBeUndefined();
    const onChain = (await chain.getMarket(id)).bundleHash;
    const [bundle] = d.handle.store.bundles(job.id);
    expect(bundle).toMatchObject({ hash: onChain, txHash });
    expect((await fetch(`${d.handle.url}/bundles/${onChain}.json`)).status).toBe(200);
    expect((await chain.settlementLogs()).proposed.get(id)).toBe(1);
    await stopDaemon(d);
  });
});

describe("SIGTERM and shutdown", () => {
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
    await waitFor(
      () => d.handle.store.getJob({ chainId: chain.chainId, market: chain.market, marketId: id })?.state === "proposed",
      "proposed after restart",
    );
    expect((await chain.settlementLogs()).proposed.get(id)).toBe(1);
    await stopDaemon(d);
  });

  it("a run that ignores its abort signal is abandoned at the end of the grace: its attempt is not counted after restart (issue 13.6)", async () => {
    const startBlock = await nextBlock();
    const [id] = await chain.requestedMarkets(["Deaf to shutdown?"]);
    const dbPath = tempDbPath();
    let seen: AbortSignal | undefined;
    const d1 = await startTestDaemon(chain, {
      dbPath,
      config: { startBlock, shutdownGraceMs: 50 },
      override: {
        run: async (_marketId, _attempt, signal) => {
          seen = signal;
          return new Promise(() => {}); // never settles, ignores the signal
        },
      },
    });
    await waitFor(
      () => d1.handle.store.getJob({ chainId: chain.chainId, market: chain.market, marketId: id })?.state === "running",
      "running",
    );
    await d1.handle.stop();
    expect(seen?.aborted).toBe(true); // shutdown aborted the signal the run was given
    expect(jobIn(dbPath, id)).toMatchObject({ state: "requested", attempts: 0, lastOutcome: "aborted" });

    const d2 = await startTestDaemon(chain, { dbPath, config: { startBlock } });
    daemons.push(d2);
    await waitFor(
      () =>
        d2.handle.store.getJob({ chainId: chain.chainId, market: chain.market, marketId: id })?.state === "proposed",
      "proposed after restart",
    );
    expect(d2.handle.store.getJob({ chainId: chain.chainId, market: chain.market, marketId: id })!.attempts).toBe(1);
    await stopDaemon(d2);
  });

  it("the job timeout aborts the run's signal and counts the attempt", async () => {
    const startBlock = await nextBlock();
    const [id] = await chain.requestedMarkets(["Too slow for the job timeout?"]);
    const reasons: string[] = [];
    const d = await startTestDaemon(chain, {
      config: { startBlock, jobTimeoutMs: 150, maxAttempts: 2 },
      override: {
        run: (_marketId, _attempt, signal) =>
          new Promise((_resolve, reject) => {
            signal.addEventListener(
              "abort",
              () => {
                reasons.push(String((signal.reason as Error).message));
                reject(signal.reason);
              },
              { once: true },
            );
          }),
      },
    });
    daemons.push(d);
    await waitFor(
      () =>
        d.handle.store.getJob({ chainId: chain.chainId, market: chain.market, marketId: id })?.state === "proposing" ||
        d.handle.store.getJob({ chainId: chain.chainId, market: chain.market, marketId: id })?.state === "proposed",
      "attempts used up",
    );
    const job = d.handle.store.getJob({ chainId: chain.chainId, market: chain.market, marketId: id })!;
    expect(job).toMatchObject({ attempts: 2, verdict: "invalid" });
    expect(reasons).toEqual(["job timed out after 150 ms", "job timed out after 150 ms"]);
    await stopDaemon(d);
  });
});
