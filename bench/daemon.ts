/**
 * Daemon benchmark (`npm run bench:daemon` → bench/results/daemon.json): the production daemon end to end.
 *
 * Everything is real and in one Node process: Hardhat's EDR chain served over JSON-RPC/HTTP on 127.0.0.1
 * (automine) with the real IdentityRegistry + ReputationRegistry + ResolutionMarket (test/ts/daemon/helpers/
 * panel.ts); three reference agents (agents/reference, offline engine: they answer at once) on loopback,
 * CRE protocol, registered on ERC-8004 with data: registration files; `startResolverDaemon` (daemon/host.ts)
 * with its real SQLite file and the real pipeline (daemon/seams.ts: read → discover → ask → challenge →
 * rubric evaluator → vote → bundle → resolveMarket, receipt awaited). Every market has 3 workers.
 *
 * Series:
 *  1. latency: one market at a time, from the block carrying ResolutionRequested being mined to the job
 *     starting (the daemon's `running` claim, SQLite `started_at`) and to the job being `written` (after the
 *     resolveMarket receipt, SQLite `finished_at`); confirmations 0 (add confirmations × block time on a
 *     real chain), at two poll intervals, with a random phase against the poll timer;
 *  2. throughput, end to end: 50 markets requested in one block, at a few concurrencies; markets/s =
 *     50 / (last `written` − request block mined);
 *  3. daemon only (for comparison, not the headline): the same burst with a stub job that returns "written"
 *     at once without agents, evaluator or chain write: ingestion + scheduling + SQLite transitions.
 *
 * Times: every timestamp is Date.now() in this process; "request block mined" is taken when the RPC call
 * that mined it returned. Chain, agents, daemon and this script share one event loop on a 2-core machine,
 * so the figures are lower bounds of a daemon running alone.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus } from "node:os";
import { createWalletClient, http, keccak256, stringToBytes, type Hex, type WalletClient } from "viem";
import { hardhat } from "viem/chains";
import { startResolverDaemon, type ResolverDaemonHandle } from "../daemon/host.js";
import { createLogger, startDaemon, type DaemonHandle, type JobOutcome, type JobRow, type ResolveJob } from "../daemon/index.js";
import { startAgent, stopAll } from "../test/ts/agents/helpers.js";
import { rpcClient, tempDbPath } from "../test/ts/daemon/helpers/daemon.js";
import { marketAbi, STATUS } from "../test/ts/daemon/helpers/job.js";
import { startPanelChain, type PanelChain, type PanelWorker } from "../test/ts/daemon/helpers/panel.js";

const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 10);
const LATENCY_POLL_INTERVALS = [100, 500];
const BURST = 50;
const BURST_POLL_MS = 100;
const CONCURRENCIES = (process.env.BENCH_CONCURRENCIES ?? "4,8,16").split(",").map(Number);
const PERSONAS = ["analyst", "analyst", "skeptic"] as const;
const TERMINAL = new Set(["written", "no-quorum", "already-settled", "failed"]);

const logger = createLogger({ level: process.env.DAEMON_TEST_LOG ?? "silent", pretty: false, destination: process.stderr });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return {
    samples: s.length,
    min: s[0],
    p50: q(0.5),
    p95: q(0.95),
    max: s[s.length - 1],
    mean: Math.round((s.reduce((a, b) => a + b, 0) / s.length) * 10) / 10,
  };
};

async function waitUntil<T>(cond: () => T | undefined | false, what: string, timeoutMs: number, intervalMs = 10): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = cond();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(intervalMs);
  }
}

interface Bench {
  chain: PanelChain;
  creator: WalletClient;
  workers: PanelWorker[];
  nextBlock(): Promise<number>;
  /** Opens markets seated by `workers` (sequential, automine). */
  open(label: string, n: number, workers: PanelWorker[]): Promise<bigint[]>;
  /** Sends requestResolution for every id and mines them all in one block; returns when that block was mined. */
  request(ids: bigint[]): Promise<number>;
}

