/**
 * Issue 13 item 14: one honest answer served through all five protocols (real adapters, real HTTP on
 * loopback) gets the same 3 aggregate scores. cresolver, Agora and AI Olympics are the reference agent
 * with one fixed answer engine; Factagora and round-table are agents on loopback that lay out the same
 * sentences, figures and sources in their protocol's structure (the reference agent's modules for those two
 * add protocol-specific text of their own, so they would not be the same answer); a second AI Olympics agent
 * knows only the AI Olympics spec and finishes its challenge session with a plain text result.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnswerEngine, Finding } from "../../../agents/kit/answer-engine.js";
import { readTaskData } from "../../../protocols/ai-olympics/agent.js";
import { challengeRepliesOf } from "../../../protocols/ai-olympics/wire.js";
import { AGENT_HANDLERS } from "../../../protocols/index.js";
import { createReferenceAgent, type ReferenceAgent } from "../../../agents/reference/server.js";
import { createCredentialStore } from "../../../workflow/adapters/credentials.js";
import { defaultAdapters } from "../../../protocols/index.js";
import type { AskRequest, WorkerEndpoint, WorkerRecord } from "../../../workflow/core/types.js";
import { createSafeHttpClient, type SafeHttpClient } from "../../../workflow/http/client.js";
import { buildPrompt } from "../../../workflow/evaluate/prompt.js";
import { rubricEvaluate } from "../../../workflow/evaluate/rubric.js";
import { market } from "../core/fixtures.js";
import { startJwksServer, testKey } from "../protocols/agora/helpers.js";
import { sendJson, startServer, type TestServer } from "../workflow/helpers/servers.js";
import { isAnswered } from "../../../workflow/core/types.js";

const SENTENCES = [
  "According to exchange data published in November 2026, bitcoin traded near 104,000 USD.",
  "However, volatility remains high and a drop of 5% could change the outcome.",
  "Therefore the balance of evidence suggests the close will likely stay above the threshold.",
];
const EVIDENCE = SENTENCES.join(" ");
const SOURCES = ["https://www.coindesk.com/markets/2026/11/20/btc", "https://www.reuters.com/markets/2026-11-19/"];
const CHALLENGES = [
  "What specific evidence makes you confident that the answer is YES?",
  "Your confidence is 80%. What would need to change for you to reverse your determination to NO?",
  "Identify the weakest point in your analysis and defend it against someone arguing NO.",
];
const REPLIES = [
  "The specific evidence is the exchange data showing bitcoin near 104,000 USD, above the threshold.",
  "I would reverse my determination if the price fell more than 5% before the deadline.",
  "The weakest point in my analysis is volatility; a 5% cushion has held for three weeks.",
];
const FINDING: Finding = {
  determination: true,
  confidence: 0.8,
  evidence: EVIDENCE,
  sources: SOURCES,
  observations: [SENTENCES[0]],
  keyTerms: ["bitcoin", "close"],
};
const engine: AnswerEngine = {
  mode: "offline",
  persona: "analyst",
  investigate: async () => FINDING,
  defend: async (_q, _f, challenges) => challenges.map((_c, i) => REPLIES[i] ?? REPLIES[0]),
};

/** A Factagora agent: the same sentences as initial thought, observation and synthesis; sources as actions and links. */
async function factagoraAgent(): Promise<TestServer> {
  return startServer((req, res) => {
    const body = JSON.parse(req.bodyText) as { roundNumber: number };
    const round2 = body.roundNumber === 2;
    sendJson(res, 200, {
      position: "YES",
      confidence: 0.8,
      reactCycle: {
        initialThought: SENTENCES[0],
        actions: round2
          ? REPLIES.map((r, i) => ({ type: "agent_review", query: `Challenge ${i + 1}`, result: r }))
          : SOURCES.map((url) => ({ type: "web_search", query: "exchange data", result: "104,000 USD", source: url })),
        observations: [SENTENCES[1]],
        synthesisThought: SENTENCES[2],
        evidence: SOURCES.map((url) => ({ type: "link", title: "exchange data", url })),
      },
    });
  });
}

