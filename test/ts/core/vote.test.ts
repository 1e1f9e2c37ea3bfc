import { describe, expect, it } from "vitest";
import { estimateAccuracy } from "../../../workflow/core/accuracy.js";
import type { AnswerKind, HistoryMarket, WorkerReport } from "../../../workflow/core/types.js";
import { decideVerdict } from "../../../workflow/core/vote.js";
import { side } from "./fixtures.js";

const rep = (answer: AnswerKind, confidenceBps = answer === "yes" || answer === "no" ? 8_000 : 0): WorkerReport => ({
  answer,
  confidenceBps,
  resQuality: answer === "yes" || answer === "no" ? 50 : 0,
  srcQuality: answer === "yes" || answer === "no" ? 50 : 0,
  analysisDepth: answer === "yes" || answer === "no" ? 50 : 0,
});

/** A market of the track record: `answers[agentId] = "yes" | "no" | ...`. */
function hm(
  key: number,
  final: boolean | "invalid",
  disputed: boolean,
  answers: Record<string, AnswerKind>,
  bps = 9_500,
): HistoryMarket {
  return {
    key: `31337:0xabc:${key}`,
    final,
    disputed,
    ...(disputed ? { trustedRuling: true } : {}),
    answers: Object.entries(answers).map(([id, a]) => ({
      agentId: BigInt(id),
      answer: a,
      confidenceBps: a === "yes" || a === "no" ? bps : 0,
      signed: true,
    })),
  };
}
/** The hand-checked numbers below have no recency decay (every answer weighs 1). */
const NO_DECAY = { halfLife: 0 };

describe("decideVerdict: all-new agents, ties, abstentions, quorum", () => {
  it("all-new agents vote as one bloc worth one unknown voter (accuracy 0.7 → posterior 0.7)", () => {
    const d = decideVerdict({ agentIds: [1n, 2n, 3n], reports: [rep("yes"), rep("yes"), rep("no")], history: [] });
    expect(d.bloc).toEqual({ voters: 3, yes: 2, no: 1, side: "yes", weight: 0.847298 }); // logit(0.7) = ln(7/3)
    expect(d.logOdds).toBe(0.847298);
    expect(d.posterior).toBe(0.7);
    expect(d.voters.every((v) => v.unproven && v.weight === 0 && v.history === 0 && v.accuracy === 0.7)).toBe(true);
    // the default threshold (6000) is inclusive: a fresh panel resolves by head count, contestable
    expect(d.verdict).toBe("yes");
    expect(d.reason).toBeUndefined();
    expect(d.rewardWeights).toEqual([96n * 796n, 96n * 796n, 36n * 736n]); // conf 8000: right → 96, wrong → 36; × (600 + c + 100)
    // a deployment that never resolves on unproven agents alone
    const strict = decideVerdict(
      { agentIds: [1n, 2n, 3n], reports: [rep("yes"), rep("yes"), rep("no")], history: [] },
      { unprovenAccuracy: 0.55 },
    );
    expect(strict.posterior).toBe(0.55);
    expect(strict.verdict).toBe("invalid");
    expect(strict.reason).toBe("below-threshold");
    expect(strict.rewardWeights).toBeNull();
    expect(
      decideVerdict(
        { agentIds: [1n, 2n, 3n], reports: [rep("no"), rep("no"), rep("no")], history: [] },
        { thresholdBps: 7_001 },
      ).reason,
    ).toBe("below-threshold");
  });

  it("a bloc tie is a tie: invalid, posterior ½", () => {
    const d = decideVerdict(
      { agentIds: [1n, 2n], reports: [rep("yes"), rep("no")], history: [] },
      { thresholdBps: 5_000 },
    );
    expect(d.bloc.side).toBeNull();
    expect(d.logOdds).toBe(0);
    expect(d.verdict).toBe("invalid");
    expect(d.reason).toBe("tie");
    expect(d.posterior).toBe(0.5);
    expect(d.outcome.kind).toBe("no-margin");
  });

  it("abstentions and failures do not vote and do not count for quorum (⌈2n/3⌉ of the seats)", () => {
    const d = decideVerdict({
      agentIds: [1n, 2n, 3n],
      reports: [rep("yes"), rep("abstained"), rep("failed")],
      history: [],
    });
    expect(d.quorum).toEqual({ n: 3, required: 2, answered: 1 });
    expect(d.verdict).toBe("invalid");
    expect(d.reason).toBe("no-quorum");
    expect(d.outcome).toEqual({ kind: "no-quorum", answered: 1, required: 2 });
    expect(d.voters[1].excludedReason).toBe("abstained");
    expect(d.reports[1]).toEqual({
      answer: "abstained",
      confidenceBps: 0,
      resQuality: 0,
      srcQuality: 0,
      analysisDepth: 0,
    });
    const e = decideVerdict({ agentIds: [], reports: [], history: [] });
    expect(e.reason).toBe("no-quorum");
    expect(() => decideVerdict({ agentIds: [1n], reports: [], history: [] })).toThrow(RangeError);
  });
});

