/** The estimator on hostile and adversarial records (hand-checked numbers are in vote.test.ts). */
import { describe, expect, it } from "vitest";
import { calibratedAccuracy, estimateAccuracy, resolveAccuracyConfig } from "../../../workflow/core/accuracy.js";
import type { AnswerKind, HistoryMarket } from "../../../workflow/core/types.js";
import { bits } from "./fixtures.js";

/** Deterministic pseudo-random bits for building records (LCG; the tests only need variety). */

function record(
  accuracies: number[],
  markets: number,
  seed = 7,
  extra?: (m: number, truth: boolean) => HistoryMarket["answers"],
): HistoryMarket[] {
  const r = bits(seed);
  return Array.from({ length: markets }, (_, m) => {
    const truth = r() < 0.5;
    const answers = accuracies.map((a, i) => ({
      agentId: BigInt(i + 1),
      answer: (r() < a === truth ? "yes" : "no") as AnswerKind,
      confidenceBps: 8_000,
      signed: true,
    }));
    return {
      key: `k:${m}`,
      final: "invalid" as const,
      disputed: false,
      answers: [...answers, ...(extra?.(m, truth) ?? [])],
    };
  });
}

describe("estimateAccuracy", () => {
  it("ranks agents by accuracy without ground truth: a lone accurate agent above a weak majority", () => {
    const est = estimateAccuracy(record([0.95, 0.6, 0.6, 0.6, 0.6, 0.8], 60, 3));
    const acc = est.agents.map((a) => a.accuracy);
    expect(acc[0]).toBeGreaterThan(0.85);
    expect(acc[0]).toBeGreaterThan(Math.max(...acc.slice(1)));
    expect(acc[5]).toBeGreaterThan(Math.max(...acc.slice(1, 5)));
    expect(est.converged).toBe(true);
  });

  it("limit: a herd sharing one noisy opinion (not identical, so not clones) outweighs a lone accurate agent", () => {
    // Documented in docs/TRUTH.md: errors must be independent; correlated copies are caught only when identical.
    const r = bits(3);
    const truths: boolean[] = [];
    const h: HistoryMarket[] = Array.from({ length: 60 }, (_, m) => {
      const truth = r() < 0.5;
      truths.push(truth);
      const herd = r() < 0.55 ? truth : !truth;
      const answers = [
        { agentId: 1n, answer: (r() < 0.95 ? truth : !truth) ? "yes" : "no", confidenceBps: 9_000 },
        ...[2n, 3n, 4n].map((agentId) => ({
          agentId,
          answer: (r() < 0.9 ? herd : !herd) ? "yes" : "no",
          confidenceBps: 9_000,
        })),
      ] as HistoryMarket["answers"];
      return { key: `k:${m}`, final: "invalid", disputed: false, answers };
    });
    const est = estimateAccuracy(h);
    expect(est.agents[0].accuracy).toBeLessThan(est.agents[1].accuracy);
    // …until arbiter-decided markets (known truth) are in the record: one market in two disputed is enough here
    const disputed = h.map((m, i) =>
      i % 2 === 0 ? { ...m, disputed: true, trustedRuling: true, final: truths[i] } : m,
    );
    const fixed = estimateAccuracy(disputed);
    expect(fixed.knownTruths).toBe(30);
    expect(fixed.agents[0].accuracy).toBeGreaterThan(
      Math.max(fixed.agents[1].accuracy, fixed.agents[2].accuracy, fixed.agents[3].accuracy),
    );
  });

  it("ignores failures, abstentions, duplicate answers and malformed confidences", () => {
    const base = record([0.9, 0.8, 0.7], 20);
    const noisy: HistoryMarket[] = base.map((m) => ({
      ...m,
      answers: [
        ...m.answers,
        { agentId: 9n, answer: "failed", confidenceBps: 0 },
        { agentId: 9n, answer: "abstained", confidenceBps: 0 },
        { ...m.answers[0], answer: m.answers[0].answer === "yes" ? "no" : "yes" }, // a second answer of agent 1: ignored
      ],
    }));
    const a = estimateAccuracy(base);
    const b = estimateAccuracy(noisy, [1n, 2n, 3n, 9n]);
    expect(b.agents.slice(0, 3)).toEqual(a.agents);
    expect(b.agents[3]).toMatchObject({ agentId: 9n, count: 0, accuracy: 0.7 });
    const weird = estimateAccuracy(
      base.map((m) => ({ ...m, answers: m.answers.map((x) => ({ ...x, confidenceBps: Number.NaN })) })),
    );
    expect(weird.agents.every((x) => x.calibration[0].count === 20)).toBe(true); // NaN → lowest bin
  });

  it("is independent of the order of answers within a market and bounded by maxMarkets", () => {
    const h = record([0.9, 0.8, 0.7, 0.6], 40);
    const a = estimateAccuracy(h);
    const b = estimateAccuracy(h.map((m) => ({ ...m, answers: [...m.answers].reverse() })));
    expect(b).toEqual(a);
    const capped = estimateAccuracy(h, undefined, { maxMarkets: 10 });
    expect(capped.markets).toBe(10);
    expect(capped.agents[0].count).toBe(10);
    expect({ ...estimateAccuracy(h.slice(30)), config: capped.config }).toEqual(capped);
  });

  it("stops after maxIterations and says whether it converged", () => {
    const h = record([0.9, 0.8, 0.7, 0.6], 40);
    const one = estimateAccuracy(h, undefined, { maxIterations: 1, tolerance: 0 });
    expect(one.iterations).toBe(1);
    expect(one.converged).toBe(false);
  });

  it("a colluding cartel whose answers are identical counts once, and a swarm cannot flip the record's truths", () => {
    // 3 accurate agents for 20 markets, then 15 clones always wrong join for 10 markets
    const h = record([0.95, 0.9, 0.85], 30, 11, (m, truth) =>
      m < 20
        ? []
        : Array.from({ length: 15 }, (_, i) => ({
            agentId: BigInt(100 + i),
            answer: (truth ? "no" : "yes") as AnswerKind,
            confidenceBps: 9_900,
            signed: true,
          })),
    );
    const est = estimateAccuracy(h);
    const byId = new Map(est.agents.map((a) => [a.agentId, a]));
    for (const id of [1n, 2n, 3n]) expect(byId.get(id)!.accuracy).toBeGreaterThan(0.8);
    for (let i = 0; i < 15; i++) {
      expect(byId.get(BigInt(100 + i))!.accuracy).toBeLessThan(0.3);
      expect(byId.get(BigInt(100 + i))!.cloneGroup).toBe(100n);
    }
    // their stated 99 % is calibrated against their record: worthless
    expect(calibratedAccuracy(byId.get(100n)!, 9_900)).toBeLessThan(0.3);
  });

  it("validates its configuration", () => {
    expect(() => resolveAccuracyConfig({ priorStrength: -1 })).toThrow(RangeError);
    expect(() => resolveAccuracyConfig({ maxIterations: 0 })).toThrow(RangeError);
    expect(() => resolveAccuracyConfig({ confidenceBins: [5000, 5000] })).toThrow(RangeError);
    expect(resolveAccuracyConfig(undefined).confidenceBins).toEqual([5000, 7000, 9000]);
  });
});
