/**
 * One scenario, one seed: N markets resolved one after another through the real pipeline stages (rubric
 * evaluation, resolve with an in-memory TrackRecordSource, bundle) — the finalized outcome of each market is
 * the verdict (invalid markets still add their answers), exactly what the chain's logs would hold. The same
 * answers and evaluations also go through the frozen pre-issue-10 vote (with its quality-average reputation),
 * the head count and the best single agent, for comparison.
 */
import { correctnessOf } from "../../workflow/core/correctness.js";
import { quorumStatus } from "../../workflow/core/quorum.js";
import type {
  Address,
  HistoryMarket,
  MarketSnapshot,
  PastReputation,
  WorkerRecord,
} from "../../workflow/core/types.js";
import type { VerdictConfigInput } from "../../workflow/core/vote.js";
import { createRubricEvaluator } from "../../workflow/evaluate/rubric.js";
import { evaluateStage } from "../../workflow/pipeline/06-evaluate.js";
import { marketKey, resolveStage } from "../../workflow/pipeline/07-resolve.js";
import { bundleStage } from "../../workflow/pipeline/09-bundle.js";
import type { TrackRecordSource } from "../../workflow/ports.js";
import { decideResolution as decideResolutionV1 } from "./frozen-vote-v1.js";

/** The simulated agents speak the default protocol (the rubric scores them as such). */
const SIM_ENDPOINT = { url: "https://agent.invalid/", protocol: "cresolver" };
import { createRng } from "./prng.js";
import type { Scenario } from "./scenarios.js";
import { evidenceFor } from "./text.js";

export type Call = "correct" | "wrong" | "unresolved";

export interface MarketTrace {
  truth: boolean;
  /** New decision at its configured threshold (the proposal). */
  after: Call;
  /** The proposal was wrong and disputed: the arbiter finalized the truth. */
  disputed: boolean;
  /** Winning side's posterior and side (for the threshold sweep); side null on a tie or without quorum. */
  posterior: number;
  side: boolean | null;
  quorum: boolean;
  before: Call;
  /** The same rule with the TRUE accuracies as weights (what perfect knowledge of the agents would give). */
  oraclePosterior: number;
  oracleSide: boolean | null;
  headCount: Call;
  bestSingle: Call;
}

export interface SimResult {
  markets: MarketTrace[];
  /** Spearman(correctness reputation, true accuracy) after market k (1-based), for k in checkpoints. */
  spearmanAfter: Record<number, number | null>;
  /** Spearman(pre-issue-10 quality reputation, true accuracy). */
  spearmanBefore: Record<number, number | null>;
  /** Bundle hashes, to check determinism across runs. */
  bundleHashes: string[];
}

export const CHECKPOINTS = [10, 20, 30, 40, 50, 60];

const addressOf = (id: bigint): Address => `0x${id.toString(16).padStart(40, "0")}` as Address;

