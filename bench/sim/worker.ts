/**
 * One bench:integrity run (scenario × seed × engine) in a worker thread, so seeds run in parallel
 * (`--jobs`). Scenarios are rebuilt here by name (their ids are deterministic), the result posted back.
 */
import { parentPort } from "node:worker_threads";
import { scenarios } from "./scenarios.js";
import { simulate, type Engine } from "./simulate.js";
import type { VerdictConfigInput } from "../../workflow/core/vote.js";
import type { WatchConfig } from "../../workflow/core/watch.js";

export interface SimTask {
  id: number;
  scenario: string;
  seed: number;
  markets: number;
  vote: VerdictConfigInput;
  engine: Engine;
  watch: Partial<WatchConfig>;
}

const byName = new Map(scenarios().map((s) => [s.name, s]));

parentPort?.on("message", (task: SimTask) => {
  const s = byName.get(task.scenario);
  if (s === undefined) {
    parentPort?.postMessage({ id: task.id, error: `unknown scenario ${task.scenario}` });
    return;
  }
  simulate(s, task.seed, task.markets, task.vote, task.engine, task.watch).then(
    (result) => parentPort?.postMessage({ id: task.id, result }),
    (e: unknown) => parentPort?.postMessage({ id: task.id, error: e instanceof Error ? e.message : String(e) }),
  );
});
