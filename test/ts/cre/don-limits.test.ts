/** The plan of a DON execution (workflow/don-limits.ts): pure arithmetic both the DON and the daemon's mode use. */
import { describe, expect, it } from "vitest";
import {
  callsPerRound,
  challengeShortfall,
  DEFAULT_DON_LIMITS,
  maxChallengedDonPanel,
  maxDonPanel,
  planDonExecution,
  reportBytes,
  roundsFor,
} from "../../../workflow/don-limits.js";

const L = DEFAULT_DON_LIMITS;
const w = (
  seats: number,
  more: Partial<{ registrationFetches: number; recordCalls: number; questionBytes: number }> = {},
) => ({
  seats,
  registrationFetches: 0,
  recordCalls: 0,
  questionBytes: 60,
  ...more,
});

describe("DON execution plan", () => {
  it("at the published quotas: 5 seats without the record, 4 with it; one consensus call per round", () => {
    expect(maxDonPanel(L, { recordCalls: 0 })).toBe(5);
    expect(maxDonPanel(L, { recordCalls: 1 })).toBe(4);
    const out = planDonExecution(L, w(4, { recordCalls: 1 }));
    if ("refused" in out) throw new Error(out.refused);
    expect(out.plan.httpCalls).toEqual({ registration: 0, ask: 4, record: 1, challenge: 0, total: 5 });
    expect(out.plan.consensusCalls.total).toBe(3);
    expect(out.plan.challengesSkipped).toContain("4 challenge calls needed, 0 of the 5 HTTP calls left");
  });

  it("at 15 HTTP calls: ≥ 10 seats with the record, 7 challenged; the report caps every setting at 29", () => {
    const l15 = { ...L, httpCalls: 15 };
    expect(maxDonPanel(l15, { recordCalls: 1 })).toBe(14);
    expect(maxChallengedDonPanel(l15, 1)).toBe(7);
    expect(maxDonPanel({ ...L, httpCalls: 1_000 }, { recordCalls: 1 })).toBe(29);
    expect(reportBytes(29)).toBeLessThanOrEqual(5_000);
    expect(reportBytes(30)).toBeGreaterThan(5_000);
  });

  it("refuses what does not fit, with the reason, and never plans past a quota", () => {
    expect(planDonExecution(L, w(6))).toMatchObject({ refused: expect.stringContaining("= 6 HTTP calls") });
    expect(planDonExecution(L, w(2, { questionBytes: 9_500 }))).toMatchObject({
      refused: expect.stringContaining("request"),
    });
    const tight = { ...L, httpCalls: 100, maxObservationBytes: 2_048, consensusCalls: 3 };
    expect(callsPerRound(tight)).toBe(2);
    expect(roundsFor(5, tight)).toBe(3);
    expect(planDonExecution(tight, w(5))).toMatchObject({ refused: expect.stringContaining("4 consensus calls") });
    for (let httpCalls = 1; httpCalls <= 40; httpCalls++)
      for (const recordCalls of [0, 1])
        for (let seats = 1; seats <= 35; seats++) {
          const limits = { ...L, httpCalls };
          const out = planDonExecution(limits, w(seats, { recordCalls }));
          if ("refused" in out) continue;
          expect(out.plan.httpCalls.total).toBeLessThanOrEqual(httpCalls);
          expect(out.plan.consensusCalls.total).toBeLessThanOrEqual(limits.consensusCalls);
        }
  });

  it("the challenge decision depends on the answers: fewer answers may still be challenged", () => {
    const l = { ...L, httpCalls: 8 };
    expect(challengeShortfall(l, w(5), 5)).toBeDefined();
    expect(challengeShortfall(l, w(5), 3)).toBeUndefined();
    expect(challengeShortfall(l, w(5, { questionBytes: 7_000 }), 3)).toContain("request quota");
  });
});