describe("estimateAccuracy: hand-checked numbers (prior Beta(2.8, 1.2): mean 0.7, 4 pseudo-answers; calibration 10)", () => {
  // 6 arbiter-decided markets (known truth): agent 1 always right, agent 2 right 3 times, agent 3 always "yes".
  const truths = [true, false, true, false, true, false];
  const history = truths.map((t, i) => hm(i, t, true, { 1: side(t), 2: side(i < 3 ? t : !t), 3: "yes" }));

  it("known truths give p = (α + right) / (α + β + n) and the calibration bins", () => {
    const est = estimateAccuracy(history, [1n, 2n, 3n, 9n], NO_DECAY);
    const [a1, a2, a3, a9] = est.agents;
    expect(est.knownTruths).toBe(6);
    expect(a1.accuracy).toBe(0.88); // (2.8 + 6) / 10
    expect(a2.accuracy).toBe(0.58); // (2.8 + 3) / 10
    expect(a3.accuracy).toBe(0.58); // always "yes": right 3 of 6, like chance
    expect(a9).toMatchObject({ agentId: 9n, count: 0, right: 0, accuracy: 0.7 }); // no history: the prior
    // all answers at 9500 bps: the top bin has them, shrunk by 10 pseudo-answers at the overall accuracy
    expect(a1.calibration).toEqual([
      { fromBps: 5_000, toBps: 6_999, count: 0, right: 0, accuracy: 0.88 },
      { fromBps: 7_000, toBps: 8_999, count: 0, right: 0, accuracy: 0.88 },
      { fromBps: 9_000, toBps: 10_000, count: 6, right: 6, accuracy: 0.925 }, // (6 + 10·0.88) / 16
    ]);
  });

  it("an agent that always answers the same way gets (almost) no weight", () => {
    // raw log-odds weights (no shrinkage: this checks the estimator's numbers)
    const d = decideVerdict(
      { agentIds: [1n, 3n], reports: [rep("no", 9_500), rep("yes", 9_500)], history },
      { minHistory: 6, shrinkage: false, accuracy: NO_DECAY },
    );
    expect(d.voters[1].calibratedAccuracy).toBe(0.55); // (3 + 10·0.58) / 16
    expect(d.voters[1].weight).toBe(0.200671); // logit(0.55)
    expect(d.voters[0].weight).toBe(2.512306); // logit(0.925)
    expect(d.verdict).toBe("no");
    expect(d.posterior).toBe(0.909836); // σ(2.512306 − 0.200671)
  });

  it("confidence counts only as calibrated: a stated 95 % from an agent right half the time weighs little", () => {
    const d = decideVerdict(
      { agentIds: [2n], reports: [rep("yes", 9_900)], history },
      { minHistory: 1, thresholdBps: 5_000, accuracy: NO_DECAY },
    );
    expect(d.voters[0].calibratedAccuracy).toBe(0.55); // (3 + 10·0.58) / 16
    expect(d.voters[0].weight).toBe(0.200671);
    // the same agent at a confidence it never used falls back to its overall accuracy
    const e = decideVerdict(
      { agentIds: [1n], reports: [rep("yes", 6_000)], history },
      { minHistory: 1, accuracy: NO_DECAY },
    );
    expect(e.voters[0].calibratedAccuracy).toBe(0.88);
  });

  it("a disputed outcome is known truth even against the majority", () => {
    // 3 agents say yes, the arbiter said no: agents 1-3 are wrong there.
    const h = [hm(0, false, true, { 1: "yes", 2: "yes", 3: "yes", 4: "no" })];
    const est = estimateAccuracy(h);
    expect(est.agents.map((a) => a.accuracy)).toEqual([0.56, 0.56, 0.56, 0.76]); // (2.8 + 0)/5, (2.8 + 1)/5
    // the same market undisputed (our own outcome) is not truth: the latent truth follows the answers
    const u = estimateAccuracy([hm(0, false, false, { 1: "yes", 2: "yes", 3: "yes", 4: "no" })]);
    expect(u.agents[0].accuracy).toBeGreaterThan(u.agents[3].accuracy);
  });
});

