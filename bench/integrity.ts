/**
 * bench:integrity — does the resolver settle on the truth? Simulated panels with known accuracies (independent
 * errors, colluders, style decoupled from accuracy, a Sybil swarm), 60 markets each resolved one after another
 * through the real pipeline stages, several seeds. Writes bench/results/integrity.json.
 *
 *   npm run bench:integrity [-- --seeds 20 --markets 60 --only a,b --jobs 2 --no-previous]
 *
 * Runs (scenario × seed × engine) go to `--jobs` worker threads (default: the available cores, at most 4);
 * progress goes to stderr, one line per finished scenario (and a dot per run).
 *
 * Per scenario (mean over seeds, every counted market is correct / wrong / unresolved): the new decision, the
 * pre-issue-10 vote (frozen copy), an oracle (the same rule weighted with the TRUE accuracies: the cost of the
 * threshold itself, without estimation error), the head count and the best single agent; Spearman(correctness reputation,
 * true accuracy) as markets accumulate; a sweep of the posterior threshold.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_ACCURACY_CONFIG } from "../workflow/core/accuracy.js";
import { DEFAULT_MIN_HISTORY, DEFAULT_THRESHOLD_BPS, type VerdictConfigInput } from "../workflow/core/vote.js";
import { DEFAULT_WATCH_CONFIG } from "../workflow/core/watch.js";
import { scenarios, type Scenario } from "./sim/scenarios.js";
import { CHECKPOINTS, type Call, type Engine, type MarketTrace, type SimResult } from "./sim/simulate.js";
import type { SimTask } from "./sim/worker.js";

/** Skip the runs with the 15142af estimator (`previous`): halves the time. */
const NO_PREVIOUS = process.argv.includes("--no-previous");

const args = process.argv.slice(2);
const arg = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const SEEDS = arg("seeds", 20);
/** First seed (default 1): `--first-seed 21` checks the figures on another set of seeds. */
const FIRST_SEED = arg("first-seed", 1);
const MARKETS = arg("markets", 60);
const THRESHOLD_BPS = arg("threshold", DEFAULT_THRESHOLD_BPS);
/** Other decision parameters to try, as JSON (VerdictConfigInput), e.g. --vote '{"minHistory":3}'. */
const VOTE: VerdictConfigInput = (() => {
  const i = args.indexOf("--vote");
  return i >= 0 ? (JSON.parse(args[i + 1]) as VerdictConfigInput) : {};
})();
/** `--out NAME` writes bench/results/NAME instead (partial runs with `--only`). */
const OUT = args.includes("--no-write")
  ? undefined
  : args.includes("--out")
    ? (args[args.indexOf("--out") + 1] ?? "integrity.json")
    : "integrity.json";
/** The simulated watcher's `--against-share` (default: the CLI's). */
const WATCH = args.includes("--against-share") ? { againstShare: arg("against-share", 0.5) } : {};
/** Worker threads running the simulations in parallel. */
const JOBS = Math.max(1, arg("jobs", Math.min(4, availableParallelism())));
const SWEEP = [5_000, 5_500, 6_000, 6_500, 7_000, 7_500, 8_000, 8_500, 9_000, 9_500, 9_900];

interface Rates {
  correct: number;
  wrong: number;
  unresolved: number;
}
interface Spread extends Rates {
  /** Worst seed: lowest correct, highest wrong. */
  minCorrect: number;
  maxWrong: number;
}

const pct = (x: number): number => Math.round(x * 1000) / 10;

function rates(calls: Call[]): Rates {
  const n = calls.length || 1;
  return {
    correct: calls.filter((c) => c === "correct").length / n,
    wrong: calls.filter((c) => c === "wrong").length / n,
    unresolved: calls.filter((c) => c === "unresolved").length / n,
  };
}

function spread(perSeed: Rates[]): Spread {
  const mean = (k: keyof Rates): number => pct(perSeed.reduce((s, r) => s + r[k], 0) / perSeed.length);
  return {
    correct: mean("correct"),
    wrong: mean("wrong"),
    unresolved: mean("unresolved"),
    minCorrect: pct(Math.min(...perSeed.map((r) => r.correct))),
    maxWrong: pct(Math.max(...perSeed.map((r) => r.wrong))),
  };
}

function atThreshold(m: MarketTrace, bps: number): Call {
  if (!m.quorum || m.side === null || m.posterior * 10_000 < bps) return "unresolved";
  return m.side === m.truth ? "correct" : "wrong";
}

