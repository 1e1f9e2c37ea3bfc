/**
 * Conformance checker for Agora Arena AAP agents (protocols/agora/README.md). `url` is the agent's
 * AAP endpoint as registered (e.g. `https://agent.example/agora`); the health check is `{url}/health`.
 *
 * Requests: the health check; a task without a token, one signed by an unknown key and (with a signer)
 * one whose token names another match — each must be refused with 401/403; then (with a signer) a
 * round-1 sample task and a round-2 (challenge) sample task. Without a signer the sample tasks cannot be
 * authenticated: a warning says so and only health and auth refusal are checked.
 *
 * Rule ids: agora.health.{reachable,json,status-ok,version,capabilities,avg-latency-ms,max-concurrent},
 * agora.auth.{missing-token-refused,bad-signature-refused,wrong-match-refused,no-signer},
 * agora.response.{status,json,answer-in-options,confidence-range,reasoning,subagents-used,tools-used,
 * tokens,latency-ms,time-limit}, agora.quality.{no-source-urls,version}.
 */
import { generateKeyPair } from "jose";
import type { z } from "zod";
import { createJoseSigner, type AgoraTokenSigner } from "./jwt.js";
import { askDescription, challengeDescription, extractUrls } from "./adapter.js";
import type { AskRequest, ChallengeRequest } from "../../workflow/core/types.js";
import { isHttpError } from "../../workflow/http/errors.js";
import { sanitizeJson } from "../../workflow/http/json.js";
import { conformanceReport } from "../shared/conformance-report.js";
import {
  AGORA_LIMITS,
  AGORA_OPTIONS,
  AGORA_RULES,
  AGORA_VERSION,
  agoraHealthSchema,
  agoraReplySchema,
  type AgoraTaskWire,
} from "./wire.js";
import type {
  ConformanceChecker,
  ConformanceCheckOptions,
  ConformanceFinding,
  ConformanceReport,
} from "../shared/types.js";

export interface AgoraConformanceOptions extends ConformanceCheckOptions {
  /** Signs the sample tasks' tokens with the key the agent trusts (the daemon's). */
  signer?: AgoraTokenSigner;
  /** agent_id put in the sample tokens (the agent's ERC-8004 id). Default "1". */
  agentId?: string;
}

const SAMPLE_MATCH = "9000000001";
const SAMPLE_ASK: AskRequest = {
  marketId: BigInt(SAMPLE_MATCH),
  question: "Will the conformance sample market resolve YES?",
  deadline: 1_900_000_000,
  context: "Conformance check: answer with one of the options.",
};

function clip(text: string, max = 200): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, " ");
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

const fits = (schema: z.ZodType, value: unknown): boolean => schema.safeParse(value).success;

