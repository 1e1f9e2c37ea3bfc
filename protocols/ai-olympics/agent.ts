/**
 * The AI Olympics webhook protocol (protocols/ai-olympics/README.md), agent side:
 *   POST /webhook (and POST /)   signed turn request → {thinking, actions, done?, result?}
 *
 * Authentication (checked before the body is parsed; any failure → 401 `{error: "unauthorized", message}`):
 * - `X-AI-Olympics-Signature: sha256=<hex>` = HMAC-SHA256 of the exact body bytes with `auth.hmacSecret`,
 *   compared in constant time. The agent refuses to start without a secret.
 * - `X-AI-Olympics-Timestamp` (Unix ms) within ±5 minutes of the agent's clock (stale and future refused).
 *   The signature covers only the body, so the body's `timestamp` must equal the header (and the body's
 *   `agentId` the `X-AI-Olympics-Agent-Id` header): a captured body cannot be replayed under a fresh header.
 * - Replays: a signature already accepted within the window is refused (duplicates rejected). The
 *   platform signs every turn afresh (new timestamp), so a legitimate request is never a duplicate.
 *   Entries older than the window are dropped; at most `replayCacheSize` are kept (oldest dropped first).
 *
 * Behaviour: the task's data block (BEGIN_TASK_DATA … END_TASK_DATA in `task.taskPrompt`, as the cresolver
 * resolver writes it) says whether to resolve a market or answer challenges.
 * - resolve: the engine investigates. In offline mode the agent first navigates to its first source on turn
 *   1 (so the platform's action loop is exercised), then finishes with `done` carrying
 *   {determination: "YES"|"NO", confidence, evidence, sources}. LLM mode answers through the engine at once.
 * - challenge: the engine defends its remembered finding (or re-investigates the question) and finishes with
 *   `done` carrying {responses}.
 * - A task without a data block gets `done` with success=false (it is not a resolution task).
 * The result is sent both as the `done` action's `args.result` and as the top-level `done`/`result`.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Finding, Question } from "../../agents/kit/answer-engine.js";
import { EngineUpstreamError } from "../../agents/kit/answer-engine.js";
import { parseBody } from "../../agents/kit/http.js";
import type { AgentProtocolHandler, ProtocolContext } from "../shared/agent-types.js";
import { taskDataSchema, turnRequestSchema, type TaskData, type TurnReply } from "./wire.js";

export const SIGNATURE_HEADER = "x-ai-olympics-signature";
export const TIMESTAMP_HEADER = "x-ai-olympics-timestamp";
export const AGENT_ID_HEADER = "x-ai-olympics-agent-id";
export const REPLAY_WINDOW_MS = 5 * 60 * 1000;
/** Larger than the server default: turn requests carry page state. */
export const WEBHOOK_BODY_LIMIT = 512 * 1024;

export interface AiOlympicsProtocolOptions {
  /** Clock (Unix ms) for the replay window. Default Date.now. */
  now?: () => number;
  /** Default 5 minutes (spec). */
  windowMs?: number;
  /** Signatures remembered for duplicate detection. Default 10,000. */
  replayCacheSize?: number;
  /** Offline mode: navigate to the first source on turn 1 before answering. Default true. */
  navigate?: boolean;
}

export type AuthCheck = { ok: true } | { ok: false; message: string };

/**
 * The webhook's request authentication, separate from HTTP so it can be tested with a fake clock.
 * `check` verifies and, on success, records the signature (so the same request is refused next time).
 */
export class WebhookVerifier {
  private readonly seen = new Map<string, number>();
  private readonly now: () => number;
  private readonly windowMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly secret: string,
    options: { now?: () => number; windowMs?: number; replayCacheSize?: number } = {},
  ) {
    if (secret === "") throw new Error("empty HMAC secret");
    this.now = options.now ?? Date.now;
    this.windowMs = options.windowMs ?? REPLAY_WINDOW_MS;
    this.maxEntries = options.replayCacheSize ?? 10_000;
  }

  check(
    headers: Record<string, string | string[] | undefined>,
    body: Buffer,
  ): AuthCheck & { timestamp?: number; agentId?: string } {
    const signature = one(headers[SIGNATURE_HEADER]);
    const timestampText = one(headers[TIMESTAMP_HEADER]);
    const agentId = one(headers[AGENT_ID_HEADER]);
    if (signature === undefined || timestampText === undefined || agentId === undefined || agentId.trim() === "") {
      return {
        ok: false,
        message: "missing X-AI-Olympics-Signature, X-AI-Olympics-Timestamp or X-AI-Olympics-Agent-Id header",
      };
    }
    if (!/^[0-9]{1,16}$/.test(timestampText))
      return { ok: false, message: "X-AI-Olympics-Timestamp must be Unix milliseconds" };
    const timestamp = Number(timestampText);
    const now = this.now();
    if (Math.abs(now - timestamp) > this.windowMs) return { ok: false, message: "Request expired" };
    if (!/^sha256=[0-9a-fA-F]{64}$/.test(signature)) return { ok: false, message: "malformed X-AI-Olympics-Signature" };
    const expected = createHmac("sha256", this.secret).update(body).digest();
    const given = Buffer.from(signature.slice(7), "hex");
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return { ok: false, message: "invalid signature" };
    this.prune(now);
    const key = signature.slice(7).toLowerCase();
    if (this.seen.has(key)) return { ok: false, message: "replayed request (signature already used)" };
    this.seen.set(key, timestamp);
    while (this.seen.size > this.maxEntries) this.seen.delete(this.seen.keys().next().value as string);
    return { ok: true, timestamp, agentId };
  }

  private prune(now: number): void {
    for (const [key, ts] of this.seen) {
      if (Math.abs(now - ts) > this.windowMs) this.seen.delete(key);
    }
  }
}

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value;
}