async function setup(): Promise<Bench> {
  const chain = await startPanelChain();
  const chainId = await chain.publicClient.getChainId();
  const creator = createWalletClient({ chain: { ...hardhat, id: chainId }, transport: http(chain.rpcUrl, { retryCount: 0 }), account: chain.creator });
  const workers: PanelWorker[] = [];
  for (const [i, persona] of PERSONAS.entries()) {
    const agent = await startAgent({ protocol: "cresolver", persona, mode: "offline" });
    const w = await chain.registerAgent(i + 1);
    await w.setEndpoint(agent.url, "cresolver");
    workers.push(w);
  }
  return {
    chain,
    creator,
    workers,
    nextBlock: async () => Number(await chain.publicClient.getBlockNumber({ cacheTime: 0 })) + 1,
    async open(label, n, seated) {
      const ids: bigint[] = [];
      for (let i = 0; i < n; i++) ids.push(await chain.openMarket(`Will the ${label} benchmark market #${i} close above its 2026 threshold?`, seated));
      return ids;
    },
    async request(ids) {
      await chain.testClient.setAutomine(false);
      let minedAt: number;
      try {
        for (const id of ids) {
          await creator.writeContract({ address: chain.market, abi: marketAbi, functionName: "requestResolution", args: [id], account: chain.creator, chain: creator.chain, gas: 200_000n });
        }
        await chain.testClient.mine({ blocks: 1 });
        minedAt = Date.now();
      } finally {
        await chain.testClient.setAutomine(true);
      }
      return minedAt;
    },
  };
}

async function startProductionDaemon(b: Bench, opts: { pollIntervalMs: number; concurrency: number }): Promise<ResolverDaemonHandle> {
  return startResolverDaemon({
    rpcUrl: b.chain.rpcUrl,
    privateKey: b.chain.resolverKey,
    markets: [b.chain.market],
    startBlock: await b.nextBlock(),
    dbPath: tempDbPath("bench"),
    apiHost: "127.0.0.1",
    apiPort: 0,
    confirmations: 0,
    pollIntervalMs: opts.pollIntervalMs,
    concurrency: opts.concurrency,
    maxAttempts: 2,
    backoffMs: 20,
    maxBackoffMs: 100,
    shutdownGraceMs: 2_000,
    http: { allowLoopback: true },
    resolveTimeoutMs: 5_000,
    challengeTimeoutMs: 5_000,
    logger,
  });
}

const jobOf = (d: DaemonHandle, b: Bench, id: bigint) => d.store.getJob({ chainId: d.chainId, market: b.chain.market.toLowerCase(), marketId: id });

/** Per-job timings relative to the request block, and outcome counts. */
function summarize(rows: JobRow[], minedAt: number) {
  const states: Record<string, number> = {};
  for (const r of rows) states[r.state] = (states[r.state] ?? 0) + 1;
  return {
    states,
    retried: rows.filter((r) => r.attempts > 1).length,
    requestBlockToJobStartMs: stats(rows.map((r) => r.startedAt! - minedAt)),
    requestBlockToWrittenMs: stats(rows.map((r) => r.finishedAt! - minedAt)),
    jobStartToWrittenMs: stats(rows.map((r) => r.finishedAt! - r.startedAt!)),
  };
}

/** Sum/count of the daemon's agent-call latency histogram, by protocol (GET /metrics). */
async function agentCalls(d: DaemonHandle) {
  const text = await (await fetch(`${d.url}/metrics`)).text();
  const sum = /cresolver_agent_call_latency_seconds_sum\{[^}]*protocol="cresolver"[^}]*\} ([0-9.e+-]+)/.exec(text);
  const count = /cresolver_agent_call_latency_seconds_count\{[^}]*protocol="cresolver"[^}]*\} (\d+)/.exec(text);
  if (!sum || !count) return undefined;
  const n = Number(count[1]);
  return { calls: n, meanMs: Math.round((Number(sum[1]) / n) * 1000 * 10) / 10 };
}

