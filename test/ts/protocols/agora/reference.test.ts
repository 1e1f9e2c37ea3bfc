import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnswerEngine, Finding, Question } from "../../../../agents/kit/answer-engine.js";
import { startAgent, stopAll } from "../../../helpers/agents.js";
import { startJwksServer, testKey, type TestKey } from "./helpers.js";

const task = (matchId: string, extra: Record<string, unknown> = {}) => ({
  version: "1.0",
  league: "cresolver",
  match_id: matchId,
  round: 1,
  total_rounds: 2,
  task: {
    description: "Will it rain in Lisbon on 1 May 2026?",
    input_format: "string",
    output_format: "string",
    options: ["YES", "NO"],
  },
  time_limit_seconds: 30,
  max_tokens: 500,
  rules: ["only_one_answer"],
  opponent_count: 2,
  ...extra,
});

async function postTask(
  base: string,
  body: unknown,
  token?: string,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${base}/agora`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** An engine whose answers wait until released (a real AnswerEngine, no mocking framework). */
function gatedEngine(): AnswerEngine & { release(): void; entered(n: number): Promise<void> } {
  let open: () => void = () => undefined;
  const gate = new Promise<void>((r) => (open = r));
  let calls = 0;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const finding: Finding = {
    determination: true,
    confidence: 0.6,
    evidence: "Gated evidence.",
    sources: ["https://example.org/a"],
    observations: [],
    keyTerms: [],
  };
  return {
    mode: "offline",
    persona: "analyst",
    async investigate(_q: Question) {
      calls++;
      for (const w of waiters.filter((x) => calls >= x.n)) w.resolve();
      await gate;
      return finding;
    },
    async defend(_q, _f, challenges) {
      await gate;
      return challenges.map(() => "held");
    },
    release: () => open(),
    entered: (n) => (calls >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
  };
}

describe("reference agent, agora protocol", () => {
  let key: TestKey;
  let jwks: Awaited<ReturnType<typeof startJwksServer>>;
  let base: string;
  beforeAll(async () => {
    key = await testKey();
    jwks = await startJwksServer(key.jwks);
    base = (await startAgent({ protocol: "agora", auth: { jwksUrl: jwks.jwksUrl }, agentId: "7" })).url;
  });
  afterAll(async () => {
    await stopAll();
    await jwks.close();
  });

  it("serves the health check in the spec's shape", async () => {
    const res = await fetch(`${base}/agora/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      status: "ok",
      version: "1.0",
      capabilities: expect.arrayContaining(["cresolver"]),
      avg_latency_ms: expect.any(Number),
      max_concurrent: 5,
    });
  });

  it("answers a valid task in the spec's shape, citing its sources in the reasoning", async () => {
    const r = await postTask(base, task("42"), await key.signer().sign({ agent_id: "7", match_id: "42" }));
    expect(r.status).toBe(200);
    expect(Object.keys(r.json).sort()).toEqual([
      "answer",
      "confidence",
      "latency_ms",
      "reasoning",
      "subagents_used",
      "tokens",
      "tools_used",
    ]);
    expect(["YES", "NO"]).toContain(r.json.answer);
    expect(r.json.reasoning).toMatch(/https:\/\//);
  });

  it("refuses a missing, garbage, forged or expired token with 401", async () => {
    expect((await postTask(base, task("42"))).status).toBe(401);
    expect((await postTask(base, task("42"), "abc.def.ghi")).status).toBe(401);
    const stranger = await testKey();
    expect(
      (await postTask(base, task("42"), await stranger.signer().sign({ agent_id: "7", match_id: "42" }))).status,
    ).toBe(401);
    const expired = await key.signer({ now: () => 1_000_000, ttlSeconds: 60 }).sign({ agent_id: "7", match_id: "42" });
    const r = await postTask(base, task("42"), expired);
    expect(r).toMatchObject({ status: 401, json: { error: "unauthorized", message: "token has expired" } });
  });

  it("refuses a valid token for another match or another agent with 403", async () => {
    const otherMatch = await postTask(base, task("42"), await key.signer().sign({ agent_id: "7", match_id: "43" }));
    expect(otherMatch).toMatchObject({ status: 403, json: { message: "token was issued for another match" } });
    const otherAgent = await postTask(base, task("42"), await key.signer().sign({ agent_id: "8", match_id: "42" }));
    expect(otherAgent).toMatchObject({ status: 403, json: { message: "token was issued to another agent" } });
  });

  it("validates the body (400 naming the field) and skips non-YES/NO matches with 503", async () => {
    const token = await key.signer().sign({ agent_id: "7", match_id: "42" });
    const bad = await postTask(base, task("42", { version: "2.0", round: "one" }), token);
    expect(bad.status).toBe(400);
    expect(String(bad.json.message)).toMatch(/version/);
    expect(String(bad.json.message)).toMatch(/round/);
    const trivia = task("42");
    trivia.task.options = ["Sydney", "Canberra"];
    expect((await postTask(base, trivia, token)).status).toBe(503);
  });

  it("answers 408 past the time limit and 429 above max_concurrent", async () => {
    const engine = gatedEngine();
    const { url } = await startAgent({ protocol: "agora", engine, auth: { jwksUrl: jwks.jwksUrl } });
    const token = await key.signer().sign({ agent_id: "7", match_id: "1" });
    expect((await postTask(url, task("1", { time_limit_seconds: 0.2 }), token)).status).toBe(408);
    const inFlight = Array.from({ length: 5 }, () => postTask(url, task("1"), token));
    // 6 engine calls started (the timed-out one and the five): all five are admitted and waiting on the gate.
    await engine.entered(6);
    expect((await postTask(url, task("1"), token)).status).toBe(429);
    engine.release();
    expect((await Promise.all(inFlight)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  });
});
