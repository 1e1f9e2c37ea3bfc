/**
 * The reference agent's side of the cresolver protocol (README.md): POST /a2a/resolve and /a2a/challenge, bodies
 * parsed with wire.ts (violations → 400 naming the field; unknown fields ignored). Challenges are defended against
 * the answer remembered for that market and question (market_id alone: the latest for the id; neither: the most
 * recent). Optional platform auth: with `auth.bearerToken`, both routes require it (constant-time) or answer 401.
 */
import type { Finding, Question } from "../../agents/kit/answer-engine.js";
import { EngineUpstreamError } from "../../agents/kit/answer-engine.js";
import { keyTerms, humanList } from "../../agents/kit/text.js";
import { parseBody } from "../../agents/kit/http.js";
import { bearerMatches } from "../factagora/agent.js";
import { answerFieldsOf, replyHash, signAnswer } from "../../workflow/core/answer-signature.js";
import type { AgentProtocolHandler, ProtocolContext } from "../shared/agent-types.js";
import {
  challengeRequestSchema,
  CRESOLVER_PROTOCOL,
  resolveReplySchema,
  resolveRequestSchema,
  type ResolveReply,
} from "./wire.js";

/** Our answer on the wire, checked against the schema the platform parses it with before it is sent. */
export function toWire(finding: Finding): ResolveReply {
  const wire = {
    determination: finding.determination,
    confidence: finding.confidence,
    evidence: finding.evidence,
    sources: finding.sources,
  };
  const checked = resolveReplySchema.safeParse(wire);
  if (!checked.success)
    throw new EngineUpstreamError(
      "answer engine produced an answer that violates the protocol schema",
      "invalid-output",
    );
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

/**
 * The reply with the agent's EIP-712 signature (README.md "Signed answers") when it has a key and the request named
 * chain, market and agent (and, with a configured agent id, that one); otherwise unsigned.
 */
async function signed(
  ctx: ProtocolContext,
  body: {
    market_id: bigint;
    chain_id?: number | undefined;
    market_address?: `0x${string}` | undefined;
    agent_id?: bigint | undefined;
  },
  wire: ResolveReply,
): Promise<ResolveReply> {
  const signer = ctx.answerSigner;
  const { chain_id: chainId, market_address: market, agent_id: agentId } = body;
  if (signer === undefined || chainId === undefined || market === undefined || agentId === undefined) return wire;
  if (ctx.agentId !== undefined && ctx.agentId !== agentId.toString()) return wire;
  const fields = answerFieldsOf({ chainId, market, marketId: body.market_id, agentId }, wire, replyHash(wire));
  return { ...wire, signature: await signAnswer(signer, fields) };
}

export const cresolverProtocol: AgentProtocolHandler = {
  protocol: CRESOLVER_PROTOCOL,
  endpointPath: "",
  register(app, ctx: ProtocolContext) {
    const token = ctx.auth?.bearerToken;
    if (token !== undefined && token !== "") {
      app.addHook("onRequest", async (request, reply) => {
        if (!request.url.startsWith("/a2a/")) return;
        if (!bearerMatches(request.headers.authorization, token)) {
          return reply
            .code(401)
            .header("www-authenticate", 'Bearer realm="cresolver"')
            .type("application/json; charset=utf-8")
            .send({ error: "Unauthorized", message: "missing or wrong bearer token" });
        }
      });
    }

    app.post("/a2a/resolve", async (request) => {
      const body = parseBody(resolveRequestSchema, request.body);
      const q: Question = {
        marketId: body.market_id,
        question: body.question,
        deadline: body.deadline,
        context: body.context,
      };
      const finding = await ctx.engine.investigate(q);
      const wire = toWire(finding);
      ctx.memory.remember(q, finding);
      return signed(ctx, body, wire);
    });

    app.post("/a2a/challenge", async (request) => {
      const body = parseBody(challengeRequestSchema, request.body);
      const record = ctx.memory.lookup(body.market_id, body.question);
      if (!record) return { responses: noRecordReplies(body.challenges, body.market_id) };
      const responses = await ctx.engine.defend(record.question, record.finding, body.challenges);
      if (
        responses.length !== body.challenges.length ||
        responses.some((r) => typeof r !== "string" || r.trim() === "")
      ) {
        throw new EngineUpstreamError(
          "answer engine did not produce exactly one reply per challenge",
          "invalid-output",
        );
      }
      return { responses };
    });
  },
};