/** Checks the chain: every market Resolved with the bundle hash the daemon stored. */
async function verifyOnChain(b: Bench, d: DaemonHandle, ids: bigint[]) {
  let resolved = 0;
  let hashMatches = 0;
  for (const id of ids) {
    const m = await b.chain.getMarket(id);
    if (m.status === STATUS.Resolved) resolved++;
    const job = jobOf(d, b, id)!;
    const bundle = d.store.bundles(job.id).at(-1);
    if (bundle && keccak256(stringToBytes(bundle.json)) === m.bundleHash) hashMatches++;
  }
  return { markets: ids.length, resolvedOnChain: resolved, storedBundleHashEqualsOnChain: hashMatches };
}

async function latency(b: Bench, ids: bigint[], pollIntervalMs: number) {
  const d = await startProductionDaemon(b, { pollIntervalMs, concurrency: 4 });
  const rows: { start: number; written: number; state: string; attempts: number }[] = [];
  try {
    for (const id of ids) {
      // Random phase against the poll timer.
      await sleep(Math.random() * pollIntervalMs);
      const minedAt = await b.request([id]);
      const job = await waitUntil(() => {
        const j = jobOf(d, b, id);
        return j && TERMINAL.has(j.state) ? j : undefined;
      }, "job to finish", 60_000);
      rows.push({ start: job.startedAt! - minedAt, written: job.finishedAt! - minedAt, state: job.state, attempts: job.attempts });
    }
    return {
      pollIntervalMs,
      confirmations: 0,
      states: rows.reduce<Record<string, number>>((a, r) => ((a[r.state] = (a[r.state] ?? 0) + 1), a), {}),
      retried: rows.filter((r) => r.attempts > 1).length,
      requestBlockToJobStartMs: stats(rows.map((r) => r.start)),
      requestBlockToWrittenMs: stats(rows.map((r) => r.written)),
      verify: await verifyOnChain(b, d, ids),
    };
  } finally {
    await d.close();
  }
}

async function burstEndToEnd(b: Bench, ids: bigint[], concurrency: number) {
  const d = await startProductionDaemon(b, { pollIntervalMs: BURST_POLL_MS, concurrency });
  try {
    const minedAt = await b.request(ids);
    await waitUntil(() => ids.every((id) => TERMINAL.has(jobOf(d, b, id)?.state ?? "")), "all jobs finished", 120_000, 20);
    const rows = ids.map((id) => jobOf(d, b, id)!);
    const lastDone = Math.max(...rows.map((r) => r.finishedAt!));
    const totalMs = lastDone - minedAt;
    return {
      mode: "end-to-end (production daemon, 3 instant CRE agents, rubric evaluator, resolveMarket receipt)",
      markets: ids.length,
      workersPerMarket: PERSONAS.length,
      concurrency,
      pollIntervalMs: BURST_POLL_MS,
      confirmations: 0,
      totalWallMs: totalMs,
      marketsPerSecond: Math.round((ids.length / (totalMs / 1000)) * 10) / 10,
      ...summarize(rows, minedAt),
      agentCalls: await agentCalls(d),
      verify: await verifyOnChain(b, d, ids),
    };
  } finally {
    await d.close();
  }
}