function oracleAt(m: MarketTrace, bps: number): Call {
  if (!m.quorum || m.oracleSide === null || m.oraclePosterior * 10_000 < bps) return "unresolved";
  return m.oracleSide === m.truth ? "correct" : "wrong";
}

function meanOf(values: (number | null)[]): number | null {
  const v = values.filter((x): x is number => x !== null);
  return v.length === 0 ? null : Math.round((v.reduce((s, x) => s + x, 0) / v.length) * 1000) / 1000;
}

/** Mean over seeds, per agent id: estimated accuracy after the last market and mean on-chain correctness. */
function meanAccuracies(results: SimResult[]): Record<string, { estimated: number; correctness: number }> {
  const out: Record<string, { estimated: number; correctness: number }> = {};
  const ids = new Set(results.flatMap((r) => Object.keys(r.estimated)));
  const avg = (xs: (number | undefined)[]): number => {
    const v = xs.filter((x): x is number => x !== undefined);
    return v.length === 0 ? 0 : Math.round((v.reduce((t, x) => t + x, 0) / v.length) * 1000) / 1000;
  };
  for (const id of ids)
    out[id] = {
      estimated: avg(results.map((r) => r.estimated[id])),
      correctness: avg(results.map((r) => r.correctness[id])),
    };
  return out;
}

/** A fixed pool of worker threads (bench/sim/worker.ts) running simulations; results in submission order. */
class SimPool {
  private readonly idle: Worker[] = [];
  private readonly queue: { task: SimTask; done: (r: SimResult) => void; fail: (e: Error) => void }[] = [];
  private readonly running = new Map<Worker, (msg: { result?: SimResult; error?: string }) => void>();
  private next = 0;
  constructor(size: number) {
    for (let i = 0; i < size; i++) {
      const w = new Worker(new URL("./sim/worker.ts", import.meta.url));
      w.on("message", (msg: { result?: SimResult; error?: string }) => {
        const cb = this.running.get(w);
        this.running.delete(w);
        this.idle.push(w);
        cb?.(msg);
        this.pump();
      });
      // A crashed worker fails its run (and the bench) with the cause instead of hanging.
      w.on("error", (e) => {
        const cb = this.running.get(w);
        this.running.delete(w);
        cb?.({ error: e.message });
      });
      this.idle.push(w);
    }
  }
  run(scenario: string, seed: number, markets: number, vote: VerdictConfigInput, engine: Engine): Promise<SimResult> {
    return new Promise((done, fail) => {
      this.queue.push({ task: { id: this.next++, scenario, seed, markets, vote, engine, watch: WATCH }, done, fail });
      this.pump();
    });
  }
  private pump(): void {
    while (this.idle.length > 0 && this.queue.length > 0) {
      const w = this.idle.pop();
      const job = this.queue.shift();
      if (w === undefined || job === undefined) return;
      this.running.set(w, (msg) => {
        if (msg.result !== undefined) job.done(msg.result);
        else job.fail(new Error(`${job.task.scenario} seed ${job.task.seed}: ${msg.error ?? "no result"}`));
      });
      w.postMessage(job.task);
    }
  }
  async close(): Promise<void> {
    await Promise.all(this.idle.map((w) => w.terminate()));
  }
}

const finalOf = (m: MarketTrace): Call => m.finalCall ?? (m.disputed ? "correct" : m.after);

