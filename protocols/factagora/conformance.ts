/**
 * Conformance checker for Factagora BYOA agents (protocols/factagora/README.md).
 *
 * `url` is the webhook URL as registered (POSTed to as is). Requests, each once (no retries), with the
 * protocol's 30 s deadline unless `timeoutMs` overrides it:
 *   round1          the spec's Quick Start sample (AGI question, one existing argument), good token
 *   round1-minimal  the spec's curl test ("test-123"), good token
 *   round2          a round-2 request exactly as the resolver's adapter builds it (peers as existingArguments,
 *                   three challenges folded into the description), same predictionId as round1
 *   bad-auth        the round1 sample with a wrong bearer token: must be refused (401/403)
 *   no-auth         the round1 sample without an Authorization header: must be refused (401/403)
 * Every reply is checked against every rule of the spec's "Response Validation" (violations, rule ids
 * `factagora.response.*`) and its soft quality checks (warnings, `factagora.quality.*`,
 * `factagora.optional.*`). Transport problems are violations (`factagora.http.*`, `factagora.timing.deadline`,
 * `factagora.auth.*`). Our round-2 convention (labelled challenge replies) is checked as a warning only.
 */
import { createHash } from "node:crypto";
import type { ChallengeRequest } from "../../workflow/core/types.js";
import { isHttpError } from "../../workflow/http/errors.js";
import {
  buildRound2Request,
  challengeReplies,
  FACTAGORA_LIMITS,
  FACTAGORA_PROTOCOL,
  validateFactagoraResponse,
  type FactagoraRequest,
  type FactagoraResponse,
} from "./adapter.js";
import { conformanceReport } from "../shared/conformance-report.js";
import type { ConformanceChecker, ConformanceFinding } from "../shared/types.js";

export const SAMPLE_PREDICTION_ID = "5b0c5f4e-1d2a-5c3b-9e4f-6a7b8c9d0e1f";

/** The spec's Quick Start request (its "uuid-here" replaced by a UUID). */
export const SAMPLE_ROUND1: FactagoraRequest = {
  predictionId: SAMPLE_PREDICTION_ID,
  title: "Will AGI be achieved by end of 2026?",
  description:
    "Artificial General Intelligence (AGI) - an AI system that can perform any intellectual task that a human can...",
  category: "tech",
  deadline: "2026-12-31T23:59:59Z",
  roundNumber: 1,
  existingArguments: [
    {
      agentName: "Skeptic Bot",
      position: "NO",
      confidence: 0.85,
      reasoning: "Historical failure rate of AGI predictions...",
    },
  ],
};

/** The spec's "Local Testing" curl request. */
export const SAMPLE_MINIMAL: FactagoraRequest = {
  predictionId: "test-123",
  title: "Test prediction",
  description: "This is a test",
  category: "tech",
  deadline: "2026-12-31T23:59:59Z",
  roundNumber: 1,
};

/** A round-2 challenge as the pipeline would send it for the round-1 sample. */
export function sampleRound2(own: { determination: boolean; confidence: number }): FactagoraRequest {
  const challenge: ChallengeRequest = {
    ask: {
      marketId: 0n,
      question: SAMPLE_ROUND1.title,
      deadline: Date.parse(SAMPLE_ROUND1.deadline) / 1000,
      context: SAMPLE_ROUND1.description,
    },
    own: { determination: own.determination, confidence: own.confidence, evidence: "", sources: [] },
    challenges: [
      `Some other workers reached the opposite conclusion (${own.determination ? "NO" : "YES"}). What specific evidence makes you confident in ${own.determination ? "YES" : "NO"}?`,
      `Your confidence is ${Math.round(own.confidence * 100)}%. What would need to change for you to reverse your determination?`,
      "Identify the weakest point in your own analysis.",
    ],
    peers: [
      {
        determination: false,
        confidence: 0.85,
        evidence: "Historical failure rate of AGI predictions is high; compute and alignment remain open problems.",
        sources: ["https://arxiv.org/abs/2001.08361", "Metaculus community forecast"],
      },
      {
        determination: true,
        confidence: 0.6,
        evidence: "Capability gains in 2025 were faster than forecast.",
        sources: ["https://example.org/ai-progress-2025"],
      },
    ],
  };
  return { ...buildRound2Request(challenge, SAMPLE_PREDICTION_ID, "tech") };
}

/** A bearer token that is certainly not the right one, derived from it (never sent anywhere else). */
function wrongToken(token: string): string {
  return `invalid-${createHash("sha256").update(`wrong\u0000${token}`).digest("hex").slice(0, 24)}`;
}

type Sent = { ok: true; body: unknown } | { ok: false; error: unknown };

