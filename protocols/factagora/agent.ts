/**
 * Factagora BYOA webhook (protocols/factagora/README.md), as an agent:
 *   POST /webhook  PredictionRequest → AgentResponse {position, confidence, reactCycle, reasoning, limitations}
 *
 * - Auth: `Authorization: Bearer <token>` must match `auth.bearerToken` (constant-time comparison of
 *   SHA-256 digests, so neither content nor length leaks through timing); otherwise 401
 *   `{error: "Unauthorized"}`, checked before the body is parsed. The protocol refuses to start without
 *   a configured token (the spec has the platform send one on every request).
 * - Request rules (violations → 400 `{error, message, code: "INVALID_PREDICTION", issues}`): predictionId
 *   non-blank ≤ 200; title non-blank ≤ 4,000; description string ≤ 20,000; deadline ISO 8601 with a
 *   time zone; roundNumber integer 1..10; category ≤ 100; metadata {resolutionCriteria?, sourceLinks?}.
 *   null = absent for optional fields; unknown fields ignored. existingArguments is read leniently (the
 *   platform sends every argument, human ones with `agentName: null`): any number, bad entries skipped and
 *   counted, human ones labelled, never a 400 for the whole request.
 * - Round 1 answers from the answer engine. Round ≥ 2 defends the round-1 finding (same predictionId;
 *   investigated afresh if none is on record) against the challenges found after the line
 *   ROUND2_MARKER in the description ("Challenge N: …", the resolver's convention), one `agent_review`
 *   action per challenge (query "Challenge N: …", result = the reply), plus one reviewing existingArguments.
 * - Engine failures (LLM endpoint down or invalid) → HTTP 500 `{error, message, code: "LLM_API_ERROR"}`,
 *   as the spec asks (the platform retries a 500).
 * - Every reply is checked against the spec's hard validation rules before it is sent.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyReply } from "fastify";
import type { Finding, Question } from "../../agents/kit/answer-engine.js";
import { EngineUpstreamError } from "../../agents/kit/answer-engine.js";
import { humanList, keyTerms, normalizeQuestion, quoteSnippet, sentences } from "../../agents/kit/text.js";
import { BadRequestError, parseBody } from "../../agents/kit/http.js";
import type { AgentProtocolHandler, ProtocolContext } from "../shared/agent-types.js";
import {
  FACTAGORA_PROTOCOL,
  predictionRequestSchema,
  ROUND2_MARKER,
  validateFactagoraResponse,
  type FactagoraResponse,
  type PredictionRequest,
} from "./wire.js";

export const WEBHOOK_PATH = "/webhook";
export { ROUND2_MARKER } from "./wire.js";
export const MAX_CHALLENGES = 10;
/** Round-2 requests carry the other agents' arguments: allow more than the app-wide default body limit. */
export const WEBHOOK_BODY_LIMIT = 4 * 1024 * 1024;

/**
 * One of the other participants' arguments, read leniently: the platform sends every argument of the prediction
 * (no cap), human ones with `agentName: null`. A bad entry never fails the request: it is skipped and counted.
 */
export interface ReviewedArgument {
  /** The agent's name, or "human" for an argument without one. */
  agentName: string;
  human: boolean;
  position: "YES" | "NO" | "NEUTRAL";
  confidence?: number;
}

/** Arguments read per request; the rest are counted as not reviewed (bounded work for any request size). */
export const MAX_REVIEWED_ARGUMENTS = 500;

/** Reads existingArguments: usable entries, and how many were skipped (malformed) or left unread (over the cap). */
export function readArguments(raw: unknown): { reviewed: ReviewedArgument[]; skipped: number; unread: number } {
  if (!Array.isArray(raw)) return { reviewed: [], skipped: 0, unread: 0 };
  const reviewed: ReviewedArgument[] = [];
  let skipped = 0;
  for (const entry of raw.slice(0, MAX_REVIEWED_ARGUMENTS)) {
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
      skipped++;
      continue;
    }
    const e = entry as Record<string, unknown>;
    const position = typeof e.position === "string" ? e.position.trim().toUpperCase() : undefined;
    if (position !== "YES" && position !== "NO" && position !== "NEUTRAL") {
      skipped++;
      continue;
    }
    const named = typeof e.agentName === "string" && e.agentName.trim() !== "";
    const confidence =
      typeof e.confidence === "number" && e.confidence >= 0 && e.confidence <= 1 ? e.confidence : undefined;
    reviewed.push({
      agentName: named ? clip(oneLine((e.agentName as string).slice(0, 400)), 200) : "human",
      human: !named,
      position,
      ...(confidence !== undefined ? { confidence } : {}),
    });
  }
  return { reviewed, skipped, unread: Math.max(0, raw.length - MAX_REVIEWED_ARGUMENTS) };
}

/** Our reply on the wire; checked against the spec's rules (wire.ts) before it is sent. */
export type AgentResponse = FactagoraResponse;

const digest = (s: string): Buffer => createHash("sha256").update(s, "utf8").digest();

