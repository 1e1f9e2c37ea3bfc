/** The resolve and bundle stages around decideVerdict, with an in-memory TrackRecordSource (no chain). */
import { describe, expect, it } from "vitest";
import { quorumStatus } from "../../../workflow/core/quorum.js";
import type { HistoryMarket, MarketSnapshot } from "../../../workflow/core/types.js";
import { rubricEvaluate } from "../../../workflow/evaluate/rubric.js";
import { marketKey, readTrackRecord, resolveStage } from "../../../workflow/pipeline/07-resolve.js";
import { bundleStage } from "../workflow/helpers/checked-bundle.js";
import type { TrackRecordSource } from "../../../workflow/ports.js";
import { answer, market, records } from "./fixtures.js";
import { isAnswered } from "../../../workflow/core/types.js";

/** Agent 100 right in 4 arbiter-decided markets, agent 102 always wrong; 101 has no record. */
function history(m: MarketSnapshot): HistoryMarket[] {
  const past = Array.from(
    { length: 4 },
    (_, i): HistoryMarket => ({
      key: `31337:0xold:${i}`,
      final: i % 2 === 0,
      disputed: true,
      trustedRuling: true,
      answers: [100n, 102n].map((agentId) => ({
        agentId,
        answer: (i % 2 === 0) !== (agentId === 102n) ? "yes" : "no",
        confidenceBps: 8_000,
        signed: true,
      })),
    }),
  );
  // The source also returns the market being resolved: the stage must leave it out.
  const self: HistoryMarket = {
    key: marketKey(m).toUpperCase(),
    final: false,
    disputed: true,
    answers: [{ agentId: 100n, answer: "no", confidenceBps: 10_000 }],
  };
  return [...past, self];
}