export const checkFactagora: ConformanceChecker = async (options) => {
  const findings: ConformanceFinding[] = [];
  const timings: Record<string, number> = {};
  const url = options.url;
  const limit = FACTAGORA_LIMITS.timeoutMs;
  const timeoutMs = options.timeoutMs ?? limit;
  const violation = (rule: string, message: string) => findings.push({ rule, severity: "violation", message });
  const warning = (rule: string, message: string) => findings.push({ rule, severity: "warning", message });

  try {
    new URL(url);
  } catch {
    violation("factagora.endpoint.url", "the webhook URL is not an absolute URL");
    return conformanceReport(FACTAGORA_PROTOCOL, url, findings, timings);
  }
  const token = options.credentials?.bearerToken;
  if (token === undefined || token === "") {
    violation(
      "factagora.auth.token",
      "no bearer token given: the spec authenticates every request with one (pass the agent's token)",
    );
    return conformanceReport(FACTAGORA_PROTOCOL, url, findings, timings);
  }

  async function send(name: string, body: FactagoraRequest, bearer: string | undefined): Promise<Sent> {
    const start = performance.now();
    try {
      const res = await options.http.postJson(url, body, {
        timeoutMs,
        ...(bearer !== undefined ? { headers: { authorization: `Bearer ${bearer}` } } : {}),
      });
      return { ok: true, body: res.body };
    } catch (error) {
      return { ok: false, error };
    } finally {
      timings[name] = Math.round(performance.now() - start);
    }
  }

  /** A request with the right token: transport errors and every rule of the reply. */
  function checkReply(name: string, sent: Sent): FactagoraResponse | undefined {
    if ((timings[name] ?? 0) > limit)
      violation("factagora.timing.deadline", `${name}: the reply took longer than ${limit / 1000} s`);
    if (!sent.ok) {
      const e = sent.error;
      if (!isHttpError(e)) violation("factagora.http.transport", `${name}: the request failed`);
      else if (e.kind === "timeout")
        violation("factagora.timing.deadline", `${name}: no complete reply within ${timeoutMs} ms`);
      else if (e.kind === "auth")
        violation(
          "factagora.auth.valid-token-refused",
          `${name}: the agent refused the correct bearer token (${e.status ?? "auth"})`,
        );
      else if (e.kind === "http-status") violation("factagora.http.status", `${name}: ${e.message}`);
      else if (e.kind === "invalid-response") violation("factagora.response.json", `${name}: ${e.message}`);
      else violation(`factagora.http.${e.kind}`, `${name}: ${e.message}`);
      return undefined;
    }
    const checked = validateFactagoraResponse(sent.body);
    for (const v of checked.violations) violation(v.rule, `${name}: ${v.message}`);
    for (const w of checked.warnings) warning(w.rule, `${name}: ${w.message}`);
    return checked.value;
  }

  async function checkRefused(name: string, bearer: string | undefined, rule: string): Promise<void> {
    const sent = await send(name, SAMPLE_ROUND1, bearer);
    if (sent.ok)
      return void violation(
        rule,
        `${name}: the agent answered a request with ${bearer === undefined ? "no" : "a wrong"} bearer token instead of refusing it`,
      );
    const e = sent.error;
    if (isHttpError(e) && e.kind === "auth") {
      if (e.status !== 401 && e.status !== 403)
        warning("factagora.auth.status", `${name}: refused with ${e.status ?? "?"}; 401 expected`);
      return;
    }
    if (isHttpError(e) && e.status !== undefined)
      return void warning("factagora.auth.status", `${name}: refused with ${e.status}; 401 expected`);
    violation(rule, `${name}: no refusal (401) received: ${isHttpError(e) ? e.message : "request failed"}`);
  }

  const round1 = checkReply("round1", await send("round1", SAMPLE_ROUND1, token));
  checkReply("round1-minimal", await send("round1-minimal", SAMPLE_MINIMAL, token));

  const own =
    round1 !== undefined && round1.position !== "NEUTRAL"
      ? { determination: round1.position === "YES", confidence: round1.confidence }
      : { determination: true, confidence: 0.5 };
  const r2request = sampleRound2(own);
  const round2 = checkReply("round2", await send("round2", r2request, token));
  if (round2 !== undefined) {
    const count = r2request.description.split("\n").filter((l) => /^Challenge \d+: /.test(l)).length;
    const labelled = challengeReplies(round2, count).filter(
      (r) => r !== "" && !r.startsWith("Round 2 position: "),
    ).length;
    if (labelled < count) {
      warning(
        "factagora.round2.challenge-replies",
        `round2: ${labelled} of ${count} challenges answered with a labelled reply (agent_review action "Challenge N" or observation "Challenge N: …"); the rest count as unanswered`,
      );
    }
    if (!round2.reactCycle.actions.some((a) => a.type === "agent_review")) {
      warning(
        "factagora.quality.round2-arguments",
        "round2: no agent_review action: the existing arguments seem ignored (the spec's DON'T for Round 2+)",
      );
    }
  }

  await checkRefused("bad-auth", wrongToken(token), "factagora.auth.bad-token-accepted");
  await checkRefused("no-auth", undefined, "factagora.auth.missing-token-accepted");

  return conformanceReport(FACTAGORA_PROTOCOL, url, findings, timings);
};
