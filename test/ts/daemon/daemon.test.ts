/**
 * The daemon end to end on a real chain (Hardhat EDR over JSON-RPC/HTTP, the real v2 ResolutionMarket), a real
 * SQLite file per daemon, and real seams that read and write the chain: propose → dispute window (advanced on
 * the chain's clock) → finalize → feedback. No mocks, no timed asserts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keccak256, stringToBytes, type Address, type Hex } from "viem";
import { createLogger, startDaemon, Store } from "../../../daemon/index.js";
import { createChainJob } from "../../helpers/daemon/job.js";
import {
  startTestChain,
  STAKE,
  STATUS,
  waitFor,
  marketAbi,
  writerAbi,
  type TestChain,
} from "../../helpers/daemon/chain.js";
import { API_TOKEN, rpcClient, startTestDaemon, tempDbPath, type TestDaemon } from "../../helpers/daemon/daemon.js";

/** The contract's default dispute window (1 day) plus a margin. */
const PAST_WINDOW = 86_400 + 60;

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
const jobOf = (d: TestDaemon, id: bigint) =>
  d.handle.store.getJob({ chainId: chain.chainId, market: chain.market, marketId: id });
const stateOf = (d: TestDaemon, id: bigint) => jobOf(d, id)?.state;
const pending = (account: `0x${string}`) =>
  chain.publicClient.readContract({
    address: chain.market,
    abi: marketAbi,
    functionName: "pendingWithdrawal",
    args: [account],
  }) as Promise<bigint>;
const proposalOf = (id: bigint) =>
  chain.publicClient.readContract({
    address: chain.market,
    abi: marketAbi,
    functionName: "getProposal",
    args: [id],
  }) as Promise<{ bundleHash: Hex; bundleURI: string; proposer: string; verdict: number }>;

beforeAll(async () => {
  chain = await startTestChain();
});
afterAll(async () => {
  for (const d of running.splice(0)) await d.handle.stop();
  await chain?.close();
});

