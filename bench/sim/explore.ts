/**
 * Dev tool: the decision alone (no rubric evaluation, no bundle) on the bench panels, several times faster than
 * bench:integrity and with the same random streams, hence the same proposals (correct / wrong / unresolved).
 * Disputes as in simulate.ts. Used to try decision parameters before a full bench run:
 *
 *   npx tsx bench/sim/explore.ts [--seeds 20] [--first-seed 1] [--only 3-agents,7-agents] [--vote '{json}'] [--buckets] [--dump]
 *
 * --buckets (panels of ≤ 3 agents): calls per pattern of right (1) / wrong (0) answers in seat order;
 * --dump: one line per market (seed, market, pattern, call, posterior, calibrated accuracies; u = unproven).
 */
import type { HistoryMarket, WorkerReport } from "../../workflow/core/types.js";
import { decideVerdict, type VerdictConfigInput } from "../../workflow/core/vote.js";
import { confidenceToBps } from "../../workflow/core/correctness.js";
import { createRng } from "./prng.js";
import { scenarios } from "./scenarios.js";
import { evidenceFor } from "./text.js";

const args = process.argv.slice(2);
const get = (n: string, d: string): string => (args.includes(`--${n}`) ? args[args.indexOf(`--${n}`) + 1] : d);
const seeds = Number(get("seeds", "20"));
const first = Number(get("first-seed", "1"));
const vote = JSON.parse(get("vote", "{}")) as VerdictConfigInput;
const only = get("only", "7-agents,10-agents,3-agents,swarm,swarm-control").split(",");
const dump = args.includes("--dump");

for (const s of scenarios().filter((x) => only.includes(x.name))) {
  let c = 0,
    w = 0,
    u = 0,
    n = 0,
    maxW = 0;
  const byBucket = new Map<string, [number, number, number]>();
  for (let seed = first; seed < first + seeds; seed++) {
    const rng = createRng(seed);
    const truthRng = rng.fork("truth");
    const agentRng = new Map(s.agents.map((a) => [a.id, rng.fork(`agent-${a.id}`)]));
    const disputeRng = rng.fork("dispute");
    const history: HistoryMarket[] = [];
    let sw = 0,
      sn = 0;
    for (let i = 0; i < 60; i++) {
      const truth = truthRng.chance(0.5);
      const panel = s.agents.filter((a) => a.joinAt <= i);
      const reports: WorkerReport[] = panel.map((a) => {
        const r = agentRng.get(a.id)!;
        const right = a.kind === "honest" ? r.chance(a.accuracy) : false;
        const det = right ? truth : !truth;
        const conf = a.kind === "honest" ? Math.min(0.99, Math.max(0.5, a.accuracy + 0.05 * r.normal())) : 0.95;
        evidenceFor(a.style, det, i, r);
        return {
          answer: det ? "yes" : "no",
          confidenceBps: confidenceToBps(conf),
          resQuality: 0,
          srcQuality: 0,
          analysisDepth: 0,
        };
      });
      const d = decideVerdict({ agentIds: panel.map((a) => a.id), reports, history }, vote);
      const wrong = d.verdict !== "invalid" && (d.verdict === "yes") !== truth;
      const disputed = wrong && (s.disputeRate ?? 0) > 0 && disputeRng.chance(s.disputeRate!);
      history.push({
        key: `k${i}`,
        final: disputed ? truth : d.verdict === "invalid" ? "invalid" : d.verdict === "yes",
        disputed,
        answers: reports.map((r, k) => ({ agentId: panel[k].id, answer: r.answer, confidenceBps: r.confidenceBps })),
      });
      if (i < (s.countFrom ?? 0)) continue;
      n++;
      const call = d.verdict === "invalid" ? "u" : wrong ? "w" : "c";
      if (call === "c") c++;
      else if (call === "w") {
        w++;
        sw++;
      } else u++;
      sn++;
      const key = reports.map((r) => ((r.answer === "yes") === truth ? "1" : "0")).join("");
      const b = byBucket.get(key) ?? [0, 0, 0];
      b[call === "c" ? 0 : call === "w" ? 1 : 2]++;
      byBucket.set(key, b);
      if (dump)
        console.log(
          seed,
          i,
          key,
          call,
          d.posterior,
          d.voters.map((v) => `${v.calibratedAccuracy.toFixed(2)}${v.unproven ? "u" : ""}`).join(" "),
        );
    }
    maxW = Math.max(maxW, sw / sn);
  }
  const p = (x: number): string => ((100 * x) / n).toFixed(1);
  console.log(`${s.name.padEnd(14)} ${p(c)} / ${p(w)} / ${p(u)}  worst-seed wrong ${(100 * maxW).toFixed(1)}`);
  if (args.includes("--buckets") && s.agents.length <= 3)
    for (const [k, b] of [...byBucket].sort()) console.log("   ", k, b.join(" "));
}
