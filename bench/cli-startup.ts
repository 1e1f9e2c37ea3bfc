/**
 * `npm run bench:cli`: how fast the built CLI (dist/cli/main.js, what the `cresolver` bin runs) answers, side by
 * side in one run: `--version`, `--help`, every command's `--help`, and `market list` against a real chain (Hardhat
 * in-process, served over loopback HTTP, two markets). The commands run interleaved, round after round, so machine
 * load weighs on all of them alike. Per command: the median wall time to the first byte of output and to exit, the
 * median CPU time (user + system, Linux: the reaped child's share of /proc/self/stat), and each as a multiple of
 * `--version`. Results: bench/results/cli-startup.json.
 *
 * Needs `npm run build` (contracts and dist/ with dist/cli/command-tree.json). BENCH_CLI_ROUNDS sets the rounds
 * (default 7).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { network } from "hardhat";
import { run } from "../cli/program.js";
import { localDevKey } from "../workflow/chain/dev-accounts.js";
import { startRpcBridge } from "../test/ts/cli/helpers/rpc-bridge.js";

const main = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const tree = fileURLToPath(new URL("../dist/cli/command-tree.json", import.meta.url));
const rounds = Number(process.env.BENCH_CLI_ROUNDS ?? 7);
if (!Number.isInteger(rounds) || rounds < 1 || rounds > 100) throw new Error("BENCH_CLI_ROUNDS must be 1-100");
if (!existsSync(main) || !existsSync(tree)) {
  process.stderr.write("error: dist/ is not built (or predates the command description): run `npm run build`\n");
  process.exit(1);
}

interface Sample {
  firstOutputMs: number;
  exitMs: number;
  /** User + system CPU of the child; undefined off Linux. */
  cpuMs: number | undefined;
  code: number | null;
  /** The first line of stderr (why a run failed). */
  error: string;
}

/** CPU time (ms) of this process's reaped children: /proc/self/stat cutime + cstime (clock ticks of 10 ms). */
function childrenCpuMs(): number | undefined {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields after the command name start at field 3 (state): cutime is field 16, cstime field 17.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return undefined;
  }
}

/** One run of the built CLI: wall time to its first byte on stdout or stderr and to its exit. */
function once(args: string[], env: NodeJS.ProcessEnv): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const cpuBefore = childrenCpuMs();
    const start = performance.now();
    let first: number | undefined;
    const child = spawn(process.execPath, [main, ...args], { cwd: setupDir, env, stdio: ["ignore", "pipe", "pipe"] });
    const mark = () => {
      first ??= performance.now() - start;
    };
    let stderr = "";
    child.stdout.on("data", mark);
    child.stderr.on("data", (chunk: Buffer) => {
      mark();
      if (stderr.length < 4_096) stderr += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const exitMs = performance.now() - start;
      const cpuAfter = childrenCpuMs();
      const cpuMs = cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter - cpuBefore : undefined;
      resolve({ firstOutputMs: first ?? exitMs, exitMs, cpuMs, code, error: stderr.split("\n")[0] ?? "" });
    });
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const lo = sorted[mid - 1];
  const hi = sorted[mid];
  if (hi === undefined) return Number.NaN;
  return sorted.length % 2 === 1 || lo === undefined ? hi : (lo + hi) / 2;
}

// The chain: Hardhat in-process behind a loopback HTTP bridge; the contracts and two markets made by the CLI itself.
const { provider } = await network.create();
const bridge = await startRpcBridge(provider);
const setupDir = mkdtempSync(join(tmpdir(), "cresolver-bench-cli-"));
let deployed = "";
for (const args of [
  ["--json", "deploy"],
  ["market", "create", "--question", "Will the bench finish?", "--deadline", "+1h", "--reward", "0.01"],
  ["market", "create", "--question", "Will a second market list?", "--deadline", "+2h", "--reward", "0.01"],
]) {
  let out = "";
  let err = "";
  const code = await run(args, {
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    env: { RPC_URL: bridge.url, PRIVATE_KEY: localDevKey(0) },
    cwd: setupDir,
  });
  if (code !== 0) throw new Error(`setup: cresolver ${args.join(" ")}: ${err.trim()}`);
  if (args[1] === "deploy") deployed = out;
}
const market = (JSON.parse(deployed) as { contracts: { ResolutionMarket: { address: string } } }).contracts
  .ResolutionMarket.address;

