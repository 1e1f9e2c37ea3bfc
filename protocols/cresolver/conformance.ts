/**
 * Conformance checker for CRE A2A workers (README.md). `url` is the worker's
 * base URL as registered; requests go to `{url}/a2a/resolve` and `{url}/a2a/challenge`.
 *
 * Requests, each once (no retries):
 *   resolve     the spec's sample question (market_id, question, deadline, context)   30 s
 *   challenge   the spec's three sample challenges, with market_id (our extension)   15 s
 *   malformed   a resolve request without `question`: should be refused with 400 (warning only: the spec
 *               defines no error replies)
 *   agent card  GET {url}/.well-known/agent.json: the A2A agent card the Chainlink CRE workflow probes before
 *               asking a worker (it drops workers without one). A warning, not a violation: the worker protocol
 *               itself does not require it.
 * The protocol has no authentication; a bearer token given to the check (optional platform auth) is sent.
 *
 * Rule ids: cresolver.endpoint.url, cresolver.http.{status,transport,json}, cresolver.timing.deadline,
 * cresolver.response.{determination,confidence,evidence,sources,responses,responses-count} (violations);
 * cresolver.quality.{source-urls,confidence-extreme,malformed-accepted,malformed-status},
 * cresolver.agent-card (warnings).
 */
import { isHttpError } from "../../workflow/http/errors.js";
import {
  challengeReplySchema,
  CRESOLVER_LIMITS,
  CRESOLVER_PROTOCOL,
  CRESOLVER_TIMEOUTS,
  resolveReplySchema,
  type ChallengeRequestWire,
  type ResolveRequestWire,
} from "./wire.js";
import { conformanceReport } from "../shared/conformance-report.js";
import type { ConformanceChecker, ConformanceCheckOptions, ConformanceFinding } from "../shared/types.js";

export { CRESOLVER_TIMEOUTS } from "./wire.js";

const SAMPLE_MARKET = 42;
export const SAMPLE_RESOLVE: ResolveRequestWire = {
  market_id: SAMPLE_MARKET,
  question: "Will bitcoin reach 200k by end of 2026?",
  deadline: 1_798_761_599,
  context: "Conformance check sample market.",
};
export const SAMPLE_CHALLENGES = [
  "Other workers reached the opposite conclusion. What specific evidence makes you confident in your determination?",
  "What would need to change for you to reverse your determination?",
  "Identify the weakest point in your analysis and defend it.",
];

function typeName(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}

