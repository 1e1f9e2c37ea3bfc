/**
 * Change detection (workflow/core/change-point.ts, docs/TRUTH.md §2): agents whose recent answers trusted rulings
 * found wrong, and whom a new identity explains better, are estimated from their answers since the change.
 */
import { describe, expect, it } from "vitest";
import { estimateAccuracy, resolveAccuracyConfig } from "../../../workflow/core/accuracy.js";
import { type ChangeVote, detectChanges } from "../../../workflow/core/change-point.js";
import { majorityBreaks } from "../../../workflow/core/majority-break.js";
import type { HistoryMarket } from "../../../workflow/core/types.js";
import { decideVerdict } from "../../../workflow/core/vote.js";
import { bits, side } from "./fixtures.js";

const ACCURACY: Record<string, number> = { 1: 0.55, 2: 0.65, 3: 0.75, 4: 0.85, 5: 0.95, 6: 0.95, 7: 0.95 };
const IDS = [1n, 2n, 3n, 4n, 5n, 6n, 7n];

/** 40 honest markets, then `strikes` where 6 and 7 give the same wrong answer and the others are right. */
function record(strikes: number, ruling: "trusted" | "untrusted" | "none", seed = 3): HistoryMarket[] {
  const r = bits(seed);
  const out: HistoryMarket[] = [];
  for (let m = 0; m < 40 + strikes; m++) {
    const truth = r() < 0.5;
    const strike = m >= 40;
    out.push({
      key: `31337:0xabc:${m}`,
      final: strike && ruling === "none" ? !truth : truth,
      disputed: strike && ruling !== "none",
      ...(strike && ruling !== "none" ? { trustedRuling: ruling === "trusted" } : {}),
      answers: IDS.map((agentId) => ({
        agentId,
        answer: side(strike ? (agentId >= 6n ? !truth : truth) : r() < (ACCURACY[agentId.toString()] ?? 0) === truth),
        confidenceBps: 9_000,
        signed: true,
      })),
    });
  }
  return out;
}

