import { describe, expect, it } from "vitest";
import { aggregateScores, toIntScore } from "../../../workflow/core/aggregate.js";
import { requiredQuorum, quorumStatus } from "../../../workflow/core/quorum.js";
import { DIMENSIONS, type Dimension } from "../../../workflow/core/types.js";

const dims = (v: Partial<Record<Dimension, number>>): Record<Dimension, number> =>
  Object.fromEntries(DIMENSIONS.map((d) => [d, v[d] ?? 0])) as Record<Dimension, number>;

describe("aggregateScores", () => {
  it("applies the spec weights exactly", () => {
    // (80·20 + 60·15 + 40·10)/45 = 2900/45 = 64.44 → 64
    // (90·15 + 30·10)/25 = 1650/25 = 66
    // (70·15 + 50·10 + 20·5)/30 = 1650/30 = 55
    const a = aggregateScores(
      dims({
        resolutionQuality: 80,
        reasoningClarity: 60,
        evidenceStrength: 40,
        sourceQuality: 90,
        timeliness: 30,
        analysisDepth: 70,
        biasAwareness: 50,
        collaboration: 20,
      }),
    );
    expect(a).toEqual({ resQuality: 64, srcQuality: 66, analysisDepth: 55 });
  });

  it("rounds half up", () => {
    // AD=1 → 15/30 = 0.5 → 1 ; C=3 → 15/30 = 0.5 → 1 ; AD=2,C=1 → 35/30=1.1667 → 1
    expect(aggregateScores(dims({ analysisDepth: 1 })).analysisDepth).toBe(1);
    expect(aggregateScores(dims({ collaboration: 3 })).analysisDepth).toBe(1);
    expect(aggregateScores(dims({ analysisDepth: 2, collaboration: 1 })).analysisDepth).toBe(1);
    // RQ=1,RC=1,ES=2 → 55/45 = 1.22 → 1 ; RQ=2,RC=1 → 55/45 ; RQ=100,RC=0,ES=1 → 2010/45 = 44.67 → 45
    expect(aggregateScores(dims({ resolutionQuality: 100, evidenceStrength: 1 })).resQuality).toBe(45);
    // SQ=1,T=0 → 15/25 = 0.6 → 1 ; SQ=0,T=1 → 0.4 → 0
    expect(aggregateScores(dims({ sourceQuality: 1 })).srcQuality).toBe(1);
    expect(aggregateScores(dims({ timeliness: 1 })).srcQuality).toBe(0);
    expect(toIntScore(49.5)).toBe(50);
    expect(toIntScore(49.4999)).toBe(49);
  });

  it("clamps inputs to 0..100 and treats non-finite as 0; outputs are integers", () => {
    const a = aggregateScores(
      dims({
        resolutionQuality: 250,
        reasoningClarity: 100,
        evidenceStrength: 100,
        sourceQuality: -40,
        timeliness: Number.NaN,
        analysisDepth: Infinity,
        biasAwareness: 100,
        collaboration: 100,
      }),
    );
    expect(a).toEqual({ resQuality: 100, srcQuality: 0, analysisDepth: 50 }); // Infinity counts as 0
    for (const v of Object.values(a)) expect(Number.isInteger(v)).toBe(true);
  });

  it("accepts DimensionScores objects", () => {
    const full = Object.fromEntries(DIMENSIONS.map((d) => [d, { score: 100, explanation: "x" }])) as never;
    expect(aggregateScores(full)).toEqual({ resQuality: 100, srcQuality: 100, analysisDepth: 100 });
  });
});

describe("requiredQuorum", () => {
  it("is ceil(2n/3) over the frozen count", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 10, 100].map(requiredQuorum)).toEqual([0, 1, 2, 2, 3, 4, 4, 5, 7, 67]);
    expect(quorumStatus(3, 2).reached).toBe(true);
    expect(quorumStatus(3, 1)).toEqual({ n: 3, required: 2, answered: 1, reached: false });
    expect(quorumStatus(0, 0).reached).toBe(false);
    expect(() => requiredQuorum(-1)).toThrow(RangeError);
    expect(() => requiredQuorum(1.5)).toThrow(RangeError);
  });
});