async function runScenario(s: Scenario, pool: SimPool) {
  const t0 = performance.now();
  const seeds = Array.from({ length: SEEDS }, (_, k) => FIRST_SEED + k);
  const tick = <T>(p: Promise<T>): Promise<T> =>
    p.then((r) => {
      process.stderr.write(".");
      return r;
    });
  const current = Promise.all(
    seeds.map((seed) => tick(pool.run(s.name, seed, MARKETS, { ...VOTE, thresholdBps: THRESHOLD_BPS }, "current"))),
  );
  const older = NO_PREVIOUS
    ? Promise.resolve([])
    : Promise.all(
        seeds.map((seed) => tick(pool.run(s.name, seed, MARKETS, { thresholdBps: THRESHOLD_BPS }, "15142af"))),
      );
  // Determinism: the same seed again gives byte-identical bundles.
  const rerun = pool.run(
    s.name,
    FIRST_SEED,
    Math.min(MARKETS, 12),
    { ...VOTE, thresholdBps: THRESHOLD_BPS },
    "current",
  );
  const [results, previous, again] = await Promise.all([current, older, rerun]);
  const counted = (r: SimResult): MarketTrace[] =>
    r.markets.slice(s.countFrom ?? 0).filter((_, k) => k % (s.countEvery ?? 1) === 0);
  const of = (pick: (m: MarketTrace) => Call): Spread => spread(results.map((r) => rates(counted(r).map(pick))));
  const ofPrevious = (pick: (m: MarketTrace) => Call): Spread | null =>
    previous.length === 0 ? null : spread(previous.map((r) => rates(counted(r).map(pick))));
  const fragile =
    Math.round(
      (results.reduce((t, r) => t + counted(r).filter((m) => m.fragile).length, 0) /
        results.reduce((t, r) => t + counted(r).length, 0)) *
        1000,
    ) / 10;
  const deterministic = again.bundleHashes.every((h, i) => h === results[0].bundleHashes[i]);
  const after = of((m) => m.after);
  process.stderr.write(
    ` ${s.name}: ${after.correct} / ${after.wrong} / ${after.unresolved} (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`,
  );
  return {
    name: s.name,
    description: s.description,
    agents: s.agents.map((a) => ({
      id: a.id.toString(),
      kind: a.kind,
      accuracy: a.kind === "colluder" ? 0 : a.accuracy,
      style: a.style,
      joinAt: a.joinAt,
    })),
    countedMarkets: Math.ceil((MARKETS - (s.countFrom ?? 0)) / (s.countEvery ?? 1)),
    after,
    /** After disputes: a disputed wrong proposal is finalized with the truth by the arbiter. */
    final: of(finalOf),
    /** Share of counted markets left invalid as "fragile" (item 2's cost on honest panels). */
    fragile,
    /** The estimator and vote this issue replaced (15142af, bench/sim/frozen-v2), same scenario and seeds. */
    previous: ofPrevious((m) => m.after),
    previousFinal: ofPrevious(finalOf),
    previousSpearman: meanOf(previous.map((r) => r.spearmanAfter[MARKETS] ?? null)),
    estimated: meanAccuracies(results),
    disputed:
      Math.round(
        (results.reduce((s, r) => s + counted(r).filter((m) => m.disputed).length, 0) /
          results.reduce((s, r) => s + counted(r).length, 0)) *
          1000,
      ) / 10,
    before: of((m) => m.before),
    oracle: of((m) => oracleAt(m, THRESHOLD_BPS)),
    headCount: of((m) => m.headCount),
    bestSingle: of((m) => m.bestSingle),
    spearman: {
      after: Object.fromEntries(
        CHECKPOINTS.filter((k) => k <= MARKETS).map((k) => [k, meanOf(results.map((r) => r.spearmanAfter[k] ?? null))]),
      ),
      before: Object.fromEntries(
        CHECKPOINTS.filter((k) => k <= MARKETS).map((k) => [
          k,
          meanOf(results.map((r) => r.spearmanBefore[k] ?? null)),
        ]),
      ),
    },
    sweep: SWEEP.map((bps) => ({
      thresholdBps: bps,
      ...spread(results.map((r) => rates(counted(r).map((m) => atThreshold(m, bps))))),
    })),
    oracleSweep: SWEEP.map((bps) => ({
      thresholdBps: bps,
      ...spread(results.map((r) => rates(counted(r).map((m) => oracleAt(m, bps))))),
    })),
    deterministicBundles: deterministic,
    /** Per seed, the call of every market (not written: used to compare style variants market by market). */
    calls: results.map((r) => r.markets.map((m) => `${m.after}:${m.posterior}`).join(",")),
  };
}

type ScenarioResult = Awaited<ReturnType<typeof runScenario>>;

