/**
 * The reference agent serving the CRE A2A protocol in offline mode: real servers on 127.0.0.1, real HTTP.
 */
import { createHash } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { keyTerms } from "../../../agents/kit/text.js";
import type { PersonaName } from "../../../agents/kit/answer-engine.js";
import { get, post, startAgent, stopAgent, stopAll } from "../../helpers/agents.js";
import { QUESTIONS } from "./questions.js";

afterAll(stopAll);

const REFERENCE_HOSTS = new Set([
  "en.wikipedia.org",
  "www.reuters.com",
  "apnews.com",
  "www.bbc.co.uk",
  "www.britannica.com",
  "scholar.google.com",
  "www.metaculus.com",
  "ourworldindata.org",
]);

function expectAnswerShape(
  a: unknown,
): asserts a is { determination: boolean; confidence: number; evidence: string; sources: string[] } {
  expect(a).toBeTypeOf("object");
  const x = a as Record<string, unknown>;
  expect(Object.keys(x).sort()).toEqual(["confidence", "determination", "evidence", "sources"]);
  expect(typeof x.determination).toBe("boolean");
  expect(typeof x.confidence).toBe("number");
  expect(x.confidence as number).toBeGreaterThanOrEqual(0);
  expect(x.confidence as number).toBeLessThanOrEqual(1);
  expect(typeof x.evidence).toBe("string");
  expect(Array.isArray(x.sources)).toBe(true);
  expect((x.sources as unknown[]).length).toBeGreaterThanOrEqual(1);
}

describe("health", () => {
  it("reports status, name, protocol and mode", async () => {
    const { url } = await startAgent({ persona: "skeptic", name: "agent-s" });
    const res = await get(url, "/health");
    expect(res.status).toBe(200);
    expect(res.contentType).toMatch(/^application\/json/);
    expect(res.json).toEqual({
      status: "ok",
      name: "agent-s",
      protocol: "cresolver",
      mode: "offline",
      persona: "skeptic",
    });
  });

  it("binds to 127.0.0.1 by default and names itself after the persona", async () => {
    const { url } = await startAgent({ persona: "optimist" });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await get(url, "/health")).json.name).toBe("cresolver-reference-optimist");
  });
});

describe("POST /a2a/resolve", () => {
  it("answers with the protocol's schema: structured evidence, 2-4 https sources on reference sites built from key terms", async () => {
    const { url } = await startAgent();
    for (const [i, question] of QUESTIONS.slice(0, 12).entries()) {
      const res = await post(url, "/a2a/resolve", { market_id: i, question, deadline: 1_798_761_599 });
      expect(res.status).toBe(200);
      expect(res.contentType).toMatch(/^application\/json/);
      expectAnswerShape(res.json);
      const { evidence, sources } = res.json;
      const terms = keyTerms(question);
      expect(terms.length).toBeGreaterThan(0);
      // mentions the question's key terms, hedges, and refers to a date
      for (const t of terms.slice(0, 3)) expect(evidence.toLowerCase()).toContain(t);
      expect(evidence).toMatch(/uncertain|probabilistic/i);
      expect(evidence).toContain("2026-12-31");
      expect(evidence.split("\n").length).toBeGreaterThanOrEqual(6);
      expect(sources.length).toBeGreaterThanOrEqual(2);
      expect(sources.length).toBeLessThanOrEqual(4);
      expect(new Set(sources).size).toBe(sources.length);
      for (const s of sources) {
        const u = new URL(s);
        expect(u.protocol).toBe("https:");
        expect(REFERENCE_HOSTS.has(u.hostname)).toBe(true);
        expect(decodeURIComponent(u.search).toLowerCase()).toContain(terms[0]);
      }
    }
  });

  it("without a deadline, refers to the years the question mentions", async () => {
    const { url } = await startAgent();
    const res = await post(url, "/a2a/resolve", {
      market_id: 1,
      question: "Will SpaceX land humans on Mars before 2030?",
    });
    expect(res.status).toBe(200);
    expect(res.json.evidence).toContain("2030");
  });

  it("accepts market_id as a number or a decimal string (any uint256), ignores unknown fields and a null context", async () => {
    const { url } = await startAgent();
    const q = QUESTIONS[3];
    const a = await post(url, "/a2a/resolve", { market_id: 42, question: q });
    const b = await post(url, "/a2a/resolve", {
      market_id: "42",
      question: q,
      context: null,
      extra: { anything: true },
    });
    const big = await post(url, "/a2a/resolve", {
      market_id: ((1n << 256n) - 1n).toString(),
      question: q,
      context: "some context",
    });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(big.status).toBe(200);
    expect(b.json).toEqual(a.json);
    expect(big.json.determination).toBe(a.json.determination);
  });

  it("is deterministic: same question and persona → identical answer across restarts, markets and spellings", async () => {
    const sample = QUESTIONS.slice(10, 20);
    const first = await startAgent({ persona: "contrarian" });
    const before = [];
    for (const question of sample)
      before.push((await post(first.url, "/a2a/resolve", { market_id: 7, question })).json);
    await stopAgent(first.agent);

    const second = await startAgent({ persona: "contrarian" });
    for (const [i, question] of sample.entries()) {
      const again = await post(second.url, "/a2a/resolve", { market_id: 7, question });
      expect(again.json).toEqual(before[i]);
      // another market, same question: same answer (offline answers depend on the question only)
      expect((await post(second.url, "/a2a/resolve", { market_id: 900 + i, question })).json).toEqual(before[i]);
    }
    // normalisation: case, punctuation and spacing do not change the determination or confidence
    const spelled = await post(second.url, "/a2a/resolve", {
      market_id: 7,
      question: `  ${sample[0].toUpperCase().replace("?", "")}  !!`,
    });
    expect(spelled.json.determination).toBe(before[0].determination);
    expect(spelled.json.confidence).toBe(before[0].confidence);
    expect(spelled.json.sources).toEqual(before[0].sources);
  });

  it("keeps its answers forever (golden values)", async () => {
    const question = "Will bitcoin reach 200k by end of 2026?";
    const expected: Record<PersonaName, [boolean, number, string]> = {
      analyst: [false, 0.93, "d6658a57c0a49b14b056049768ae733e0a8a565b264b7f1a3f1e74a1d4998105"],
      skeptic: [false, 0.88, "2d33d2e54480c5970c30792b7c9fd398777ad25f5d61e18b42cd4defb3dcadbd"],
      contrarian: [false, 0.83, "f8ace53b70994bc46ce5b332768a00ce295e783cb0181fed332f91220447ded0"],
      optimist: [false, 0.78, "50d300224697bc4dfb5232328d929b6c5ce137e90a41aa0821071d38e42c01b5"],
    };
    for (const persona of Object.keys(expected) as PersonaName[]) {
      const { url } = await startAgent({ persona });
      const res = await post(url, "/a2a/resolve", { market_id: 42, question, deadline: 1_798_761_599 });
      const [determination, confidence, digest] = expected[persona];
      expect([res.json.determination, res.json.confidence]).toEqual([determination, confidence]);
      expect(createHash("sha256").update(res.text).digest("hex")).toBe(digest);
    }
  });
});

