import { describe, expect, it } from "vitest";
import {
  confidenceToBps,
  correctnessOf,
  isScored,
  reportFromRecord,
  rewardWeight,
  rewardWeights,
} from "../../../workflow/core/correctness.js";
import type { WorkerReport } from "../../../workflow/core/types.js";
import { answer, market, records } from "./fixtures.js";

const rep = (
  answer: WorkerReport["answer"],
  confidenceBps: number,
  q: [number, number, number] = [0, 0, 0],
): WorkerReport => ({
  answer,
  confidenceBps,
  resQuality: q[0],
  srcQuality: q[1],
  analysisDepth: q[2],
});

describe("correctnessOf (mirror of the contract)", () => {
  it("is 100·(1 − Brier) rounded half up, hand-checked", () => {
    expect(correctnessOf("yes", 10_000, true)).toBe(100); // d = 0
    expect(correctnessOf("yes", 10_000, false)).toBe(0); // d = 10000: 100 − ⌊100.5⌋
    expect(correctnessOf("yes", 5_000, true)).toBe(75); // d = 5000: 100 − ⌊25.5⌋
    expect(correctnessOf("yes", 5_000, false)).toBe(75);
    expect(correctnessOf("no", 8_000, false)).toBe(96); // d = 2000: 100 − ⌊4.5⌋
    expect(correctnessOf("no", 8_000, true)).toBe(36); // d = 8000: 100 − ⌊64.5⌋
    expect(correctnessOf("yes", 9_000, true)).toBe(99); // d = 1000: 100 − ⌊1.5⌋
    expect(correctnessOf("yes", 9_000, false)).toBe(19); // d = 9000: 100 − ⌊81.5⌋
    expect(correctnessOf("yes", 9_293, false)).toBe(14); // d² = 86 359 849 → ⌊86.859849⌋ = 86
    expect(correctnessOf("no", 7_071, false)).toBe(91); // d = 2929: d² = 8 579 041 → ⌊9.079041⌋ = 9
  });

  it("matches the integer formula for every confidence", () => {
    for (let c = 5_000; c <= 10_000; c++) {
      for (const o of [true, false]) {
        const d = o ? 10_000 - c : c;
        const want = 100 - Number((BigInt(d) * BigInt(d) + 500_000n) / 1_000_000n);
        expect(correctnessOf("yes", c, o)).toBe(want);
        expect(correctnessOf("no", c, !o)).toBe(want);
      }
    }
  });

  it("scores failures 0, does not score abstentions, refuses out-of-range confidence", () => {
    expect(correctnessOf("failed", 0, true)).toBe(0);
    expect(correctnessOf("abstained", 0, false)).toBe(0);
    expect(isScored("failed")).toBe(true);
    expect(isScored("abstained")).toBe(false);
    expect(() => correctnessOf("yes", 4_999, true)).toThrow(RangeError);
    expect(() => correctnessOf("no", 10_001, true)).toThrow(RangeError);
    expect(() => correctnessOf("no", 7_500.5, true)).toThrow(RangeError);
  });
});

describe("rewardWeight (mirror of the contract)", () => {
  it("is correctness × (600 + the three scores), 0 for non-answers, slashed and refused seats", () => {
    expect(rewardWeight(rep("yes", 9_000, [70, 60, 50]), true)).toBe(80_091n); // 99 × (600 + 99 + 60 + 50): resQuality = correctness
    expect(rewardWeight(rep("yes", 9_000, [70, 60, 50]), false)).toBe(13_851n); // 19 × (600 + 19 + 60 + 50)
    expect(rewardWeight(rep("yes", 10_000, [100, 100, 100]), false)).toBe(0n); // confidently wrong pays nothing
    expect(rewardWeight(rep("no", 5_000, [0, 0, 0]), true)).toBe(50_625n); // 75 × (600 + 75)
    expect(rewardWeight(rep("failed", 0), true)).toBe(0n);
    expect(rewardWeight(rep("abstained", 0), true)).toBe(0n);
    expect(rewardWeight(rep("yes", 10_000, [1, 2, 3]), true, { slashed: true })).toBe(0n);
    expect(rewardWeight(rep("yes", 10_000, [1, 2, 3]), true, { refused: true })).toBe(0n);
    expect(
      rewardWeights([rep("yes", 10_000, [100, 100, 100]), rep("no", 6_000, [10, 20, 30]), rep("failed", 0)], true),
    ).toEqual([90_000n, 64n * 714n, 0n]); // no at 6000 on a YES outcome: d = 6000 → 64
    expect(rewardWeights([rep("no", 6_000)], false)).toEqual([84n * 684n]);
  });

  it("source and depth scores scale a correct answer by at most 9/7 (resQuality is the correctness), never beyond correctness", () => {
    const lo = rewardWeight(rep("yes", 10_000, [0, 0, 0]), true);
    const hi = rewardWeight(rep("yes", 10_000, [100, 100, 100]), true);
    expect(Number(hi) / Number(lo)).toBe(900 / 700); // resQuality = correctness (100) on both: src + depth scale it
    // a calibrated right answer beats a better-written wrong one
    expect(rewardWeight(rep("yes", 7_000, [0, 0, 0]), true)).toBeGreaterThan(
      rewardWeight(rep("no", 7_000, [100, 100, 100]), true),
    );
  });
});

describe("reportFromRecord", () => {
  const m = market(3);
  it("maps answers, abstentions and failures to reports", () => {
    const [a, b, c] = records(m, [answer(true, 0.87654), answer(false, 0.3), undefined]);
    const agg = { resQuality: 71, srcQuality: 62, analysisDepth: 53 };
    expect(reportFromRecord(a, { aggregate: agg })).toEqual({
      answer: "yes",
      confidenceBps: 8_765,
      resQuality: 71,
      srcQuality: 62,
      analysisDepth: 53,
    });
    expect(reportFromRecord(b)).toEqual({
      answer: "no",
      confidenceBps: 5_000,
      resQuality: 0,
      srcQuality: 0,
      analysisDepth: 0,
    });
    expect(reportFromRecord(c, { aggregate: agg })).toEqual({
      answer: "failed",
      confidenceBps: 0,
      resQuality: 0,
      srcQuality: 0,
      analysisDepth: 0,
    });
    expect(reportFromRecord({ askFailure: { kind: "abstained", message: "neutral" } })).toEqual({
      answer: "abstained",
      confidenceBps: 0,
      resQuality: 0,
      srcQuality: 0,
      analysisDepth: 0,
    });
    expect(reportFromRecord({ answer: { ...answer(true), confidence: Number.NaN } }).confidenceBps).toBe(5_000);
    expect(
      reportFromRecord(
        { answer: answer(true, 1.7) },
        { aggregate: { resQuality: 300, srcQuality: -4, analysisDepth: Number.NaN } },
      ),
    ).toEqual({
      answer: "yes",
      confidenceBps: 10_000,
      resQuality: 100,
      srcQuality: 0,
      analysisDepth: 0,
    });
    expect(confidenceToBps(0.5)).toBe(5_000);
    expect(confidenceToBps(0.99995)).toBe(10_000);
  });
});
