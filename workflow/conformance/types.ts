/**
 * Agent conformance checking (`cresolver agent check <url> --protocol <p>`): one checker per protocol
 * in this folder, each sending the protocol's sample requests (and a bad-auth request where the
 * protocol has auth) and reporting every spec violation, quality warning and response time.
 */
import type { AgentCredentials } from "../adapters/credentials.js";
import { describeUrlText } from "../http/errors.js";
import type { SafeHttpClient } from "../http/client.js";

export interface ConformanceFinding {
  /** Stable rule id naming the spec requirement, e.g. "factagora.response.position-enum". */
  rule: string;
  severity: "violation" | "warning";
  /** What was wrong, sanitized and capped (no secrets, no huge echoes). */
  message: string;
}

export interface ConformanceReport {
  protocol: string;
  url: string;
  findings: ConformanceFinding[];
  /** Milliseconds per named request. */
  timings: Record<string, number>;
  /** True when there is no violation (warnings allowed). */
  passed: boolean;
}

export interface ConformanceCheckOptions {
  /** The agent's endpoint as registered (base URL or full webhook URL, per protocol). */
  url: string;
  http: SafeHttpClient;
  credentials?: AgentCredentials;
  /** Per-request deadline override (default: the protocol's own limit). */
  timeoutMs?: number;
}

export type ConformanceChecker = (options: ConformanceCheckOptions) => Promise<ConformanceReport>;

/** Builds a report from findings; `passed` is derived, never set by hand. */
export function conformanceReport(protocol: string, url: string, findings: ConformanceFinding[], timings: Record<string, number>): ConformanceReport {
  // The URL as shown (describeUrlText): a token in its userinfo or query never reaches a printed report.
  const shown = /[@?#]/.test(url) ? describeUrlText(url) : url;
  return { protocol, url: shown, findings, timings, passed: findings.every((f) => f.severity !== "violation") };
}