describe("personas", () => {
  const personas: PersonaName[] = ["analyst", "skeptic", "contrarian", "optimist"];

  async function panelAnswers(): Promise<Record<PersonaName, boolean[]>> {
    const agents = await Promise.all(personas.map((persona) => startAgent({ persona })));
    const out = {} as Record<PersonaName, boolean[]>;
    for (const [i, persona] of personas.entries()) {
      out[persona] = [];
      for (const [m, question] of QUESTIONS.entries()) {
        const res = await post(agents[i].url, "/a2a/resolve", { market_id: m, question });
        expect(res.status).toBe(200);
        out[persona].push(res.json.determination);
      }
    }
    await Promise.all(agents.map((a) => stopAgent(a.agent)));
    return out;
  }

  it("a 3-persona panel agrees on most of 50 questions but not on all; each persona has its own rule", async () => {
    const answers = await panelAnswers();
    const n = QUESTIONS.length;
    const unanimous3 = QUESTIONS.filter(
      (_, i) => answers.analyst[i] === answers.skeptic[i] && answers.skeptic[i] === answers.contrarian[i],
    ).length;
    expect(unanimous3).toBeGreaterThan(n / 2);
    expect(unanimous3).toBeLessThan(n);

    // every persona departs from the analyst somewhere, and the skeptic and optimist depart in opposite directions
    for (const p of ["skeptic", "contrarian", "optimist"] as const) {
      expect(answers[p].some((d, i) => d !== answers.analyst[i])).toBe(true);
    }
    const skepticDepartures = answers.skeptic.filter((d, i) => d !== answers.analyst[i]);
    const optimistDepartures = answers.optimist.filter((d, i) => d !== answers.analyst[i]);
    expect(skepticDepartures.every((d) => d === false)).toBe(true);
    expect(optimistDepartures.every((d) => d === true)).toBe(true);

    // the panel's majority mostly matches the analyst's (the base signal): disagreement is the exception
    const majorityMatches = QUESTIONS.filter((_, i) => {
      const yes = [answers.analyst[i], answers.skeptic[i], answers.contrarian[i]].filter(Boolean).length;
      return yes >= 2 === answers.analyst[i];
    }).length;
    expect(majorityMatches).toBeGreaterThanOrEqual(Math.ceil(0.8 * n));
    // and the questions are not all answered the same way
    expect(answers.analyst.filter(Boolean).length).toBeGreaterThan(10);
    expect(answers.analyst.filter((d) => !d).length).toBeGreaterThan(10);
  });
});

