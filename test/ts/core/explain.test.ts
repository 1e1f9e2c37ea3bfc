/**
 * The market summary (workflow/core/explain.ts) over real votes (decideVerdict) and real bundles (buildBundle): the
 * one-line reason names what decided, each seat's weight says why, the units are percent, and an overturned dispute
 * reads without contradiction.
 */
import { describe, expect, it } from "vitest";
import { parseEther } from "viem";
import type { BundleDocument } from "../../../workflow/core/bundle-schema.js";
import { reportFromRecord } from "../../../workflow/core/correctness.js";
import { explainMarket, percent, type ExplainInput } from "../../../workflow/core/explain.js";
import { explainDecision, formatReason } from "../../../workflow/core/explain-reason.js";
import { quorumStatus } from "../../../workflow/core/quorum.js";
import type { HistoryMarket, WorkerAnswer } from "../../../workflow/core/types.js";
import { decideVerdict, type VerdictConfigInput } from "../../../workflow/core/vote.js";
import { buildBundle } from "../workflow/helpers/checked-bundle.js";
import { addr, answer, crowdRecord, market, records } from "./fixtures.js";

function bundleOf(
  answers: (WorkerAnswer | undefined)[],
  config?: VerdictConfigInput,
  history: HistoryMarket[] = [],
): BundleDocument {
  const m = market(answers.length);
  const recs = records(m, answers);
  const reports = recs.map((r) => reportFromRecord(r));
  const decision = decideVerdict({ agentIds: m.workers.map((w) => w.agentId), reports, history }, config);
  const answered = answers.filter(Boolean).length;
  return buildBundle({ market: m, records: recs, quorum: quorumStatus(answers.length, answered), decision }).document;
}

function inputOf(doc: BundleDocument, over: Partial<ExplainInput> = {}): ExplainInput {
  return {
    status: "Proposed",
    outcome: false,
    rewardPool: parseEther("1"),
    creator: addr(9),
    deadline: 1_800_000_000n,
    now: 1_800_000_100n,
    proposal: {
      verdict: doc.decision?.verdict ?? "invalid",
      proposer: addr(8),
      bond: parseEther("0.01"),
      disputeEndsAt: 1_800_090_000n,
    },
    workers: doc.workers.map((w) => ({ agentId: BigInt(w.agentId), address: w.address, stake: parseEther("0.01") })),
    reports: doc.workers.map((w) => ({
      answer: w.report?.answer ?? "failed",
      confidenceBps: w.report?.confidenceBps ?? 0,
    })),
    results: [],
    bundle: doc,
    feedbackPending: 0n,
    ...over,
  };
}

