/**
 * Uncertainty of the accuracy estimates (observed information, accuracy.ts) and the empirical-Bayes shrinkage
 * of the weights it drives (vote.ts). Hand-checked numbers where the algebra is short.
 */
import { describe, expect, it } from "vitest";
import { estimateAccuracy, invertInformation } from "../../../workflow/core/accuracy.js";
import type { AnswerKind, HistoryMarket, WorkerReport } from "../../../workflow/core/types.js";
import { decideVerdict } from "../../../workflow/core/vote.js";
import { bits } from "./fixtures.js";

const rep = (answer: AnswerKind, confidenceBps = 8_000): WorkerReport => ({
  answer,
  confidenceBps,
  resQuality: 0,
  srcQuality: 0,
  analysisDepth: 0,
});

/** Deterministic pseudo-random bits (LCG). */

/** `markets` undisputed markets; agent i + 1 right with probability accuracies[i]. */
function record(accuracies: number[], markets: number, seed: number): HistoryMarket[] {
  const r = bits(seed);
  return Array.from({ length: markets }, (_, m) => {
    const truth = r() < 0.5;
    const answers = accuracies.map((a, i) => ({
      agentId: BigInt(i + 1),
      answer: (r() < a === truth ? "yes" : "no") as AnswerKind,
      confidenceBps: 8_000,
    }));
    return { key: `k:${m}`, final: "invalid" as const, disputed: false, answers };
  });
}

describe("invertInformation", () => {
  it("inverts a symmetric matrix; a pivot without information counts as variance 1e6", () => {
    expect(
      invertInformation([
        [2, 1],
        [1, 2],
      ]).map((r) => r.map((x) => Math.round(x * 1e9) / 1e9)),
    ).toEqual([
      [0.666666667, -0.333333333],
      [-0.333333333, 0.666666667],
    ]);
    expect(invertInformation([[0]])).toEqual([[1e6]]);
    expect(invertInformation([])).toEqual([]);
  });
});

describe("estimate covariance (observed information)", () => {
  it("with known truths: 1 / ((answers + prior strength) · p(1 − p)) per agent, no cross terms", () => {
    // agent 1 right in 4 arbiter-decided markets: p = (2.8 + 4) / 8 = 0.85; information (4 + 4)·0.85·0.15 = 1.02
    const h: HistoryMarket[] = Array.from({ length: 4 }, (_, i) => ({
      key: `k${i}`,
      final: true,
      disputed: true,
      trustedRuling: true,
      answers: [
        { agentId: 1n, answer: "yes", confidenceBps: 8_000 },
        { agentId: 2n, answer: "no", confidenceBps: 8_000 },
      ],
    }));
    // Hand-computed without recency decay and with attested answers at full weight (accuracy.ts).
    const est = estimateAccuracy(h, [1n, 2n], { halfLife: 0, attestedWeight: 1 });
    expect(est.agents.map((a) => a.accuracy)).toEqual([0.85, 0.35]);
    expect(est.covariance).toEqual([
      [0.980392, 0], // 1 / 1.02
      [0, 0.549451], // 1 / (8·0.35·0.65)
    ]);
  });

  it("with latent truths, 3 agents: two good agents that disagree trade accuracy (negative covariance, large variances)", () => {
    // Latent truths only: no decay, undisputed outcomes carry no evidence of their own.
    const est = estimateAccuracy(record([0.6, 0.75, 0.9], 60, 3), undefined, {
      halfLife: 0,
      outcomeLogOdds: 0,
      attestedWeight: 1,
    });
    const v = est.covariance;
    expect(v[1][2] / Math.sqrt(v[1][1] * v[2][2])).toBeLessThan(-0.5); // a ridge: one up, the other down
    expect(Math.min(v[1][1], v[2][2])).toBeGreaterThan(3 * v[0][0]); // the weak agent is pinned down, the good ones not
  });

  it("is symmetric, bounded and deterministic", () => {
    const h = record([0.6, 0.75, 0.9, 0.8], 40, 5);
    const a = estimateAccuracy(h);
    const b = estimateAccuracy(h.map((m) => ({ ...m, answers: [...m.answers].reverse() })));
    expect(b.covariance).toEqual(a.covariance);
    for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) expect(a.covariance[i][j]).toBe(a.covariance[j][i]);
    expect(a.covariance.every((r, i) => r[i] > 0 && r[i] <= 1e6)).toBe(true);
  });
});

describe("shrinkage of the weights", () => {
  it("agents the record cannot tell apart weigh alike: full shrinkage to the mean when the spread is within the noise", () => {
    // agents 1 and 2 both right in the same 4 arbiter-decided markets (and agree: clones need ≥ 5 shared markets)
    const h: HistoryMarket[] = Array.from({ length: 4 }, (_, i) => ({
      key: `k${i}`,
      final: i % 2 === 0,
      disputed: true,
      trustedRuling: true,
      answers: [1n, 2n].map((agentId) => ({ agentId, answer: i % 2 === 0 ? "yes" : "no", confidenceBps: 8_000 })),
    }));
    const d = decideVerdict(
      { agentIds: [1n, 2n], reports: [rep("yes"), rep("no")], history: h },
      { thresholdBps: 5_000, accuracy: { halfLife: 0, attestedWeight: 1 } },
    );
    expect(d.shrinkage).toEqual({ mean: 1.734601, between: 0.000001, groups: 2 }); // logit(0.85); spread 0 → floor
    expect(d.voters.map((v) => v.weight)).toEqual([1.734601, 1.734601]);
    expect(d.reason).toBe("tie");
  });

  it("a 2–1 split of a 3-agent panel whose good agents the record cannot tell apart goes to the majority", () => {
    const h = record([0.6, 0.75, 0.9], 60, 3);
    // the best agent alone against the two others
    const reports = [rep("no"), rep("no"), rep("yes")];
    const shrunk = decideVerdict({ agentIds: [1n, 2n, 3n], reports, history: h });
    expect(shrunk.shrinkage).toBeDefined();
    expect(shrunk.logOdds).toBeLessThan(0); // the majority
    const w = shrunk.voters.map((v) => v.weight);
    const raw = decideVerdict({ agentIds: [1n, 2n, 3n], reports, history: h }, { shrinkage: false }).voters.map(
      (v) => v.weight,
    );
    // weights move towards each other
    expect(Math.max(...w) - Math.min(...w)).toBeLessThan(Math.max(...raw) - Math.min(...raw));
  });

  it("needs two proven groups; clones count once; off by configuration", () => {
    const h = record([0.8, 0.7], 20, 3);
    expect(
      decideVerdict({ agentIds: [1n, 9n], reports: [rep("yes"), rep("no")], history: h }).shrinkage,
    ).toBeUndefined(); // 9 has no record
    const clones = h.map((m) => ({ ...m, answers: [...m.answers, { ...m.answers[0], agentId: 3n }] }));
    const d = decideVerdict({ agentIds: [1n, 3n, 2n], reports: [rep("yes"), rep("yes"), rep("no")], history: clones });
    expect(d.shrinkage?.groups).toBe(2);
    expect(
      decideVerdict({ agentIds: [1n, 2n], reports: [rep("yes"), rep("no")], history: h }, { shrinkage: false })
        .shrinkage,
    ).toBeUndefined();
    expect(() =>
      decideVerdict({ agentIds: [1n], reports: [rep("yes")], history: [] }, { shrinkage: "yes" as unknown as boolean }),
    ).toThrow(RangeError);
  });
});
