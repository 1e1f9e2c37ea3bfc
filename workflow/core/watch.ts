/**
 * The watcher's decision (issue 20, item 4): given a posted proposal and the vote recomputed from public data (the
 * proposal's reports and the track record, `decideVerdict`), should an independent party dispute it? Pure.
 *
 * Dispute when
 *   - "fragile": the recomputed vote, under the watcher's own (stricter) coalition rule, finds that a minority
 *     coalition alone decides it (coalition.ts) — whatever was proposed: a yes/no proposal that rests on the
 *     coalition, and an Invalid proposal left invalid because of it (the proposer's "propose Invalid and flag it
 *     for dispute": the arbiter's ruling settles the market and enters the record as known truth, which is what
 *     repairs the estimates after a farm-then-strike);
 *   - "differs": the recomputed verdict is not the proposed one (a resolver that lied, or used another record);
 *   - "against-seats": a yes/no proposal goes against at least `againstShare` of the seats that answered yes/no.
 * Any other Invalid proposal (no quorum, tie, below the threshold) is disputed only when the recomputed verdict
 * is yes/no ("differs").
 */
import type { VerdictConfigInput, VerdictDecision } from "./vote.js";
import type { VerdictKind, WorkerReport } from "./types.js";

export interface WatchConfig {
  /** Share (0..1] of the yes/no seats against a yes/no proposal that triggers a dispute. Default 0.5. */
  againstShare: number;
}

export const DEFAULT_WATCH_CONFIG: Readonly<WatchConfig> = Object.freeze({ againstShare: 0.5 });

/**
 * The watcher's own, stricter coalition rule for its recomputation: the 2 heaviest agents must not decide against a
 * rest of the panel that reaches the threshold for the other side (the proposer's default asks the rest for 0.9).
 */
export const WATCHER_VOTE: Readonly<VerdictConfigInput> = Object.freeze({ coalitionK: 2, coalitionRestBps: 6_000 });

export type WatchReason = "fragile" | "differs" | "against-seats";

export interface WatchVerdict {
  dispute: boolean;
  reasons: WatchReason[];
  /** Yes/no seats against the proposal, of all yes/no seats. */
  against: number;
  answered: number;
}

export function watchProposal(
  proposed: VerdictKind,
  reports: readonly WorkerReport[],
  recomputed: Pick<VerdictDecision, "verdict" | "reason">,
  config: Partial<WatchConfig> = {},
): WatchVerdict {
  const againstShare = config.againstShare ?? DEFAULT_WATCH_CONFIG.againstShare;
  if (!(againstShare > 0 && againstShare <= 1))
    throw new RangeError(`againstShare must be in (0, 1], got ${againstShare}`);
  const answered = reports.filter((r) => r.answer === "yes" || r.answer === "no").length;
  const against =
    proposed === "invalid" ? 0 : reports.filter((r) => r.answer === (proposed === "yes" ? "no" : "yes")).length;
  const reasons: WatchReason[] = [];
  if (recomputed.reason === "fragile") reasons.push("fragile");
  if (recomputed.verdict !== proposed && !(recomputed.verdict === "invalid" && recomputed.reason === "fragile"))
    reasons.push("differs");
  if (proposed !== "invalid" && answered > 0 && against >= againstShare * answered) reasons.push("against-seats");
  return { dispute: reasons.length > 0, reasons, against, answered };
}