export const checkCresolver: ConformanceChecker = async (options) => {
  const findings: ConformanceFinding[] = [];
  const timings: Record<string, number> = {};
  const violation = (rule: string, message: string) =>
    findings.push({ rule: `cresolver.${rule}`, severity: "violation", message: message.slice(0, 400) });
  const warning = (rule: string, message: string) =>
    findings.push({ rule: `cresolver.${rule}`, severity: "warning", message: message.slice(0, 400) });

  let base: string;
  try {
    base = new URL(options.url).toString().replace(/\/+$/, "");
  } catch {
    violation("endpoint.url", "the worker URL is not an absolute URL");
    return conformanceReport(CRESOLVER_PROTOCOL, options.url, findings, timings);
  }

  const token = options.credentials?.bearerToken;
  const headers = token !== undefined ? { authorization: `Bearer ${token}` } : undefined;
  const post = async (name: string, path: string, body: unknown, limitMs: number): Promise<unknown> => {
    const timeoutMs = options.timeoutMs ?? limitMs;
    const t0 = performance.now();
    try {
      const res = await options.http.postJson(`${base}${path}`, body, { timeoutMs, ...(headers ? { headers } : {}) });
      const ms = Math.round(performance.now() - t0);
      if (ms > limitMs)
        violation("timing.deadline", `${name}: the reply took ${ms} ms, longer than the spec's ${limitMs / 1000} s`);
      return res.body;
    } catch (error) {
      if (!isHttpError(error)) violation("http.transport", `${name}: the request failed`);
      else if (error.kind === "timeout")
        violation("timing.deadline", `${name}: no complete reply within ${timeoutMs} ms`);
      else if (error.kind === "invalid-response") violation("http.json", `${name}: ${error.message}`);
      else if (error.status !== undefined) violation("http.status", `${name}: ${error.message}`);
      else violation("http.transport", `${name}: ${error.message}`);
      return undefined;
    } finally {
      timings[name] = Math.round(performance.now() - t0);
    }
  };

  // ---- resolve
  const resolved = await post("resolve", "/a2a/resolve", SAMPLE_RESOLVE, CRESOLVER_TIMEOUTS.resolveMs);
  if (resolved !== undefined) {
    if (typeName(resolved) !== "object")
      violation("http.json", `resolve: the reply is a ${typeName(resolved)}, not an object`);
    else {
      // Field by field with the wire schema's own rules, so each violation names its field.
      const r = resolved as Record<string, unknown>;
      const field = resolveReplySchema.shape;
      if (!field.determination.safeParse(r.determination).success)
        violation(
          "response.determination",
          `resolve: determination must be a boolean (got ${typeName(r.determination)})`,
        );
      if (!field.confidence.safeParse(r.confidence).success)
        violation("response.confidence", "resolve: confidence must be a number in [0,1]");
      else if (r.confidence === 0 || r.confidence === 1)
        warning("quality.confidence-extreme", `resolve: confidence ${r.confidence} is extreme`);
      if (typeof r.evidence !== "string" || r.evidence.trim() === "")
        violation("response.evidence", "resolve: evidence must be a non-blank string");
      else if (!field.evidence.safeParse(r.evidence).success)
        violation(
          "response.evidence",
          `resolve: evidence is longer than ${CRESOLVER_LIMITS.maxEvidenceLength} characters`,
        );
      const sources = r.sources;
      if (!Array.isArray(sources) || sources.length === 0 || sources.length > CRESOLVER_LIMITS.maxSources) {
        violation("response.sources", `resolve: sources must be an array of 1..${CRESOLVER_LIMITS.maxSources} strings`);
      } else if (!field.sources.safeParse(sources).success) {
        violation(
          "response.sources",
          `resolve: every source must be a non-blank string of at most ${CRESOLVER_LIMITS.maxSourceLength} characters`,
        );
      } else if (!sources.some((s) => isHttpUrl(s as string))) {
        warning("quality.source-urls", "resolve: no source is an http(s) URL");
      }
    }
  }

  // ---- challenge
  const challengeBody: Omit<ChallengeRequestWire, "question"> = {
    challenges: SAMPLE_CHALLENGES,
    market_id: SAMPLE_MARKET,
  };
  const challenged = await post("challenge", "/a2a/challenge", challengeBody, CRESOLVER_TIMEOUTS.challengeMs);
  if (challenged !== undefined) {
    const responses = typeName(challenged) === "object" ? (challenged as Record<string, unknown>).responses : undefined;
    if (!Array.isArray(responses) || responses.some((s) => typeof s !== "string"))
      violation("response.responses", "challenge: responses must be an array of strings");
    else if (responses.length !== SAMPLE_CHALLENGES.length)
      violation(
        "response.responses-count",
        `challenge: ${responses.length} responses to ${SAMPLE_CHALLENGES.length} challenges (one per challenge required)`,
      );
    else if (!challengeReplySchema.safeParse(challenged).success)
      violation(
        "response.responses",
        `challenge: a response is longer than ${CRESOLVER_LIMITS.maxReplyLength} characters`,
      );
    else if (responses.some((s) => (s as string).trim() === ""))
      violation("response.responses", "challenge: a response is blank");
  }

  // ---- malformed request
  {
    const t0 = performance.now();
    try {
      await options.http.postJson(
        `${base}/a2a/resolve`,
        { market_id: SAMPLE_MARKET },
        { timeoutMs: options.timeoutMs ?? CRESOLVER_TIMEOUTS.resolveMs, ...(headers ? { headers } : {}) },
      );
      warning(
        "quality.malformed-accepted",
        "malformed: a resolve request without `question` was answered with 200; 400 expected",
      );
    } catch (error) {
      if (isHttpError(error) && error.status !== undefined && error.status !== 400)
        warning("quality.malformed-status", `malformed: refused with ${error.status}; 400 expected`);
      else if (!(isHttpError(error) && error.status === 400))
        violation("http.transport", `malformed: ${isHttpError(error) ? error.message : "request failed"}`);
    } finally {
      timings.malformed = Math.round(performance.now() - t0);
    }
  }

  // ---- agent card
  {
    const t0 = performance.now();
    const problem = await agentCardProblem(options.http, base, options.timeoutMs ?? CRESOLVER_TIMEOUTS.challengeMs);
    timings.card = Math.round(performance.now() - t0);
    if (problem !== undefined)
      warning(
        "agent-card",
        `${problem}; the Chainlink CRE workflow drops workers without an A2A agent card (this resolver does not)`,
      );
  }

  return conformanceReport(CRESOLVER_PROTOCOL, options.url, findings, timings);
};

/** Why `{base}/.well-known/agent.json` is not a usable A2A agent card, or undefined when it is. */
async function agentCardProblem(
  http: ConformanceCheckOptions["http"],
  base: string,
  timeoutMs: number,
): Promise<string | undefined> {
  let text: string;
  try {
    text = await http.getText(`${base}/.well-known/agent.json`, { maxBytes: 64 * 1024, timeoutMs });
  } catch (error) {
    return `no agent card at /.well-known/agent.json (${isHttpError(error) ? error.message : "request failed"})`;
  }
  let card: unknown;
  try {
    card = JSON.parse(text);
  } catch {
    return "the agent card at /.well-known/agent.json is not JSON";
  }
  if (typeName(card) !== "object") return `the agent card is a ${typeName(card)}, not an object`;
  const c = card as Record<string, unknown>;
  const missing = ["name", "description", "url", "version"].filter(
    (k) => typeof c[k] !== "string" || (c[k] as string).trim() === "",
  );
  if (typeName(c.capabilities) !== "object") missing.push("capabilities");
  if (!Array.isArray(c.skills)) missing.push("skills");
  return missing.length > 0 ? `the agent card lacks ${missing.join(", ")}` : undefined;
}
