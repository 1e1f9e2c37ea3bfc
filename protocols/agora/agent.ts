/**
 * Agora Arena Agent Protocol v1 (protocols/agora/README.md), the agent side:
 *   GET  /agora/health → {status:"ok", version:"1.0", capabilities, avg_latency_ms, max_concurrent}
 *   POST /agora        {version, league, match_id, round, total_rounds, task:{description, input_format,
 *                       output_format, options}, time_limit_seconds, max_tokens, rules, opponent_count}
 *                      → {answer, confidence, reasoning, subagents_used, tools_used, tokens, latency_ms}
 *
 * Auth (when `auth.jwksUrl` is configured): `Authorization: Bearer <JWT>` verified against the platform's
 * JWKS (ES256/EdDSA), not expired (`expires_at`/`exp`), `agent_id` equal to the configured agent id (when
 * one is configured), `match_id` equal to the body's. Missing/invalid/expired token → 401; a valid token for
 * another agent or match → 403. Without `auth.jwksUrl` the endpoint is unauthenticated (development only;
 * a warning is logged at start).
 *
 * Answers: only yes/no matches are played — the options must contain "YES" and "NO", else 503 (spec: match
 * skipped, no penalty). The question comes from our extension `cresolver.question` when present, otherwise
 * the task description is the question. Round 1: the engine's finding → answer "YES"/"NO", confidence,
 * reasoning = evidence + the source URLs. Round ≥ 2 with challenges (`cresolver.challenges`, or the numbered
 * lines of the description): the engine defends the remembered round-1 finding; reasoning = one numbered
 * section per challenge; the answer stays the round-1 answer. Over the time limit → 408; more than
 * max_concurrent (5) tasks in flight → 429; engine failure → 502/500 (shared error handling).
 *
 * Streaming (when `agoraStreamUrl` is configured and the request carried a token): the agent opens
 * `{agoraStreamUrl}/agora/matches/{match_id}/events` with the same bearer token and streams thinking,
 * spawn_subagent, tool_call, tool_response, subagent_done, intermediate_result and a final answer, waits
 * (at most 2 s) for the platform's acks, then replies over HTTP. Streaming problems never fail the task.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { WebSocket } from "ws";
import { AgoraTokenError, remoteAgoraKeys, verifyAgoraToken, type VerifiedAgoraClaims } from "./jwt.js";
import type { Finding, Question } from "../../agents/kit/answer-engine.js";
import { hashParts } from "../../agents/kit/text.js";
import { parseBody } from "../../agents/kit/http.js";
import type { AgentProtocolHandler, ProtocolContext } from "../shared/agent-types.js";
import {
  AGORA_VERSION,
  agoraTaskRequestSchema,
  type AgoraEvent,
  type AgoraHealth,
  type AgoraReply,
  type AgoraTaskRequest,
} from "./wire.js";

export const AGORA_MAX_CONCURRENT = 5;

/** The market id behind a match id: its digits when it is a decimal uint, else a stable 64-bit hash. */
export function marketIdOfMatch(matchId: string): bigint {
  if (/^[0-9]{1,78}$/.test(matchId)) return BigInt(matchId);
  return hashParts("agora-match", matchId).readBigUInt64BE(0);
}

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== "string") return undefined;
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

function refuse(reply: FastifyReply, status: number, error: string, message: string): FastifyReply {
  return reply.code(status).type("application/json; charset=utf-8").send({ error, message });
}

/** Numbered lines ("1. …") of a description, used as challenges when the structured extension is absent. */
function challengesFromDescription(description: string): string[] {
  const out: string[] = [];
  for (const line of description.split("\n")) {
    const [, n, text] = /^\s*(\d{1,2})[.)]\s+(.+)$/.exec(line) ?? [];
    if (text !== undefined && Number(n) === out.length + 1) out.push(text.trim());
  }
  return out.slice(0, 10);
}

function reasoningOf(finding: Finding): string {
  return `${finding.evidence}\n\nSources:\n${finding.sources.map((s) => `- ${s}`).join("\n")}`;
}

/** Streams the match's events and waits (bounded) for the platform's acks. Never throws. */
async function streamEvents(
  baseUrl: string,
  matchId: string,
  token: string,
  events: AgoraEvent[],
  waitMs = 2_000,
): Promise<void> {
  let url: string;
  try {
    const u = new URL(baseUrl);
    u.pathname = `${u.pathname.replace(/\/+$/, "")}/agora/matches/${encodeURIComponent(matchId)}/events`;
    url = u.toString();
  } catch {
    return;
  }
  await new Promise<void>((resolve) => {
    let settled = false;
    let answered = 0;
    const ws = new WebSocket(url, {
      headers: { authorization: `Bearer ${token}` },
      handshakeTimeout: waitMs,
      maxPayload: 64 * 1024,
    });
    const done = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      try {
        ws.close(1000);
      } catch {
        /* ignore */
      }
      resolve();
    };
    const timer = setTimeout(done, waitMs);
    ws.on("error", done);
    ws.on("close", done);
    ws.on("unexpected-response", done);
    ws.on("open", () => {
      for (const e of events) ws.send(JSON.stringify(e));
    });
    ws.on("message", () => {
      answered += 1;
      if (answered >= events.length) done();
    });
  });
}

