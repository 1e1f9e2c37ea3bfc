/** The reference agent serving Factagora BYOA: auth, request validation, rounds 1-2, offline and LLM modes. */
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import {
  bearerMatches,
  predictionKey,
  splitRound2,
  ROUND2_MARKER as AGENT_MARKER,
} from "../../../../protocols/factagora/agent.js";
import { createReferenceAgent } from "../../../../agents/reference/server.js";
import { ROUND2_MARKER, validateFactagoraResponse } from "../../../../protocols/factagora/adapter.js";
import { SAMPLE_MINIMAL, SAMPLE_ROUND1, sampleRound2 } from "../../../../protocols/factagora/conformance.js";
import { get, startAgent, stopAll } from "../../../helpers/agents.js";
import { startStandIn, type StandIn } from "../../agents/llm-standin.js";
import { TOKEN } from "./fixtures.js";

/** auth: the Authorization header; null sends none. */
async function webhook(base: string, body: unknown, auth: string | null = `Bearer ${TOKEN}`, raw?: string) {
  const res = await fetch(`${base}/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(auth !== null ? { authorization: auth } : {}) },
    body: raw ?? JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json };
}

const agent = (extra: Parameters<typeof startAgent>[0] = {}) =>
  startAgent({ protocol: "factagora", auth: { bearerToken: TOKEN }, ...extra });

afterAll(stopAll);

describe("factagora reference agent: auth", () => {
  it.each([
    ["no header", null],
    ["wrong token", "Bearer not-the-token"],
    ["token prefix", `Bearer ${TOKEN.slice(0, -1)}`],
    ["token plus suffix", `Bearer ${TOKEN}x`],
    ["wrong scheme", `Basic ${TOKEN}`],
    ["bare token", TOKEN],
  ])("refuses %s with 401 before parsing the body", async (_name, auth) => {
    const { url } = await agent();
    const r = await webhook(url, undefined, auth, "{not json");
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ error: "Unauthorized", message: "missing or wrong bearer token" });
  });

  it("accepts the right token (scheme case-insensitive); /health stays open", async () => {
    const { url } = await agent();
    expect((await webhook(url, SAMPLE_MINIMAL, `bearer ${TOKEN}`)).status).toBe(200);
    expect((await get(url, "/health")).json).toMatchObject({ status: "ok", protocol: "factagora" });
  });

  it("refuses to start without a configured bearer token", async () => {
    const a = createReferenceAgent({ protocol: "factagora" });
    await expect(a.start({ port: 0 })).rejects.toThrow(/auth\.bearerToken/);
    await a.close();
  });

  it("bearerMatches is exact", () => {
    expect(bearerMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearerMatches(undefined, TOKEN)).toBe(false);
    expect(bearerMatches("Bearer ", "")).toBe(false);
    expect(bearerMatches(`Bearer ${TOKEN} `, TOKEN)).toBe(true);
  });
});

describe("factagora reference agent: requests", () => {
  it.each([
    ["predictionId missing", { ...SAMPLE_MINIMAL, predictionId: undefined }, "predictionId"],
    ["title blank", { ...SAMPLE_MINIMAL, title: "  " }, "title"],
    ["description a number", { ...SAMPLE_MINIMAL, description: 5 }, "description"],
    ["deadline not ISO", { ...SAMPLE_MINIMAL, deadline: "31/12/2026" }, "deadline"],
    ["deadline without zone", { ...SAMPLE_MINIMAL, deadline: "2026-12-31T23:59:59" }, "deadline"],
    ["roundNumber 0", { ...SAMPLE_MINIMAL, roundNumber: 0 }, "roundNumber"],
    ["roundNumber 11", { ...SAMPLE_MINIMAL, roundNumber: 11 }, "roundNumber"],
    ["roundNumber a string", { ...SAMPLE_MINIMAL, roundNumber: "1" }, "roundNumber"],
  ])("400 INVALID_PREDICTION for %s", async (_name, body, field) => {
    const { url } = await agent();
    const r = await webhook(url, body);
    expect(r.status).toBe(400);
    expect(r.json.code).toBe("INVALID_PREDICTION");
    expect(r.json.message).toContain(field);
  });

  it("round 2 accepts the platform's arguments leniently: human ones (agentName null) labelled, bad ones skipped, any number", async () => {
    const { url } = await agent({ persona: "analyst" });
    const first = await webhook(url, SAMPLE_ROUND1);
    const base = sampleRound2({ determination: first.json.position === "YES", confidence: first.json.confidence });
    const many = Array.from({ length: 120 }, (_, i) => ({
      agentName: `Agent ${i}`,
      position: i % 2 === 0 ? "YES" : "NO",
      confidence: 0.6,
      reasoning: `Argument ${i}.`,
      evidence: [],
    }));
    const existingArguments = [
      { agentName: null, position: "YES", confidence: 0.7, reasoning: "A human's argument." },
      { agentName: "x", position: "MAYBE", confidence: 0.5, reasoning: "r" },
      "not an object",
      null,
      { agentName: "No confidence", position: "neutral", reasoning: "lower-case position, no confidence" },
      ...many,
    ];
    const r = await webhook(url, { ...base, existingArguments });
    expect(r.status).toBe(200);
    expect(validateFactagoraResponse(r.json).violations).toEqual([]);
    const review = r.json.reactCycle.actions.find((x: { query: string }) => x.query.startsWith("Existing arg"));
    expect(review.result).toMatch(
      /Reviewed 122 argument\(s\): 61 YES, 60 NO, 1 NEUTRAL \(1 from humans; 3 malformed skipped\)/,
    );

    // Arguments alone that are all malformed still get an answer, never a 400.
    const bad = await webhook(url, { ...base, existingArguments: [{ agentName: 5 }, 7] });
    expect(bad.status).toBe(200);
    // A non-array is read as no arguments.
    expect((await webhook(url, { ...base, existingArguments: { a: 1 } })).status).toBe(200);
  });

  it("ignores unknown fields and accepts null optionals", async () => {
    const { url } = await agent();
    const r = await webhook(url, {
      ...SAMPLE_MINIMAL,
      category: null,
      existingArguments: null,
      metadata: null,
      surprise: 1,
    });
    expect(r.status).toBe(200);
  });
});

describe("factagora reference agent: offline answers", () => {
  it("round 1 replies pass every spec rule with no quality warning, deterministically", async () => {
    const { url } = await agent({ persona: "analyst" });
    const a = await webhook(url, SAMPLE_ROUND1);
    const b = await webhook(url, SAMPLE_ROUND1);
    expect(a.status).toBe(200);
    expect(a.json).toEqual(b.json);
    const v = validateFactagoraResponse(a.json);
    expect(v.violations).toEqual([]);
    expect(v.warnings).toEqual([]);
    expect(["YES", "NO"]).toContain(a.json.position);
    expect(a.json.reactCycle.actions.every((x: { type: string }) => x.type === "web_search")).toBe(true);
    expect(a.json.limitations[0]).toMatch(/Offline reference mode/);
  });

  it("round 2 defends the round-1 answer, one labelled agent_review action per challenge", async () => {
    const { url } = await agent({ persona: "contrarian" });
    const first = await webhook(url, SAMPLE_ROUND1);
    const r2 = sampleRound2({ determination: first.json.position === "YES", confidence: first.json.confidence });
    const second = await webhook(url, r2);
    expect(second.status).toBe(200);
    expect(validateFactagoraResponse(second.json).violations).toEqual([]);
    expect(second.json.position).toBe(first.json.position);
    expect(second.json.confidence).toBe(first.json.confidence);
    const reviews = second.json.reactCycle.actions.filter((x: { type: string }) => x.type === "agent_review");
    expect(reviews.map((x: { query: string }) => x.query.slice(0, 12))).toEqual([
      "Challenge 1:",
      "Challenge 2:",
      "Challenge 3:",
      "Existing arg",
    ]);
    expect(reviews[3].result).toMatch(/Reviewed 2 argument\(s\): 1 YES, 1 NO, 0 NEUTRAL/);
  });

  it("round 2 without a round-1 answer on record investigates afresh", async () => {
    const { url } = await agent();
    const r = await webhook(url, sampleRound2({ determination: true, confidence: 0.7 }));
    expect(r.status).toBe(200);
    expect(validateFactagoraResponse(r.json).violations).toEqual([]);
  });

  it("splits the round-2 description on the last marker line (the agent and the adapter share it)", () => {
    expect(AGENT_MARKER).toBe(ROUND2_MARKER);
    const d = [
      "ctx",
      ROUND2_MARKER,
      "fake",
      "Challenge 1: nope",
      ROUND2_MARKER,
      "Your round-1 answer: YES",
      "Challenge 1: a",
      "Challenge 2: b",
      "Challenge x: c",
    ].join("\n");
    expect(splitRound2(d)).toEqual({
      context: ["ctx", ROUND2_MARKER, "fake", "Challenge 1: nope"].join("\n"),
      challenges: ["a", "b"],
    });
    expect(splitRound2("plain")).toEqual({ context: "plain", challenges: [] });
    expect(predictionKey("test-123")).toBe(predictionKey("test-123"));
    expect(predictionKey("test-123")).not.toBe(predictionKey("test-124"));
  });
});

describe("factagora reference agent: LLM mode", () => {
  let standIn: StandIn;
  beforeEach(async () => {
    await standIn?.close();
    standIn = await startStandIn();
  });
  afterAll(async () => standIn?.close());

  const llmAgent = () =>
    agent({ mode: "llm", llm: { baseURL: standIn.baseURL, apiKey: "sk-test", model: "standin-model" } });

  it("answers from the model in the protocol's format (round 1 and round 2)", async () => {
    standIn.reply = (req) => {
      const schemaName = req.body.response_format.json_schema.name as string;
      if (schemaName === "market_finding") {
        return {
          content: JSON.stringify({
            determination: false,
            confidence: 0.8,
            evidence:
              "No lab has shown general capability across domains. Compute estimates put AGI after 2030. Alignment is unsolved.",
            sources: ["https://arxiv.org/abs/2001.08361", "Metaculus AGI forecast"],
          }),
        };
      }
      const n = (req.body.response_format.json_schema.schema.properties.responses.minItems as number) ?? 0;
      return {
        content: JSON.stringify({ responses: Array.from({ length: n }, (_, i) => `Model reply ${i + 1} holding NO.`) }),
      };
    };
    const { url } = await llmAgent();
    const r1 = await webhook(url, SAMPLE_ROUND1);
    expect(r1.status).toBe(200);
    expect(validateFactagoraResponse(r1.json).violations).toEqual([]);
    expect(r1.json.position).toBe("NO");
    expect(r1.json.confidence).toBe(0.8);
    expect(r1.json.reactCycle.evidence.map((e: { type: string }) => e.type)).toEqual(["link", "citation", "data"]);
    expect(r1.json.reactCycle.observations).toHaveLength(3);

    const r2 = await webhook(url, sampleRound2({ determination: false, confidence: 0.8 }));
    expect(r2.status).toBe(200);
    const reviews = r2.json.reactCycle.actions.filter((x: { type: string }) => x.type === "agent_review");
    expect(reviews.slice(0, 3).map((x: { result: string }) => x.result)).toEqual([
      "Model reply 1 holding NO.",
      "Model reply 2 holding NO.",
      "Model reply 3 holding NO.",
    ]);
    expect(standIn.requests).toHaveLength(2); // round 2 reused the remembered finding
  });

  it("an upstream failure is a spec 500 {error, message, code: LLM_API_ERROR}", async () => {
    standIn.reply = () => ({ status: 503, json: { error: { message: "overloaded" } } });
    const { url } = await llmAgent();
    const r = await webhook(url, SAMPLE_MINIMAL);
    expect(r.status).toBe(500);
    expect(r.json).toMatchObject({ error: "Internal agent error", code: "LLM_API_ERROR" });
    expect(JSON.stringify(r.json)).not.toContain("sk-test");
  });
});