describe("change detection", () => {
  it("farmers found wrong by trusted rulings are estimated from their answers since the strike", () => {
    const est = estimateAccuracy(record(8, "trusted"), IDS, { majorityPenalty: 0 });
    const byId = new Map(est.agents.map((a) => [a.agentId, a]));
    for (const id of [6n, 7n]) {
      const a = byId.get(id)!;
      expect(a.changedAfter).toBeGreaterThanOrEqual(36); // its farmed record is set apart
      expect(a.count).toBe(48 - a.changedAfter!);
      expect(a.accuracy).toBeLessThan(0.5);
    }
    for (const id of [1n, 2n, 3n, 4n, 5n]) expect(byId.get(id)!.changedAfter).toBeUndefined();
    // Off, the same rulings only dent the farmers' long record.
    const off = estimateAccuracy(record(8, "trusted"), IDS, { changePenalty: 0, majorityPenalty: 0 });
    for (const a of off.agents) {
      expect(a.changedAfter).toBeUndefined();
      if (a.agentId >= 6n) expect(a.accuracy).toBeGreaterThan(0.65);
    }
  });

  it("the next strike then loses: the farmers carry no weight", () => {
    const reports = IDS.map((id) => ({
      answer: id >= 6n || id === 1n ? ("no" as const) : ("yes" as const),
      confidenceBps: 9_000,
      resQuality: 50,
      srcQuality: 50,
      analysisDepth: 50,
    }));
    const d = decideVerdict(
      { agentIds: IDS, reports, history: record(8, "trusted") },
      { accuracy: { majorityPenalty: 0 } },
    );
    expect(d.verdict).toBe("yes");
    for (const v of d.voters.slice(5)) expect(v.weight).toBe(0);
    const off = decideVerdict(
      { agentIds: IDS, reports, history: record(8, "trusted") },
      { accuracy: { changePenalty: 0, majorityPenalty: 0 } },
    );
    for (const v of off.voters.slice(5)) expect(v.weight).toBeGreaterThan(0.4);
  });

  it("rulings of an untrusted arbiter, or undisputed outcomes, never mark an agent changed by the ruling test", () => {
    for (const ruling of ["untrusted", "none"] as const)
      for (const a of estimateAccuracy(record(6, ruling), IDS, { majorityPenalty: 0 }).agents)
        expect(a.changedAfter).toBeUndefined();
  });

  it("without any ruling, farmers who broke with the other agents' head count are set apart (majority break)", () => {
    // Undisputed: the strikes finalized the farmers' way, so the estimator's own labels follow them.
    const est = estimateAccuracy(record(8, "none"), IDS);
    const byId = new Map(est.agents.map((a) => [a.agentId, a]));
    for (const id of [6n, 7n]) {
      expect(byId.get(id)!.changedAfter).toBeGreaterThanOrEqual(36);
      expect(byId.get(id)!.accuracy).toBeLessThan(0.5);
    }
    for (const id of [1n, 2n, 3n, 4n, 5n]) expect(byId.get(id)!.changedAfter).toBeUndefined();
    // Off, the farmers keep their record and lead the estimate.
    const off = estimateAccuracy(record(8, "none"), IDS, { majorityPenalty: 0 });
    for (const a of off.agents) if (a.agentId >= 6n) expect(a.accuracy).toBeGreaterThan(0.65);
    // Two strikes are not yet a break (the test needs ~9 nats; honest panels reach 7.5 by chance).
    for (const a of estimateAccuracy(record(2, "none"), IDS).agents) expect(a.changedAfter).toBeUndefined();
  });

  it("a swarm of fresh agents cannot make the established agents look changed (the head count is of established agents)", () => {
    const history = record(0, "none", 13);
    const r = bits(17);
    // 12 markets where 20 fresh agents all give the same wrong answer; the established ones answer as before.
    for (let m = 0; m < 12; m++) {
      const truth = r() < 0.5;
      history.push({
        key: `31337:0xabc:${200 + m}`,
        final: truth,
        disputed: false,
        answers: [
          ...IDS.slice(0, 5).map((agentId) => ({
            agentId,
            answer: side(r() < (ACCURACY[agentId.toString()] ?? 0) === truth),
            confidenceBps: 9_000,
            signed: true,
          })),
          ...Array.from({ length: 20 }, (_, k) => ({
            agentId: BigInt(100 + k),
            answer: side(!truth),
            confidenceBps: 9_500,
            signed: true,
          })),
        ],
      });
    }
    for (const a of estimateAccuracy(history, IDS.slice(0, 5)).agents) expect(a.changedAfter).toBeUndefined();
  });

  it("an honest agent wrong on one ruling is not set apart", () => {
    const history = record(0, "none", 9);
    const r = bits(11);
    for (let m = 0; m < 6; m++) {
      const truth = r() < 0.5;
      history.push({
        key: `31337:0xabc:${100 + m}`,
        final: truth,
        disputed: true,
        trustedRuling: true,
        // the .95 agent misses the first ruled market; everyone else answers with their accuracy
        answers: IDS.map((agentId) => ({
          agentId,
          answer: side(agentId === 5n ? (m !== 0) === truth : r() < (ACCURACY[agentId.toString()] ?? 0) === truth),
          confidenceBps: 9_000,
          signed: true,
        })),
      });
    }
    const est = estimateAccuracy(history, IDS);
    expect(est.agents.filter((a) => a.changedAfter !== undefined)).toEqual([]);
  });

  it("former selves never leak: the estimate names only the requested agents, and is deterministic", () => {
    const history = record(8, "trusted");
    const est = estimateAccuracy(history, IDS);
    expect(est.agents.map((a) => a.agentId)).toEqual(IDS);
    for (const e of [...est.dependence, ...est.sharedErrors]) {
      expect(e.a).toBeGreaterThan(0n);
      expect(e.b).toBeGreaterThan(0n);
    }
    for (const a of est.agents) if (a.cloneGroup !== undefined) expect(a.cloneGroup).toBeGreaterThan(0n);
    expect(estimateAccuracy([...history], [...IDS].reverse())).toEqual(est);
  });

  it("detectChanges alone: a pair that turned is moved together; nothing moves without a ruling against it", () => {
    // 3 honest agents (0, 1, 2) and a pair (3, 4): 30 markets all right, then 6 ruled markets the pair gets wrong.
    const votes: ChangeVote[][] = [];
    const known: (number | undefined)[] = [];
    const r = bits(5);
    for (let m = 0; m < 36; m++) {
      const truth = r() < 0.5 ? 1 : -1;
      const strike = m >= 30;
      votes.push(
        [0, 1, 2, 3, 4].map((agent) => ({
          agent,
          sign: strike && agent >= 3 ? -truth : agent < 3 && r() < 0.2 ? -truth : truth,
          c: 1,
        })),
      );
      known.push(strike ? (truth === 1 ? 1 : 0) : undefined);
    }
    const search = {
      penalty: 4,
      maxChanges: 3,
      candidates: 5,
      lengths: [2, 3, 4, 6, 8],
      minBefore: 8,
      minKnownWrong: 1,
      iterations: 50,
      tolerance: 1e-6,
      alpha: 2.8,
      beta: 1.2,
      lo: 0.01,
      hi: 0.99,
    };
    const soft = votes.map(() => 0);
    const p0 = [0.8, 0.8, 0.8, 0.9, 0.9];
    const changes = detectChanges(votes, known, soft, p0, [0, 1, 2, 3, 4], search);
    expect(changes.map((c) => c.agent).sort()).toEqual([3, 4]);
    for (const c of changes) expect(c.recent).toBe(6);
    expect(detectChanges(votes, known, soft, p0, [0, 1, 2, 3, 4], { ...search, penalty: 1e6 })).toEqual([]);
    expect(
      detectChanges(
        votes,
        votes.map(() => undefined),
        soft,
        p0,
        [0, 1, 2, 3, 4],
        search,
      ),
    ).toEqual([]);
  });

  it("majorityBreaks alone: a drop in agreement with the others' head count, not a rise, and not a steady dissenter", () => {
    // Agents 0–3 honest (right 80 %), 4 always against them from market 45, 5 always against them throughout.
    const r = bits(23);
    const votes = Array.from({ length: 60 }, (_, m) => {
      const truth = r() < 0.5 ? 1 : -1;
      return [0, 1, 2, 3, 4, 5].map((agent) => ({
        agent,
        sign: agent === 5 || (agent === 4 && m >= 45) ? -truth : r() < 0.8 ? truth : -truth,
      }));
    });
    const clone = [0, 1, 2, 3, 4, 5];
    const found = majorityBreaks(votes, clone, [0, 1, 2, 3, 4, 5], [2, 3, 4, 6, 8, 12, 16], 8, 9);
    expect(found.map((b) => b.agent)).toEqual([4]);
    expect(found[0]?.recent).toBeGreaterThanOrEqual(8);
    expect(majorityBreaks(votes, clone, [0, 1, 2, 3, 4, 5], [2, 3, 4, 6, 8, 12, 16], 8, 1e6)).toEqual([]);
  });

  it("rejects a bad configuration with a one-line error", () => {
    expect(() => resolveAccuracyConfig({ changePenalty: -1 })).toThrow(/changePenalty/);
    expect(() => resolveAccuracyConfig({ changeMaxAgents: 1.5 })).toThrow(/changeMaxAgents/);
    expect(() => resolveAccuracyConfig({ changeMinKnownWrong: Number.NaN })).toThrow(/changeMinKnownWrong/);
    expect(() => resolveAccuracyConfig({ majorityPenalty: -2 })).toThrow(/majorityPenalty/);
  });
});