describe("the one-line reason", () => {
  it("a panel of new agents: the bloc decided, at the prior accuracy, in percent", () => {
    const doc = bundleOf([answer(true), answer(true), answer(true), answer(true), answer(false)]);
    const e = explainMarket(inputOf(doc));
    expect(e.reasonCode).toBe("unproven-bloc");
    expect(e.reason).toBe(
      "YES: new agents vote as one bloc: 4 of 5 said YES, and the bloc counts as one voter of 70 % accuracy, so the posterior is 70 %, at or above the 60 % threshold",
    );
    expect(e.reason).not.toMatch(/bps|0\.7\b/);
    expect(e.seats.map((s) => s.weight)).toEqual(["bloc", "bloc", "bloc", "bloc", "bloc"]);
    expect(e.seats[0].why).toBe("new agent (0 of 3 answers on record needed): votes inside the new-agent bloc");
    expect(e.headline).toMatch(/^Proposed YES: anyone can dispute until 2027-/);
  });

  it("below threshold: the leading side and its posterior against the threshold", () => {
    const doc = bundleOf([answer(true), answer(true), answer(false)], { thresholdBps: 7_500 });
    const e = explainMarket(inputOf(doc));
    expect(e.reasonCode).toBe("below-threshold");
    expect(e.reason).toMatch(
      /^Invalid, below threshold: YES leads with a posterior of 70 %, under the 75 % needed \(new agents vote as one bloc: 2 of 3 said YES/,
    );
  });

  it("a tie and no quorum say so", () => {
    expect(explainMarket(inputOf(bundleOf([answer(true), answer(false)]))).reason).toMatch(
      /^Invalid, a tie: YES and NO weigh the same \(the 2 new agents split 1–1/,
    );
    const nq = explainMarket(inputOf(bundleOf([answer(true), undefined, undefined])));
    expect(nq.reasonCode).toBe("no-quorum");
    expect(nq.reason).toBe("Invalid, no quorum: 1 of 3 seats answered yes or no; 2 (two thirds) are needed");
    expect(nq.seats[1]).toMatchObject({ answer: "failed", weight: "—", why: "no vote: failed (timeout)" });
  });

  it("proven agents: their weights and accuracy, threshold met", () => {
    const ids = market(3).workers.map((w) => w.agentId);
    const history: HistoryMarket[] = Array.from({ length: 8 }, (_, k) => ({
      key: `31337:0xm:${k}`,
      final: true,
      disputed: true,
      // Rulings are known truth only from an allowed arbiter (docs/RECORDS.md §4).
      trustedRuling: true,
      answers: ids.map((agentId, i) => ({
        agentId,
        // Independent errors (agents that always agree would weigh as one dependent group).
        answer: (i === 2 && k % 2 === 0) || (i === 0 && k === 1) || (i === 1 && k === 3) ? "no" : "yes",
        confidenceBps: 8000,
      })),
    }));
    const doc = bundleOf([answer(true), answer(true), answer(false)], undefined, history);
    const e = explainMarket(inputOf(doc));
    expect(e.reasonCode).toBe("threshold-met");
    expect(e.reason).toMatch(
      /^YES: 3 proven agents weigh \d+\.\d\d for YES and \d+\.\d\d for NO \(log-odds\); posterior \d+(\.\d)? %/,
    );
    expect(e.seats[0].weight).toMatch(/^\d+\.\d\d$/);
    expect(e.seats[0].why).toMatch(/^accuracy \d+(\.\d)? % over 8 answers, \d+(\.\d)? % at this confidence/);
  });

  it("an agent rulings found changed says so, and the bundle carries how much of its record was set apart", () => {
    const ids = market(5).workers.map((w) => w.agentId);
    // 40 markets where every agent errs now and then on its own; then 8 ruled markets the last two get wrong together.
    const history: HistoryMarket[] = Array.from({ length: 48 }, (_, k) => ({
      key: `31337:0xm:${k}`,
      final: k % 3 === 0,
      disputed: k >= 40,
      ...(k >= 40 ? { trustedRuling: true } : {}),
      answers: ids.map((agentId, i) => {
        const right = k >= 40 ? i < 3 : (k + 3 * i) % 9 !== 0;
        return { agentId, answer: right === (k % 3 === 0) ? "yes" : "no", confidenceBps: 9000, signed: true };
      }),
    }));
    const doc = bundleOf([answer(true), answer(true), answer(true), answer(false), answer(false)], undefined, history);
    const changed = doc.estimates?.agents.filter((a) => a.changedAfter !== undefined).map((a) => a.agentId);
    expect(changed).toEqual([ids[3].toString(), ids[4].toString()]);
    const e = explainMarket(inputOf(doc));
    expect(e.seats[3].why).toMatch(
      /changed behaviour \(rulings or the other agents lately against it\): its \d+ earlier answers no longer count/,
    );
    expect(e.seats[0].why).not.toMatch(/changed/);
  });

  it("a copy group's seats say they were counted as one voter", () => {
    const ids = market(7).workers.map((w) => w.agentId);
    const doc = bundleOf(
      [answer(true), answer(true), answer(true), answer(false), answer(true), answer(false), answer(false)],
      undefined,
      crowdRecord(ids, 60, 1),
    );
    const e = explainMarket(inputOf(doc));
    const [a, b, c] = ids.map(String);
    expect(e.seats[0].why).toContain(`counted as one voter with agents ${b}, ${c} (a copy group`);
    expect(e.seats[1].why).toContain(`counted as one voter with agents ${a}, ${c}`);
    expect(e.seats[3].why).not.toMatch(/one voter/);
    expect(doc.decision?.verdict).toBe("no");
  });

  it("tolerates a reason it does not know and a bundle without a decision", () => {
    const doc = bundleOf([answer(true), answer(true), answer(false)], { thresholdBps: 7_500 });
    const d = doc.decision;
    if (d === undefined) throw new Error("no decision");
    const unknown = { ...doc, decision: { ...d, reason: "correlated" } } as unknown as BundleDocument;
    expect(explainDecision(unknown).primary).toEqual({ code: "invalid-other", detail: "correlated" });
    const fragile = { ...doc, decision: { ...d, reason: "fragile" } } as unknown as BundleDocument;
    expect(formatReason(explainDecision(fragile).primary)).toMatch(/^Invalid, fragile verdict: /);
    const bare = { ...doc, decision: undefined };
    expect(explainMarket(inputOf(bare)).reason).toBe("The bundle records no vote decision.");
  });

  it("labels a confidence that is not the on-chain one", () => {
    const a = answer(true, 0.37, { extras: { confidenceBase: 0.5, evidenceStrength: 0.74 } });
    const doc = bundleOf([a, answer(true), answer(true)]);
    const seat = explainMarket(inputOf(doc)).seats[0];
    expect(seat.confidence).toBe(0.5);
    expect(seat.derivedConfidence).toEqual({
      value: 0.37,
      label: "confidence × evidence level (50 % × 74 %); the chain takes at least 50 %",
    });
    expect(explainMarket(inputOf(doc)).seats[1].derivedConfidence).toBeUndefined();
  });
});

describe("dispute and money", () => {
  const doc = bundleOf([answer(true), answer(true), answer(false)]);
  const disputer = addr(7);
  const bond = parseEther("0.01");
  const overturned = (): ExplainInput =>
    inputOf(doc, {
      status: "Resolved",
      outcome: false,
      proposal: { verdict: "yes", proposer: addr(8), bond, disputeEndsAt: 1n, dispute: { disputer, claimed: "no" } },
      results: doc.workers.map((w, i) => ({
        agentId: BigInt(w.agentId),
        scored: true,
        correctness: i === 2 ? 80 : 20,
        reward: i === 2 ? parseEther("1") : 0n,
        stakeReturned: i === 2 ? parseEther("0.01") : 0n,
        stakeSlashed: i === 2 ? 0n : parseEther("0.01"),
      })),
      facts: {
        disputeResolved: { verdict: "no", winner: disputer, bondPaid: 2n * bond },
        disputeExpired: false,
        slashes: [0, 1].map((i) => ({ agentId: BigInt(doc.workers[i].agentId), beneficiary: disputer, amount: bond })),
        feedbackFailed: 0,
        arbitration: {
          kind: "committee",
          address: addr(6),
          members: 3,
          threshold: 2,
          votes: { no: 2, yes: 0, invalid: 0 },
        },
      },
    });

  it("an overturned proposal reads as one story: proposal, ruling with the votes, who took what", () => {
    const e = explainMarket(overturned());
    expect(e.headline).toBe("Proposed YES, overturned to NO by the committee (2 of 3 votes)");
    expect(e.money[0]).toBe(
      `The disputer ${disputer} took both bonds (0.02 ETH) plus 0.02 ETH of slashed stakes (2 seats on the losing side)`,
    );
    expect(e.money).toContain("Reward pool 1 ETH: 1 ETH paid to 1 of 3 workers by their on-chain weights");
    expect(e.money).toContain("Stakes: 0.01 ETH returned to 1 of 3 workers, 0.02 ETH slashed");
    expect(e.dispute).toEqual([
      `Disputed by ${disputer}, claiming NO (proposal YES)`,
      `Committee ${addr(6)}: 2 of 3 members must agree; votes YES 0, NO 2, INVALID 0`,
      "Ruling: NO (the proposal is overturned)",
    ]);
    expect(e.feedback).toBe("ERC-8004 feedback: written for all 3 seats");
  });

  it("upheld, undisputed and pending proposals; a betting pool nobody used is not refunded", () => {
    const up = overturned();
    up.facts = {
      ...(up.facts ?? { disputeExpired: false, slashes: [], feedbackFailed: 0 }),
      disputeResolved: { verdict: "yes", winner: addr(8), bondPaid: 2n * bond },
    };
    up.outcome = true;
    expect(explainMarket(up).headline).toBe("Proposed YES, upheld by the committee (0 of 3 votes)");
    const plain = inputOf(doc, {
      status: "Invalid",
      proposal: { verdict: "invalid", proposer: addr(8), bond, disputeEndsAt: 1n },
      betting: { yes: 0n, no: 0n, settlement: "refund" },
      facts: {
        disputeExpired: false,
        slashes: [],
        feedbackFailed: 0,
        creatorRefund: { creator: addr(9), amount: parseEther("1") },
      },
    });
    const e = explainMarket(plain);
    expect(e.headline).toBe("INVALID as proposed: nobody disputed");
    expect(e.money).toEqual([
      `The proposer's bond 0.01 ETH went back to the proposer ${addr(8)}`,
      `1 ETH of the reward pool back to the creator ${addr(9)} (Invalid)`,
    ]);
    expect(e.feedback).toBe("ERC-8004 feedback: none (an Invalid market writes no records)");
    const bets = explainMarket({ ...plain, betting: { yes: parseEther("0.2"), no: 0n, settlement: "refund" } });
    expect(bets.money).toContain("Betting pool 0.2 ETH refunded to the bettors");
    expect(explainMarket(inputOf(doc)).money).toEqual([
      "The proposer's bond 0.01 ETH held; nothing is paid before finalization",
    ]);
  });

  it("percent has one format", () => {
    expect([percent(0.7), percent(0.625), percent(0.99999), percent(undefined)]).toEqual([
      "70 %",
      "62.5 %",
      "100 %",
      "—",
    ]);
  });
});