describe("decideVerdict: colluders, swarms, clones", () => {
  // 20 latent markets: agents 1..5 right 19/20 (each wrong on a different market), 6 and 7 always wrong together.
  const truths = Array.from({ length: 20 }, (_, i) => i % 3 !== 0);
  const history = truths.map((t, i) => {
    const answers: Record<string, AnswerKind> = { 6: side(!t), 7: side(!t) };
    for (let a = 1; a <= 5; a++) answers[a] = side(i === a ? !t : t);
    return hm(i, i % 4 === 0 ? "invalid" : t, false, answers, 8_000);
  });

  it("learns accuracies without ground truth and gives colluders weight 0", () => {
    const est = estimateAccuracy(history);
    const acc = Object.fromEntries(est.agents.map((a) => [a.agentId.toString(), a.accuracy]));
    for (let a = 1; a <= 5; a++) expect(acc[a]).toBeGreaterThan(0.85);
    expect(acc[6]).toBeLessThan(0.2);
    expect(est.agents.find((a) => a.agentId === 6n)!.cloneGroup).toBe(6n); // identical histories
    expect(est.agents.find((a) => a.agentId === 7n)!.cloneGroup).toBe(6n);
    expect(est.agents.find((a) => a.agentId === 1n)!.cloneGroup).toBeUndefined();
    expect(est.converged).toBe(true);
    // the colluders and the best agent's lone dissent: the established majority wins
    const d = decideVerdict({
      agentIds: [1n, 2n, 3n, 4n, 5n, 6n, 7n],
      reports: ["yes", "no", "no", "yes", "yes", "no", "no"].map((a) => rep(a as AnswerKind)),
      history,
    });
    expect(d.voters[5].weight).toBe(0);
    expect(d.voters[6].weight).toBe(0);
    expect(d.verdict).toBe("yes");
  });

  it("20 fresh agents that all answer wrong weigh like one unknown voter: the established agents win", () => {
    const ids = [1n, 2n, 3n, 4n, 5n, ...Array.from({ length: 20 }, (_, i) => BigInt(100 + i))];
    const reports = ids.map((id) => rep(id < 100n ? "yes" : "no"));
    const d = decideVerdict({ agentIds: ids, reports, history });
    expect(d.bloc).toMatchObject({ voters: 20, yes: 0, no: 20, side: "no", weight: 0.847298 });
    expect(d.verdict).toBe("yes");
    expect(d.posterior).toBeGreaterThan(0.999);
    // two established agents against the swarm still win
    const two = decideVerdict({
      agentIds: ids.slice(0, 2).concat(ids.slice(5)),
      reports: reports.slice(0, 2).concat(reports.slice(5)),
      history,
    });
    expect(two.verdict).toBe("yes");
  });

  it("clones voting together count once", () => {
    const d = decideVerdict(
      { agentIds: [6n, 7n], reports: [rep("yes"), rep("yes")], history },
      { thresholdBps: 5_000 },
    );
    expect(d.voters[0].cloneGroup).toBe(6n);
    // weight 0 anyway (wrong agents); clone sharing is visible with accurate clones:
    const h2 = history.map((m) => ({
      ...m,
      answers: [...m.answers, { ...m.answers.find((a) => a.agentId === 1n)!, agentId: 8n }],
    }));
    const e = decideVerdict(
      { agentIds: [1n, 8n, 2n], reports: [rep("yes"), rep("yes"), rep("no")], history: h2 },
      { shrinkage: false, accuracy: NO_DECAY },
    );
    expect(e.voters[0].cloneGroup).toBe(1n);
    expect(e.voters[0].weight).toBe(e.voters[1].weight);
    expect(e.voters[0].weight * 2).toBeCloseTo(e.voters[2].weight, 5); // 1 and 8 share one vote; 2 is as accurate
    expect(e.logOdds).toBe(0); // the clone pair weighs exactly like agent 2 alone
    expect(e.reason).toBe("tie");
  });

  it("is deterministic and order-independent in the agent index", () => {
    const a = decideVerdict({ agentIds: [1n, 6n], reports: [rep("yes"), rep("no")], history });
    const b = decideVerdict({
      agentIds: [1n, 6n],
      reports: [rep("yes"), rep("no")],
      history: history.map((m) => ({ ...m, answers: [...m.answers].reverse() })),
    });
    expect(b.voters).toEqual(a.voters);
    expect(b.posterior).toBe(a.posterior);
  });

  it("rejects an invalid configuration", () => {
    expect(() =>
      decideVerdict({ agentIds: [1n], reports: [rep("yes")], history: [] }, { thresholdBps: 4_000 }),
    ).toThrow(RangeError);
    expect(() =>
      decideVerdict({ agentIds: [1n], reports: [rep("yes")], history: [] }, { accuracy: { priorAccuracy: 2 } }),
    ).toThrow(RangeError);
    expect(() =>
      decideVerdict({ agentIds: [1n], reports: [rep("yes")], history: [] }, { accuracy: { confidenceBins: [6000] } }),
    ).toThrow(RangeError);
  });
});