/** Constant-time check of an Authorization header against the expected bearer token. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer ([^\s].*)$/i.exec(header ?? "");
  const presented = m?.[1]?.trim() ?? "";
  // Always compare (even when the header is absent) so the timing does not say which case it was.
  const equal = timingSafeEqual(digest(presented), digest(token));
  return m !== null && equal;
}

/** A bigint key for the agent's memory and engine caches: SHA-256 of the predictionId, 128 bits. */
export function predictionKey(predictionId: string): bigint {
  return BigInt(`0x${digest(`factagora\u0000${predictionId}`).subarray(0, 16).toString("hex")}`);
}

/** Splits a round-2 description into the market context and the numbered challenges. */
export function splitRound2(description: string): { context: string; challenges: string[] } {
  const lines = description.split(/\r?\n/);
  const at = lines.lastIndexOf(ROUND2_MARKER);
  if (at < 0) return { context: description, challenges: [] };
  const challenges: string[] = [];
  for (const line of lines.slice(at + 1)) {
    const text = /^Challenge (\d+): (.+)$/.exec(line.trim())?.[2]?.trim();
    if (text !== undefined && text !== "" && challenges.length < MAX_CHALLENGES) challenges.push(text);
  }
  return { context: lines.slice(0, at).join("\n").trimEnd(), challenges };
}

const clip = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
const oneLine = (s: string): string => s.replace(/\s+/g, " ").trim();
const pct = (c: number): string => `${Math.round(c * 100)}%`;

function hostOf(source: string): string | undefined {
  try {
    const u = new URL(source);
    return u.protocol === "http:" || u.protocol === "https:" ? u.hostname : undefined;
  } catch {
    return undefined;
  }
}

interface Round2 {
  challenges: string[];
  replies: string[];
  existing: ReturnType<typeof readArguments>;
}

function describeArguments(existing: Round2["existing"], answer: string): string {
  const list = existing.reviewed;
  const count = (p: string) => list.filter((a) => a.position === p).length;
  const humans = list.filter((a) => a.human).length;
  const extra = [
    humans > 0 ? `${humans} from humans` : "",
    existing.skipped > 0 ? `${existing.skipped} malformed skipped` : "",
    existing.unread > 0 ? `${existing.unread} beyond the first ${MAX_REVIEWED_ARGUMENTS} not read` : "",
  ].filter((x) => x !== "");
  return `Reviewed ${list.length} argument(s): ${count("YES")} YES, ${count("NO")} NO, ${count("NEUTRAL")} NEUTRAL${extra.length > 0 ? ` (${extra.join("; ")})` : ""}. They add no evidence beyond what I weighed, so my position stays ${answer}.`;
}

/** A finding in the spec's response format (round 2: one agent_review action per challenge). */
export function toAgentResponse(
  q: Question,
  finding: Finding,
  mode: "offline" | "llm",
  round2?: Round2,
): AgentResponse {
  const answer = finding.determination ? "YES" : "NO";
  const terms = finding.keyTerms.length > 0 ? finding.keyTerms : keyTerms(q.question, 6);
  const focus = humanList(terms.slice(0, 3)) || "the question";
  const query = terms.length > 0 ? terms.slice(0, 4).join(" ") : quoteSnippet(q.question, 80);

  const actions: AgentResponse["reactCycle"]["actions"] = [];
  if (round2) {
    for (const [i, c] of round2.challenges.entries()) {
      actions.push({
        type: "agent_review",
        query: `Challenge ${i + 1}: ${quoteSnippet(c, 150)}`,
        result: clip(round2.replies[i] ?? "", 8_000),
      });
    }
    const e = round2.existing;
    if (e.reviewed.length + e.skipped + e.unread > 0) {
      actions.push({
        type: "agent_review",
        query: "Existing arguments of other participants",
        result: clip(describeArguments(e, answer), 8_000),
      });
    }
  }
  const fetched =
    mode === "offline"
      ? "offline mode: listed as a starting point, not fetched"
      : "cited by the model, not fetched by the agent";
  for (const source of finding.sources) {
    if (actions.length >= 10) break;
    const host = hostOf(source);
    actions.push(
      host !== undefined
        ? { type: "web_search", query, result: `Search entry point on ${host} (${fetched})`, source }
        : {
            type: "document_analysis",
            query: clip(oneLine(source), 300),
            result: `Reference cited in the analysis (${fetched})`,
          },
    );
  }
  if (actions.length === 0)
    actions.push({
      type: "calculation",
      query: `assessment of ${focus}`,
      result: `${answer} at ${pct(finding.confidence)}`,
    });

  let observations = finding.observations.map(oneLine).filter((o) => o !== "");
  if (observations.length === 0) observations = sentences(finding.evidence).slice(0, 3);
  if (observations.length === 0) observations = [`Determination ${answer} at ${pct(finding.confidence)} confidence.`];
  observations = observations.slice(0, 20).map((o) => clip(o, 1_000));
  const lead = observations[0] ?? "";

  const evidence: AgentResponse["reactCycle"]["evidence"] = finding.sources.slice(0, 9).map((source) => {
    const host = hostOf(source);
    return host !== undefined
      ? {
          type: "link",
          title: `Reference: ${host}`,
          url: source,
          description: clip(`Where to verify the claims about ${focus}.`, 200),
        }
      : { type: "citation", title: clip(oneLine(source), 200), description: clip(`Reference for ${focus}.`, 200) };
  });
  evidence.push({
    type: "data",
    title: `Assessment: ${answer} at ${pct(finding.confidence)}`,
    description: clip(lead, 200),
  });

  const response: AgentResponse = {
    position: answer,
    confidence: Math.round(finding.confidence * 100) / 100,
    reactCycle: {
      initialThought: clip(
        `Hypothesis: the question "${quoteSnippet(q.question, 300)}" turns on ${focus}. I will weigh the base rate, current indicators and counter-evidence before deciding between YES and NO.`,
        2_000,
      ),
      actions,
      observations,
      synthesisThought: clip(
        `Conclusion: ${answer} with ${pct(finding.confidence)} confidence. ${oneLine(finding.evidence)}`,
        2_000,
      ),
      evidence,
    },
    reasoning: clip(`${answer} at ${pct(finding.confidence)}: ${lead}`, 1_000),
    limitations:
      mode === "offline"
        ? [
            "Offline reference mode: derived deterministically from the question text, not from live data.",
            "The sources are starting points for verification and were not fetched.",
          ]
        : [
            "Produced by a language model without live retrieval; the sources were not fetched by the agent.",
            "Developments after the model's knowledge may change the outcome.",
          ],
  };
  if (validateFactagoraResponse(response).violations.length > 0)
    throw new EngineUpstreamError(
      "answer engine produced an answer that violates the Factagora response rules",
      "invalid-output",
    );
  return response;
}

