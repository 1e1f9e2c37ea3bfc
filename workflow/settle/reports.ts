/**
 * The pipeline's verdict and per-seat reports in the shapes IResolutionMarket.proposeResolution takes, and the
 * contract's report rules checked before anything is sent (a refused proposal costs gas and tells nothing).
 */
import { ANSWER_CODE } from "../core/codes.js";
import type { VerdictKind, WorkerReport } from "../core/types.js";

// The codes live in workflow/core/codes.ts and the tuple codec in workflow/chain/report-tuple.ts; re-exported here
// for the settle module's callers.
export { ANSWER_CODE, ANSWER_NAMES, VERDICT_CODE, VERDICT_NAMES } from "../core/codes.js";
export { decodeReport, encodeReport, type WorkerReportTuple } from "../chain/report-tuple.js";

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