async function burstDaemonOnly(b: Bench, ids: bigint[], concurrency: number) {
  // The daemon's own cost only: the job returns "written" at once, no agents, no evaluator, no chain write.
  const instant: ResolveJob = async (marketId): Promise<JobOutcome> => {
    const bundle = JSON.stringify({ bench: true, marketId: marketId.toString(10) });
    return { kind: "written", txHash: ("0x" + "00".repeat(32)) as Hex, bundle, bundleHash: keccak256(stringToBytes(bundle)) };
  };
  const d = await startDaemon(
    {
      markets: [b.chain.market],
      startBlock: await b.nextBlock(),
      dbPath: tempDbPath("bench-stub"),
      confirmations: 0,
      pollIntervalMs: BURST_POLL_MS,
      concurrency,
      apiHost: "127.0.0.1",
      apiPort: 0,
      handleSignals: false,
    },
    { publicClient: rpcClient(b.chain.rpcUrl), resolveJob: instant, settleInvalid: async () => ({ kind: "already-settled" }), logger },
  );
  try {
    const minedAt = await b.request(ids);
    await waitUntil(() => ids.every((id) => TERMINAL.has(jobOf(d, b, id)?.state ?? "")), "all stub jobs finished", 60_000, 5);
    const rows = ids.map((id) => jobOf(d, b, id)!);
    const totalMs = Math.max(...rows.map((r) => r.finishedAt!)) - minedAt;
    return {
      mode: "daemon only (stub job: ingestion + scheduling + SQLite; markets stay ResolutionRequested on chain)",
      markets: ids.length,
      concurrency,
      pollIntervalMs: BURST_POLL_MS,
      confirmations: 0,
      totalWallMs: totalMs,
      marketsPerSecond: Math.round((ids.length / (totalMs / 1000)) * 10) / 10,
      ...summarize(rows, minedAt),
    };
  } finally {
    await d.stop();
  }
}

async function main() {
  const t0 = Date.now();
  const b = await setup();
  try {
    // All markets first (deadline +1 h), then one jump past every deadline.
    const latIds = [];
    for (const p of LATENCY_POLL_INTERVALS) latIds.push(await b.open(`latency-${p}ms`, LATENCY_SAMPLES, b.workers));
    const burstIds = [];
    for (const c of CONCURRENCIES) burstIds.push(await b.open(`burst-c${c}`, BURST, b.workers));
    const stubIds = await b.open("stub", BURST, b.workers.slice(0, 1));
    await b.chain.testClient.increaseTime({ seconds: 3_601 });
    await b.chain.testClient.mine({ blocks: 1 });
    const setupMs = Date.now() - t0;
    console.error(`setup ${setupMs} ms`);

    const lat = [];
    for (const [i, p] of LATENCY_POLL_INTERVALS.entries()) {
      lat.push(await latency(b, latIds[i], p));
      console.error(`latency poll ${p} ms done`);
    }
    const e2e = [];
    for (const [i, c] of CONCURRENCIES.entries()) {
      e2e.push(await burstEndToEnd(b, burstIds[i], c));
      console.error(`burst c=${c}: ${e2e.at(-1)!.marketsPerSecond} markets/s`);
    }
    const stub = await burstDaemonOnly(b, stubIds, 8);

    const cpu = cpus()[0]?.model ?? "unknown";
    const result = {
      generatedAt: new Date().toISOString(),
      node: process.version,
      machine: `${availableParallelism()} cores (${cpu}); chain JSON-RPC server, 3 agents, daemon and bench share one Node process/event loop`,
      chain: "Hardhat EDR (in-process) over JSON-RPC/HTTP on 127.0.0.1, automine (one block per resolveMarket)",
      contract: "ResolutionMarket + IdentityRegistry + ReputationRegistry (real), 3 worker seats per market",
      daemon: "startResolverDaemon (daemon/host.ts) with the real pipeline (daemon/seams.ts), SQLite file, resolver key over the RPC URL (receipt polling 100 ms on a local chain id)",
      agents: "3 reference agents (agents/reference, offline engine: instant answers), CRE protocol over loopback HTTP, personas analyst/analyst/skeptic, ERC-8004 data: registration files",
      evaluator: "rubric (default)",
      timeSource: "Date.now() in-process; request block = when the mining RPC call returned; job start = SQLite started_at (running claim); written = SQLite finished_at (after the resolveMarket receipt)",
      latencyFromRequestBlock: lat,
      throughput50AtOnce: e2e,
      daemonOnlyStub50AtOnce: stub,
      setupWallMs: setupMs,
      totalWallMs: Date.now() - t0,
    };
    mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
    writeFileSync(new URL("./results/daemon.json", import.meta.url), JSON.stringify(result, null, 2) + "\n");
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await stopAll();
    await b.chain.close();
  }
}

await main();
