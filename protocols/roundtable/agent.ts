/**
 * The round-table External Agent Protocol (protocols/roundtable/README.md), agent side:
 *   POST /analyze   {task_id, content, context?, constraints?}        → {agent_name, domain, observations, recommendations, confidence}
 *   POST /challenge {task_id, content, other_analyses, resolver_challenges?} → {agent_name, challenges, concessions}
 *   POST /vote      {task_id, content, synthesis}                     → {agent_name, approve, conditions, dissent_reason}
 *
 * Auth (spec): with `auth.bearerToken` set, every request must carry `Authorization: Bearer <token>`;
 * otherwise 401 `{error: "unauthorized"}` before the body is read. Without a token nothing is required.
 *
 * The question: `context.question` when the platform sends it (the cresolver resolver does), else the
 * first paragraph of `content`. Market id: `context.market_id` (decimal string or integer), else one
 * derived from task_id. The analysis is remembered per task_id (bounded), so /challenge and /vote defend
 * the same answer; an unknown task_id is investigated afresh from `content` (the engine is deterministic
 * offline and cached in LLM mode).
 *
 * The analysis always contains one observation whose finding is `DETERMINATION: YES|NO` (what the
 * resolver's constraints ask for). Evidence levels are honest: offline answers are derived from the
 * question text, so claims are [INDICATED: <where to verify>] and counter-evidence is [POSSIBLE].
 *
 * /vote with an empty (or null) `synthesis.recommended_direction` — what the platform sends when its synthesis
 * has none — answers a dissent (nothing to approve), not 400.
 *
 * Unknown request fields are ignored; `null` counts as absent for optional ones. Errors: see ../http.ts.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Finding, Question } from "../../agents/kit/answer-engine.js";
import { humanList, quoteSnippet } from "../../agents/kit/text.js";
import { parseBody } from "../../agents/kit/http.js";
import type { AgentProtocolHandler, ProtocolContext } from "../shared/agent-types.js";
import {
  analyzeRequestSchema,
  challengeRequestSchema,
  ROUNDTABLE_PROTOCOL,
  voteRequestSchema,
  type AnalysisReplyWire,
  type ChallengeReplyWire,
  type VoteReplyWire,
} from "./wire.js";

export const MAX_QUESTION_CHARS = 4_000;
const MEMORY_SIZE = 1_000;

const yesNo = (d: boolean): "YES" | "NO" => (d ? "YES" : "NO");
const pct = (x: number): string => `${Math.round(x * 100)}%`;

/** `DETERMINATION: YES|NO` at the start of a finding (the convention the resolver uses for peers too). */
export function determinationTag(finding: string): boolean | undefined {
  const [, not, word] = /^\W*(?:final |overall )?determination\W{0,3}(?:(not) )?(yes|no)\b/i.exec(finding.trim()) ?? [];
  if (word === undefined) return undefined;
  return (word.toLowerCase() === "yes") !== (not !== undefined);
}

/** The resolution a synthesis proposes: its recommended direction names exactly one of YES / NO. */
export function proposedResolution(direction: string): boolean | undefined {
  const said = new Set((direction.match(/\b(YES|NO)\b/g) ?? []).map((w) => w === "YES"));
  return said.size === 1 ? [...said][0] : undefined;
}

function questionOf(content: string, context: Record<string, unknown>): string {
  const q = context.question;
  if (typeof q === "string" && q.trim() !== "") return q.slice(0, MAX_QUESTION_CHARS);
  const first = content.split(/\n\s*\n/)[0]?.trim() ?? "";
  return (first === "" ? content.trim() : first).slice(0, MAX_QUESTION_CHARS);
}

function marketIdOf(taskId: string, context: Record<string, unknown>): bigint {
  const id = context.market_id;
  if (typeof id === "string" && /^[0-9]{1,78}$/.test(id)) return BigInt(id);
  if (typeof id === "number" && Number.isSafeInteger(id) && id >= 0) return BigInt(id);
  return BigInt(`0x${createHash("sha256").update(taskId, "utf8").digest("hex").slice(0, 15)}`);
}

