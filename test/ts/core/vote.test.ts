import { describe, expect, it } from "vitest";
import { aggregateScores } from "../../../workflow/core/aggregate.js";
import { DIMENSIONS, type AggregateScores, type PastReputation, type WorkerEvaluation } from "../../../workflow/core/types.js";
import { decideResolution, reputationFactorBps } from "../../../workflow/core/vote.js";
import { addr, answer, market, records } from "./fixtures.js";

function ev(i: number, score: number): WorkerEvaluation {
  const dimensions = Object.fromEntries(DIMENSIONS.map((d) => [d, { score, explanation: "t" }])) as WorkerEvaluation["dimensions"];
  return { address: addr(i), dimensions, aggregate: aggregateScores(dimensions) };
}
function evAgg(i: number, aggregate: AggregateScores): WorkerEvaluation {
  return { ...ev(i, 0), aggregate };
}

describe("decideResolution", () => {
  it("outvotes a lying minority and rewards agreement", () => {
    const m = market(3);
    const recs = records(m, [answer(true), answer(true), answer(false, 0.99)]);
    const d = decideResolution([ev(0, 70), ev(1, 60), ev(2, 90)], recs, new Map());
    expect(d.outcome).toEqual({ kind: "resolved", resolution: true });
    expect(d.weights).toEqual([2100n, 1800n, 270n]); // agree: q·10, disagree: q·1 (q = sum of 3 aggregates)
    expect(d.scores).toEqual([70, 70, 70, 60, 60, 60, 90, 90, 90]);
    expect(d.voters.map((v) => v.settlementWeight)).toEqual(d.weights);
  });

  it("gives non-responders weight 0 and scores 0", () => {
    const m = market(3);
    const recs = records(m, [answer(false), undefined, answer(false)]);
    const d = decideResolution([ev(0, 50), ev(2, 40)], recs, new Map());
    expect(d.outcome).toEqual({ kind: "resolved", resolution: false });
    expect(d.weights).toEqual([1500n, 0n, 1200n]);
    expect(d.scores.slice(3, 6)).toEqual([0, 0, 0]);
    expect(d.voters[1].excludedReason).toBe("no valid answer");
  });

  it("weights favour agreement: an agreeing worker out-earns a better disagreeing one", () => {
    const m = market(3);
    const d = decideResolution([ev(0, 70), ev(1, 70), ev(2, 100)], records(m, [answer(true), answer(true), answer(false)]), new Map());
    expect(d.outcome).toEqual({ kind: "resolved", resolution: true });
    expect(d.weights![0]).toBeGreaterThan(d.weights![2]);
    // a zero-quality agreeing worker still gets 1, so a resolved market never has total weight 0
    const z = decideResolution([ev(0, 0), ev(1, 0), ev(2, 0)], records(m, [answer(true), answer(true), answer(true)]), new Map());
    expect(z.outcome.kind).toBe("no-margin"); // all-zero weights: no votes at all
  });

  it("tie rule: an exact weighted tie never resolves, even with a zero minimum margin", () => {
    const m = market(4);
    const recs = records(m, [answer(true), answer(false), answer(true), answer(false)]);
    const d = decideResolution([ev(0, 60), ev(1, 60), ev(2, 40), ev(3, 40)], recs, new Map(), { minMarginBps: 0 });
    expect(d.outcome).toEqual({ kind: "no-margin", yesWeight: 100, noWeight: 100, margin: 0 });
    expect(d.weights).toBeNull();
  });

  it("margin rule: resolves at exactly the minimum margin, not below (default 10 %)", () => {
    const m = market(2);
    const recs = records(m, [answer(true), answer(false)]);
    // yes 55 vs no 45 → margin 10/100 = 10 % → resolves (inclusive)
    const at = decideResolution([evAgg(0, { resQuality: 55, srcQuality: 55, analysisDepth: 55 }), evAgg(1, { resQuality: 45, srcQuality: 45, analysisDepth: 45 })], recs, new Map());
    expect(at.outcome).toEqual({ kind: "resolved", resolution: true });
    expect(at.tally.margin).toBeCloseTo(0.1, 12);
    // yes 165 vs no 136 (quality sums) → 29/301 = 9.6 % → no resolution, flagged
    const below = decideResolution([evAgg(0, { resQuality: 55, srcQuality: 55, analysisDepth: 55 }), evAgg(1, { resQuality: 46, srcQuality: 45, analysisDepth: 45 })], recs, new Map());
    expect(below.outcome.kind).toBe("no-margin");
    if (below.outcome.kind === "no-margin") expect(below.outcome.margin).toBeCloseTo(29 / 301, 12);
    // a configurable margin
    expect(decideResolution([ev(0, 55), ev(1, 45)], recs, new Map(), { minMarginBps: 2500 }).outcome.kind).toBe("no-margin");
  });

  it("past reputation changes the outcome within bounds; new agents are neutral", () => {
    expect(reputationFactorBps(undefined)).toBe(10_000);
    expect(reputationFactorBps({ count: 0, resQuality: 100, srcQuality: 100, analysisDepth: 100 })).toBe(10_000);
    expect(reputationFactorBps({ count: 9, resQuality: 100, srcQuality: 100, analysisDepth: 100 })).toBe(15_000);
    expect(reputationFactorBps({ count: 5, resQuality: 0, srcQuality: 0, analysisDepth: 0 })).toBe(5_000);
    expect(reputationFactorBps({ count: 5, resQuality: 50, srcQuality: 50, analysisDepth: 50 })).toBe(10_000);
    expect(reputationFactorBps({ count: 1, resQuality: 100, srcQuality: 100, analysisDepth: 100 })).toBe(11_000);
    expect(reputationFactorBps({ count: 3, resQuality: 500, srcQuality: -5, analysisDepth: Number.NaN })).toBe(9_000); // clamped to 100,0,0: mean 33.3, 3/5 of the way

    const m = market(2);
    const recs = records(m, [answer(true), answer(false)]);
    const evals = [ev(0, 70), ev(1, 50)];
    expect(decideResolution(evals, recs, new Map()).outcome).toEqual({ kind: "resolved", resolution: true });
    const rep = new Map<string, PastReputation>([
      [addr(0).toUpperCase().replace("0X", "0x"), { count: 10, resQuality: 10, srcQuality: 10, analysisDepth: 10 }],
      [addr(1), { count: 10, resQuality: 95, srcQuality: 95, analysisDepth: 95 }],
    ]);
    const d = decideResolution(evals, recs, rep);
    expect(d.voters[0].reputationFactorBps).toBe(6_000);
    expect(d.voters[1].reputationFactorBps).toBe(14_500);
    expect(d.outcome).toEqual({ kind: "resolved", resolution: false });
  });

  it("reports no-quorum over the frozen worker count", () => {
    const m = market(3);
    const d = decideResolution([ev(0, 90)], records(m, [answer(true), undefined, undefined]), new Map());
    expect(d.outcome).toEqual({ kind: "no-quorum", answered: 1, required: 2 });
    expect(d.weights).toBeNull();
  });

  it("rejects an invalid configuration", () => {
    const m = market(1);
    expect(() => decideResolution([ev(0, 1)], records(m, [answer(true)]), new Map(), { minMarginBps: 1.5 })).toThrow(RangeError);
  });
});
