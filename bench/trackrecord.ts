/**
 * Track-record bench (`npm run bench:trackrecord` → bench/results/trackrecord.json): what the record costs a
 * resolution, with the daemon's index (daemon/record-index.ts) on a real SQLite file, against a synthetic node with a
 * provider's limits (bench/lib/record-rpc.ts: real `MarketRecorded` encoding, 10,000 results per eth_getLogs,
 * `delayMs` per request, a 30M-block chain, markets spread from block 1,000,000, 7 seats from 30 agents).
 *
 * Per size (1k / 10k / 100k finalized markets), in a fresh resolver process (its own RSS):
 *  - cold: an empty index file; sync from the deployment block, read the cut-off (recordHead), the panel's window
 *    history, decideVerdict;
 *  - warm: 5 more markets finalized, then the same resolution (sync of the new blocks only); 3 rounds.
 * Reported: RPC requests (counted by the node), wall ms, CPU ms (process.cpuUsage of the resolver) and the resolver
 * process's peak RSS. Knobs: BENCH_SIZES ("1000,10000,100000"), BENCH_DELAY_MS (100), BENCH_HEIGHT (30000000).
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { RecordIndex } from "../daemon/record-index.js";
import { DatabaseSync } from "../daemon/sqlite.js";
import { connect } from "../workflow/chain/clients.js";
import { readRecordHead } from "../workflow/chain/record.js";
import { decideVerdict } from "../workflow/core/vote.js";

const here = dirname(fileURLToPath(import.meta.url));
const MARKET = "0x5fbdb2315678afecb367f032d93f642f64180aa3" as const;
const PANEL = [1n, 2n, 3n, 4n, 5n, 6n, 7n];

async function rpc(url: string, method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(url, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  return ((await res.json()) as { result: unknown }).result;
}

/** One size, in this (child) process. */
async function runSize(markets: number, height: number, delayMs: number) {
  const dir = mkdtempSync(join(tmpdir(), "trackrecord-"));
  const portFile = join(dir, "port");
  const node = spawn(
    process.execPath,
    ["--import", "tsx", join(here, "lib/record-rpc.ts"), portFile, String(markets), String(height), String(delayMs)],
    {
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  try {
    while (!existsSync(portFile) || readFileSync(portFile, "utf8") === "") await new Promise((r) => setTimeout(r, 100));
    const url = `http://127.0.0.1:${readFileSync(portFile, "utf8")}`;
    const ctx = await connect({ rpcUrl: url });
    const db = new DatabaseSync(join(dir, "index.sqlite"));
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;");
    const index = new RecordIndex(db, { chainId: ctx.chainId, market: MARKET, fromBlock: 1_000_000n });

    const resolution = async () => {
      const before = (await rpc(url, "bench_stats")).requests as number;
      const cpu = process.cpuUsage();
      const t0 = performance.now();
      const synced = await index.sync(ctx);
      const cutoff = await readRecordHead(ctx, MARKET);
      const history = index.history(cutoff, PANEL, ctx.chainId);
      const reports = PANEL.map((_, i) => ({
        answer: i < 4 ? ("yes" as const) : ("no" as const),
        confidenceBps: 8000,
        resQuality: 50,
        srcQuality: 50,
        analysisDepth: 50,
      }));
      const decision = decideVerdict({ agentIds: PANEL, reports, history });
      const wallMs = Math.round(performance.now() - t0);
      const used = process.cpuUsage(cpu);
      const after = (await rpc(url, "bench_stats")).requests as number;
      return {
        requests: after - before,
        wallMs,
        cpuMs: Math.round((used.user + used.system) / 1000),
        entries: synced.count,
        added: synced.added,
        windowMarkets: index.window(cutoff).length,
        historyMarkets: history.length,
        verdict: decision.verdict,
        rssMB: Math.round(process.memoryUsage().rss / 2 ** 20),
      };
    };
    const cold = await resolution();
    const warm = [];
    for (let round = 0; round < 3; round++) {
      await rpc(url, "bench_advance", [5]);
      warm.push(await resolution());
    }
    db.close();
    return { markets, height, delayMs, cold, warm, peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024) };
  } finally {
    node.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "run") {
  const [m, h, d] = process.argv.slice(3).map(Number);
  const out = await runSize(m, h, d);
  process.stdout.write(`${JSON.stringify(out)}\n`);
  process.exit(0);
} else {
  const sizes = (process.env.BENCH_SIZES ?? "1000,10000,100000").split(",").map(Number);
  const delayMs = Number(process.env.BENCH_DELAY_MS ?? 100);
  const height = Number(process.env.BENCH_HEIGHT ?? 30_000_000);
  const results = [];
  for (const size of sizes) {
    const text = execFileSync(
      process.execPath,
      ["--import", "tsx", fileURLToPath(import.meta.url), "run", String(size), String(height), String(delayMs)],
      {
        encoding: "utf8",
        maxBuffer: 1 << 24,
      },
    );
    const r = JSON.parse(text.trim().split("\n").pop() ?? "{}");
    results.push(r);
    console.log(
      `${size} markets: cold ${r.cold.requests} req ${r.cold.wallMs} ms wall ${r.cold.cpuMs} ms CPU; warm ${r.warm.map((w: any) => `${w.requests} req ${w.wallMs}/${w.cpuMs} ms`).join(", ")}; window ${r.cold.windowMarkets}, history ${r.cold.historyMarkets}; peak RSS ${r.peakRssMB} MB`,
    );
  }
  // Sizes not run this time keep their last figures (the 100k run takes ~11 minutes on its own).
  const file = join(here, "results/trackrecord.json");
  const previous: { markets: number }[] = existsSync(file)
    ? ((JSON.parse(readFileSync(file, "utf8")) as { results?: { markets: number }[] }).results ?? [])
    : [];
  const merged = [...previous.filter((p) => !sizes.includes(p.markets)), ...results].sort(
    (a, b) => a.markets - b.markets,
  );
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        node: process.version,
        cpus: 2,
        note: "2 shared cores; the box ran other jobs",
        event:
          "MarketRecorded encoded with the generated ResolutionMarket ABI, heads by the RECORDS §3 step (chainStep, pinned to the contract's own heads in test/ts/workflow/record-chain.test.ts); every sync checks each head and ends on recordHead()",
        results: merged,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`written ${file}`);
}