function questionFrom(taskId: string, content: string, context: Record<string, unknown>): Question {
  const deadline = context.deadline;
  const marketContext = context.market_context;
  return {
    marketId: marketIdOf(taskId, context),
    question: questionOf(content, context),
    ...(typeof deadline === "number" && Number.isSafeInteger(deadline) && deadline >= 0 ? { deadline } : {}),
    ...(typeof marketContext === "string" && marketContext.trim() !== ""
      ? { context: marketContext.slice(0, 20_000) }
      : {}),
  };
}

const COUNTER = /^(counter-evidence|however|but|on the other hand|risk|uncertainty)\b|could still|not negligible/i;

/** The engine's finding as a round-table AgentAnalysis. */
export function toAnalysis(name: string, mode: string, finding: Finding): AnalysisReplyWire {
  const source = (i: number): string => finding.sources[i % finding.sources.length] ?? "analysis";
  const method =
    mode === "offline"
      ? "offline reference mode: derived from the question text, not from live data"
      : "from the model's analysis";
  const observations: AnalysisReplyWire["observations"] = [
    {
      finding: `DETERMINATION: ${yesNo(finding.determination)}`,
      evidence: `[INDICATED: ${source(0)}] ${finding.evidence}`,
      severity: "critical",
      confidence: finding.confidence,
    },
    // A claim that happens to start like the tag must not read as a second (maybe contradicting) determination.
    ...finding.observations
      .slice(0, 6)
      .map((claim) => (/^\W*(?:final |overall )?determination\b/i.test(claim) ? `Note: ${claim}` : claim))
      .map((o, i) =>
        COUNTER.test(o)
          ? {
              finding: o,
              evidence: `[POSSIBLE] ${method}`,
              severity: "warning",
              confidence: Math.round((1 - finding.confidence) * 100) / 100,
            }
          : {
              finding: o,
              evidence: `[INDICATED: ${source(i + 1)}] ${method}; the cited reference is where to verify it`,
              severity: "info",
              confidence: finding.confidence,
            },
      ),
  ];
  return {
    agent_name: name,
    domain: "prediction-market resolution",
    observations,
    recommendations: [
      {
        action: `Resolve the market ${yesNo(finding.determination)}`,
        rationale: `Balance of the evidence on ${humanList(finding.keyTerms.slice(0, 3)) || "the question"} at ${pct(finding.confidence)} confidence`,
        priority: "critical",
      },
    ],
    confidence: finding.confidence,
  };
}

function bearerMatches(header: string | undefined, token: string): boolean {
  if (typeof header !== "string") return false;
  const presented = /^Bearer +(.+)$/i.exec(header.trim())?.[1];
  if (presented === undefined) return false;
  const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();
  return timingSafeEqual(digest(presented), digest(token));
}

interface Remembered {
  question: Question;
  finding: Finding;
}