describe("POST /a2a/challenge", () => {
  const CHALLENGES = [
    "Other workers reached the opposite conclusion. What specific evidence makes you confident in your answer?",
    "Your confidence seems high. What would need to change for you to reverse your determination?",
    "Identify the weakest point in your analysis and defend it, especially regarding regulatory approval.",
  ];

  it("returns exactly one on-topic reply per challenge, for 1 to 10 challenges", async () => {
    const { url } = await startAgent();
    const question = QUESTIONS[0];
    expect((await post(url, "/a2a/resolve", { market_id: 1, question })).status).toBe(200);
    for (const n of [1, 3, 10]) {
      const challenges = Array.from({ length: n }, (_, i) => CHALLENGES[i % CHALLENGES.length]);
      const res = await post(url, "/a2a/challenge", { challenges });
      expect(res.status).toBe(200);
      expect(Object.keys(res.json)).toEqual(["responses"]);
      expect(res.json.responses).toHaveLength(n);
      for (const r of res.json.responses) {
        expect(typeof r).toBe("string");
        expect(r.toLowerCase()).toContain("bitcoin");
      }
    }
    const res = await post(url, "/a2a/challenge", { challenges: CHALLENGES });
    expect(res.json.responses[0]).toMatch(/other workers/i);
    expect(res.json.responses[1]).toMatch(/reverse/i);
    expect(res.json.responses[2]).toMatch(/weakest/i);
    expect(res.json.responses[2]).toMatch(/regulatory|approval/i);
  });

  it("ties the defence to the market named by market_id, else to the latest answer", async () => {
    const { url } = await startAgent();
    await post(url, "/a2a/resolve", { market_id: 1, question: "Will bitcoin reach 200k by end of 2026?" });
    await post(url, "/a2a/resolve", { market_id: "2", question: "Will Brazil win the 2026 FIFA World Cup?" });
    const byId = await post(url, "/a2a/challenge", { market_id: 1, challenges: ["Why are you confident?"] });
    expect(byId.json.responses[0].toLowerCase()).toContain("bitcoin");
    const latest = await post(url, "/a2a/challenge", { challenges: ["Why are you confident?"] });
    expect(latest.json.responses[0].toLowerCase()).toContain("brazil");
    const unknown = await post(url, "/a2a/challenge", {
      market_id: 99,
      challenges: ["a", "Why so sure about inflation?"],
    });
    expect(unknown.status).toBe(200);
    expect(unknown.json.responses).toHaveLength(2);
    expect(unknown.json.responses[1]).toMatch(/no determination on record for market 99/);
  });

  it("replies without a prior answer too (one per challenge), and defends or concedes by persona", async () => {
    const fresh = await startAgent();
    const res = await post(fresh.url, "/a2a/challenge", { challenges: CHALLENGES });
    expect(res.status).toBe(200);
    expect(res.json.responses).toHaveLength(3);

    // Find a question where the skeptic answers YES (it concedes on YES) and one where it answers NO (it defends).
    const skeptic = await startAgent({ persona: "skeptic" });
    const seen = new Set<boolean>();
    for (const [m, question] of QUESTIONS.entries()) {
      const a = await post(skeptic.url, "/a2a/resolve", { market_id: m, question });
      if (seen.has(a.json.determination)) continue;
      seen.add(a.json.determination);
      const c = await post(skeptic.url, "/a2a/challenge", { market_id: m, challenges: ["Defend your answer."] });
      if (a.json.determination) expect(c.json.responses[0]).toMatch(/concede|accept/i);
      else expect(c.json.responses[0]).toMatch(/maintain|stands|hold my position/i);
      if (seen.size === 2) break;
    }
    expect(seen.size).toBe(2);
  });
});