// ---------------------------------------------------------------------------------------------

/** The JSON block between BEGIN_TASK_DATA and END_TASK_DATA, or undefined. */
export function readTaskData(taskPrompt: string): TaskData | undefined {
  const json = /BEGIN_TASK_DATA\n([\s\S]*?)\nEND_TASK_DATA/.exec(taskPrompt)?.[1];
  if (json === undefined) return undefined;
  try {
    const parsed = taskDataSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

interface WebhookReply extends TurnReply {
  thinking: string;
  actions: { tool: string; args: Record<string, unknown> }[];
  done: boolean;
  result?: unknown;
}

function finish(thinking: string, result: unknown, success = true): WebhookReply {
  return { thinking, actions: [{ tool: "done", args: { success, result } }], done: true, result };
}

function findingResult(f: Finding): Record<string, unknown> {
  if (!(f.confidence >= 0 && f.confidence <= 1) || f.evidence.trim() === "" || f.sources.length === 0) {
    throw new EngineUpstreamError(
      "answer engine produced an answer that violates the protocol schema",
      "invalid-output",
    );
  }
  return {
    determination: f.determination ? "YES" : "NO",
    confidence: f.confidence,
    evidence: f.evidence,
    sources: f.sources,
  };
}

export function createAiOlympicsProtocol(options: AiOlympicsProtocolOptions = {}): AgentProtocolHandler {
  return {
    protocol: "ai-olympics",
    endpointPath: "/webhook",
    requiredAuth: "hmacSecret",
    register(app: FastifyInstance, ctx: ProtocolContext) {
      const secret = ctx.auth?.hmacSecret;
      if (secret === undefined || secret === "")
        throw new Error('protocol "ai-olympics" needs auth.hmacSecret (the webhook secret)');
      const verifier = new WebhookVerifier(secret, options);

      // The HMAC covers the exact bytes: keep them (this plugin's scope only).
      app.removeContentTypeParser("application/json");
      app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_req, body, done) => done(null, body));

      const handler = async (request: FastifyRequest, reply: FastifyReply) => {
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const auth = verifier.check(request.headers, raw);
        if (!auth.ok)
          return reply
            .code(401)
            .type("application/json; charset=utf-8")
            .send({ error: "unauthorized", message: auth.message });
        let json: unknown;
        try {
          json = JSON.parse(raw.toString("utf8"));
        } catch {
          return reply
            .code(400)
            .type("application/json; charset=utf-8")
            .send({ error: "invalid_request", message: "body is not valid JSON" });
        }
        const body = parseBody(turnRequestSchema, json);
        if (body.timestamp !== auth.timestamp) {
          return reply
            .code(401)
            .type("application/json; charset=utf-8")
            .send({ error: "unauthorized", message: "body timestamp differs from X-AI-Olympics-Timestamp" });
        }
        if (body.agentId !== auth.agentId) {
          return reply
            .code(401)
            .type("application/json; charset=utf-8")
            .send({ error: "unauthorized", message: "body agentId differs from X-AI-Olympics-Agent-Id" });
        }
        const task = readTaskData(body.task.taskPrompt);
        if (task === undefined)
          return finish(
            "This is not a market-resolution task I understand.",
            "no BEGIN_TASK_DATA block with a resolution task",
            false,
          );
        const q: Question = {
          marketId: BigInt(task.marketId),
          question: task.question,
          ...(task.deadline != null ? { deadline: task.deadline } : {}),
          ...(task.context != null ? { context: task.context } : {}),
        };
        if (task.kind === "challenge") {
          const challenges = task.challenges ?? [];
          if (challenges.length === 0) return finish("No challenges to answer.", { responses: [] });
          const known = ctx.memory.lookup(q.marketId, q.question);
          const finding = known !== undefined ? known.finding : await ctx.engine.investigate(q);
          const responses = await ctx.engine.defend(q, finding, challenges);
          if (
            responses.length !== challenges.length ||
            responses.some((r) => typeof r !== "string" || r.trim() === "")
          ) {
            throw new EngineUpstreamError(
              "answer engine did not produce exactly one reply per challenge",
              "invalid-output",
            );
          }
          return finish(
            `Answering ${challenges.length} challenge(s) to my ${finding.determination ? "YES" : "NO"} determination.`,
            { responses },
          );
        }
        const finding = await ctx.engine.investigate(q);
        const result = findingResult(finding);
        ctx.memory.remember(q, finding);
        if (
          ctx.info.mode === "offline" &&
          options.navigate !== false &&
          body.turnNumber === 1 &&
          finding.sources.length > 0
        ) {
          const reply: WebhookReply = {
            thinking: `Checking my first source before answering: ${finding.sources[0]}`,
            actions: [{ tool: "navigate", args: { url: finding.sources[0] } }],
            done: false,
          };
          return reply;
        }
        const page = body.pageState.error
          ? `the page check failed (${body.pageState.error.slice(0, 200)})`
          : body.pageState.url !== "about:blank"
            ? `visited ${body.pageState.url.slice(0, 200)}`
            : "no page visited";
        return finish(
          `Answer: ${finding.determination ? "YES" : "NO"} at ${Math.round(finding.confidence * 100)}% (${page}).`,
          result,
        );
      };
      const route = { bodyLimit: WEBHOOK_BODY_LIMIT };
      app.post("/webhook", route, handler);
      app.post("/", route, handler);
    },
  };
}

export const aiOlympicsProtocol: AgentProtocolHandler = createAiOlympicsProtocol();
