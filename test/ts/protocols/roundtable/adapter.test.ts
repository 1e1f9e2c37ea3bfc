/**
 * The round-table adapter against the reference agent's round-table module on loopback (real HTTP, both
 * engine modes, bearer auth), and the reference agent's own request handling.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOfflineEngine } from "../../../../agents/reference/engine/offline.js";
import { createAdapterRegistry, defaultAdapters } from "../../../../protocols/index.js";
import { anyOriginStore } from "../../workflow/helpers/credentials.js";
import {
  answerConfidence,
  analysisReplySchema,
  createRoundtableAdapter,
  taskId,
  voteReplySchema,
} from "../../../../protocols/roundtable/adapter.js";
import type {
  AskRequest,
  ChallengeRequest,
  ReviewProposal,
  WorkerProtocolAdapter,
  WorkerSeat,
} from "../../../../workflow/core/types.js";
import { createSafeHttpClient, type SafeHttpClient } from "../../../../workflow/http/index.js";
import { post, startAgent, stopAll } from "../../../helpers/agents.js";
import { startStandIn, type StandIn } from "../../agents/llm-standin.js";

const seat: WorkerSeat = { address: "0x0000000000000000000000000000000000000007", agentId: 7n, stake: 1n };
const ask: AskRequest = {
  marketId: 42n,
  question: "Will the 2026 official annual inflation figure for the euro area exceed 3%?",
  deadline: 1_798_761_600,
  context: "Resolves on the first Eurostat estimate.",
};
const TOKEN = "rt-agent-secret-token-0123456789";

let http: SafeHttpClient;
let adapter: WorkerProtocolAdapter;

beforeAll(() => {
  http = createSafeHttpClient({ allowLoopback: true });
  adapter = createRoundtableAdapter({ http, timeoutMs: 10_000 });
});
afterAll(async () => {
  await stopAll();
  await http.close();
});

function challengeRequest(own: { determination: boolean; confidence: number }, challenges: string[]): ChallengeRequest {
  return {
    ask,
    challenges,
    own: { ...own, evidence: "own", sources: [] },
    peers: [
      {
        determination: !own.determination,
        confidence: 0.7,
        evidence: "Flash estimates point the other way.",
        sources: ["https://a.example/flash"],
      },
      {
        determination: own.determination,
        confidence: 0.6,
        evidence: "Same reading as yours.",
        sources: ["https://b.example/same"],
      },
    ],
  };
}
const CHALLENGES = [
  "Some other workers reached the opposite conclusion. What is the strongest argument for the other side, and why does your evidence outweigh it?",
  "Your confidence is 70%. What would need to change for you to reverse your determination?",
  "Identify the weakest point in your analysis and defend it.",
];

describe("round-table adapter ↔ reference agent (offline engine)", () => {
  it("ask: the engine's determination, read from the DETERMINATION tag; confidence weighted by evidence levels", async () => {
    const { url } = await startAgent({ protocol: "roundtable", persona: "skeptic", name: "rt-skeptic" });
    const r = await adapter.ask({ url, protocol: "roundtable" }, seat, ask);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const expected = createOfflineEngine({ persona: "skeptic" }).investigateSync({
      marketId: ask.marketId,
      question: ask.question,
      deadline: ask.deadline,
    });
    expect(r.value.determination).toBe(expected.determination);
    // The agent tags its claims [INDICATED] and counter-evidence [POSSIBLE]: the confidence is lower than reported.
    expect(r.value.confidence).toBeLessThan(expected.confidence);
    expect(r.value.confidence).toBeGreaterThan(0);
    expect(r.value.sources).toEqual(expect.arrayContaining([expected.sources[0]]));
    expect(r.value.evidence).toContain(`DETERMINATION: ${expected.determination ? "YES" : "NO"}`);
    expect(r.value.extras).toMatchObject({
      protocol: "roundtable",
      agentName: "rt-skeptic",
      determinationBasis: "tag",
      reportedConfidence: expected.confidence,
    });
    expect(r.value.extras).not.toHaveProperty("injection");
    expect(r.attempts).toBe(1);
  });

  it("challenge: one reply per resolver challenge, answered directly; review: approve on its own side, dissent otherwise", async () => {
    const { url } = await startAgent({ protocol: "roundtable", persona: "analyst" });
    const endpoint = { url, protocol: "roundtable" };
    const asked = await adapter.ask(endpoint, seat, ask);
    if (!asked.ok) throw new Error(asked.failure.message);
    const own = asked.value;

    const c = await adapter.challenge(endpoint, seat, challengeRequest(own, CHALLENGES));
    expect(c.ok).toBe(true);
    if (!c.ok) return;
    expect(c.value).toHaveLength(3);
    c.value.forEach((reply, i) => {
      expect(reply).toMatch(/^(Challenge|Concession) to resolver on "/);
      expect(reply).toContain(CHALLENGES[i].slice(0, 40));
    });
    // The agent also engaged the peers (challenging the opposite side, conceding to its own): appended.
    expect(c.value.join("\n")).toMatch(/Challenge to peer-1/);
    expect(c.value.join("\n")).toMatch(/Concession to peer-2/);

    const proposal = (resolution: boolean): ReviewProposal => ({
      ask,
      resolution,
      tally: { yesWeight: 1.2, noWeight: 0.4, margin: 0.5, yesVoters: 2, noVoters: 1 },
      findings: challengeRequest(own, []).peers,
    });
    const approve = await adapter.review!(endpoint, seat, proposal(own.determination));
    expect(approve.ok && approve.value).toMatchObject({
      approve: true,
      conditions: [expect.stringMatching(/assumes no material development/)],
    });
    expect(approve.ok && approve.value.dissentReason).toBeUndefined();
    const dissent = await adapter.review!(endpoint, seat, proposal(!own.determination));
    expect(dissent.ok && dissent.value).toMatchObject({
      approve: false,
      conditions: [],
      dissentReason: expect.stringMatching(/^My analysis concluded/),
    });
  });

  it("a challenge or vote for a task the agent has not analysed (e.g. after a restart) answers from the same engine", async () => {
    const { url } = await startAgent({ protocol: "roundtable", persona: "optimist" });
    const endpoint = { url, protocol: "roundtable" };
    const expected = createOfflineEngine({ persona: "optimist" }).investigateSync({
      marketId: 0n,
      question: ask.question,
    });
    const v = await adapter.review!(endpoint, seat, {
      ask,
      resolution: expected.determination,
      tally: { yesWeight: 1, noWeight: 0, margin: 1, yesVoters: 1, noVoters: 0 },
      findings: [],
    });
    expect(v.ok && v.value.approve).toBe(true);
    const c = await adapter.challenge(endpoint, seat, { ...challengeRequest(expected, CHALLENGES), peers: [] });
    expect(c.ok && c.value).toHaveLength(3);
  });

  it("bearer auth: the configured token is sent and accepted; a wrong or missing token is refused (failure kind auth)", async () => {
    const { url } = await startAgent({ protocol: "roundtable", auth: { bearerToken: TOKEN } });
    const endpoint = { url, protocol: "roundtable" };
    const good = createRoundtableAdapter({
      http,
      timeoutMs: 10_000,
      credentials: anyOriginStore({ "7": { bearerToken: TOKEN } }),
    });
    expect((await good.ask(endpoint, seat, ask)).ok).toBe(true);
    const wrong = createRoundtableAdapter({
      http,
      timeoutMs: 10_000,
      credentials: anyOriginStore({ "7": { bearerToken: `${TOKEN}-old` } }),
    });
    for (const a of [wrong, adapter]) {
      const r = await a.ask(endpoint, seat, ask);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.failure.kind).toBe("auth");
      expect(r.failure.message).toMatch(/refused authorization \(401\)/);
      expect(r.failure.message).not.toContain(TOKEN);
    }
    // Credentials are per agent id: another seat gets no header.
    const other = await good.ask(endpoint, { ...seat, agentId: 8n }, ask);
    expect(!other.ok && other.failure.kind).toBe("auth");
  });

  it('is selected by the default adapters for protocol "roundtable", with credentials passed through', async () => {
    const { url } = await startAgent({ protocol: "roundtable", auth: { bearerToken: TOKEN } });
    const registry = createAdapterRegistry(
      defaultAdapters({ http, credentials: anyOriginStore({ "7": { bearerToken: TOKEN } }) }),
    );
    const rt = registry.get("RoundTable");
    expect(rt?.protocol).toBe("roundtable");
    expect(typeof rt?.review).toBe("function");
    expect((await rt!.ask({ url, protocol: "roundtable" }, seat, ask)).ok).toBe(true);
  });
});

describe("reference agent: round-table requests", () => {
  it("serves the spec's shapes and validates requests (400 naming the field)", async () => {
    const { url } = await startAgent({ protocol: "roundtable" });
    const res = await post(url, "/analyze", {
      task_id: "t1",
      content: "Will it rain in Paris on 1 May 2027?",
      constraints: ["Must cite evidence"],
    });
    expect(res.status).toBe(200);
    const parsed = analysisReplySchema.safeParse(res.json);
    expect(parsed.success).toBe(true);
    expect(res.json.observations[0].finding).toMatch(/^DETERMINATION: (YES|NO)$/);
    expect(answerConfidence(parsed.data!).strength).toBeLessThan(1);

    const bad = await post(url, "/analyze", { task_id: 5, content: "" });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/task_id: must be a string/);
    expect(bad.json.message).toMatch(/content: must not be empty/);
    expect((await post(url, "/challenge", { task_id: "t1", content: "x" })).json.message).toMatch(
      /other_analyses: required/,
    );
    expect((await post(url, "/vote", { task_id: "t1", content: "x", synthesis: {} })).json.message).toMatch(
      /synthesis.recommended_direction: required/,
    );

    // The spec's own sample request is accepted (no context.question: the content is the question).
    const spec = await post(url, "/vote", {
      task_id: "a1b2c3d4e5f6",
      content: "Review the authentication module for security vulnerabilities",
      synthesis: {
        recommended_direction: "Fix SQL injection vulnerability",
        key_findings: [],
        trade_offs: [],
        minority_views: [],
      },
    });
    expect(spec.status).toBe(200);
    expect(spec.json).toMatchObject({
      approve: false,
      dissent_reason: expect.stringMatching(/does not name a single YES or NO/),
    });
  });

  it("/vote with an empty recommended_direction (the platform's synthesis has none) answers a dissent, not 400", async () => {
    const { url } = await startAgent({ protocol: "roundtable" });
    for (const direction of ["", "   ", null]) {
      const res = await post(url, "/vote", {
        task_id: "t-empty",
        content: "Will it rain in Paris on 1 May 2027?",
        synthesis: { recommended_direction: direction, key_findings: [], trade_offs: [], minority_views: [] },
      });
      expect(res.status, JSON.stringify(direction)).toBe(200);
      expect(voteReplySchema.safeParse(res.json).success).toBe(true);
      expect(res.json).toMatchObject({
        approve: false,
        conditions: [],
        dissent_reason: expect.stringMatching(/recommends no direction, so there is nothing to approve/),
      });
    }
  });

  it("the bearer check runs before the body is read, and /health stays open", async () => {
    const { url } = await startAgent({ protocol: "roundtable", auth: { bearerToken: TOKEN } });
    const res = await fetch(`${url}/analyze`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer nope" },
      body: "{not json",
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await res.json()).toEqual({ error: "unauthorized", message: "missing or invalid bearer token" });
    expect((await fetch(`${url}/health`)).status).toBe(200);
  });
});

describe("round-table adapter ↔ reference agent (LLM engine on an OpenAI-compatible stand-in)", () => {
  let standIn: StandIn;
  beforeAll(async () => {
    standIn = await startStandIn();
    standIn.reply = (req) => {
      const format = req.body.response_format?.json_schema;
      if (format?.name === "challenge_responses") {
        const n = format.schema.properties.responses.minItems as number;
        return {
          content: JSON.stringify({
            responses: Array.from(
              { length: n },
              (_v, i) => `Reply ${i + 1}: the Eurostat flash estimates still support my reading.`,
            ),
          }),
        };
      }
      return {
        content: JSON.stringify({
          determination: false,
          confidence: 0.72,
          evidence:
            "Core inflation fell all year. The ECB projects 2.4% for 2026. However, energy prices could still push the figure up.",
          sources: ["https://www.ecb.europa.eu/pub/projections", "https://ec.europa.eu/eurostat"],
        }),
      };
    };
  });
  afterAll(async () => {
    await standIn.close();
  });

  it("asks, challenges and reviews through the model", async () => {
    const { url } = await startAgent({
      protocol: "roundtable",
      mode: "llm",
      llm: { baseURL: standIn.baseURL, apiKey: "sk-standin", model: "standin-model" },
    });
    const endpoint = { url, protocol: "roundtable" };
    const a = await adapter.ask(endpoint, seat, ask);
    expect(a.ok && a.value.determination).toBe(false);
    expect(a.ok && a.value.sources).toContain("https://www.ecb.europa.eu/pub/projections");
    const c = await adapter.challenge(
      endpoint,
      seat,
      challengeRequest({ determination: false, confidence: 0.72 }, CHALLENGES),
    );
    expect(c.ok && c.value).toHaveLength(3);
    expect(c.ok && c.value[0]).toMatch(/Eurostat flash estimates/);
    const v = await adapter.review!(endpoint, seat, {
      ask,
      resolution: false,
      tally: { yesWeight: 0, noWeight: 1, margin: 1, yesVoters: 0, noVoters: 1 },
      findings: [],
    });
    expect(v.ok && v.value.approve).toBe(true);
    // The market question reached the model (as data).
    expect(JSON.stringify(standIn.requests[0].body)).toContain("euro area exceed 3%");
    expect(taskId(ask.marketId)).toBe("cresolver-market-42");
  });
});
