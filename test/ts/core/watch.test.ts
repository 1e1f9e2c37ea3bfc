/** The watcher's pure rule (workflow/core/watch.ts): which proposals an independent party disputes. */
import { describe, expect, it } from "vitest";
import type { AnswerKind, WorkerReport } from "../../../workflow/core/types.js";
import { watchProposal } from "../../../workflow/core/watch.js";

const rep = (answer: AnswerKind): WorkerReport => ({
  answer,
  confidenceBps: 9_000,
  resQuality: 50,
  srcQuality: 50,
  analysisDepth: 50,
});
const seats = (yes: number, no: number): WorkerReport[] => [
  ...Array.from({ length: yes }, () => rep("yes")),
  ...Array.from({ length: no }, () => rep("no")),
];

describe("watchProposal", () => {
  it("disputes an Invalid proposal left invalid because a coalition alone would decide it (fragile)", () => {
    const w = watchProposal("invalid", seats(5, 2), { verdict: "invalid", reason: "fragile" });
    expect(w).toEqual({ dispute: true, reasons: ["fragile"], against: 0, answered: 7 });
  });

  it("leaves other Invalid proposals alone unless the recomputed vote names a side", () => {
    for (const reason of ["below-threshold", "tie", "no-quorum"] as const)
      expect(watchProposal("invalid", seats(4, 3), { verdict: "invalid", reason }).dispute).toBe(false);
    expect(watchProposal("invalid", seats(4, 3), { verdict: "yes" })).toMatchObject({
      dispute: true,
      reasons: ["differs"],
    });
  });

  it("disputes a yes/no proposal that is fragile, differs or goes against half of the seats", () => {
    expect(watchProposal("no", seats(2, 5), { verdict: "invalid", reason: "fragile" }).reasons).toEqual(["fragile"]);
    expect(watchProposal("no", seats(2, 5), { verdict: "yes" }).reasons).toEqual(["differs"]);
    expect(watchProposal("no", seats(5, 2), { verdict: "no" }).reasons).toEqual(["against-seats"]);
    expect(watchProposal("no", seats(3, 4), { verdict: "no" }).dispute).toBe(false);
    expect(() => watchProposal("no", seats(3, 4), { verdict: "no" }, { againstShare: 0 })).toThrow(RangeError);
  });
});
