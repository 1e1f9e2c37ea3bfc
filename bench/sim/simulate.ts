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
import { decideVerdict, type VerdictConfigInput, type VerdictDecision } from "../../workflow/core/vote.js";
import { WATCHER_VOTE, watchProposal, type WatchConfig } from "../../workflow/core/watch.js";
import { createRubricEvaluator } from "../../workflow/evaluate/rubric.js";
import { evaluateStage } from "../../workflow/pipeline/06-evaluate.js";
import { marketKey, resolveStage } from "../../workflow/pipeline/07-resolve.js";
import { bundleStage } from "../../workflow/pipeline/09-bundle.js";
import type { TrackRecordSource } from "../../workflow/ports.js";
import { decideResolution as decideResolutionV1 } from "./frozen-vote-v1.js";
import { decideVerdict as decideVerdictV2 } from "./frozen-v2/vote.js";
import { reportsOf, readTrackRecord } from "../../workflow/pipeline/07-resolve.js";
import type { Admission } from "../../workflow/core/admission.js";

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
  /** The proposal was disputed and an allowed, honest arbiter finalized the truth. */
  disputed: boolean;
  /** The finalized outcome when it is not the proposal's nor the truth (an untrusted arbiter's ruling). */
  finalCall?: Call;
  /** Left invalid because a coalition alone decided it (reason "fragile"). */
  fragile: boolean;
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
  /** After the last market, per agent id: estimated accuracy (the last decision's estimate) and mean correctness. */
  estimated: Record<string, number>;
  correctness: Record<string, number>;
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

/** Which decision runs the markets: the current one, or the estimator this issue replaced (15142af, frozen). */
export type Engine = "current" | "15142af";

const FARMER: Address = "0x00000000000000000000000000000000000fa12e";
const CREATOR: Address = "0x0000000000000000000000000000000000c4ea70";
const ETH = 10n ** 18n;

/** True (long-run) accuracy of an agent in the simulation: what the oracle and Spearman compare against. */
function trueAccuracy(a: Scenario["agents"][number], source: number): number {
  if (a.kind === "colluder" || a.kind === "striker") return 0;
  if (a.kind === "copier") return source * (1 - (a.noise ?? 0)) + (1 - source) * (a.noise ?? 0);
  return a.accuracy;
}

