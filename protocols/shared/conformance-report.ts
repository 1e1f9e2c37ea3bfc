/** The report every conformance checker returns (see each protocol folder's conformance.ts). */
import { describeUrlText } from "../../workflow/http/errors.js";
import type { ConformanceFinding, ConformanceReport } from "./types.js";

/** Builds a report from findings; `passed` is derived, never set by hand. */
export function conformanceReport(
  protocol: string,
  url: string,
  findings: ConformanceFinding[],
  timings: Record<string, number>,
): ConformanceReport {
  // The URL as shown (describeUrlText): a token in its userinfo or query never reaches a printed report.
  const shown = /[@?#]/.test(url) ? describeUrlText(url) : url;
  return { protocol, url: shown, findings, timings, passed: findings.every((f) => f.severity !== "violation") };
}
