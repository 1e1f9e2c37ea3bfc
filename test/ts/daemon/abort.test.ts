/**
 * Issue 13.13 (daemon part): the job's AbortSignal reaches the pipeline, so the job timeout and shutdown abort
 * in-flight agent calls instead of waiting for the agent's own deadline. The production daemon on a real chain
 * asks a worker whose endpoint accepts the request and never answers (a raw HTTP server on loopback that
 * records when the daemon closes the connection).
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResolverDaemonHandle } from "../../../daemon/host.js";
import { getJson, waitFor } from "../../helpers/daemon/chain.js";
import { startProductionDaemon } from "./helpers/resolver-daemon.js";
import { startPanelChain, type PanelChain } from "../../helpers/daemon/panel.js";

/** The worker call's own deadline: far beyond what the test waits. */
const CALL_TIMEOUT_MS = 60_000;

let chain: PanelChain;
let silent: Server;
let url: string;
const opened: number[] = [];
const closed: number[] = [];

beforeAll(async () => {
  chain = await startPanelChain();
  silent = createServer((req) => {
    opened.push(Date.now());
    req.socket.once("close", () => closed.push(Date.now()));
    // never answers
  });
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
}, 120_000);

afterAll(async () => {
  silent?.closeAllConnections();
  await new Promise((r) => silent?.close(r));
  await chain?.close();
});

async function daemonWith(options: { jobTimeoutMs?: number; shutdownGraceMs?: number }): Promise<ResolverDaemonHandle> {
  // Only this test's market: scanning starts after the earlier tests' requests.
  const startBlock = Number(await chain.publicClient.getBlockNumber({ cacheTime: 0 })) + 1;
  return startProductionDaemon(chain, "abort", {
    startBlock,
    maxAttempts: 5,
    backoffMs: 60_000, // one attempt in the test's time
    resolveTimeoutMs: CALL_TIMEOUT_MS,
    challengeTimeoutMs: CALL_TIMEOUT_MS,
    ...options,
  });
}

describe("the job's AbortSignal reaches in-flight agent calls", () => {
  it("the job timeout closes the hanging call at once and counts the attempt", async () => {
    const w = await chain.registerAgent(1);
    await w.setEndpoint(url, "cresolver");
    const id = await chain.openMarket("Will the silent agent be cut off by the job timeout?", [w]);
    const daemon = await daemonWith({ jobTimeoutMs: 2_000 });
    try {
      const before = opened.length;
      await chain.requestResolution(id);
      await waitFor(() => opened.length > before, "the call to reach the silent agent", 30_000);
      const view = await waitFor(
        async () => {
          const v = await getJson(`${daemon.url}/markets/${id}`);
          return v.job?.lastOutcome === "error" ? v : undefined;
        },
        "the run to time out",
        30_000,
      );
      expect(view.job).toMatchObject({ state: "requested", attempts: 1 });
      expect(view.job.lastError).toMatch(/timed out after 2000 ms/);
      // The connection was closed by the daemon, long before the call's own 60 s deadline.
      await waitFor(() => closed.length >= opened.length, "the connection to close", 15_000);
    } finally {
      await daemon.close();
    }
  }, 90_000);

  it("shutdown closes the hanging call and gives the attempt back", async () => {
    const w = await chain.registerAgent(2);
    await w.setEndpoint(url, "cresolver");
    const id = await chain.openMarket("Will the silent agent be cut off by shutdown?", [w]);
    const daemon = await daemonWith({ shutdownGraceMs: 100 });
    const before = opened.length;
    await chain.requestResolution(id);
    await waitFor(() => opened.length > before, "the call to reach the silent agent", 30_000);
    const stopAt = Date.now();
    await daemon.close();
    const stoppedIn = Date.now() - stopAt;
    expect(stoppedIn).toBeLessThan(CALL_TIMEOUT_MS / 2); // not the agent's deadline
    await waitFor(() => closed.length >= opened.length, "the connection to close", 15_000);
    const { Store } = await import("../../../daemon/store.js");
    const s = new Store(daemon.store.path);
    try {
      expect(s.getJob({ chainId: daemon.chainId, market: chain.market, marketId: id })).toMatchObject({
        state: "requested",
        attempts: 0,
        lastOutcome: "aborted",
      });
    } finally {
      s.close();
    }
  }, 90_000);
});