describe("propose → window → finalize", () => {
  it("proposes markets requested while it was down, finalizes them after the window (chain clock), each exactly once; a restart re-runs nothing", async () => {
    const startBlock = await nextBlock();
    const ids = await chain.requestedMarkets(["Catch-up A?", "Catch-up B?", "Catch-up C?"]);
    const dbPath = tempDbPath();

    // Small ranges: the catch-up needs several getLogs calls.
    const d1 = await daemon({ dbPath, config: { startBlock, maxBlockRange: 3 } });
    await waitFor(() => ids.every((id) => stateOf(d1, id) === "proposed"), "all proposed");
    for (const id of ids) {
      const job = jobOf(d1, id)!;
      expect(job).toMatchObject({ attempts: 1, source: "event", verdict: "yes" });
      expect((await chain.getMarket(id)).status).toBe(STATUS.Proposed);
      const [bundle] = d1.handle.store.bundles(job.id);
      const p = await proposalOf(id);
      expect(bundle.hash).toBe(p.bundleHash);
      expect(keccak256(stringToBytes(bundle.json))).toBe(p.bundleHash);
      expect(bundle.txHash).toBe(job.txHash);
      expect(job.disputeEndsAt).toBeGreaterThan(Math.floor(Date.now() / 1000) - 3_600);
    }
    // Inside the window nothing is finalized, however often the daemon looks.
    await waitFor(() => ids.every((id) => (d1.job.stats.reads.get(id) ?? 0) >= 4), "watched a few times");
    expect(d1.job.stats.finalizes.size).toBe(0);

    await chain.advance(PAST_WINDOW);
    await waitFor(
      () => ids.every((id) => stateOf(d1, id) === "finalized" && jobOf(d1, id)!.feedback === "done"),
      "all finalized",
    );
    for (const id of ids) {
      expect(jobOf(d1, id)).toMatchObject({
        finalStatus: "resolved",
        finalizeTx: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      });
      expect(d1.job.stats.finalizes.get(id)).toBe(1);
      expect((await chain.getMarket(id)).status).toBe(STATUS.Resolved);
    }
    const head = await nextBlock();
    await waitFor(() => (d1.handle.store.getCursor(chain.chainId, chain.market) ?? 0) >= head - 1, "cursor at head");
    await stop(d1);

    // Same file, cursor wound back to before the events: the range is scanned again, nothing runs again.
    const s = new Store(dbPath);
    s.db.prepare("UPDATE cursor SET last_block = ?, block_hash = NULL").run(startBlock - 1);
    s.close();
    const d2 = await daemon({ dbPath, config: { startBlock } });
    await waitFor(() => (d2.handle.store.getCursor(chain.chainId, chain.market) ?? 0) >= head - 1, "re-scan done");
    expect(d2.handle.store.listJobs().filter((j) => ids.includes(j.marketId))).toHaveLength(3);
    expect(d2.job.stats.runs.size).toBe(0);
    const logs = await chain.settlementLogs();
    for (const id of ids) {
      expect(logs.proposed.get(id)).toBe(1);
      expect(logs.resolved.get(id)).toBe(1);
    }
    await stop(d2);
  });

  it("a daemon restarted mid-window still finalizes its proposal (state in SQLite, window read from the chain)", async () => {
    const startBlock = await nextBlock();
    const [id] = await chain.requestedMarkets(["Restarted mid-window?"]);
    const dbPath = tempDbPath();
    const d1 = await daemon({ dbPath, config: { startBlock } });
    await waitFor(() => stateOf(d1, id) === "proposed", "proposed");
    await stop(d1);

    await chain.advance(PAST_WINDOW); // the window closes while no daemon runs
    const d2 = await daemon({ dbPath, config: { startBlock } });
    await waitFor(() => stateOf(d2, id) === "finalized", "finalized after restart");
    expect(d2.job.stats.runs.get(id)).toBeUndefined(); // no new run, no new proposal
    expect(d2.job.stats.finalizes.get(id)).toBe(1);
    expect((await chain.settlementLogs()).proposed.get(id)).toBe(1);
    expect((await chain.getMarket(id)).status).toBe(STATUS.Resolved);
    await stop(d2);
  });

  it("tolerates someone else finalizing first", async () => {
    const startBlock = await nextBlock();
    const [id] = await chain.requestedMarkets(["Finalized by a stranger?"]);
    const d = await daemon({ config: { startBlock, watchIntervalMs: 60_000 } }); // slow watch: the stranger goes first
    await waitFor(() => stateOf(d, id) === "proposed", "proposed");
    await chain.advance(PAST_WINDOW);
    const w = chain.wallet(chain.accounts[7]);
    const hash = await w.writeContract({
      address: chain.market,
      abi: marketAbi,
      functionName: "finalize",
      args: [id],
      account: chain.accounts[7],
      chain: w.chain,
    } as never);
    await chain.publicClient.waitForTransactionReceipt({ hash });
    await stop(d);
    const d2 = await daemon({ dbPath: d.dbPath, config: { startBlock } });
    await waitFor(() => stateOf(d2, id) === "finalized", "finalized (by someone else)");
    expect(jobOf(d2, id)).toMatchObject({ finalStatus: "resolved", finalizeTx: null });
    expect(d2.job.stats.finalizes.get(id)).toBeUndefined();
    await stop(d2);
  });

  it("publishes the ERC-8004 feedback left pending after finalize (seats past the 10th) until nothing is pending", async () => {
    const startBlock = await nextBlock();
    const [id] = await chain.requestedMarkets(["Twelve seats?"], 12);
    const d = await daemon({ config: { startBlock } });
    await waitFor(() => stateOf(d, id) === "proposed", "proposed");
    await chain.advance(PAST_WINDOW);
    await waitFor(() => stateOf(d, id) === "finalized" && jobOf(d, id)!.feedback === "done", "feedback done");
    expect(d.job.stats.feedbackBatches.get(id)).toBeGreaterThanOrEqual(1);
    const writer = (await chain.publicClient.readContract({
      address: chain.market,
      abi: marketAbi,
      functionName: "reputation",
    })) as Address;
    const { result } = (await chain.publicClient.simulateContract({
      address: writer,
      abi: writerAbi,
      functionName: "publishFeedback",
      args: [id, 100n],
      account: chain.accounts[0],
    } as never)) as { result: bigint };
    expect(result).toBe(0n);
    await stop(d);
  });
});