describe("bad requests", () => {
  const q = "Will it rain in Paris on 1 May 2026?";
  const bad: Array<[string, string, unknown, RegExp]> = [
    ["missing question", "/a2a/resolve", { market_id: 1 }, /^question: required/],
    ["question of the wrong type", "/a2a/resolve", { market_id: 1, question: 5 }, /^question: must be a string/],
    ["blank question", "/a2a/resolve", { market_id: 1, question: "   " }, /^question: must not be empty/],
    [
      "question over 4,000 chars",
      "/a2a/resolve",
      { market_id: 1, question: "x".repeat(4_001) },
      /^question: must be at most 4000/,
    ],
    [
      "context over 20,000 chars",
      "/a2a/resolve",
      { market_id: 1, question: q, context: "c".repeat(20_001) },
      /^context: must be at most 20000/,
    ],
    [
      "context of the wrong type",
      "/a2a/resolve",
      { market_id: 1, question: q, context: ["x"] },
      /^context: must be a string/,
    ],
    ["missing market_id", "/a2a/resolve", { question: q }, /^market_id: required/],
    [
      "negative market_id",
      "/a2a/resolve",
      { market_id: -1, question: q },
      /^market_id: must be a non-negative integer/,
    ],
    [
      "fractional market_id",
      "/a2a/resolve",
      { market_id: 1.5, question: q },
      /^market_id: must be a non-negative integer/,
    ],
    ["unsafe numeric market_id", "/a2a/resolve", { market_id: 2 ** 53, question: q }, /^market_id: .*decimal string/],
    [
      "non-decimal string market_id",
      "/a2a/resolve",
      { market_id: "0x10", question: q },
      /^market_id: must be a decimal string/,
    ],
    [
      "market_id above uint256",
      "/a2a/resolve",
      { market_id: (1n << 256n).toString(), question: q },
      /^market_id: must be a decimal string/,
    ],
    [
      "boolean market_id",
      "/a2a/resolve",
      { market_id: true, question: q },
      /^market_id: must be a non-negative integer/,
    ],
    [
      "deadline of the wrong type",
      "/a2a/resolve",
      { market_id: 1, question: q, deadline: "tomorrow" },
      /^deadline: must be a number/,
    ],
    [
      "negative deadline",
      "/a2a/resolve",
      { market_id: 1, question: q, deadline: -5 },
      /^deadline: must not be negative/,
    ],
    ["array body", "/a2a/resolve", [q], /^body: must be a JSON object/],
    ["missing challenges", "/a2a/challenge", {}, /^challenges: required/],
    ["challenges not an array", "/a2a/challenge", { challenges: "why?" }, /^challenges: must be an array/],
    ["no challenges", "/a2a/challenge", { challenges: [] }, /^challenges: must contain at least 1/],
    [
      "too many challenges",
      "/a2a/challenge",
      { challenges: Array.from({ length: 11 }, (_, i) => `challenge ${i}`) },
      /^challenges: must contain at most 10/,
    ],
    ["a challenge of the wrong type", "/a2a/challenge", { challenges: ["ok", 3] }, /^challenges\.1: must be a string/],
    [
      "a challenge over 4,000 chars",
      "/a2a/challenge",
      { challenges: ["y".repeat(4_001)] },
      /^challenges\.0: must be at most 4000/,
    ],
    [
      "a bad optional market_id",
      "/a2a/challenge",
      { challenges: ["why?"], market_id: "abc" },
      /^market_id: must be a decimal string/,
    ],
  ];

  it.each(bad)("%s → 400 naming the field", async (_name, path, body, message) => {
    const { url } = await startAgent();
    const res = await post(url, path, body);
    expect(res.status).toBe(400);
    expect(res.contentType).toMatch(/^application\/json/);
    expect(res.json.error).toBe("invalid_request");
    expect(res.json.message).toMatch(message);
    expect(res.text).not.toMatch(/\bat .*\.(ts|js):\d+/);
  });

  it("reports every problem at once", async () => {
    const { url } = await startAgent();
    const res = await post(url, "/a2a/resolve", { market_id: -1, question: "", deadline: "x" });
    expect(res.status).toBe(400);
    expect(res.json.issues.map((i: { path: string }) => i.path)).toEqual(["market_id", "question", "deadline"]);
  });

  it("malformed JSON → 400; wrong content type → 415; unknown route → 404; all JSON", async () => {
    const { url } = await startAgent();
    const malformed = await post(url, "/a2a/resolve", undefined, { raw: '{"market_id": 1, "question": ' });
    expect(malformed.status).toBe(400);
    expect(malformed.json.error).toBe("invalid_request");
    const text = await post(url, "/a2a/resolve", undefined, { raw: "market_id=1", contentType: "text/plain" });
    expect(text.status).toBe(415);
    expect(text.json.error).toBe("unsupported_media_type");
    const missing = await get(url, "/a2a/unknown");
    expect(missing.status).toBe(404);
    expect(missing.json.error).toBe("not_found");
  });

  it("a body over the 64 KiB limit → 413 JSON, and the agent keeps serving", async () => {
    const { url } = await startAgent();
    const res = await post(url, "/a2a/resolve", { market_id: 1, question: q, context: "z".repeat(70_000) });
    expect(res.status).toBe(413);
    expect(res.json.error).toBe("payload_too_large");
    expect((await post(url, "/a2a/resolve", { market_id: 1, question: q })).status).toBe(200);
  });
});