function ranks(xs: number[]): number[] {
  const idx = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  const r = new Array<number>(xs.length);
  for (let i = 0; i < idx.length; ) {
    let j = i;
    while (j + 1 < idx.length && idx[j + 1][0] === idx[i][0]) j++;
    for (let k = i; k <= j; k++) r[idx[k][1]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return r;
}

/** Spearman's ρ with average ranks for ties (Pearson of the ranks); null when undefined. */
export function spearman(xs: number[], ys: number[]): number | null {
  if (xs.length < 3) return null;
  const rx = ranks(xs);
  const ry = ranks(ys);
  const mean = (v: number[]): number => v.reduce((s, x) => s + x, 0) / v.length;
  const mx = mean(rx);
  const my = mean(ry);
  let num = 0;
  let dx = 0;
  let dy = 0;
  for (let i = 0; i < rx.length; i++) {
    num += (rx[i] - mx) * (ry[i] - my);
    dx += (rx[i] - mx) ** 2;
    dy += (ry[i] - my) ** 2;
  }
  return dx === 0 || dy === 0 ? null : num / Math.sqrt(dx * dy);
}

const call = (decided: boolean | null, truth: boolean): Call =>
  decided === null ? "unresolved" : decided === truth ? "correct" : "wrong";

export async function simulate(
  scenario: Scenario,
  seed: number,
  markets: number,
  vote: VerdictConfigInput = {},
): Promise<SimResult> {
  const rng = createRng(seed);
  const truthRng = rng.fork("truth");
  const agentRng = new Map(scenario.agents.map((a) => [a.id, rng.fork(`agent-${a.id}`)]));
  const disputeRng = rng.fork("dispute"); // forked last: the other streams do not depend on it
  const evaluator = createRubricEvaluator();
  const history: HistoryMarket[] = [];
  const source: TrackRecordSource = { history: async () => history.slice() };
  const accuracyOf = new Map(scenario.agents.map((a) => [a.id, a.kind === "colluder" ? 0 : a.accuracy]));
  const best = scenario.agents.filter((a) => a.kind === "honest").reduce((x, y) => (y.accuracy > x.accuracy ? y : x));
  // On-chain correctness reputation (Resolved markets: yes/no/failed seats) and the old quality reputation.
  const corr = new Map<bigint, { sum: number; n: number }>();
  const oldRep = new Map<string, PastReputation>();
  const out: SimResult = { markets: [], spearmanAfter: {}, spearmanBefore: {}, bundleHashes: [] };

  for (let i = 0; i < markets; i++) {
    const truth = truthRng.chance(0.5);
    const panel = scenario.agents.filter((a) => a.joinAt <= i);
    const market: MarketSnapshot = {
      chainId: 31337,
      marketAddress: "0x00000000000000000000000000000000000000aa",
      marketId: BigInt(i + 1),
      question: `Will indicator #${i + 1} be above its threshold on 31 December 2026?`,
      deadline: 1_798_675_200,
      context: "",
      workers: panel.map((a) => ({ address: addressOf(a.id), agentId: a.id, stake: 10n ** 16n })),
    };
    const records: WorkerRecord[] = panel.map((a, s) => {
      const r = agentRng.get(a.id)!;
      const right = a.kind === "honest" ? r.chance(a.accuracy) : false;
      const determination = right ? truth : !truth;
      const confidence = a.kind === "honest" ? Math.min(0.99, Math.max(0.5, a.accuracy + 0.05 * r.normal())) : 0.95;
      return {
        seat: market.workers[s],
        endpoint: SIM_ENDPOINT,
        answer: { determination, confidence, ...evidenceFor(a.style, determination, i, r) },
      };
    });
    const quorum = quorumStatus(market.workers.length, records.length);
    const evaluation = await evaluateStage(market, records, evaluator);
    const decision = await resolveStage(market, records, quorum, evaluation, source, { vote });
    const sealed = bundleStage(market, records, quorum, evaluation, decision);
    out.bundleHashes.push(sealed.bundle.hash);

    // Baselines on the same answers and evaluations.
    const yes = records.filter((r) => r.answer!.determination).length;
    const no = records.length - yes;
    const v1 = decideResolutionV1(evaluation.evaluations, records, oldRep);
    const bestRec = records.find((r) => r.seat.agentId === best.id);
    const side = decision.reason === "tie" || decision.reason === "no-quorum" ? null : decision.logOdds > 0;
    let oracle = 0;
    for (const r of records) {
      const p = Math.min(0.99, Math.max(0.01, accuracyOf.get(r.seat.agentId)!));
      oracle += (r.answer!.determination ? 1 : -1) * Math.max(0, Math.log(p / (1 - p)));
    }
    out.markets.push({
      truth,
      after: call(decision.verdict === "invalid" ? null : decision.verdict === "yes", truth),
      disputed: false,
      posterior: decision.posterior,
      side,
      quorum: decision.reason !== "no-quorum",
      before: call(v1.outcome.kind === "resolved" ? v1.outcome.resolution : null, truth),
      oraclePosterior: 1 / (1 + Math.exp(-Math.abs(oracle))),
      oracleSide: oracle === 0 ? null : oracle > 0,
      headCount: call(yes === no ? null : yes > no, truth),
      bestSingle: call(bestRec ? bestRec.answer!.determination : null, truth),
    });

    // Finalization: the record of answers (every market), correctness reputation (Resolved only). A disputed
    // wrong proposal is finalized by the arbiter with the truth (known truth for the estimate).
    const wrong = decision.verdict !== "invalid" && (decision.verdict === "yes") !== truth;
    const disputed = wrong && (scenario.disputeRate ?? 0) > 0 && disputeRng.chance(scenario.disputeRate!);
    const final: boolean | "invalid" = disputed
      ? truth
      : decision.verdict === "invalid"
        ? "invalid"
        : decision.verdict === "yes";
    out.markets[out.markets.length - 1].disputed = disputed;
    history.push({
      key: marketKey(market),
      final,
      disputed,
      answers: decision.reports.map((r, s) => ({
        agentId: panel[s].id,
        answer: r.answer,
        confidenceBps: r.confidenceBps,
      })),
    });
    if (final !== "invalid") {
      decision.reports.forEach((r, s) => {
        if (r.answer === "abstained") return;
        const c = corr.get(panel[s].id) ?? { sum: 0, n: 0 };
        c.sum += correctnessOf(r.answer, r.confidenceBps, final);
        c.n += 1;
        corr.set(panel[s].id, c);
      });
    }
    if (v1.outcome.kind === "resolved") {
      // The old contract averaged the 3 scores of every answered seat of a resolved market.
      for (const ev of evaluation.evaluations) {
        const key = ev.address;
        const p = oldRep.get(key) ?? { count: 0, resQuality: 0, srcQuality: 0, analysisDepth: 0 };
        const n = p.count + 1;
        oldRep.set(key, {
          count: n,
          resQuality: (p.resQuality * p.count + ev.aggregate.resQuality) / n,
          srcQuality: (p.srcQuality * p.count + ev.aggregate.srcQuality) / n,
          analysisDepth: (p.analysisDepth * p.count + ev.aggregate.analysisDepth) / n,
        });
      }
    }

    if (CHECKPOINTS.includes(i + 1)) {
      const withRep = scenario.agents.filter((a) => corr.has(a.id));
      out.spearmanAfter[i + 1] = spearman(
        withRep.map((a) => corr.get(a.id)!.sum / corr.get(a.id)!.n),
        withRep.map((a) => accuracyOf.get(a.id)!),
      );
      const withOld = scenario.agents.filter((a) => oldRep.has(addressOf(a.id)));
      out.spearmanBefore[i + 1] = spearman(
        withOld.map((a) => {
          const p = oldRep.get(addressOf(a.id))!;
          return p.resQuality + p.srcQuality + p.analysisDepth;
        }),
        withOld.map((a) => accuracyOf.get(a.id)!),
      );
    }
  }
  return out;
}