describe("retries and invalid verdicts", () => {
  it("retries failed runs with backoff, then proposes", async () => {
    const startBlock = await nextBlock();
    const [id] = await chain.requestedMarkets(["Flaky evaluator [fail:2]?"]);
    const d = await daemon({ config: { startBlock } });
    await waitFor(() => stateOf(d, id) === "proposed", "proposed");
    expect(jobOf(d, id)!.attempts).toBe(3);
    expect(d.job.stats.runs.get(id)).toBe(3);
    expect(d.job.stats.writes.get(id)).toBe(1);
    await stop(d);
  });

  it("runs a no-quorum market again up to maxAttempts, then proposes invalid; finalized Invalid refunds the stakes", async () => {
    const startBlock = await nextBlock();
    const [id] = await chain.openMarkets(["Nobody answers [no-quorum]?"]);
    const worker = chain.workers[0].address;
    const before = await pending(worker);
    await chain.requestResolution([id]);
    const d = await daemon({ config: { startBlock, maxAttempts: 3 } });
    await waitFor(() => stateOf(d, id) === "proposed", "proposed invalid");
    expect(jobOf(d, id)).toMatchObject({ attempts: 3, verdict: "invalid", reason: "no-quorum" });
    expect(d.job.stats.runs.get(id)).toBe(3);
    expect(d.job.stats.invalidWrites.get(id)).toBe(1);
    expect((await proposalOf(id)).bundleHash).toBe(d.handle.store.bundles(jobOf(d, id)!.id).at(-1)!.hash);
    await chain.advance(PAST_WINDOW);
    await waitFor(() => stateOf(d, id) === "finalized", "finalized");
    expect(jobOf(d, id)).toMatchObject({ finalStatus: "invalid", feedback: "done" }); // Invalid: no records to publish
    expect((await chain.getMarket(id)).status).toBe(STATUS.Invalid);
    expect((await pending(worker)) - before).toBe(STAKE);
    await stop(d);
  });

  it("a no-margin verdict is proposed invalid at once and ends finalized, never in a 'no-quorum' state (issue 13.15)", async () => {
    const startBlock = await nextBlock();
    const [id] = await chain.requestedMarkets(["Too close to call [no-margin]?"]);
    const d = await daemon({ config: { startBlock } });
    await waitFor(() => stateOf(d, id) === "proposed", "proposed");
    expect(jobOf(d, id)).toMatchObject({ attempts: 1, verdict: "invalid", reason: "no-margin" });
    await chain.advance(PAST_WINDOW);
    await waitFor(() => stateOf(d, id) === "finalized", "finalized");
    expect(jobOf(d, id)!.finalStatus).toBe("invalid");
    await stop(d);
  });
});

describe("disputes", () => {
  it("escalates a disputed proposal when configured to (recorded in the job); the arbiter's ruling finalizes it", async () => {
    const startBlock = await nextBlock();
    const [id] = await chain.requestedMarkets(["Disputed, escalate?"]);
    const d = await daemon({ config: { startBlock, onDispute: "escalate" } });
    await waitFor(() => stateOf(d, id) === "proposed", "proposed");
    await chain.dispute(id, "no", chain.accounts[13]);
    await waitFor(() => jobOf(d, id)?.disputeAction === "escalated", "escalated");
    expect(jobOf(d, id)).toMatchObject({
      state: "disputed",
      disputer: chain.accounts[13].toLowerCase(),
      claimed: "no",
    });
    expect(d.job.stats.escalations.get(id)).toBe(1);
    // Watching goes on without escalating twice, and the window's end does not make it finalize.
    await chain.advance(PAST_WINDOW);
    await waitFor(() => (d.job.stats.reads.get(id) ?? 0) >= 8, "watched");
    expect(d.job.stats.escalations.get(id)).toBe(1);
    expect(d.job.stats.finalizes.get(id)).toBeUndefined();
    expect(stateOf(d, id)).toBe("disputed");
    await chain.rule(id, "yes"); // the arbiter upholds the proposal
    await waitFor(
      () => stateOf(d, id) === "finalized" && jobOf(d, id)!.feedback === "done",
      "finalized by the arbiter",
    );
    expect(jobOf(d, id)).toMatchObject({
      finalStatus: "resolved",
      finalVerdict: "yes",
      disputeAction: "escalated",
      finalizeTx: null,
      feedback: "done",
    });
    expect((await chain.getMarket(id)).status).toBe(STATUS.Resolved);
    await stop(d);
  });

  it("concedes when configured to: nothing is sent, the dispute is recorded; an overturned proposal is recorded as such", async () => {
    const startBlock = await nextBlock();
    const [id] = await chain.requestedMarkets(["Disputed, concede?"]);
    const d = await daemon({ config: { startBlock, onDispute: "concede" } });
    await waitFor(() => stateOf(d, id) === "proposed", "proposed");
    await chain.dispute(id, "no", chain.accounts[13]);
    await waitFor(() => jobOf(d, id)?.disputeAction === "conceded", "conceded");
    expect(d.job.stats.escalations.get(id)).toBeUndefined();
    await chain.rule(id, "no"); // the arbiter sides with the disputer
    await waitFor(() => stateOf(d, id) === "finalized", "finalized by the arbiter");
    expect(jobOf(d, id)).toMatchObject({ finalStatus: "resolved", finalVerdict: "no", verdict: "yes" });
    expect((await chain.getMarket(id)).outcome).toBe(false);
    await stop(d);
  });
});

