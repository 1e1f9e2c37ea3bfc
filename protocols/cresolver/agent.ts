/**
 * The CRE A2A worker protocol (docs/protocols/cresolver.md):
 *   POST /a2a/resolve   {market_id, question, deadline?, context?} → {determination, confidence, evidence, sources}
 *   POST /a2a/challenge {challenges, market_id?}                   → {responses} (one per challenge, in order)
 *
 * Request rules (violations → 400 naming the field):
 * - market_id: non-negative integer, as a JSON number (≤ 2^53-1) or a decimal string (any uint256).
 * - question: non-blank string, ≤ 4,000 characters. context: string ≤ 20,000 (null = absent).
 * - deadline: non-negative integer Unix seconds (null = absent).
 * - challenges: 1..10 non-blank strings of ≤ 4,000 characters. market_id and question (optional, our
 *   extensions) tie the defence to the answer given for that market and question (two market contracts may
 *   share an id); with market_id alone, the latest answer for that id; with neither, the most recent answer.
 * - Unknown fields are ignored (forward compatibility).
 * - Platform auth (optional; the spec has none): with `auth.bearerToken` configured, both routes require
 *   `Authorization: Bearer <token>` (constant-time comparison) and answer 401 otherwise.
 */
import { z } from "zod";
import type { Finding, Question } from "../../agents/reference/engine/types.js";
import { EngineUpstreamError } from "../../agents/reference/engine/types.js";
import { keyTerms, humanList } from "../../agents/reference/engine/text.js";
import { marketIdField, optionalTextField, parseBody, textField } from "../../agents/reference/http.js";
import { bearerMatches } from "../factagora/agent.js";
import type { AgentProtocolHandler, ProtocolContext } from "../agent-types.js";

export const MAX_QUESTION_CHARS = 4_000;
export const MAX_CONTEXT_CHARS = 20_000;
export const MAX_CHALLENGES = 10;
export const MAX_CHALLENGE_CHARS = 4_000;

export const ResolveRequest = z.object(
  {
    market_id: marketIdField(true),
    question: textField(MAX_QUESTION_CHARS),
    deadline: z
      .number({ error: "must be a number (Unix seconds)" })
      .int("must be an integer (Unix seconds)")
      .nonnegative("must not be negative")
      .nullish()
      .transform((v) => v ?? undefined),
    context: optionalTextField(MAX_CONTEXT_CHARS),
  },
  { error: "must be a JSON object" },
);

export const ChallengeRequest = z.object(
  {
    challenges: z
      .array(textField(MAX_CHALLENGE_CHARS), { error: (iss) => (iss.input === undefined ? "required" : "must be an array of strings") })
      .min(1, "must contain at least 1 challenge")
      .max(MAX_CHALLENGES, `must contain at most ${MAX_CHALLENGES} challenges`),
    market_id: marketIdField(false),
    question: optionalTextField(MAX_QUESTION_CHARS),
  },
  { error: "must be a JSON object" },
);

/** The wire answer; also used to check our own output before sending it. */
export const ResolveResponse = z.object({
  determination: z.boolean(),
  confidence: z.number().min(0).max(1),
  evidence: z.string().min(1),
  sources: z.array(z.string().min(1)).min(1),
});
export type ResolveResponse = z.infer<typeof ResolveResponse>;

export function toWire(finding: Finding): ResolveResponse {
  const wire = { determination: finding.determination, confidence: finding.confidence, evidence: finding.evidence, sources: finding.sources };
  const checked = ResolveResponse.safeParse(wire);
  if (!checked.success) throw new EngineUpstreamError("answer engine produced an answer that violates the protocol schema", "invalid-output");
  return checked.data;
}

/** Replies when no answer is on record for the challenged market (e.g. after a restart). */
function noRecordReplies(challenges: string[], marketId: bigint | undefined): string[] {
  return challenges.map((c) => {
    const terms = keyTerms(c, 3);
    const about = terms.length > 0 ? ` about ${humanList(terms)}` : "";
    const market = marketId === undefined ? "" : ` for market ${marketId.toString()}`;
    return `I have no determination on record${market}, so I cannot defend one against this challenge${about}; please send the question to /a2a/resolve first and challenge that answer.`;
  });
}

export const cresolverProtocol: AgentProtocolHandler = {
  protocol: "cresolver",
  endpointPath: "",
  register(app, ctx: ProtocolContext) {
    const token = ctx.auth?.bearerToken;
    if (token !== undefined && token !== "") {
      app.addHook("onRequest", async (request, reply) => {
        if (!request.url.startsWith("/a2a/")) return;
        if (!bearerMatches(request.headers.authorization, token)) {
          return reply.code(401).header("www-authenticate", 'Bearer realm="cresolver"').type("application/json; charset=utf-8").send({ error: "Unauthorized", message: "missing or wrong bearer token" });
        }
      });
    }

    app.post("/a2a/resolve", async (request) => {
      const body = parseBody(ResolveRequest, request.body);
      const q: Question = { marketId: body.market_id, question: body.question, deadline: body.deadline, context: body.context };
      const finding = await ctx.engine.investigate(q);
      const wire = toWire(finding);
      ctx.memory.remember(q, finding);
      return wire;
    });

    app.post("/a2a/challenge", async (request) => {
      const body = parseBody(ChallengeRequest, request.body);
      const record = ctx.memory.lookup(body.market_id, body.question);
      if (!record) return { responses: noRecordReplies(body.challenges, body.market_id) };
      const responses = await ctx.engine.defend(record.question, record.finding, body.challenges);
      if (responses.length !== body.challenges.length || responses.some((r) => typeof r !== "string" || r.trim() === "")) {
        throw new EngineUpstreamError("answer engine did not produce exactly one reply per challenge", "invalid-output");
      }
      return { responses };
    });
  },
};
