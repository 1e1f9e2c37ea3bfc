/**
 * The daemon end to end on a real chain (Hardhat EDR over JSON-RPC/HTTP, the real ResolutionMarket), a real
 * SQLite file per daemon, and a real resolve job that reads and writes the chain. No mocks, no timed asserts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keccak256, stringToBytes, type Hex } from "viem";
import { createLogger, startDaemon, Store } from "../../../daemon/index.js";
import { createChainJob } from "./helpers/job.js";
import { startTestChain, STAKE, STATUS, waitFor, getJson, marketAbi, type TestChain } from "./helpers/chain.js";
import { API_TOKEN, rpcClient, startTestDaemon, tempDbPath, type TestDaemon } from "./helpers/daemon.js";

let chain: TestChain;
const running: TestDaemon[] = [];

async function daemon(opts: Parameters<typeof startTestDaemon>[1] = {}): Promise<TestDaemon> {
  const d = await startTestDaemon(chain, opts);
  running.push(d);
  return d;
}
async function stop(d: TestDaemon): Promise<void> {
  await d.handle.stop();
  running.splice(running.indexOf(d), 1);
}
const nextBlock = async () => Number(await chain.publicClient.getBlockNumber({ cacheTime: 0 })) + 1;
const jobOf = (d: TestDaemon, id: bigint) => d.handle.store.getJob({ chainId: chain.chainId, market: chain.market, marketId: id });

beforeAll(async () => {
  chain = await startTestChain();
});
afterAll(async () => {
  for (const d of running.splice(0)) await d.handle.stop();
  await chain?.close();
});

describe("catch-up and restart", () => {
  it("resolves markets requested while the daemon was down, each exactly once; a restart neither re-ingests nor re-runs", async () => {
    const startBlock = await nextBlock();
    const ids = await chain.requestedMarkets(["Catch-up A?", "Catch-up B?", "Catch-up C?"]);
    const dbPath = tempDbPath();

    // Small ranges: the catch-up needs several getLogs calls.
    const d1 = await daemon({ dbPath, config: { startBlock, maxBlockRange: 3 } });
    await waitFor(() => ids.every((id) => jobOf(d1, id)?.state === "written"), "all written");
    for (const id of ids) {
      expect(d1.job.stats.writes.get(id)).toBe(1);
      const job = jobOf(d1, id)!;
      expect(job.attempts).toBe(1);
      expect(job.source).toBe("event");
      const onChain = await chain.getMarket(id);
      expect(onChain.status).toBe(STATUS.Resolved);
      const [bundle] = d1.handle.store.bundles(job.id);
      expect(bundle.hash).toBe(onChain.bundleHash);
      expect(keccak256(stringToBytes(bundle.json))).toBe(onChain.bundleHash);
    }
    const head = await nextBlock();
    await waitFor(() => (d1.handle.store.getCursor(chain.chainId, chain.market) ?? 0) >= head - 1, "cursor at head");
    await stop(d1);

    // Same file, cursor wound back to before the events: the range is scanned again.
    const s = new Store(dbPath);
    s.db.prepare("UPDATE cursor SET last_block = ?").run(startBlock - 1);
    s.close();
    const d2 = await daemon({ dbPath, config: { startBlock } });
    await waitFor(() => (d2.handle.store.getCursor(chain.chainId, chain.market) ?? 0) >= head - 1, "re-scan done");
    expect(d2.handle.store.listJobs().filter((j) => ids.includes(j.marketId))).toHaveLength(3);
    expect(d2.job.stats.runs.size).toBe(0); // written jobs are never run again
    const logs = await chain.settlementLogs();
    for (const id of ids) expect(logs.resolved.get(id)).toBe(1);
    await stop(d2);
  });

  it("waits for the configured confirmations", async () => {
    const startBlock = await nextBlock();
    const [id] = await chain.requestedMarkets(["Confirmations?"]);
    const requestBlock = await nextBlock() - 1;
    const d = await daemon({ config: { startBlock, confirmations: 3 } });
    // The daemon has seen the head that contains the event, but it is not buried deep enough yet.
    await waitFor(async () => (await getJson(`${d.handle.url}/health`)).head >= requestBlock, "daemon saw the head");
    await waitFor(() => d.handle.store.getCursor(chain.chainId, chain.market) === requestBlock - 3, "scanned up to head - 3");
    expect(jobOf(d, id)).toBeUndefined();
    await chain.mine(3);
    await waitFor(() => jobOf(d, id)?.state === "written", "written after 3 confirmations");
    expect(jobOf(d, id)!.requestedBlock).toBe(requestBlock);
    await stop(d);
  });
});

describe("retries", () => {
  it("retries failed runs with backoff, then writes", async () => {
    const startBlock = await nextBlock();
    const [id] = await chain.requestedMarkets(["Flaky evaluator [fail:2]?"]);
    const d = await daemon({ config: { startBlock } });
    await waitFor(() => jobOf(d, id)?.state === "written", "written");
    const job = jobOf(d, id)!;
    expect(job.attempts).toBe(3);
    expect(d.job.stats.runs.get(id)).toBe(3);
    expect(d.job.stats.writes.get(id)).toBe(1);
    await stop(d);
  });

  it("retries no-quorum runs up to maxAttempts, then settles the market invalid with refunds", async () => {
    const startBlock = await nextBlock();
    const [id] = await chain.openMarkets(["Nobody answers [no-quorum]?"]);
    const worker = chain.workers[0].address;
    const before = (await chain.publicClient.readContract({ address: chain.market, abi: marketAbi, functionName: "pendingWithdrawal", args: [worker] })) as bigint;
    await chain.requestResolution([id]);
    const d = await daemon({ config: { startBlock, maxAttempts: 3 } });
    await waitFor(() => jobOf(d, id)?.state === "no-quorum", "settled invalid");
    const job = jobOf(d, id)!;
    expect(job.attempts).toBe(3);
    expect(job.lastOutcome).toBe("settled-invalid");
    expect(job.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(d.job.stats.runs.get(id)).toBe(3);
    expect(d.job.stats.invalidWrites.get(id)).toBe(1);
    const onChain = await chain.getMarket(id);
    expect(onChain.status).toBe(STATUS.Invalid);
    expect(onChain.bundleHash).toBe(d.handle.store.bundles(job.id).at(-1)!.hash);
    const after = (await chain.publicClient.readContract({ address: chain.market, abi: marketAbi, functionName: "pendingWithdrawal", args: [worker] })) as bigint;
    expect(after - before).toBe(STAKE); // the worker's stake is refunded
    expect((await chain.settlementLogs()).invalidated.get(id)).toBe(1);
    await stop(d);
  });
});

describe("HTTP API", () => {
  it("serves health, metrics, the job with its bundle, the JWKS and the bearer-protected trigger", async () => {
    const startBlock = await nextBlock();
    const [id] = await chain.requestedMarkets(["API market?"]);
    const dbPath = tempDbPath();
    const d = await daemon({ dbPath, config: { startBlock } });
    const url = d.handle.url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await waitFor(() => jobOf(d, id)?.state === "written", "written");

    // health
    const health = await waitFor(async () => {
      const r = await fetch(`${url}/health`);
      const body = (await r.json()) as { ok: boolean; markets: { lastProcessedBlock: number; lag: number }[] };
      return r.status === 200 && body.ok && body.markets[0].lag === 0 ? body : undefined;
    }, "healthy and caught up");
    expect(health.markets[0].lastProcessedBlock).toBeGreaterThanOrEqual(startBlock);

    // metrics, with the pipeline hook
    d.handle.recordAgentCall("cresolver", 120, true);
    d.handle.recordAgentCall("cresolver", 3_000, false);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/cresolver_daemon_jobs\{state="written"\} 1/);
    expect(metrics).toMatch(/cresolver_daemon_jobs\{state="running"\} 0/);
    expect(metrics).toMatch(/cresolver_daemon_job_run_duration_seconds_count\{outcome="written"\} 1/);
    expect(metrics).toMatch(/cresolver_agent_call_failures_total\{protocol="cresolver"\} 1/);
    expect(metrics).toMatch(/cresolver_agent_call_latency_seconds_count\{protocol="cresolver",ok="true"\} 1/);
    expect(metrics).toContain("cresolver_daemon_rpc_errors_total");
    expect(metrics).toMatch(/cresolver_daemon_block_lag\{market="0x[0-9a-f]{40}"\} \d+\n/); // lag moves as blocks are mined

    // the market: job state and the bundle whose keccak256 is the on-chain hash
    const res = await fetch(`${url}/markets/${id}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { job: { state: string; txHash: string }; bundle: { hash: Hex; json: string; document: { marketId: string } } };
    expect(body.job.state).toBe("written");
    const onChain = await chain.getMarket(id);
    expect(keccak256(stringToBytes(body.bundle.json))).toBe(onChain.bundleHash);
    expect(body.bundle.hash).toBe(onChain.bundleHash);
    expect(body.bundle.document.marketId).toBe(id.toString());
    expect((await fetch(`${url}/markets/987654321`)).status).toBe(404);
    expect((await fetch(`${url}/markets/not-a-number`)).status).toBe(400);
    expect((await fetch(`${url}/markets/${2n ** 256n}`)).status).toBe(400);

    // JWKS: one public EC key, no private member
    const jwks = (await (await fetch(`${url}/.well-known/jwks.json`)).json()) as { keys: Record<string, string>[] };
    expect(jwks.keys).toHaveLength(1);
    const [key] = jwks.keys;
    expect(key).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
    expect(typeof key.kid).toBe("string");
    expect(key).not.toHaveProperty("d");
    expect(Object.keys(key).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x", "y"]);

    // manual trigger: bearer only
    const [manualId] = await chain.requestedMarkets(["Manual trigger?"]);
    const post = (path: string, auth?: string) => fetch(`${url}${path}`, { method: "POST", headers: auth ? { authorization: auth } : {} });
    expect((await post(`/markets/${manualId}/resolve`)).status).toBe(401);
    expect((await post(`/markets/${manualId}/resolve`, "Bearer wrong-token-0123456789")).status).toBe(401);
    expect((await post(`/markets/${manualId}/resolve`, `Basic ${API_TOKEN}`)).status).toBe(401);
    expect((await post(`/markets/${manualId}/resolve`, `Bearer ${API_TOKEN}x`)).status).toBe(401);
    expect((await post(`/markets/x/resolve`, `Bearer ${API_TOKEN}`)).status).toBe(400);
    const ok = await post(`/markets/${manualId}/resolve`, `Bearer ${API_TOKEN}`);
    expect([202, 409]).toContain(ok.status); // the trigger may have recorded the event first
    await waitFor(() => jobOf(d, manualId)?.state === "written", "manual job written");
    expect((await post(`/markets/${manualId}/resolve`, `Bearer ${API_TOKEN}`)).status).toBe(409);
    expect((await chain.settlementLogs()).resolved.get(manualId)).toBe(1);
    const kid = key.kid;
    await stop(d);

    // the key persists across restarts (same database)
    const d2 = await daemon({ dbPath, config: { startBlock } });
    const jwks2 = (await (await fetch(`${d2.handle.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
    expect(jwks2.keys.map((k) => k.kid)).toEqual([kid]);
    await stop(d2);
  });

  it("resolves a market only the manual trigger knows about (its event is before the start block)", async () => {
    const [id] = await chain.requestedMarkets(["Missed event?"]);
    const d = await daemon({ config: { startBlock: await nextBlock() } });
    const r = await fetch(`${d.handle.url}/markets/${id}/resolve`, { method: "POST", headers: { authorization: `Bearer ${API_TOKEN}` } });
    expect(r.status).toBe(202);
    expect(((await r.json()) as { action: string }).action).toBe("created");
    await waitFor(() => jobOf(d, id)?.state === "written", "written");
    expect(jobOf(d, id)!.source).toBe("manual");
    await stop(d);
  });
});

describe("several market contracts", () => {
  it("keeps a cursor and jobs per contract (same market id on both), with per-contract seams; the API asks which contract", async () => {
    const other = await chain.deployMarket();
    const startBlock = await nextBlock();
    const [idA] = await chain.requestedMarkets(["Contract A?"]);
    const [idB] = await other.requestedMarkets(["Contract B?"]);
    expect(idB).toBe(1n); // a fresh contract starts at 1: the same id may exist on both
    const publicClient = rpcClient(chain.rpcUrl);
    const jobs = new Map(
      [chain, other].map((c) => [c.market.toLowerCase(), createChainJob({ publicClient, wallet: c.wallet(c.resolvers[0]), market: c.market })]),
    );
    const handle = await startDaemon(
      { markets: [chain.market, { address: other.market, startBlock }], startBlock, confirmations: 0, pollIntervalMs: 50, dbPath: tempDbPath(), apiPort: 0, handleSignals: false, backoffMs: 20 },
      { publicClient, seamsFor: (m) => jobs.get(m)!, logger: createLogger({ level: "silent", pretty: false, destination: process.stderr }) },
    );
    try {
      const state = (market: string, id: bigint) => handle.store.getJob({ chainId: chain.chainId, market, marketId: id })?.state;
      await waitFor(() => state(chain.market, idA) === "written" && state(other.market, idB) === "written", "both written");
      expect((await chain.getMarket(idA)).status).toBe(STATUS.Resolved);
      expect((await other.getMarket(idB)).status).toBe(STATUS.Resolved);
      expect((await other.settlementLogs()).resolved.get(idB)).toBe(1);
      expect(handle.store.getCursor(chain.chainId, other.market)).toBeGreaterThanOrEqual(startBlock);

      expect((await fetch(`${handle.url}/markets/${idB}`)).status).toBe(400);
      const r = await fetch(`${handle.url}/markets/${idB}?market=${other.market}`);
      expect(r.status).toBe(200);
      const body = (await r.json()) as { job: { market: string }; bundle: { hash: string } };
      expect(body.job.market).toBe(other.market.toLowerCase());
      expect(body.bundle.hash).toBe((await other.getMarket(idB)).bundleHash);
      expect((await fetch(`${handle.url}/markets/${idB}?market=0x000000000000000000000000000000000000dead`)).status).toBe(404);
    } finally {
      await handle.stop();
    }
  });
});