describe("HTTP API", () => {
  it("serves health, metrics, the job, its bundle at a stable URL (the on-chain URI), the JWKS and the bearer-protected trigger", async () => {
    const startBlock = await nextBlock();
    const [id] = await chain.requestedMarkets(["API market?"]);
    const dbPath = tempDbPath();
    const d = await daemon({ dbPath, config: { startBlock, publicUrl: "https://resolver.example.org/" } });
    const url = d.handle.url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await waitFor(() => stateOf(d, id) === "proposed", "proposed");

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
    expect(metrics).toMatch(/cresolver_daemon_jobs\{state="proposed"\} 1/);
    expect(metrics).toMatch(/cresolver_daemon_jobs\{state="running"\} 0/);
    expect(metrics).toMatch(/cresolver_daemon_job_run_duration_seconds_count\{outcome="yes"\} 1/);
    expect(metrics).toMatch(/cresolver_agent_call_failures_total\{protocol="cresolver"\} 1/);
    expect(metrics).toContain("cresolver_daemon_rpc_errors_total");

    // the market: job state and the bundle whose keccak256 is the on-chain hash; the on-chain URI serves it
    const res = await fetch(`${url}/markets/${id}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      job: { state: string; bundleUri: string };
      bundle: { hash: Hex; json: string; document: unknown; documentError?: string };
    };
    expect(body.job.state).toBe("proposed");
    const p = await proposalOf(id);
    expect(body.bundle.hash).toBe(p.bundleHash);
    expect((JSON.parse(body.bundle.json) as { marketId: string }).marketId).toBe(id.toString());
    // These test seams store a stand-in document, so the API says why it is not a resolution bundle.
    expect(body.bundle.document).toBeNull();
    expect(body.bundle.documentError).toMatch(/^bundle: at schema: /);
    expect((body.bundle as unknown as { ipfsUri: string }).ipfsUri).toMatch(/^ipfs:\/\/bafkrei[a-z2-7]{52}$/);
    expect(p.bundleURI).toBe(`https://resolver.example.org/bundles/${p.bundleHash}.json`);
    expect(body.job.bundleUri).toBe(p.bundleURI);
    const served = await fetch(`${url}/bundles/${p.bundleHash}.json`);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toMatch(/^application\/json/);
    expect(keccak256(new Uint8Array(await served.arrayBuffer()))).toBe(p.bundleHash);
    expect((await fetch(`${url}/bundles/${p.bundleHash.toUpperCase().replace("0X", "0x")}.json`)).status).toBe(200);
    expect((await fetch(`${url}/bundles/0x${"ab".repeat(32)}.json`)).status).toBe(404);
    expect((await fetch(`${url}/bundles/${p.bundleHash}`)).status).toBe(400);
    expect((await fetch(`${url}/bundles/..%2Fetc.json`)).status).toBe(400);
    expect((await fetch(`${url}/markets/987654321`)).status).toBe(404);
    expect((await fetch(`${url}/markets/not-a-number`)).status).toBe(400);
    expect((await fetch(`${url}/markets/${2n ** 256n}`)).status).toBe(400);

    // JWKS: one public EC key, no private member
    const jwks = (await (await fetch(`${url}/.well-known/jwks.json`)).json()) as { keys: Record<string, string>[] };
    expect(jwks.keys).toHaveLength(1);
    const [key] = jwks.keys;
    expect(key).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
    expect(key).not.toHaveProperty("d");

    // manual trigger: bearer only
    const [manualId] = await chain.requestedMarkets(["Manual trigger?"]);
    const post = (path: string, auth?: string) =>
      fetch(`${url}${path}`, { method: "POST", headers: auth ? { authorization: auth } : {} });
    expect((await post(`/markets/${manualId}/resolve`)).status).toBe(401);
    expect((await post(`/markets/${manualId}/resolve`, "Bearer wrong-token-0123456789")).status).toBe(401);
    expect((await post(`/markets/${manualId}/resolve`, `Basic ${API_TOKEN}`)).status).toBe(401);
    expect((await post(`/markets/x/resolve`, `Bearer ${API_TOKEN}`)).status).toBe(400);
    const ok = await post(`/markets/${manualId}/resolve`, `Bearer ${API_TOKEN}`);
    expect([202, 409]).toContain(ok.status); // the trigger may have recorded the event and proposed first
    await waitFor(() => stateOf(d, manualId) === "proposed", "manual job proposed");
    expect((await post(`/markets/${manualId}/resolve`, `Bearer ${API_TOKEN}`)).status).toBe(409); // chain: Proposed
    expect((await chain.settlementLogs()).proposed.get(manualId)).toBe(1);
    const kid = key.kid;
    await stop(d);

    // the key persists across restarts (same database)
    const d2 = await daemon({ dbPath, config: { startBlock } });
    const jwks2 = (await (await fetch(`${d2.handle.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
    expect(jwks2.keys.map((k) => k.kid)).toEqual([kid]);
    await stop(d2);
  });

  it("refuses a premature trigger (Open or unknown market): no job, no attempt; the later event resolves it (issue 13.3)", async () => {
    const startBlock = await nextBlock();
    const [id] = await chain.openMarkets(["Triggered too early?"]);
    const d = await daemon({ config: { startBlock } });
    const post = (mid: bigint) =>
      fetch(`${d.handle.url}/markets/${mid}/resolve`, {
        method: "POST",
        headers: { authorization: `Bearer ${API_TOKEN}` },
      });
    const early = await post(id);
    expect(early.status).toBe(409);
    expect(((await early.json()) as { chainStatus: string }).chainStatus).toBe("open");
    expect((await post(987_654n)).status).toBe(409); // unknown: status None
    expect(jobOf(d, id)).toBeUndefined();
    expect(jobOf(d, 987_654n)).toBeUndefined();

    await chain.requestResolution([id]);
    await waitFor(() => stateOf(d, id) === "proposed", "proposed after the real request");
    expect(jobOf(d, id)).toMatchObject({ attempts: 1, source: "event" });
    await stop(d);
  });

  it("resolves a market only the manual trigger knows about (its event is before the start block)", async () => {
    const [id] = await chain.requestedMarkets(["Missed event?"]);
    const d = await daemon({ config: { startBlock: await nextBlock() } });
    const r = await fetch(`${d.handle.url}/markets/${id}/resolve`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    expect(r.status).toBe(202);
    expect(((await r.json()) as { action: string }).action).toBe("created");
    await waitFor(() => stateOf(d, id) === "proposed", "proposed");
    expect(jobOf(d, id)!.source).toBe("manual");
    await stop(d);
  });

  it("logs API requests at debug, not info: polling does not drown the job lines (issue 13.15)", async () => {
    const lines: string[] = [];
    const { Writable } = await import("node:stream");
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(...chunk.toString().split("\n").filter(Boolean));
        cb();
      },
    });
    const publicClient = rpcClient(chain.rpcUrl);
    const job = createChainJob({ publicClient, wallet: chain.wallet(chain.resolvers[0]), market: chain.market });
    const handle = await startDaemon(
      {
        markets: [chain.market],
        startBlock: await nextBlock(),
        confirmations: 0,
        pollIntervalMs: 50,
        dbPath: tempDbPath(),
        apiPort: 0,
        handleSignals: false,
      },
      { publicClient, seams: job, logger: createLogger({ level: "info", pretty: false, destination: sink }) },
    );
    try {
      for (let i = 0; i < 5; i++) await fetch(`${handle.url}/health`);
      await new Promise((r) => setTimeout(r, 50));
      expect(lines.some((l) => l.includes("daemon started"))).toBe(true);
      expect(lines.filter((l) => /request|\/health/.test(l))).toEqual([]);
    } finally {
      await handle.stop();
    }
  });
});

describe("a database bound to its chain (issue 13.5)", () => {
  it("refuses a database from a restarted chain (same chain id, genesis and addresses) in one line; resetStore starts over and sees the new chain's markets", async () => {
    const dbPath = tempDbPath();
    const startBlock = await nextBlock();
    const [id] = await chain.requestedMarkets(["Before the restart?"]);
    const d1 = await daemon({ dbPath, config: { startBlock } });
    await waitFor(() => stateOf(d1, id) === "proposed", "proposed");
    await stop(d1);

    // "Restart the node": a fresh chain with the same deployments at the same addresses.
    const fresh = await startTestChain();
    try {
      expect(fresh.chainId).toBe(chain.chainId);
      expect(fresh.market).toBe(chain.market);
      let message = "";
      try {
        await startTestDaemon(fresh, { dbPath, config: { startBlock: 0 } });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/^database .* cannot be used: .*\(resetStore \/ --reset-db\)$/);
      expect(message).not.toContain("\n");

      const [freshId] = await fresh.requestedMarkets(["After the restart?"]);
      const d2 = await startTestDaemon(fresh, { dbPath, config: { startBlock: 0, resetStore: true } });
      try {
        await waitFor(
          () =>
            d2.handle.store.getJob({ chainId: fresh.chainId, market: fresh.market, marketId: freshId })?.state ===
            "proposed",
          "the new chain's market proposed",
        );
        expect(d2.handle.store.listJobs()).toHaveLength(1);
      } finally {
        await d2.handle.stop();
      }
    } finally {
      await fresh.close();
    }
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
      [chain, other].map((c) => [
        c.market.toLowerCase(),
        createChainJob({ publicClient, wallet: c.wallet(c.resolvers[0]), market: c.market }),
      ]),
    );
    const handle = await startDaemon(
      {
        markets: [chain.market, { address: other.market, startBlock }],
        startBlock,
        confirmations: 0,
        pollIntervalMs: 50,
        watchIntervalMs: 50,
        dbPath: tempDbPath(),
        apiPort: 0,
        handleSignals: false,
        backoffMs: 20,
      },
      {
        publicClient,
        seamsFor: (m) => jobs.get(m)!,
        logger: createLogger({ level: "silent", pretty: false, destination: process.stderr }),
      },
    );
    try {
      const state = (market: string, id: bigint) =>
        handle.store.getJob({ chainId: chain.chainId, market, marketId: id })?.state;
      await waitFor(
        () => state(chain.market, idA) === "proposed" && state(other.market, idB) === "proposed",
        "both proposed",
      );
      await chain.advance(PAST_WINDOW);
      await waitFor(
        () => state(chain.market, idA) === "finalized" && state(other.market, idB) === "finalized",
        "both finalized",
      );
      expect((await chain.getMarket(idA)).status).toBe(STATUS.Resolved);
      expect((await other.getMarket(idB)).status).toBe(STATUS.Resolved);
      expect((await other.settlementLogs()).resolved.get(idB)).toBe(1);

      expect((await fetch(`${handle.url}/markets/${idB}`)).status).toBe(400);
      const r = await fetch(`${handle.url}/markets/${idB}?market=${other.market}`);
      expect(r.status).toBe(200);
      const body = (await r.json()) as { job: { market: string }; bundle: { hash: string } };
      expect(body.job.market).toBe(other.market.toLowerCase());
      expect(body.bundle.hash).toBe((await other.getMarket(idB)).bundleHash);
      expect(
        (await fetch(`${handle.url}/markets/${idB}?market=0x000000000000000000000000000000000000dead`)).status,
      ).toBe(404);
    } finally {
      await handle.stop();
    }
  });
});
