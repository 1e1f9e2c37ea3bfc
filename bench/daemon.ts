/**
 * Daemon benchmark (`npm run bench:daemon` → bench/results/daemon.json), on the real ResolutionMarket served by
 * Hardhat's EDR chain over JSON-RPC/HTTP on loopback, with a real SQLite file:
 *  1. latency: wall time from the block carrying ResolutionRequested being mined to the job starting
 *     (confirmations 0; add confirmations × block time on a real chain), one market at a time;
 *  2. throughput: 50 markets requested in one block, "instant" jobs: (a) daemon only (the job returns at once,
 *     no chain write: ingestion + scheduling + SQLite transitions), (b) the chain-writing test job (re-read,
 *     simulate, resolveMarket, receipt) standing in for the pipeline with instant agents.
 * The resolution pipeline (wf-io) is not merged on this branch: no agents or evaluator are involved.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { keccak256, stringToBytes, type Hex } from "viem";
import type { JobOutcome, ResolveJob } from "../daemon/index.js";
import { startTestChain, waitFor, type TestChain } from "../test/ts/daemon/helpers/chain.js";
import { startTestDaemon, type TestDaemon } from "../test/ts/daemon/helpers/daemon.js";

const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 10);
const POLL_INTERVALS = [100, 500];
const BURST = 50;
const CONCURRENCY = 8;

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

async function nextBlock(chain: TestChain) {
  return Number(await chain.publicClient.getBlockNumber({ cacheTime: 0 })) + 1;
}

async function latency(chain: TestChain, pollIntervalMs: number) {
  const d = await startTestDaemon(chain, { config: { startBlock: await nextBlock(chain), pollIntervalMs, confirmations: 0 } });
  const samples: number[] = [];
  try {
    for (let i = 0; i < LATENCY_SAMPLES; i++) {
      const [id] = await chain.openMarkets([`Latency ${pollIntervalMs} #${i}?`], 1);
      // Random phase against the poll timer.
      await new Promise((r) => setTimeout(r, Math.random() * pollIntervalMs));
      const { minedAt } = await chain.requestResolution([id]);
      const started = await waitFor(() => d.job.stats.startedAt.get(id)?.[0], "job start", 60_000, 2);
      samples.push(started - minedAt);
      await waitFor(() => d.handle.store.getJob({ chainId: chain.chainId, market: chain.market, marketId: id })?.state === "written", "written", 60_000, 5);
    }
  } finally {
    await d.handle.stop();
  }
  return { pollIntervalMs, confirmations: 0, ms: stats(samples) };
}

async function throughput(chain: TestChain, mode: "daemon-only" | "chain-write") {
  const ids = await chain.openMarkets(Array.from({ length: BURST }, (_, i) => `Burst ${mode} #${i}?`), 1);
  const startBlock = await nextBlock(chain);
  const instantStarts = new Map<bigint, number[]>();
  // The daemon's own cost only: an instant job, no chain write.
  const instant: ResolveJob = async (marketId): Promise<JobOutcome> => {
    instantStarts.set(marketId, [Date.now()]);
    const bundle = JSON.stringify({ bench: true, marketId: marketId.toString(10) });
    return { kind: "written", txHash: ("0x" + "00".repeat(32)) as Hex, bundle, bundleHash: keccak256(stringToBytes(bundle)) };
  };
  const d: TestDaemon = await startTestDaemon(chain, {
    config: { startBlock, pollIntervalMs: 100, confirmations: 0, concurrency: CONCURRENCY },
    ...(mode === "daemon-only" ? { resolveJob: instant } : {}),
  });
  const startedAt = mode === "daemon-only" ? instantStarts : d.job.stats.startedAt;
  try {
    const { minedAt } = await chain.requestResolution(ids, { oneBlock: true });
    const doneAt = await waitFor(
      () => (ids.every((id) => d.handle.store.getJob({ chainId: chain.chainId, market: chain.market, marketId: id })?.state === "written") ? Date.now() : 0),
      "all written",
      300_000,
      5,
    );
    const starts = ids.map((id) => startedAt.get(id)?.[0] ?? NaN).filter(Number.isFinite);
    const totalMs = doneAt - minedAt;
    return {
      mode,
      markets: ids.length,
      concurrency: CONCURRENCY,
      pollIntervalMs: 100,
      totalMs,
      marketsPerSecond: Math.round((ids.length / (totalMs / 1000)) * 10) / 10,
      firstJobStartMs: Math.min(...starts) - minedAt,
      lastJobStartMs: Math.max(...starts) - minedAt,
    };
  } finally {
    await d.handle.stop();
  }
}

async function main() {
  const chain = await startTestChain();
  try {
    const lat = [];
    for (const p of POLL_INTERVALS) lat.push(await latency(chain, p));
    const tp = [await throughput(chain, "daemon-only"), await throughput(chain, "chain-write")];
    const result = {
      generatedAt: new Date().toISOString(),
      node: process.version,
      chain: "Hardhat EDR (in-process) over JSON-RPC/HTTP on 127.0.0.1, automine",
      contract: "ResolutionMarket (real), 1 worker seat per market",
      pipeline: "not merged on this branch: jobs are the chain-writing test job or an instant stub, no agents/evaluator",
      latencyFromRequestBlockToJobStart: lat,
      throughput50AtOnce: tp,
    };
    mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
    writeFileSync(new URL("./results/daemon.json", import.meta.url), JSON.stringify(result, null, 2) + "\n");
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await chain.close();
  }
}

await main();
