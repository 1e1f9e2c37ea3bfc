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

  it("with a relay the asks are one call and one round whatever the panel: the docs/CRE.md relay table", () => {
    const at = (httpCalls: number) => ({ ...L, httpCalls });
    const table = [5, 10, 15, 20, 30].map((h) => [
      maxDonPanel(at(h), { recordCalls: 0, relayed: true }),
      maxChallengedDonPanel(at(h), 0, true),
      maxDonPanel(at(h), { recordCalls: 1, relayed: true }),
      maxChallengedDonPanel(at(h), 1, true),
    ]);
    expect(table).toEqual([
      [29, 4, 29, 3],
      [29, 9, 29, 8],
      [29, 14, 29, 13],
      [29, 19, 29, 18],
      [29, 29, 29, 28],
    ]);
    const out = planDonExecution(L, { ...w(10, { recordCalls: 1 }), relayed: true });
    if (!("plan" in out)) throw new Error(out.refused);
    expect(out.plan.httpCalls).toMatchObject({ ask: 1, record: 1, challenge: 0, total: 2 });
    expect(out.plan.consensusCalls).toMatchObject({ ask: 1, record: 1, report: 1, total: 3 });
    // The attack on the budget: a relayed panel past the report quota is still refused before any call.
    const big = planDonExecution(L, { ...w(30), relayed: true });
    expect("refused" in big && big.refused).toMatch(
      /panel of 30: a report of \d+ bytes exceeds the 5000-byte quota \(max panel 29\)/,
    );
  });
});