// The CLI turns on Node's compile cache; here in a folder of its own, filled by the warm-up round.
const env: NodeJS.ProcessEnv = {
  ...process.env,
  RPC_URL: bridge.url,
  NO_COLOR: "1",
  NODE_COMPILE_CACHE: join(setupDir, "compile-cache"),
};
delete env.PRIVATE_KEY;
const cases: { label: string; args: string[] }[] = [
  { label: "--version", args: ["--version"] },
  { label: "--help", args: ["--help"] },
  ...["deploy", "agent", "market", "bet", "owed", "owner", "resolve", "daemon", "explorer"].map((c) => ({
    label: `${c} --help`,
    args: [c, "--help"],
  })),
  { label: "market list --help", args: ["market", "list", "--help"] },
  // The usual path: the market from deployments/localhost.json (written by the deploy above) for the chain's id.
  { label: "market list", args: ["market", "list"] },
  { label: "market list --market", args: ["--market", market, "market", "list"] },
];

// One warm-up round (file cache, Node's compile cache), not counted.
for (const c of cases) await once(c.args, env);
const samples = new Map<string, Sample[]>(cases.map((c) => [c.label, []]));
for (let r = 0; r < rounds; r++) {
  for (const c of cases) {
    const s = await once(c.args, env);
    if (s.code !== 0) throw new Error(`cresolver ${c.args.join(" ")} exited ${s.code}: ${s.error}`);
    samples.get(c.label)?.push(s);
  }
}
await bridge.close();
rmSync(setupDir, { recursive: true, force: true });

const versionRuns = samples.get("--version") ?? [];
const baseFirst = median(versionRuns.map((s) => s.firstOutputMs));
const baseExit = median(versionRuns.map((s) => s.exitMs));
const cpuOf = (runs: Sample[]) => {
  const values = runs.map((s) => s.cpuMs).filter((v): v is number => v !== undefined);
  return values.length === runs.length && values.length > 0 ? median(values) : undefined;
};
const baseCpu = cpuOf(versionRuns);
const rows = cases.map((c) => {
  const runs = samples.get(c.label) ?? [];
  const firstOutputMs = median(runs.map((s) => s.firstOutputMs));
  const exitMs = median(runs.map((s) => s.exitMs));
  const cpuMs = cpuOf(runs);
  return {
    command: `cresolver ${c.label}`,
    medianFirstOutputMs: Math.round(firstOutputMs),
    medianExitMs: Math.round(exitMs),
    firstOutputVsVersion: Number((firstOutputMs / baseFirst).toFixed(2)),
    exitVsVersion: Number((exitMs / baseExit).toFixed(2)),
    medianCpuMs: cpuMs ?? null,
    cpuVsVersion: cpuMs !== undefined && baseCpu !== undefined ? Number((cpuMs / baseCpu).toFixed(2)) : null,
  };
});

const result = {
  bench: "cli-startup",
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  loadAverage1m: Number((loadavg()[0] ?? 0).toFixed(2)),
  rounds,
  entry: "node dist/cli/main.js (the cresolver bin), RPC_URL on a loopback Hardhat chain with 2 markets",
  compileCache: "warm: the CLI enables Node's compile cache; the uncounted warm-up round fills it",
  rows,
};
mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
writeFileSync(new URL("./results/cli-startup.json", import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(
  `node ${process.version}, ${result.cpus} CPUs, load ${result.loadAverage1m}, ${rounds} rounds (medians)\n`,
);
for (const r of rows)
  process.stdout.write(
    `${r.command.padEnd(36)} first output ${String(r.medianFirstOutputMs).padStart(5)} ms (${r.firstOutputVsVersion}×)   exit ${String(r.medianExitMs).padStart(5)} ms (${r.exitVsVersion}×)   CPU ${String(r.medianCpuMs ?? "?").padStart(4)} ms (${r.cpuVsVersion ?? "?"}×)\n`,
  );
process.exit(0);