describe("resolve stage", () => {
  const m = market(3);
  const recs = records(m, [answer(false, 0.9), answer(true, 0.7), answer(true, 0.95)]);
  const evaluation = rubricEvaluate({ market: m, workers: recs.filter(isAnswered) });

  it("weighs the track record: one proven agent outweighs a fresh agent and a bad one", async () => {
    let asked: MarketSnapshot | undefined;
    const source: TrackRecordSource = {
      history: async (mk) => {
        asked = mk;
        return history(mk);
      },
    };
    // the worked example of docs/TRUTH.md (no recency decay: 4 answers weigh 1 each)
    const d = await resolveStage(m, recs, quorumStatus(3, 3), evaluation, source, {
      vote: { accuracy: { halfLife: 0 } },
    });
    expect(asked).toBe(m);
    expect(d.history.markets).toBe(4); // the market itself was left out
    expect(d.voters.map((v) => [v.unproven, v.accuracy, v.calibratedAccuracy, v.weight])).toEqual([
      // (2.8 + 4) / 8; no answer yet at 9000+ bps: its overall accuracy; logit 1.734601 shrunk (below): 1.348123
      [false, 0.85, 0.85, 1.348123],
      [true, 0.7, 0.7, 0], // fresh: in the bloc
      [false, 0.35, 0.35, 0], // (2.8 + 0) / 8: logit −0.619039, never negative
    ]);
    // Variances of the log-odds (known truths: information (4 + 4)·p(1 − p)): A 1 / (8·0.85·0.15) = 0.980392,
    // C 1 / (8·0.35·0.65) = 0.549451; the fresh agent has only the prior's 4·0.7·0.3: 1 / 0.84.
    expect(d.estimate.covariance).toEqual([
      [0.980392, 0, 0],
      [0, 1.190476, 0],
      [0, 0, 0.549451],
    ]);
    // θ̄ = (1.734601 − 0.619039) / 2; τ² = 2·1.176781² − (0.980392 + 0.549451) / 2
    expect(d.shrinkage).toEqual({ mean: 0.557781, between: 2.00489, groups: 2 });
    // A: 0.557781 + 1.17682 · 2.00489 / (2.00489 + 0.980392) = 1.348123
    expect(d.bloc).toEqual({ voters: 1, yes: 1, no: 0, side: "yes", weight: 0.847298 });
    expect(d.logOdds).toBe(-0.500825);
    expect(d.posterior).toBe(0.622653); // σ(0.500825) ≥ 0.6
    expect(d.verdict).toBe("no"); // the proven agent beats a 2-1 head count
    // without the shrinkage: logit(0.85) = 1.734601 against the bloc, σ(0.887303) = 0.708333
    const raw = await resolveStage(m, recs, quorumStatus(3, 3), evaluation, source, {
      vote: { shrinkage: false, accuracy: { halfLife: 0 } },
    });
    expect(raw.voters[0].weight).toBe(1.734601);
    expect(raw.posterior).toBe(0.708333);
    expect(d.reports.map((r) => r.answer)).toEqual(["no", "yes", "yes"]);
  });

  it("keys the history by chain, lower-cased market address and id", () => {
    expect(marketKey(m)).toBe("31337:0x5fbdb2315678afecb367f032d93f642f64180aa3:42");
  });

  it("turns a failing source into a PipelineError of the resolve stage", async () => {
    const source: TrackRecordSource = {
      history: async () => Promise.reject(new Error("rpc down https://secret@node")),
    };
    await expect(resolveStage(m, recs, quorumStatus(3, 3), evaluation, source)).rejects.toMatchObject({
      name: "PipelineError",
      stage: "resolve",
    });
    await expect(readTrackRecord(m, undefined)).resolves.toEqual([]);
  });

  it("without quorum decides invalid without reading the record", async () => {
    const few = records(m, [answer(true), undefined, undefined]);
    let reads = 0;
    const source: TrackRecordSource = {
      history: async () => {
        reads += 1;
        return [];
      },
    };
    const d = await resolveStage(m, few, quorumStatus(3, 1), undefined, source);
    expect(reads).toBe(0);
    expect(d.verdict).toBe("invalid");
    expect(d.reason).toBe("no-quorum");
    expect(d.reports).toEqual([
      { answer: "yes", confidenceBps: 8_000, resQuality: 0, srcQuality: 0, analysisDepth: 0 },
      { answer: "failed", confidenceBps: 0, resQuality: 0, srcQuality: 0, analysisDepth: 0 },
      { answer: "failed", confidenceBps: 0, resQuality: 0, srcQuality: 0, analysisDepth: 0 },
    ]);
    const sealed = bundleStage(m, few, quorumStatus(3, 1), undefined, d);
    expect(sealed.proposal).toEqual({
      marketId: 42n,
      verdict: "invalid",
      reports: d.reports,
      bundleHash: sealed.bundle.hash,
    });
    expect(sealed.plan).toBeUndefined();
    expect((sealed.bundle.document as any).decision).toMatchObject({ verdict: "invalid", reason: "no-quorum" });
  });
});

describe("bundle stage", () => {
  it("is byte-identical for identical inputs and carries the proposal", async () => {
    const run = async () => {
      const m = market(3);
      const recs = records(m, [answer(true, 0.9), answer(true, 0.7), answer(false, 0.95)]);
      const evaluation = rubricEvaluate({ market: m, workers: recs.filter(isAnswered) });
      const source: TrackRecordSource = { history: async (mk) => history(mk) };
      const d = await resolveStage(m, recs, quorumStatus(3, 3), evaluation, source);
      return {
        d,
        sealed: bundleStage(m, recs, quorumStatus(3, 3), evaluation, d, { bundleExtra: { pipeline: "test" } }),
      };
    };
    const a = await run();
    const b = await run();
    expect(b.sealed.bundle.json).toBe(a.sealed.bundle.json);
    expect(a.d.verdict).toBe("yes"); // 100 (proven) and the fresh 101 agree; 102 says no but weighs nothing
    expect(a.sealed.proposal).toEqual({
      marketId: 42n,
      verdict: "yes",
      reports: a.d.reports,
      bundleHash: a.sealed.bundle.hash,
    });
    // legacy v1 plan: the on-chain reward weights of the reports
    expect(a.sealed.plan?.weights).toEqual(a.d.rewardWeights);
    expect(a.sealed.plan?.scores).toEqual(a.d.reports.flatMap((r) => [r.resQuality, r.srcQuality, r.analysisDepth]));
    const doc = a.sealed.bundle.document as any;
    expect(doc.estimates.history.hash).toBe(a.d.history.hash);
    expect(doc.workers.map((w: any) => w.report.answer)).toEqual(["yes", "yes", "no"]);
  });
});