export async function simulate(
  scenario: Scenario,
  seed: number,
  markets: number,
  vote: VerdictConfigInput = {},
  engine: Engine = "current",
  /** The watcher's configuration (`cresolver watch --against-share`), where the scenario has a watcher. */
  watch: Partial<WatchConfig> = {},
): Promise<SimResult> {
  const rng = createRng(seed);
  const truthRng = rng.fork("truth");
  const agentRng = new Map(scenario.agents.map((a) => [a.id, rng.fork(`agent-${a.id}`)]));
  const disputeRng = rng.fork("dispute"); // forked after the others: they do not depend on it
  const sourceRng = rng.fork("source");
  const evaluator = createRubricEvaluator();
  const history: HistoryMarket[] = [];
  const source: TrackRecordSource = { history: async () => history.slice() };
  const sourceAccuracy = scenario.source ?? 0.6;
  const accuracyOf = new Map(scenario.agents.map((a) => [a.id, trueAccuracy(a, sourceAccuracy)]));
  const best = scenario.agents.filter((a) => a.kind === "honest").reduce((x, y) => (y.accuracy > x.accuracy ? y : x));
  const farmed = scenario.agents.filter((a) => a.farmed === true);
  const lastEstimate = new Map<string, number>();
  let admission: Admission | undefined;
  if (scenario.farm !== undefined) {
    // The farmer's own cheap markets: only its Sybils sit, each right except one deliberate miss.
    for (let j = 0; j < scenario.farm.markets; j++) {
      const t = truthRng.chance(0.5);
      history.push({
        key: `31337:0x00000000000000000000000000000000000000bb:${j + 1}`,
        final: t,
        disputed: false,
        value: ETH / 1000n,
        creator: FARMER,
        answers: farmed.map((a, k) => ({
          agentId: a.id,
          answer: (k % scenario.farm!.markets === j ? !t : t) ? "yes" : "no",
          confidenceBps: 9_500,
          signed: true,
        })),
      });
    }
    admission = {
      minValue: ETH / 100n, // per seat (docs/RECORDS.md §5): the simulated markets hold ETH / panel size a seat
      controllers: new Map(
        scenario.agents.map((a) => [a.id, { owner: a.farmed === true ? FARMER : addressOf(a.id) }] as const),
      ),
    };
  }
  // On-chain correctness reputation (Resolved markets: yes/no/failed seats) and the old quality reputation.
  const corr = new Map<bigint, { sum: number; n: number }>();
  const oldRep = new Map<string, PastReputation>();
  const out: SimResult = {
    markets: [],
    spearmanAfter: {},
    spearmanBefore: {},
    bundleHashes: [],
    estimated: {},
    correctness: {},
  };

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
    const sourceRight = sourceRng.chance(sourceAccuracy);
    const records: WorkerRecord[] = panel.map((a, s) => {
      const r = agentRng.get(a.id)!;
      const striking =
        a.kind === "striker" && i >= (a.strikeAt ?? 0) && (i - (a.strikeAt ?? 0)) % (a.strikeEvery ?? 1) === 0;
      const honestNow = a.kind === "honest" || (a.kind === "striker" && !striking);
      const right =
        a.kind === "copier" ? (r.chance(a.noise ?? 0) ? !sourceRight : sourceRight) : honestNow && r.chance(a.accuracy);
      const determination = right ? truth : !truth;
      const confidence = honestNow
        ? Math.min(0.99, Math.max(0.5, a.accuracy + 0.05 * r.normal()))
        : a.kind === "copier"
          ? Math.min(0.99, Math.max(0.5, 0.85 + 0.05 * r.normal()))
          : 0.95;
      return {
        seat: market.workers[s],
        endpoint: SIM_ENDPOINT,
        answer: { determination, confidence, ...evidenceFor(a.style, determination, i, r) },
      };
    });
    const quorum = quorumStatus(market.workers.length, records.length);
    const evaluation = await evaluateStage(market, records, evaluator);
    let decision: Pick<VerdictDecision, "verdict" | "reason" | "logOdds" | "posterior" | "reports"> & {
      estimate: { agents: { agentId: bigint; accuracy: number }[] };
    };
    if (engine === "current") {
      const d = await resolveStage(market, records, quorum, evaluation, source, {
        vote,
        ...(admission !== undefined ? { admission } : {}),
      });
      out.bundleHashes.push(bundleStage(market, records, quorum, evaluation, d).bundle.hash);
      decision = d;
    } else {
      const agentIds = records.map((r) => r.seat.agentId);
      decision = decideVerdictV2(
        { agentIds, reports: reportsOf(records, evaluation), history: await readTrackRecord(market, source) },
        vote,
      );
    }

    for (const a of decision.estimate.agents) lastEstimate.set(a.agentId.toString(), a.accuracy);
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
      fragile: decision.reason === "fragile",
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
    // The watcher (`cresolver watch`): recomputes the vote from public data under its own stricter coalition
    // rule (the k heaviest may not decide against a rest that reaches the threshold) and applies the pure rule.
    let watched = false;
    if (scenario.watcher === true) {
      const input = {
        agentIds: records.map((r) => r.seat.agentId),
        reports: decision.reports,
        history: await readTrackRecord(market, source),
        ...(admission !== undefined ? { admission } : {}),
      };
      // 15142af: its own decision recomputed (it had no coalition rule), so only "against-seats" can fire.
      const recomputed =
        engine === "current" ? decideVerdict(input, { ...vote, ...WATCHER_VOTE }) : decideVerdictV2(input, vote);
      watched = watchProposal(decision.verdict, decision.reports, recomputed, watch).dispute;
    }
    const disputed = watched || (wrong && (scenario.disputeRate ?? 0) > 0 && disputeRng.chance(scenario.disputeRate!));
    const ruling = scenario.untrustedRulings;
    const untrusted = ruling !== undefined && i >= ruling.from && i < ruling.to;
    const final: boolean | "invalid" = untrusted
      ? !truth
      : disputed
        ? truth
        : decision.verdict === "invalid"
          ? "invalid"
          : decision.verdict === "yes";
    out.markets[out.markets.length - 1].disputed = disputed && !untrusted;
    if (untrusted) out.markets[out.markets.length - 1].finalCall = "wrong";
    history.push({
      key: marketKey(market),
      final,
      disputed: disputed || untrusted,
      ...(disputed || untrusted ? { trustedRuling: !untrusted } : {}),
      value: ETH,
      creator: CREATOR,
      answers: decision.reports.map((r, s) => ({
        agentId: panel[s].id,
        answer: r.answer,
        confidenceBps: r.confidenceBps,
        signed: true,
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
  for (const a of scenario.agents) {
    const c = corr.get(a.id);
    if (c !== undefined) out.correctness[a.id.toString()] = Math.round((c.sum / c.n) * 10) / 10;
  }
  for (const [id, acc] of lastEstimate) out.estimated[id] = acc;
  return out;
}