function acceptance(byName: Map<string, ScenarioResult>) {
  const g = (n: string): ScenarioResult => byName.get(n)!;
  const seven = g("7-agents").after;
  const checks: { check: string; pass: boolean; value: string }[] = [];
  const add = (check: string, pass: boolean, value: string): void => {
    checks.push({ check, pass, value });
  };
  add(
    "7 agents: correct ≥ 85 %, wrong ≤ 8 %",
    seven.correct >= 85 && seven.wrong <= 8,
    `${seven.correct} % / ${seven.wrong} %`,
  );
  for (const n of ["7-agents-rich-liars", "7-agents-terse-best"]) {
    const r = g(n).after;
    add(
      `${n}: within 3 points of the 7-agent panel`,
      Math.abs(r.correct - seven.correct) <= 3 && Math.abs(r.wrong - seven.wrong) <= 3,
      `${r.correct} % / ${r.wrong} %`,
    );
    const same = g(n).calls.every((c, i) => c === g("7-agents").calls[i]);
    add(
      `${n}: style never moves a verdict (same verdict and posterior in every market of every seed)`,
      same,
      same ? "identical" : "differs",
    );
  }
  const ten = g("10-agents").after;
  add(
    "10 agents: correct ≥ 70 %, wrong ≤ 20 %",
    ten.correct >= 70 && ten.wrong <= 20,
    `${ten.correct} % / ${ten.wrong} %`,
  );
  const three = g("3-agents");
  add(
    "3 agents: correct ≥ head count − 2, wrong ≤ head count's",
    three.after.correct >= three.headCount.correct - 2 && three.after.wrong <= three.headCount.wrong,
    `${three.after.correct} % / ${three.after.wrong} % vs ${three.headCount.correct} % / ${three.headCount.wrong} %`,
  );
  const rho = g("7-agents").spearman.after[60] ?? null;
  add(
    "7 agents: Spearman(correctness reputation, accuracy) ≥ 0.9 by market 60",
    rho !== null && rho >= 0.9,
    String(rho),
  );
  const sw = g("swarm").after;
  const ctl = g("swarm-control").after;
  add(
    "swarm: 20 fresh wrong agents change nothing (within 3 points of the 5 established agents alone)",
    Math.abs(sw.correct - ctl.correct) <= 3 && sw.wrong <= ctl.wrong + 3,
    `${sw.correct} % / ${sw.wrong} % vs ${ctl.correct} % / ${ctl.wrong} %`,
  );
  // Round 3 (issue 20), where the scenario ran.
  const has = (n: string): boolean => byName.has(n);
  // The farm-then-strike pair: how many markets after the strike finalize wrong (correct / wrong / unresolved).
  const strikes: [name: string, check: string, maxWrong: number][] = [
    [
      "farm-then-strike",
      "farm then strike, nobody disputing: ≤ 10 % of the markets after the strike finalize wrong",
      10,
    ],
    ["farm-then-strike-watched", "farm then strike, the watcher and an honest arbiter: ≤ 5 % finalize wrong", 5],
  ];
  for (const [name, check, maxWrong] of strikes.filter(([n]) => has(n))) {
    const r = g(name).final;
    add(check, r.wrong <= maxWrong, `${r.correct} % / ${r.wrong} % / ${r.unresolved} %`);
  }
  if (has("correlated-crowd")) {
    const c = g("correlated-crowd");
    add(
      "correlated crowd: wrong ≤ the head count's and correct ≥ the head count's",
      c.after.wrong <= c.headCount.wrong && c.after.correct >= c.headCount.correct,
      `${c.after.correct} % / ${c.after.wrong} % vs ${c.headCount.correct} % / ${c.headCount.wrong} %`,
    );
    // Agents 1–3 copy the shared source, agent 4 is the independent expert (scenarios.ts).
    const e = c.estimated;
    const expert = e["4"];
    const copiers = ["1", "2", "3"].map((id) => e[id]);
    const ranks = (k: "estimated" | "correctness"): boolean =>
      expert !== undefined && copiers.every((x) => x !== undefined && expert[k] > x[k]);
    add(
      "correlated crowd: the expert ranks above every copier in estimated accuracy and in on-chain correctness",
      ranks("estimated") && ranks("correctness"),
      `expert ${expert?.estimated}/${expert?.correctness}, copiers ${copiers.map((x) => `${x?.estimated}/${x?.correctness}`).join(" ")}`,
    );
  }
  if (has("farmed-sybils")) {
    const r = g("farmed-sybils").after;
    const hc = g("farmed-sybils").headCount;
    add(
      "farmed Sybils (admission filter): do not outvote 3 honest agents (correct ≥ 85 %, wrong ≤ 8 %)",
      r.correct >= 85 && r.wrong <= 8,
      `${r.correct} % / ${r.wrong} % (head count ${hc.correct} % / ${hc.wrong} %)`,
    );
  }
  return checks;
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const out: ScenarioResult[] = [];
  const flag = args.includes("--only") ? "--only" : "--scenarios";
  const only = args.includes(flag) ? (args[args.indexOf(flag) + 1] ?? "").split(",") : undefined;
  const chosen = scenarios().filter((s) => only === undefined || only.includes(s.name));
  const unknown = (only ?? []).filter((n) => !chosen.some((s) => s.name === n));
  if (unknown.length > 0) throw new Error(`unknown scenario(s): ${unknown.join(", ")}`);
  process.stderr.write(`${chosen.length} scenarios × ${SEEDS} seeds on ${JOBS} worker thread(s)\n`);
  const pool = new SimPool(JOBS);
  // Scenarios are submitted together (the pool stays busy), reported in order as each completes.
  const pending = chosen.map((s) => runScenario(s, pool));
  for (const p of pending) out.push(await p);
  await pool.close();
  const byName = new Map(out.map((r) => [r.name, r]));
  const checks = only === undefined ? acceptance(byName) : [];
  const doc = {
    bench: "integrity",
    seeds: SEEDS,
    firstSeed: FIRST_SEED,
    markets: MARKETS,
    decision: {
      thresholdBps: THRESHOLD_BPS,
      minHistory: DEFAULT_MIN_HISTORY,
      ...VOTE,
      accuracy: { ...DEFAULT_ACCURACY_CONFIG, ...(VOTE.accuracy ?? {}) },
      watch: { ...DEFAULT_WATCH_CONFIG, ...WATCH },
    },
    note: "percent of counted markets, mean over seeds firstSeed..firstSeed+seeds−1 (minCorrect / maxWrong: worst seed); before = the pre-issue-10 quality-weighted vote (bench/sim/frozen-vote-v1.ts)",
    scenarios: out.map(({ calls: _calls, ...rest }) => rest),
    acceptance: checks,
  };
  if (OUT !== undefined) {
    const here = dirname(fileURLToPath(import.meta.url));
    mkdirSync(join(here, "results"), { recursive: true });
    writeFileSync(join(here, "results", OUT), `${JSON.stringify(doc, null, 2)}\n`);
  }

  const row = (label: string, r: Spread): string =>
    `  ${label.padEnd(12)} ${String(r.correct).padStart(5)} % correct ${String(r.wrong).padStart(5)} % wrong ${String(r.unresolved).padStart(5)} % unresolved  (worst seed: ${r.minCorrect} % correct, ${r.maxWrong} % wrong)`;
  for (const r of out) {
    console.log(`\n${r.name} — ${r.description} (${r.countedMarkets} markets × ${SEEDS} seeds)`);
    console.log(`${row("after", r.after)}  [${r.fragile} % fragile]`);
    console.log(`${row("final", r.final)}  [${r.disputed} % disputed]`);
    if (r.previous !== null) console.log(row("15142af", r.previous));
    if (r.previousFinal !== null) console.log(row("15142af fin", r.previousFinal));
    console.log(
      `  estimated / correctness ${Object.entries(r.estimated)
        .map(([id, e]) => `${id}:${e.estimated}/${e.correctness}`)
        .join(" ")}`,
    );
    console.log(row("before", r.before));
    console.log(row("oracle", r.oracle));
    console.log(row("head count", r.headCount));
    console.log(row("best single", r.bestSingle));
    console.log(`  Spearman after  ${JSON.stringify(r.spearman.after)}`);
    console.log(`  Spearman before ${JSON.stringify(r.spearman.before)}`);
    console.log(
      `  sweep ${r.sweep.map((s) => `${s.thresholdBps}: ${s.correct}/${s.wrong}/${s.unresolved}`).join("  ")}`,
    );
    console.log(
      `  oracle sweep ${r.oracleSweep.map((s) => `${s.thresholdBps}: ${s.correct}/${s.wrong}/${s.unresolved}`).join("  ")}`,
    );
    if (!r.deterministicBundles) console.log("  !! bundles differ between two runs of the same seed");
  }
  console.log("\nacceptance:");
  for (const c of checks) console.log(`  ${c.pass ? "PASS" : "FAIL"}  ${c.check}: ${c.value}`);
  console.log(
    `\n${((performance.now() - t0) / 1000).toFixed(1)} s${OUT !== undefined ? `; wrote bench/results/${OUT}` : ""}`,
  );
}

await main();