/** A round-table agent: the answer as one verified observation; one challenge item per resolver challenge. */
async function roundtableAgent(): Promise<TestServer> {
  return startServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path.endsWith("/analyze")) {
      return sendJson(res, 200, {
        agent_name: "rt",
        domain: "markets",
        observations: [
          {
            finding: "DETERMINATION: YES",
            evidence: `[VERIFIED: ${SOURCES[0]}] [VERIFIED: ${SOURCES[1]}] ${EVIDENCE}`,
            severity: "critical",
            confidence: 0.8,
          },
        ],
        confidence: 0.8,
      });
    }
    if (path.endsWith("/challenge")) {
      return sendJson(res, 200, {
        agent_name: "rt",
        challenges: CHALLENGES.map((c, i) => ({
          target_agent: "resolver",
          finding_challenged: c,
          counter_evidence: REPLIES[i],
        })),
      });
    }
    sendJson(res, 404, { error: "not found" });
  });
}

/** An AI Olympics agent that knows only that spec: `done` with the finding, then with a plain text. */
async function specOnlyOlympian(): Promise<TestServer> {
  return startServer((req, res) => {
    const body = JSON.parse(req.bodyText) as { task: { taskPrompt: string } };
    const task = readTaskData(body.task.taskPrompt);
    const result =
      task?.kind === "challenge"
        ? REPLIES.map((r, i) => `${i + 1}. ${r}`).join("\n")
        : { determination: "YES", confidence: 0.8, evidence: EVIDENCE, sources: SOURCES };
    sendJson(res, 200, { thinking: "done", actions: [{ tool: "done", args: { success: true, result } }] });
  });
}

const PANEL = ["cresolver", "factagora", "roundtable", "agora", "ai-olympics", "ai-olympics (spec only)"] as const;
const m = market(PANEL.length);
let http: SafeHttpClient;
const closers: Array<() => Promise<unknown>> = [];
let records: WorkerRecord[] = [];

beforeAll(async () => {
  const key = await testKey();
  const jwks = await startJwksServer(key.jwks);
  closers.push(() => jwks.close());
  http = createSafeHttpClient({ allowLoopback: true });
  const creds: Record<string, { origin?: string; bearerToken?: string; hmacSecret?: string }> = {};
  const endpoints: WorkerEndpoint[] = [];
  for (const [i, name] of PANEL.entries()) {
    const agentId = String(m.workers[i].agentId);
    const secret = randomBytes(16).toString("hex");
    let url: string;
    if (name === "factagora" || name === "roundtable" || name === "ai-olympics (spec only)") {
      const server =
        name === "factagora"
          ? await factagoraAgent()
          : name === "roundtable"
            ? await roundtableAgent()
            : await specOnlyOlympian();
      closers.push(() => server.close());
      url = server.url;
      creds[agentId] = name === "ai-olympics (spec only)" ? { hmacSecret: secret } : { bearerToken: secret };
    } else {
      const auth = name === "agora" ? { jwksUrl: jwks.jwksUrl } : name === "ai-olympics" ? { hmacSecret: secret } : {};
      if (name === "ai-olympics") creds[agentId] = { hmacSecret: secret };
      const agent: ReferenceAgent = createReferenceAgent({ protocol: name, engine, auth, agentId });
      const base = await agent.start({ host: "127.0.0.1", port: 0 });
      closers.push(() => agent.close());
      url = `${base.replace(/\/$/, "")}${AGENT_HANDLERS[name]?.endpointPath ?? ""}`;
    }
    // Each secret is bound to the origin of the agent it was issued for (issue 13.10).
    const issued = creds[agentId];
    if (issued !== undefined) creds[agentId] = { ...issued, origin: new URL(url).origin };
    endpoints.push({ url, protocol: name.split(" ")[0] });
  }
  // The reference AI Olympics agent navigates to its first source first; with no network that action fails and is recorded.
  const adapters = defaultAdapters({
    http,
    credentials: createCredentialStore(creds),
    agora: { signer: key.signer() },
    aiOlympics: { actionHttp: http, actionTimeoutMs: 500 },
  });
  const ask: AskRequest = {
    marketId: m.marketId,
    question: m.question,
    deadline: m.deadline,
    context: m.context,
    workerCount: PANEL.length,
  };
  records = [];
  for (const [i, endpoint] of endpoints.entries()) {
    const adapter = adapters.find((a) => a.protocol === endpoint.protocol)!;
    const seat = m.workers[i];
    const asked = await adapter.ask(endpoint, seat, ask);
    if (!asked.ok) throw new Error(`${PANEL[i]}: ask failed: ${asked.failure.kind} ${asked.failure.message}`);
    const challenged = await adapter.challenge(endpoint, seat, {
      ask,
      challenges: CHALLENGES,
      own: asked.value,
      peers: [],
    });
    records.push({
      seat,
      endpoint,
      answer: asked.value,
      challenges: CHALLENGES,
      ...(challenged.ok ? { challengeReplies: challenged.value } : { challengeFailure: challenged.failure }),
    });
  }
}, 60_000);

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await http?.close();
});