export const roundtableProtocol: AgentProtocolHandler = {
  protocol: ROUNDTABLE_PROTOCOL,
  register(app, ctx: ProtocolContext) {
    const token = ctx.auth?.bearerToken;
    if (token !== undefined && token !== "") {
      app.addHook("onRequest", async (request, reply) => {
        if (bearerMatches(request.headers.authorization, token)) return;
        return reply
          .code(401)
          .header("www-authenticate", 'Bearer realm="roundtable"')
          .type("application/json; charset=utf-8")
          .send({ error: "unauthorized", message: "missing or invalid bearer token" });
      });
    }

    const byTask = new Map<string, Remembered>();
    const remember = (taskId: string, entry: Remembered) => {
      byTask.delete(taskId);
      byTask.set(taskId, entry);
      while (byTask.size > MEMORY_SIZE) byTask.delete(byTask.keys().next().value as string);
    };
    /** The remembered analysis of a task, or a fresh one from its content (same engine, same answer). */
    const recall = async (taskId: string, content: string): Promise<Remembered> => {
      const known = byTask.get(taskId);
      if (known) return known;
      const question = questionFrom(taskId, content, {});
      const entry = { question, finding: await ctx.engine.investigate(question) };
      remember(taskId, entry);
      return entry;
    };

    app.post("/analyze", async (request) => {
      const body = parseBody(analyzeRequestSchema, request.body);
      const question = questionFrom(body.task_id, body.content, body.context);
      const finding = await ctx.engine.investigate(question);
      remember(body.task_id, { question, finding });
      return toAnalysis(ctx.info.name, ctx.info.mode, finding);
    });

    app.post("/challenge", async (request): Promise<ChallengeReplyWire> => {
      const body = parseBody(challengeRequestSchema, request.body);
      const { question, finding } = await recall(body.task_id, body.content);
      const peers = body.other_analyses.map((a) => {
        const tagged = a.observations.find((o) => determinationTag(o.finding) !== undefined);
        const main = tagged ?? a.observations[0];
        return {
          name: a.agent_name,
          determination: tagged ? determinationTag(tagged.finding) : undefined,
          finding: main?.finding ?? "(no observations)",
          evidence: main?.evidence ?? "",
        };
      });
      const challenges: NonNullable<ChallengeReplyWire["challenges"]> = [];
      const concessions: NonNullable<ChallengeReplyWire["concessions"]> = [];

      // The resolver's own points, answered directly (target "resolver", the point's exact text).
      if (body.resolver_challenges.length > 0) {
        const replies = await ctx.engine.defend(question, finding, body.resolver_challenges);
        body.resolver_challenges.forEach((point, i) => {
          const reply = replies[i] ?? "";
          if (/\bconcede|\baccept that\b/i.test(reply))
            concessions.push({ target_agent: "resolver", finding_accepted: point, reason: reply });
          else challenges.push({ target_agent: "resolver", finding_challenged: point, counter_evidence: reply });
        });
      }
      // The other agents: challenge those with the opposite determination, concede to those that agree.
      const opposing = peers.filter((p) => p.determination !== undefined && p.determination !== finding.determination);
      if (opposing.length > 0) {
        const prompts = opposing.map(
          (p) =>
            `Other workers reached the opposite conclusion (${yesNo(!finding.determination)}): ${quoteSnippet(p.evidence || p.finding, 300)}`,
        );
        const replies = await ctx.engine.defend(question, finding, prompts);
        for (const [i, p] of opposing.entries()) {
          challenges.push({ target_agent: p.name, finding_challenged: p.finding, counter_evidence: replies[i] ?? "" });
        }
      }
      for (const p of peers) {
        if (p.determination !== finding.determination) continue;
        concessions.push({
          target_agent: p.name,
          finding_accepted: p.finding,
          reason: `It matches my own determination (${yesNo(finding.determination)}, ${pct(finding.confidence)} confidence) on ${humanList(finding.keyTerms.slice(0, 3)) || "the question"}.`,
        });
      }
      return {
        agent_name: ctx.info.name,
        challenges: challenges.filter((c) => c.counter_evidence.trim() !== ""),
        concessions: concessions.filter((c) => c.reason.trim() !== ""),
      };
    });

    app.post("/vote", async (request): Promise<VoteReplyWire> => {
      const body = parseBody(voteRequestSchema, request.body);
      const { finding } = await recall(body.task_id, body.content);
      const proposed = proposedResolution(body.synthesis.recommended_direction);
      const mine = yesNo(finding.determination);
      if (body.synthesis.recommended_direction.trim() === "") {
        return {
          agent_name: ctx.info.name,
          approve: false,
          conditions: [],
          dissent_reason: "The synthesis recommends no direction, so there is nothing to approve.",
        };
      }
      if (proposed === undefined) {
        return {
          agent_name: ctx.info.name,
          approve: false,
          conditions: [],
          dissent_reason:
            "The synthesis does not name a single YES or NO resolution, so there is nothing I can approve.",
        };
      }
      if (proposed !== finding.determination) {
        const why = finding.observations[0] ?? finding.evidence;
        return {
          agent_name: ctx.info.name,
          approve: false,
          conditions: [],
          dissent_reason: `My analysis concluded ${mine} at ${pct(finding.confidence)} confidence: ${quoteSnippet(why, 400)}`,
        };
      }
      const terms = humanList(finding.keyTerms.slice(0, 3)) || "the question";
      const conditions = [
        `The ${mine} resolution assumes no material development on ${terms} before the deadline that the panel missed.`,
      ];
      if (finding.confidence < 0.6)
        conditions.push(
          `My own confidence is only ${pct(finding.confidence)}; the minority views should stay on record.`,
        );
      return { agent_name: ctx.info.name, approve: true, conditions, dissent_reason: null };
    });
  },
};
