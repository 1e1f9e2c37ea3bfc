/**
 * Daemon benchmark (`npm run bench:daemon` → bench/results/daemon.json): the production daemon end to end.
 *
 * Everything is real: Hardhat's EDR chain served over JSON-RPC/HTTP on 127.0.0.1 (automine) with the real
 * IdentityRegistry + ReputationRegistry + ResolutionMarket (test/helpers/daemon/panel.ts); three reference
 * agents (agents/reference/server.ts, offline engine: they answer at once) on loopback, CRE protocol,
 * registered on ERC-8004 with data: registration files; `startResolverDaemon` (daemon/host.ts) with its SQLite
 * file and the real pipeline (daemon/seams.ts: read → discover → ask → challenge → rubric evaluator → vote →
 * bundle → proposeResolution, receipt awaited). Every market has 3 workers. The daemon runs in its own forked Node
 * process (bench/daemon-host.ts), as `cresolver daemon` would; chain, agents and this script share the other.
 *
 * Series:
 *  1. latency: one market at a time, from the block carrying ResolutionRequested being mined to the job
 *     starting (the daemon's `running` claim, SQLite `started_at`) and to the job being `written` (after the
 *     proposeResolution receipt, SQLite `finished_at`); confirmations 0 (add confirmations × block time on a
 *     real chain), at two poll intervals, with a random phase against the poll timer;
 *  2. throughput, end to end (the headline): 50 markets requested in one block, at a few concurrencies;
 *     markets/s = 50 / (last `written` − request block mined). Every market is checked on chain afterwards
 *     (Resolved, bundle hash = keccak256 of the bundle the daemon stored);
 *  3. the same burst with the daemon inside the bench process (how the tests run it), for comparison;
 *  4. daemon only (not end to end): the same burst with a stub job that returns "written" at once, without
 *     agents, evaluator or chain write: event ingestion + scheduling + SQLite transitions.
 * A small warm-up burst runs first on each daemon process (cold JIT) and is reported apart. Each concurrency
 * runs BENCH_REPEATS times (default 2; the box is shared: the same burst has ranged 10-21 markets/s between runs).
 * Knobs: BENCH_LATENCY_SAMPLES (10), BENCH_CONCURRENCIES ("4,8,16"), BENCH_REPEATS (2); BENCH_RPC_TRACE=1 is a
 * diagnostic (bench/rpc-trace.ts: the daemon's JSON-RPC calls timed by method through a proxy; nothing written).
 *
 * Times: Date.now() in both processes (same clock); "request block mined" is when the RPC call that mined it
 * returned. The machine has 2 shared cores: figures are for this box, not a capacity claim.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { availableParallelism, cpus, loadavg } from "node:os";
import { createWalletClient, http, keccak256, stringToBytes, type Hex, type WalletClient } from "viem";
import { hardhat } from "viem/chains";
import { createLogger, startDaemon, type MarketSeams } from "../daemon/index.js";
import { startAgent, stopAll } from "../test/helpers/agents.js";
import { rpcClient, tempDbPath } from "../test/helpers/daemon/daemon.js";
import { marketAbi, STATUS } from "../test/helpers/daemon/job.js";
import { startPanelChain, type PanelChain, type PanelWorker } from "../test/helpers/daemon/panel.js";
import { startRpcTrace, type RpcTrace } from "./rpc-trace.js";
import { childProcessHost, inProcessHost, type DaemonHost, type JobTimes } from "./daemon-host.js";

const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 10);
const LATENCY_POLL_INTERVALS = [100, 500];
const BURST = 50;
const BURST_POLL_MS = 100;
const CONCURRENCIES = (process.env.BENCH_CONCURRENCIES ?? "4,8,16").split(",").map(Number);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 2);
const LOCAL_CONCURRENCY = 8;
/** Diagnostic only (adds a proxy hop): time the daemon's JSON-RPC calls by method. */
const TRACE = process.env.BENCH_RPC_TRACE === "1";
let trace: RpcTrace | undefined;
const WARM_UP = 10;
const PERSONAS = ["analyst", "analyst", "skeptic"] as const;
/** Where the bench stops the clock: the proposal is on chain (its window then runs for a day). */
const TERMINAL = new Set(["proposed", "proposed-elsewhere", "finalized", "already-settled", "failed"]);