describe("one honest answer through all five protocols", () => {
  it("reads the same determination, confidence and sources through every adapter", () => {
    for (const [i, r] of records.entries()) {
      expect(r.answer?.determination, PANEL[i]).toBe(true);
      expect(r.answer?.confidence, PANEL[i]).toBe(0.8);
      expect(r.challengeFailure, PANEL[i]).toBeUndefined();
      expect(r.challengeReplies?.length, PANEL[i]).toBe(CHALLENGES.length);
    }
  });

  it("gets the same 3 aggregate scores (and the same 8 dimension scores) whatever the protocol", () => {
    const result = rubricEvaluate({ market: m, workers: records.filter(isAnswered) });
    const table = result.evaluations.map((e, i) => ({
      protocol: PANEL[i],
      ...e.aggregate,
      sum: e.aggregate.resQuality + e.aggregate.srcQuality + e.aggregate.analysisDepth,
    }));
    const [reference] = result.evaluations;
    for (const [i, e] of result.evaluations.entries()) {
      // Documented tolerance: 0 — the rubric reads the same answer identically through every adapter.
      expect(e.aggregate, `${PANEL[i]}: ${JSON.stringify(table)}`).toEqual(reference.aggregate);
      for (const [d, s] of Object.entries(e.dimensions))
        expect(s.score, `${PANEL[i]} ${d}`).toBe(reference.dimensions[d as keyof typeof e.dimensions].score);
    }
    expect(reference.dimensions.collaboration.score).toBeGreaterThan(50);
    expect(reference.dimensions.sourceQuality.score).toBeGreaterThan(0);
  });

  it("shows the LLM evaluator the same answer whatever the protocol", () => {
    const panel = { answered: records.length, yes: records.length, no: 0 };
    const data = records.filter(isAnswered).map(
      (r) =>
        JSON.parse(buildPrompt(m, r, panel).data) as {
          worker: { evidence: string; sources: string[]; challenges: unknown[] };
        },
    );
    for (const [i, d] of data.entries()) {
      expect(d.worker.sources, PANEL[i]).toEqual(SOURCES);
      expect(d.worker.challenges, PANEL[i]).toEqual(data[0].worker.challenges);
      if (PANEL[i] === "factagora")
        for (const s of SENTENCES) expect(d.worker.evidence).toContain(s); // laid out over the ReAct fields
      else expect(d.worker, PANEL[i]).toEqual(data[0].worker);
    }
    expect(data[0].worker.evidence).toBe(EVIDENCE);
  });
});

describe("AI Olympics challenge replies from a spec-only done result (challengeRepliesOf)", () => {
  it("reads our convention, arrays, numbered text, plain text and text fields; refuses nothing-to-read", () => {
    expect(challengeRepliesOf({ responses: ["a", "b"] }, 2)).toEqual({ ok: true, value: ["a", "b"] });
    expect(challengeRepliesOf(["a", "b", 3], 2)).toEqual({ ok: true, value: ["a", "b"] });
    expect(challengeRepliesOf("1. first reply\n2. second reply\n3. third", 3)).toEqual({
      ok: true,
      value: ["first reply", "second reply", "third"],
    });
    expect(challengeRepliesOf("Challenge 1: yes because X\nChallenge 2: no", 2)).toEqual({
      ok: true,
      value: ["yes because X", "no"],
    });
    // numbering that does not match the challenges stays one reply
    expect(challengeRepliesOf("1. only one\n3. skipped two", 2)).toEqual({
      ok: true,
      value: ["1. only one\n3. skipped two"],
    });
    expect(challengeRepliesOf("Task completed", 3)).toEqual({ ok: true, value: ["Task completed"] });
    expect(challengeRepliesOf({ determination: "YES", evidence: "I keep YES because the data holds." }, 3)).toEqual({
      ok: true,
      value: ["I keep YES because the data holds."],
    });
    expect(challengeRepliesOf({ answers: ["x", "y"] }, 2)).toEqual({ ok: true, value: ["x", "y"] });
    for (const nothing of ["  ", {}, { ok: true }, [], [1, 2], null, 42])
      expect(challengeRepliesOf(nothing, 2).ok, JSON.stringify(nothing)).toBe(false);
  });
});