export const agoraProtocol: AgentProtocolHandler = {
  protocol: "agora",
  endpointPath: "/agora",
  requiredAuth: "jwksUrl",
  register(app, ctx: ProtocolContext) {
    const jwksUrl = ctx.auth?.jwksUrl;
    const keys = jwksUrl !== undefined ? remoteAgoraKeys(jwksUrl) : undefined;
    if (keys === undefined)
      app.log.warn("agora: no auth.jwksUrl configured; POST /agora accepts unauthenticated requests");
    let inFlight = 0;
    let handled = 0;
    let totalLatency = 0;

    app.get(
      "/agora/health",
      async (): Promise<AgoraHealth> => ({
        status: "ok",
        version: AGORA_VERSION,
        capabilities: ["cresolver", "yes-no", "prediction-markets"],
        avg_latency_ms: handled === 0 ? 0 : Math.round(totalLatency / handled),
        max_concurrent: AGORA_MAX_CONCURRENT,
      }),
    );

    app.post("/agora", async (request, reply) => {
      const started = performance.now();
      const token = bearer(request);
      let claims: VerifiedAgoraClaims | undefined;
      if (keys !== undefined) {
        if (token === undefined) return refuse(reply, 401, "unauthorized", "missing bearer token");
        try {
          claims = await verifyAgoraToken(token, keys, {});
        } catch (error) {
          const reason = error instanceof AgoraTokenError ? error.message : "token could not be verified";
          return refuse(reply, 401, "unauthorized", reason);
        }
        if (ctx.agentId !== undefined && claims.agent_id !== ctx.agentId)
          return refuse(reply, 403, "forbidden", "token was issued to another agent");
      }
      const body: AgoraTaskRequest = parseBody(agoraTaskRequestSchema, request.body);
      if (claims !== undefined && claims.match_id !== body.match_id)
        return refuse(reply, 403, "forbidden", "token was issued for another match");
      if (!body.task.options.includes("YES") || !body.task.options.includes("NO")) {
        return refuse(reply, 503, "unavailable", "this agent only plays YES/NO matches");
      }
      if (inFlight >= AGORA_MAX_CONCURRENT)
        return refuse(reply, 429, "rate_limited", `at most ${AGORA_MAX_CONCURRENT} tasks at a time`);
      inFlight += 1;
      try {
        const ext = body.cresolver ?? undefined;
        const q: Question = {
          marketId: marketIdOfMatch(body.match_id),
          question: ext?.question ?? body.task.description,
          deadline: ext?.deadline ?? undefined,
          context: ext?.context ?? undefined,
        };
        const challenges = body.round >= 2 ? (ext?.challenges ?? challengesFromDescription(body.task.description)) : [];
        const limitMs = Math.max(1, body.time_limit_seconds * 1_000 - 50);
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<"timeout">((resolve) => {
          timer = setTimeout(() => resolve("timeout"), limitMs);
        });
        const work = (async () => {
          if (challenges.length > 0) {
            // Keyed by match and question; without our extension the round-2 description (the "question") carries
            // the challenges, so fall back to the match's latest answer.
            let record =
              ctx.memory.lookup(q.marketId, q.question) ??
              (ext?.question === undefined ? ctx.memory.lookup(q.marketId) : undefined);
            if (record === undefined) {
              const finding = await ctx.engine.investigate(q);
              ctx.memory.remember(q, finding);
              record = { question: q, finding };
            }
            const replies = await ctx.engine.defend(record.question, record.finding, challenges);
            return { finding: record.finding, reasoning: replies.map((r, i) => `${i + 1}. ${r}`).join("\n\n") };
          }
          const finding = await ctx.engine.investigate(q);
          ctx.memory.remember(q, finding);
          return { finding, reasoning: reasoningOf(finding) };
        })();
        const outcome = await Promise.race([work, timeout]).finally(() => clearTimeout(timer));
        if (outcome === "timeout") {
          work.catch(() => undefined);
          return refuse(reply, 408, "timeout", `no answer within ${body.time_limit_seconds} s`);
        }
        const answer = outcome.finding.determination ? "YES" : "NO";
        const engineMs = Math.round(performance.now() - started);
        if (ctx.agoraStreamUrl !== undefined && token !== undefined) {
          await streamEvents(ctx.agoraStreamUrl, body.match_id, token, [
            { type: "thinking", message: `Round ${body.round}: analysing the market question.` },
            { type: "spawn_subagent", name: ctx.info.persona, role: "analysis" },
            { type: "tool_call", tool: "answer_engine", args: { mode: ctx.info.mode, challenges: challenges.length } },
            {
              type: "tool_response",
              result: `${answer} at ${outcome.finding.confidence.toFixed(2)}`,
              duration_ms: engineMs,
            },
            { type: "subagent_done", name: ctx.info.persona, duration_ms: engineMs },
            {
              type: "intermediate_result",
              data: {
                determination: answer,
                confidence: outcome.finding.confidence,
                sources: outcome.finding.sources.length,
              },
            },
            { type: "answer", final: true, value: answer },
          ]);
        }
        const latency = Math.round(performance.now() - started);
        handled += 1;
        totalLatency += latency;
        const wire: AgoraReply = {
          answer,
          confidence: outcome.finding.confidence,
          reasoning: outcome.reasoning,
          subagents_used: [ctx.info.persona],
          tools_used: [`answer-engine:${ctx.info.mode}`],
          tokens: Math.ceil(outcome.reasoning.length / 4),
          latency_ms: latency,
        };
        return wire;
      } finally {
        inFlight -= 1;
      }
    });
  },
};