const logger = createLogger({
  level: process.env.DAEMON_TEST_LOG ?? "silent",
  pretty: false,
  destination: process.stderr,
});
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

/** 4-byte selector → function name over the compiled contracts (for the RPC trace). */
async function selectorNames(): Promise<Record<string, string>> {
  const { readFileSync } = await import("node:fs");
  const { toFunctionSelector } = await import("viem");
  const out: Record<string, string> = {};
  for (const path of [
    "market/ResolutionMarket.sol/ResolutionMarket.json",
    "erc8004/IdentityRegistry.sol/IdentityRegistry.json",
    "erc8004/ReputationRegistry.sol/ReputationRegistry.json",
  ]) {
    const { abi } = JSON.parse(readFileSync(new URL(`../artifacts/contracts/${path}`, import.meta.url), "utf8")) as {
      abi: { type: string; name: string; inputs: { type: string }[] }[];
    };
    for (const f of abi.filter((x) => x.type === "function")) {
      out[toFunctionSelector(`${f.name}(${f.inputs.map((i) => i.type).join(",")})`)] =
        `${path.split("/")[1].replace(".sol", "")}.${f.name}`;
    }
  }
  return out;
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
  const creator = createWalletClient({
    chain: { ...hardhat, id: chainId },
    transport: http(chain.rpcUrl, { retryCount: 0 }),
    account: chain.creator,
  });
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
      for (let i = 0; i < n; i++)
        ids.push(
          await chain.openMarket(`Will the ${label} benchmark market #${i} close above its 2026 threshold?`, seated),
        );
      return ids;
    },
    async request(ids) {
      await chain.testClient.setAutomine(false);
      let minedAt: number;
      try {
        for (const id of ids) {
          await creator.writeContract({
            address: chain.market,
            abi: marketAbi,
            functionName: "requestResolution",
            args: [id],
            account: chain.creator,
            chain: creator.chain,
            gas: 200_000n,
          });
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

/** Temp SQLite files of this run, removed at the end. */
const tempDbs: string[] = [];
const dbPath = (name = "bench") => {
  const path = tempDbPath(name);
  tempDbs.push(path);
  return path;
};

async function startOn(host: DaemonHost, b: Bench, pollIntervalMs: number, concurrency: number) {
  trace?.take();
  await host.start({
    rpcUrl: trace?.url ?? b.chain.rpcUrl,
    privateKey: b.chain.resolverKey,
    market: b.chain.market,
    startBlock: await b.nextBlock(),
    dbPath: dbPath(),
    pollIntervalMs,
    concurrency,
  });
}

/** Per-job timings relative to the request block (ms), and outcome counts. */
function summarize(rows: JobTimes[], minedAt: number | number[]) {
  const at = (i: number) => (Array.isArray(minedAt) ? minedAt[i] : minedAt);
  const states: Record<string, number> = {};
  for (const r of rows) states[r.state] = (states[r.state] ?? 0) + 1;
  return {
    states,
    retried: rows.filter((r) => r.attempts > 1).length,
    requestBlockToJobStartMs: stats(rows.map((r, i) => r.startedAt - at(i))),
    requestBlockToWrittenMs: stats(rows.map((r, i) => r.finishedAt - at(i))),
    jobStartToWrittenMs: stats(rows.map((r) => r.finishedAt - r.startedAt)),
  };
}

/** Checks the chain: every market Resolved, with the hash of the bundle the daemon stored. */
async function verifyOnChain(b: Bench, rows: JobTimes[]) {
  let resolved = 0;
  let hashMatches = 0;
  for (const r of rows) {
    const m = await b.chain.getMarket(BigInt(r.marketId));
    if (m.status === STATUS.Resolved) resolved++;
    if (r.bundleHash !== null && r.bundleHash === m.bundleHash) hashMatches++;
  }
  return { markets: rows.length, resolvedOnChain: resolved, storedBundleHashEqualsOnChain: hashMatches };
}

async function latency(host: DaemonHost, b: Bench, ids: bigint[], pollIntervalMs: number) {
  await startOn(host, b, pollIntervalMs, 4);
  const rows: JobTimes[] = [];
  const mined: number[] = [];
  try {
    for (const id of ids) {
      // Random phase against the poll timer.
      await sleep(Math.random() * pollIntervalMs);
      mined.push(await b.request([id]));
      rows.push(...(await host.wait([id], 60_000)));
    }
    const { jobStartToWrittenMs, ...s } = summarize(rows, mined);
    return {
      daemon: host.where,
      pollIntervalMs,
      confirmations: 0,
      concurrency: 4,
      workersPerMarket: PERSONAS.length,
      ...s,
      jobStartToWrittenMs,
      verify: await verifyOnChain(b, rows),
    };
  } finally {
    await host.stop();
  }
}

/** The figures every burst reports: its settings, wall time, throughput and the per-market latencies. */
function burstFigures(ids: bigint[], concurrency: number, rows: JobTimes[], minedAt: number) {
  const totalMs = Math.max(...rows.map((r) => r.finishedAt)) - minedAt;
  return {
    concurrency,
    pollIntervalMs: BURST_POLL_MS,
    confirmations: 0,
    totalWallMs: totalMs,
    marketsPerSecond: Math.round((ids.length / (totalMs / 1000)) * 10) / 10,
    ...summarize(rows, minedAt),
  };
}

/** Request block → job start / written of every market of the measured child-process bursts, pooled. */
const pooled = { start: [] as number[], written: [] as number[] };

async function burstEndToEnd(host: DaemonHost, b: Bench, ids: bigint[], concurrency: number, note?: string) {
  await startOn(host, b, BURST_POLL_MS, concurrency);
  try {
    const minedAt = await b.request(ids);
    const rows = await host.wait(ids, 120_000);
    if (note === undefined && host.where === "child-process") {
      pooled.start.push(...rows.map((r) => r.startedAt - minedAt));
      pooled.written.push(...rows.map((r) => r.finishedAt - minedAt));
    }
    return {
      mode: "end-to-end: production daemon, 3 instant CRE agents, rubric evaluator, proposeResolution receipt",
      daemon: host.where,
      ...(note !== undefined ? { note } : {}),
      markets: ids.length,
      workersPerMarket: PERSONAS.length,
      ...burstFigures(ids, concurrency, rows, minedAt),
      agentCalls: await host.agentCalls(),
      ...(trace ? { rpcTrace: trace.take() } : {}),
      verify: await verifyOnChain(b, rows),
    };
  } finally {
    await host.stop();
  }
}

async function burstDaemonOnly(b: Bench, ids: bigint[], concurrency: number) {
  // The daemon's own cost only: the run answers at once and the "proposal" is not sent (no agents, no
  // evaluator, no chain write); the job ends `proposed` with a dummy tx hash.
  const instant: MarketSeams = {
    account: `0x${"00".repeat(20)}` as Hex,
    read: async () => ({ status: "requested", chainTime: Math.floor(Date.now() / 1000) }),
    run: async (marketId) => {
      const bundle = JSON.stringify({ bench: true, marketId: marketId.toString(10) });
      return { verdict: "yes", bundle, bundleHash: keccak256(stringToBytes(bundle)), payload: null };
    },
    propose: async () => ({ txHash: `0x${"00".repeat(32)}` as Hex }),
    finalize: async () => ({ kind: "not-needed" }),
    publishFeedback: async () => ({ published: 0, pending: 0 }),
    escalate: async () => ({ action: "none" }),
  };
  const d = await startDaemon(
    {
      markets: [b.chain.market],
      startBlock: await b.nextBlock(),
      dbPath: dbPath("bench-stub"),
      confirmations: 0,
      pollIntervalMs: BURST_POLL_MS,
      concurrency,
      apiHost: "127.0.0.1",
      apiPort: 0,
      handleSignals: false,
    },
    { publicClient: rpcClient(b.chain.rpcUrl), seams: instant, logger },
  );
  try {
    const minedAt = await b.request(ids);
    const jobOf = (id: bigint) => d.store.getJob({ chainId: d.chainId, market: b.chain.market, marketId: id });
    const done = () => ids.every((id) => TERMINAL.has(jobOf(id)?.state ?? ""));
    const deadline = Date.now() + 60_000;
    while (!done()) {
      if (Date.now() > deadline) throw new Error("timed out waiting for the stub jobs");
      await sleep(5);
    }
    const rows: JobTimes[] = ids.map((id) => {
      const r = jobOf(id)!;
      return {
        marketId: id.toString(10),
        state: r.state,
        attempts: r.attempts,
        startedAt: r.startedAt!,
        finishedAt: r.finishedAt ?? r.updatedAt,
        bundleHash: null,
      };
    });
    return {
      mode: "daemon only, NOT end-to-end: stub job (returns written at once; no agents, evaluator or chain write): event ingestion + scheduling + SQLite transitions; the markets stay ResolutionRequested on chain",
      daemon: "in-process" as const,
      markets: ids.length,
      ...burstFigures(ids, concurrency, rows, minedAt),
    };
  } finally {
    await d.stop();
  }
}

async function main() {
  const t0 = Date.now();
  const loadAtStart = loadavg()[0];
  const b = await setup();
  if (TRACE) trace = await startRpcTrace(b.chain.rpcUrl, await selectorNames());
  const child = await childProcessHost();
  const local = inProcessHost();
  try {
    // All markets first (deadline +1 h), then one jump past every deadline.
    const warmIds = [
      await b.open("warm-up-child", WARM_UP, b.workers),
      await b.open("warm-up-in-process", WARM_UP, b.workers),
    ];
    const latIds = [];
    for (const p of LATENCY_POLL_INTERVALS) latIds.push(await b.open(`latency-${p}ms`, LATENCY_SAMPLES, b.workers));
    const bursts: { concurrency: number; ids: bigint[] }[] = [];
    for (let r = 0; r < REPEATS; r++)
      for (const c of CONCURRENCIES)
        bursts.push({ concurrency: c, ids: await b.open(`burst-c${c}-r${r}`, BURST, b.workers) });
    const localIds = await b.open("burst-in-process", BURST, b.workers);
    const stubIds = await b.open("stub", BURST, b.workers.slice(0, 1));
    await b.chain.testClient.increaseTime({ seconds: 3_601 });
    await b.chain.testClient.mine({ blocks: 1 });
    const setupMs = Date.now() - t0;
    console.error(`setup ${setupMs} ms`);

    // A daemon that just started is cold (module loading, JIT): one small burst first, reported apart.
    const warmUp = await burstEndToEnd(
      child,
      b,
      warmIds[0],
      LOCAL_CONCURRENCY,
      "warm-up of the child process (cold JIT), not a measurement",
    );
    const lat = [];
    for (const [i, p] of LATENCY_POLL_INTERVALS.entries()) {
      lat.push(await latency(child, b, latIds[i], p));
      console.error(`latency poll ${p} ms: start p50 ${lat.at(-1)!.requestBlockToJobStartMs.p50} ms`);
    }
    const e2e: Awaited<ReturnType<typeof burstEndToEnd>>[] = [];
    for (const { concurrency, ids } of bursts) {
      e2e.push(await burstEndToEnd(child, b, ids, concurrency));
      console.error(`burst c=${concurrency}: ${e2e.at(-1)!.marketsPerSecond} markets/s`);
    }
    const byConcurrency = Object.fromEntries(
      CONCURRENCIES.map((c) => [String(c), e2e.filter((e) => e.concurrency === c).map((e) => e.marketsPerSecond)]),
    );
    await burstEndToEnd(local, b, warmIds[1], LOCAL_CONCURRENCY, "warm-up");
    const shared = await burstEndToEnd(
      local,
      b,
      localIds,
      LOCAL_CONCURRENCY,
      "for comparison: the daemon in the bench process, sharing one event loop with the chain's JSON-RPC server and the 3 agents (how the tests run it)",
    );
    console.error(`burst in-process c=${LOCAL_CONCURRENCY}: ${shared.marketsPerSecond} markets/s`);
    const stub = await burstDaemonOnly(b, stubIds, LOCAL_CONCURRENCY);

    const cpu = cpus()[0]?.model ?? "unknown";
    const rates = e2e.map((e) => e.marketsPerSecond).sort((x, y) => x - y);
    const pick = (st: ReturnType<typeof stats>) => ({ p50: st.p50, p95: st.p95 });
    const summary = {
      singleMarket: Object.fromEntries(
        lat.map((l) => [
          `poll${l.pollIntervalMs}ms`,
          {
            requestBlockToJobStartMs: pick(l.requestBlockToJobStartMs),
            requestBlockToWrittenMs: pick(l.requestBlockToWrittenMs),
          },
        ]),
      ),
      burst50EndToEnd: {
        bursts: e2e.length,
        concurrencies: CONCURRENCIES,
        workersPerMarket: PERSONAS.length,
        pollIntervalMs: BURST_POLL_MS,
        confirmations: 0,
        marketsPerSecond: {
          min: rates[0],
          median:
            Math.round(
              ((rates[Math.floor((rates.length - 1) / 2)] + rates[Math.ceil((rates.length - 1) / 2)]) / 2) * 10,
            ) / 10,
          max: rates[rates.length - 1],
        },
        totalWallMs: {
          min: Math.min(...e2e.map((e) => e.totalWallMs)),
          max: Math.max(...e2e.map((e) => e.totalWallMs)),
        },
        pooledRequestBlockToJobStartMs: pick(stats(pooled.start)),
        pooledRequestBlockToWrittenMs: pick(stats(pooled.written)),
        allResolvedOnChainWithMatchingBundleHash: e2e.every(
          (e) => e.verify.resolvedOnChain === e.markets && e.verify.storedBundleHashEqualsOnChain === e.markets,
        ),
      },
      daemonOnlyStubMarketsPerSecond: stub.marketsPerSecond,
    };
    const result = {
      generatedAt: new Date().toISOString(),
      node: process.version,
      machine: `${availableParallelism()} cores (${cpu}), shared with other work (1-min load average ${loadAtStart.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at end); the daemon runs in its own Node process (forked), the chain's JSON-RPC server, the 3 agents and this script in another`,
      chain:
        "Hardhat EDR (in-process in the bench process) over JSON-RPC/HTTP on 127.0.0.1, automine (each proposeResolution in its own block)",
      contract: "ResolutionMarket + IdentityRegistry + ReputationRegistry (real), 3 worker seats per market",
      daemon:
        "startResolverDaemon (daemon/host.ts): real pipeline (daemon/seams.ts), SQLite file, resolver key + RPC URL (viem receipt polling 100 ms on a local chain id), maxAttempts 2",
      agents:
        "3 reference agents (agents/reference/server.ts, offline engine: instant answers), CRE protocol over loopback HTTP, personas analyst/analyst/skeptic, ERC-8004 data: registration files",
      evaluator: "rubric (default)",
      timeSource:
        "Date.now() (same clock in both processes); request block = when the mining RPC call returned; job start = SQLite started_at (the running claim); written = SQLite finished_at (after the proposeResolution receipt)",
      summary,
      latencyFromRequestBlock: lat,
      ...(TRACE
        ? {
            warning:
              "BENCH_RPC_TRACE=1: the daemon's RPC went through a timing proxy (extra hop); not headline figures",
          }
        : {}),
      throughput50AtOnceMarketsPerSecondByConcurrency: byConcurrency,
      throughput50AtOnce: e2e,
      throughput50AtOnceInProcess: shared,
      daemonOnlyStub50AtOnce: stub,
      warmUp: {
        markets: warmUp.markets,
        totalWallMs: warmUp.totalWallMs,
        marketsPerSecond: warmUp.marketsPerSecond,
        states: warmUp.states,
      },
      setupWallMs: setupMs,
      totalWallMs: Date.now() - t0,
    };
    if (!TRACE) {
      mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
      writeFileSync(new URL("./results/daemon.json", import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
    }
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await local.stop();
    await child.dispose();
    await trace?.close();
    for (const path of tempDbs) rmSync(dirname(path), { recursive: true, force: true });
    await stopAll();
    await b.chain.close();
  }
}

await main();
