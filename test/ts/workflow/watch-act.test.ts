/**
 * The watcher's claim rule and its refusals (workflow/watch/): every path that declines a dispute returns before
 * anything is sent, with one line saying why. The disputes themselves run on a real chain in
 * test/ts/cli/watch.test.ts (committee) and test/ts/cli/watch-uma.test.ts (UMA).
 */
import { describe, expect, it } from "vitest";
import { parseEther, type Address } from "viem";
import type { ChainContext } from "../../../workflow/chain/clients.js";
import type { WorkerReport } from "../../../workflow/core/types.js";
import { actOnReview, reviewLine } from "../../../workflow/watch/act.js";
import { claimFor, type ProposalReview } from "../../../workflow/watch/review.js";

const report = (answer: WorkerReport["answer"]): WorkerReport => ({
  answer,
  confidenceBps: answer === "yes" || answer === "no" ? 8000 : 0,
  resQuality: 50,
  srcQuality: 50,
  analysisDepth: 50,
});
const PROPOSER: Address = "0x1111111111111111111111111111111111111111";
const ME: Address = "0x2222222222222222222222222222222222222222";
const ARBITER: Address = "0x3333333333333333333333333333333333333333";
const MARKET: Address = "0x4444444444444444444444444444444444444444";

function review(over: Partial<ProposalReview> = {}): ProposalReview {
  return {
    marketId: 7n,
    proposal: {
      proposer: PROPOSER,
      verdict: "no",
      proposedAt: 1_000n,
      disputeEndsAt: 2_000n,
      bond: parseEther("0.01"),
      bundleHash: `0x${"5a".repeat(32)}`,
      bundleURI: "ipfs://b",
    },
    arbiter: ARBITER,
    arbiterTrusted: true,
    disputeBond: parseEther("0.01"),
    bundle: { status: "not-fetched", detail: "not http(s): ipfs://b" },
    history: { markets: 4, trustedRulings: 0 },
    recomputed: { verdict: "yes", posterior: 0.9 },
    watch: { dispute: true, reasons: ["differs", "against-seats"], against: 3, answered: 5 },
    claim: "yes",
    ...over,
  };
}
// Refusals never reach the chain: a context with only the watcher's account is enough.
const ctx = { account: { address: ME } } as unknown as ChainContext;

describe("claimFor", () => {
  it("claims the recomputed yes/no when it differs", () => {
    expect(claimFor("no", [report("yes"), report("no")], { verdict: "yes" })).toBe("yes");
  });
  it("claims the side the rest of the panel favours for a fragile proposal", () => {
    const fragile = { verdict: "invalid" as const, fragility: { coalition: [1n, 2n], restLogOdds: 1.4 } };
    expect(claimFor("no", [report("no"), report("no"), report("yes")], fragile)).toBe("yes");
    expect(
      claimFor("yes", [report("yes"), report("no")], { ...fragile, fragility: { coalition: [1n], restLogOdds: -2 } }),
    ).toBe("no");
  });
  it("claims the seats' majority for a proposal against the seats, else Invalid", () => {
    expect(claimFor("no", [report("yes"), report("yes"), report("no")], { verdict: "no" })).toBe("yes");
    expect(claimFor("yes", [report("yes"), report("no")], { verdict: "yes" })).toBe("invalid");
  });
  it("claims the recomputed verdict (or YES) against an Invalid proposal", () => {
    expect(claimFor("invalid", [report("no"), report("no")], { verdict: "no" })).toBe("no");
  });
});

describe("actOnReview refusals (nothing sent)", () => {
  it("does nothing when the review finds nothing", async () => {
    const r = review({ watch: { dispute: false, reasons: [], against: 0, answered: 5 } });
    const { claim: _c, ...noClaim } = r;
    expect(await actOnReview(ctx, MARKET, noClaim, 1_500n, { dispute: true })).toEqual({ kind: "none" });
  });
  it("reports without --dispute", async () => {
    const a = await actOnReview(ctx, MARKET, review(), 1_500n, { dispute: false });
    expect(a).toEqual({ kind: "would-dispute", claim: "yes" });
    expect(reviewLine(review(), a)).toBe(
      "market 7: proposal NO, recomputed YES over 4 market(s), 3/5 seats against, bundle not-fetched: not http(s): ipfs://b: WOULD DISPUTE claiming YES (differs, against-seats); pass --dispute to send it",
    );
  });
  const refusals: [string, ProposalReview, bigint, RegExp, bigint?][] = [
    [
      "its own proposal",
      review({ proposal: { ...review().proposal, proposer: ME } }),
      1_500n,
      /this key's own proposal/,
    ],
    [
      "an already disputed proposal",
      review({
        proposal: { ...review().proposal, dispute: { disputer: PROPOSER, claimed: "yes", disputedAt: 1_100n } },
      }),
      1_500n,
      /already disputed by 0x1111/,
    ],
    ["a closed window", review(), 2_000n, /its dispute window is over/],
    [
      "a bond above the cap",
      review(),
      1_500n,
      /dispute bond 0\.01 ETH exceeds the watcher's cap 0\.001 ETH/,
      parseEther("0.001"),
    ],
    [
      "an arbiter nobody vouches for",
      review({ arbiterTrusted: false }),
      1_500n,
      /neither allowed by the deployment nor trusted/,
    ],
  ];
  it.each(refusals)("refuses %s", async (_name, r, now, why, maxBond) => {
    const a = await actOnReview(ctx, MARKET, r, now, { dispute: true, ...(maxBond !== undefined ? { maxBond } : {}) });
    expect(a.kind).toBe("refused");
    expect(a.kind === "refused" ? a.why : "").toMatch(why);
    expect(reviewLine(r, a)).toMatch(/: should be disputed claiming YES \(differs, against-seats\), not disputing: /);
  });
});