function specError(
  reply: FastifyReply,
  status: number,
  error: string,
  message: string,
  code: string,
  issues?: unknown,
) {
  return reply
    .code(status)
    .type("application/json; charset=utf-8")
    .send({ error, message, code, ...(issues !== undefined ? { issues } : {}) });
}

export const factagoraProtocol: AgentProtocolHandler = {
  protocol: FACTAGORA_PROTOCOL,
  endpointPath: WEBHOOK_PATH,
  requiredAuth: "bearerToken",
  register(app, ctx: ProtocolContext) {
    const token = ctx.auth?.bearerToken;
    if (token === undefined || token === "")
      throw new Error(
        "the factagora protocol needs auth.bearerToken (the platform authenticates every request with it)",
      );

    app.addHook("onRequest", async (request, reply) => {
      if (!bearerMatches(request.headers.authorization, token)) {
        return reply
          .code(401)
          .type("application/json; charset=utf-8")
          .send({ error: "Unauthorized", message: "missing or wrong bearer token" });
      }
    });

    app.post(WEBHOOK_PATH, { bodyLimit: WEBHOOK_BODY_LIMIT }, async (request, reply) => {
      let body: PredictionRequest;
      try {
        body = parseBody(predictionRequestSchema, request.body);
      } catch (err) {
        if (err instanceof BadRequestError)
          return specError(reply, 400, "Invalid prediction", err.message, "INVALID_PREDICTION", err.issues);
        throw err;
      }
      const round2 = body.roundNumber >= 2;
      const { context, challenges } = round2
        ? splitRound2(body.description)
        : { context: body.description, challenges: [] as string[] };
      const q: Question = {
        marketId: predictionKey(body.predictionId),
        question: body.title,
        deadline: Math.floor(Date.parse(body.deadline) / 1000),
        context: body.metadata?.resolutionCriteria
          ? `${context}\n\nResolution criteria: ${body.metadata.resolutionCriteria}`
          : context,
      };
      try {
        if (!round2) {
          const finding = await ctx.engine.investigate(q);
          const response = toAgentResponse(q, finding, ctx.engine.mode);
          ctx.memory.remember(q, finding);
          return response;
        }
        const record = ctx.memory.lookup(q.marketId);
        let finding: Finding;
        let asked: Question;
        if (record !== undefined && normalizeQuestion(record.question.question) === normalizeQuestion(q.question)) {
          finding = record.finding;
          asked = record.question;
        } else {
          finding = await ctx.engine.investigate(q);
          ctx.memory.remember(q, finding);
          asked = q;
        }
        const replies = challenges.length > 0 ? await ctx.engine.defend(asked, finding, challenges) : [];
        if (replies.length !== challenges.length || replies.some((r) => typeof r !== "string" || r.trim() === "")) {
          throw new EngineUpstreamError(
            "answer engine did not produce exactly one reply per challenge",
            "invalid-output",
          );
        }
        return toAgentResponse(asked, finding, ctx.engine.mode, {
          challenges,
          replies,
          existing: readArguments(body.existingArguments),
        });
      } catch (err) {
        if (err instanceof EngineUpstreamError) {
          request.log.warn({ kind: err.kind, msg: err.message }, "answer engine upstream failure");
          return specError(reply, 500, "Internal agent error", err.message, "LLM_API_ERROR");
        }
        throw err;
      }
    });
  },
};
