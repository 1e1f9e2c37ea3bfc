/**
 * The pipeline's verdict and per-seat reports in the shapes IResolutionMarket.proposeResolution takes, and the
 * contract's report rules checked before anything is sent (a refused proposal costs gas and tells nothing).
 */
import { zeroHash, type Hex } from "viem";
import type { AnswerKind, VerdictKind, WorkerReport } from "../core/types.js";

/** IResolutionMarket.Verdict. */
export const VERDICT_CODE: Record<VerdictKind, number> = { no: 0, yes: 1, invalid: 2 };
export const VERDICT_NAMES = ["no", "yes", "invalid"] as const satisfies readonly VerdictKind[];

/** IResolutionMarket.Answer. */
export const ANSWER_CODE: Record<AnswerKind, number> = { failed: 0, abstained: 1, no: 2, yes: 3 };
export const ANSWER_NAMES = ["failed", "abstained", "no", "yes"] as const satisfies readonly AnswerKind[];

/** The ABI tuple of one IResolutionMarket.WorkerReport. */
export interface WorkerReportTuple {
  answer: number;
  confidenceBps: number;
  resQuality: number;
  srcQuality: number;
  analysisDepth: number;
  /** keccak256 of the agent's canonical reply (zero when the protocol carries none: docs/RECORDS.md §2). */
  replyHash: Hex;
  /** The agent's EIP-712 signature; empty: the seat is attested by the proposer only. */
  signature: Hex;
}

export function encodeReport(r: WorkerReport): WorkerReportTuple {
  return {
    answer: ANSWER_CODE[r.answer],
    confidenceBps: r.confidenceBps,
    resQuality: r.resQuality,
    srcQuality: r.srcQuality,
    analysisDepth: r.analysisDepth,
    replyHash: r.replyHash ?? zeroHash,
    signature: r.signature ?? "0x",
  };
}

export function decodeReport(t: {
  answer: number;
  confidenceBps: number;
  resQuality: number;
  srcQuality: number;
  analysisDepth: number;
}): WorkerReport {
  return {
    answer: ANSWER_NAMES[t.answer] ?? "failed",
    confidenceBps: Number(t.confidenceBps),
    resQuality: Number(t.resQuality),
    srcQuality: Number(t.srcQuality),
    analysisDepth: Number(t.analysisDepth),
  };
}

const isInt = (v: number, lo: number, hi: number) => Number.isInteger(v) && v >= lo && v <= hi;

/**
 * Why the contract would refuse these reports (`ReportsLengthMismatch`, `InvalidReport(i)`, `NoAnswerForVerdict`), or
 * undefined when it would accept them. Mirrors the contract's checks.
 */
export function reportProblem(
  verdict: VerdictKind,
  reports: readonly WorkerReport[],
  workerCount: number,
): string | undefined {
  if (reports.length !== workerCount)
    return `${reports.length} reports for ${workerCount} seats (one per seat, in seat order)`;
  for (const [i, r] of reports.entries()) {
    if (!(r.answer in ANSWER_CODE)) return `report ${i}: unknown answer "${String(r.answer)}"`;
    const answered = r.answer === "yes" || r.answer === "no";
    if (answered) {
      if (!isInt(r.confidenceBps, 5000, 10000))
        return `report ${i}: confidenceBps ${r.confidenceBps} is outside 5000..10000`;
      for (const s of [r.resQuality, r.srcQuality, r.analysisDepth])
        if (!isInt(s, 0, 100)) return `report ${i}: score ${s} is outside 0..100`;
    } else if (r.confidenceBps !== 0 || r.resQuality !== 0 || r.srcQuality !== 0 || r.analysisDepth !== 0) {
      return `report ${i}: a ${r.answer} seat carries no confidence or scores`;
    }
  }
  if (verdict !== "invalid" && !reports.some((r) => r.answer === "yes" || r.answer === "no"))
    return `a ${verdict} verdict needs at least one yes/no answer`;
  return undefined;
}