function typeName(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

export async function checkAgora(options: AgoraConformanceOptions): Promise<ConformanceReport> {
  const findings: ConformanceFinding[] = [];
  const timings: Record<string, number> = {};
  const timeoutMs = options.timeoutMs ?? 30_000;
  const agentId = options.agentId ?? "1";
  const violation = (rule: string, message: string) =>
    findings.push({ rule, severity: "violation", message: clip(message, 300) });
  const warning = (rule: string, message: string) =>
    findings.push({ rule, severity: "warning", message: clip(message, 300) });

  let endpoint: URL;
  try {
    endpoint = new URL(options.url);
  } catch {
    violation("agora.health.reachable", "the agent URL is not an absolute URL");
    return conformanceReport("agora", options.url, findings, timings);
  }
  const base = endpoint.toString().replace(/\/+$/, "");

  // ---- health
  {
    const t0 = performance.now();
    try {
      const text = await options.http.getText(`${base}/health`, {
        maxBytes: 64 * 1024,
        timeoutMs: Math.min(timeoutMs, 10_000),
      });
      timings.health = Math.round(performance.now() - t0);
      let doc: unknown;
      try {
        doc = sanitizeJson(JSON.parse(text));
      } catch {
        violation("agora.health.json", "GET /health did not return a JSON document");
      }
      if (doc !== undefined) {
        if (typeName(doc) !== "object")
          violation("agora.health.json", `GET /health returned a ${typeName(doc)}, not an object`);
        else {
          const h = doc as Record<string, unknown>;
          // Field by field with the wire schema's own rules, so each violation names its field.
          const field = agoraHealthSchema.shape;
          if (!fits(field.status, h.status))
            violation(
              "agora.health.status-ok",
              `status must be "ok" (got ${clip(JSON.stringify(h.status) ?? "nothing", 40)})`,
            );
          if (typeof h.version !== "string" || !fits(field.version, h.version))
            violation(
              "agora.health.version",
              `version must be a string of 1..50 characters (got ${typeName(h.version)})`,
            );
          else if (h.version !== AGORA_VERSION)
            warning("agora.quality.version", `version "${clip(h.version, 20)}" is not "${AGORA_VERSION}"`);
          if (!fits(field.capabilities, h.capabilities))
            violation("agora.health.capabilities", "capabilities must be an array of strings");
          if (!fits(field.avg_latency_ms, h.avg_latency_ms))
            violation("agora.health.avg-latency-ms", "avg_latency_ms must be a non-negative number");
          if (!fits(field.max_concurrent, h.max_concurrent)) {
            violation("agora.health.max-concurrent", "max_concurrent must be a non-negative integer");
          }
        }
      }
    } catch (error) {
      timings.health = Math.round(performance.now() - t0);
      violation(
        "agora.health.reachable",
        `GET /health failed: ${isHttpError(error) ? error.message : "request failed"}`,
      );
    }
  }

  const timeLimitSeconds = Math.max(1, Math.floor(timeoutMs / 1000));
  const taskBody = (
    matchId: string,
    round: 1 | 2,
    description: string,
    extension: { challenges?: string[] },
  ): AgoraTaskWire => ({
    version: AGORA_VERSION,
    league: "cresolver",
    match_id: matchId,
    round,
    total_rounds: 2,
    task: { description, input_format: "string", output_format: "string", options: [...AGORA_OPTIONS] },
    time_limit_seconds: timeLimitSeconds,
    max_tokens: 2_000,
    rules: [...AGORA_RULES],
    opponent_count: 2,
    cresolver: {
      market_id: matchId,
      question: SAMPLE_ASK.question,
      context: SAMPLE_ASK.context,
      deadline: SAMPLE_ASK.deadline,
      ...extension,
    },
  });
  const round1 = taskBody(SAMPLE_MATCH, 1, askDescription(SAMPLE_ASK), {});

  /** POSTs and reports whether the agent refused it with 401/403. */
  const expectRefusal = async (
    name: string,
    rule: string,
    headers: Record<string, string>,
    body: unknown,
    what: string,
  ) => {
    const t0 = performance.now();
    try {
      await options.http.postJson(base, body, { timeoutMs, headers });
      violation(rule, `${what} was accepted (200); it must be refused with 401`);
    } catch (error) {
      if (!(isHttpError(error) && (error.status === 401 || error.status === 403))) {
        violation(
          rule,
          `${what} must be refused with 401/403 (got ${isHttpError(error) ? error.message : "an error"})`,
        );
      }
    } finally {
      timings[name] = Math.round(performance.now() - t0);
    }
  };

  // ---- bad auth
  await expectRefusal("no-token", "agora.auth.missing-token-refused", {}, round1, "a task without a bearer token");
  {
    const { privateKey } = await generateKeyPair("ES256");
    const stranger = createJoseSigner(privateKey, "conformance-unknown-key", "ES256");
    const forged = await stranger.sign({ agent_id: agentId, match_id: SAMPLE_MATCH });
    await expectRefusal(
      "bad-signature",
      "agora.auth.bad-signature-refused",
      { authorization: `Bearer ${forged}` },
      round1,
      "a task whose token is signed by an unknown key",
    );
  }

  if (options.signer === undefined) {
    warning("agora.auth.no-signer", "no signer configured: the sample tasks (and the wrong-match check) were not sent");
    return conformanceReport("agora", options.url, findings, timings);
  }
  const otherMatch = await options.signer.sign({ agent_id: agentId, match_id: `${SAMPLE_MATCH}7` });
  await expectRefusal(
    "wrong-match",
    "agora.auth.wrong-match-refused",
    { authorization: `Bearer ${otherMatch}` },
    round1,
    "a task whose token names another match",
  );

  // ---- sample tasks
  const sample = async (name: string, body: Record<string, unknown>) => {
    const token = await (options.signer as AgoraTokenSigner).sign({
      agent_id: agentId,
      match_id: String(body.match_id),
    });
    const t0 = performance.now();
    let reply: unknown;
    try {
      const res = await options.http.postJson(base, body, {
        timeoutMs: timeoutMs + 1_000,
        headers: { authorization: `Bearer ${token}` },
      });
      reply = res.body;
    } catch (error) {
      timings[name] = Math.round(performance.now() - t0);
      const rule =
        isHttpError(error) && error.kind === "invalid-response" ? "agora.response.json" : "agora.response.status";
      violation(rule, `${name}: ${isHttpError(error) ? error.message : "request failed"}`);
      return;
    }
    const elapsed = Math.round(performance.now() - t0);
    timings[name] = elapsed;
    if (elapsed > timeLimitSeconds * 1_000)
      violation(
        "agora.response.time-limit",
        `${name}: answered after ${elapsed} ms, over time_limit_seconds ${timeLimitSeconds}`,
      );
    if (typeName(reply) !== "object") {
      violation("agora.response.json", `${name}: the reply is a ${typeName(reply)}, not an object`);
      return;
    }
    // The reply schema the adapter parses with, field by field; the bookkeeping fields it treats as optional are
    // required here (the spec lists them).
    const r = reply as Record<string, unknown>;
    const field = agoraReplySchema.shape;
    const present = (schema: z.ZodType, v: unknown): boolean => v !== undefined && fits(schema, v);
    if (typeof r.answer !== "string" || !(AGORA_OPTIONS as readonly string[]).includes(r.answer)) {
      violation(
        "agora.response.answer-in-options",
        `${name}: answer must be one of ${AGORA_OPTIONS.join(", ")} (got ${clip(JSON.stringify(r.answer) ?? "nothing", 40)})`,
      );
    }
    if (!fits(field.confidence, r.confidence))
      violation("agora.response.confidence-range", `${name}: confidence must be a number in [0,1]`);
    if (typeof r.reasoning !== "string" || !fits(field.reasoning, r.reasoning))
      violation(
        "agora.response.reasoning",
        `${name}: reasoning must be a non-empty string of at most ${AGORA_LIMITS.maxReasoningLength} characters`,
      );
    else if (extractUrls(r.reasoning).length === 0 && name === "task")
      warning(
        "agora.quality.no-source-urls",
        `${name}: the reasoning cites no http(s) URL (the resolver's sources come from it)`,
      );
    if (!present(field.subagents_used, r.subagents_used))
      violation("agora.response.subagents-used", `${name}: subagents_used must be an array of strings`);
    if (!present(field.tools_used, r.tools_used))
      violation("agora.response.tools-used", `${name}: tools_used must be an array`);
    if (!present(field.tokens, r.tokens))
      violation("agora.response.tokens", `${name}: tokens must be a non-negative integer`);
    if (!present(field.latency_ms, r.latency_ms))
      violation("agora.response.latency-ms", `${name}: latency_ms must be a non-negative number`);
  };

  await sample("task", round1);
  const challenge: ChallengeRequest = {
    ask: SAMPLE_ASK,
    challenges: ["Which independent source confirms your determination?", "What would make you change your answer?"],
    own: { determination: true, confidence: 0.7, evidence: "Sample round-1 evidence.", sources: [] },
    peers: [
      {
        determination: false,
        confidence: 0.6,
        evidence: "A sample peer finding that disagrees.",
        sources: ["https://example.org/peer"],
      },
    ],
  };
  await sample(
    "challenge",
    taskBody(SAMPLE_MATCH, 2, challengeDescription(challenge), { challenges: challenge.challenges }),
  );

  return conformanceReport("agora", options.url, findings, timings);
}

/** As a generic ConformanceChecker (the signer and agent id are optional extras of its options). */
export const agoraConformanceChecker: ConformanceChecker = checkAgora;
