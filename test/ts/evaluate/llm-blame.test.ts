/**
 * Issue 13 item 9 against an OpenAI-compatible stand-in server on loopback: a worker whose own text makes
 * its LLM call fail is scored at the floor (never the lenient rubric); the LLM failing for the panel is a
 * loud global fallback (warning + flag in the result and the bundle), and never mixes evaluators.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildBundle } from "../workflow/helpers/checked-bundle.js";
import { quorumStatus } from "../../../workflow/core/quorum.js";
import { DIMENSIONS, type EvaluationInput } from "../../../workflow/core/types.js";
import { decideVerdict } from "../../../workflow/core/vote.js";
import { reportsOf } from "../../../workflow/pipeline/07-resolve.js";
import { createLlmEvaluator } from "../../../workflow/evaluate/llm.js";
import { createRubricEvaluator, rubricEvaluate } from "../../../workflow/evaluate/rubric.js";
import { answer, market, records } from "../core/fixtures.js";
import { isAnswered } from "../../../workflow/core/types.js";

type Reply = { status: number; body: unknown };
let server: http.Server;
let baseURL: string;
/** Reply for a request, given the user prompt. */
let reply: (user: string) => Reply;

const GOOD = Object.fromEntries(DIMENSIONS.map((d) => [d, { score: 70, explanation: `${d} fine` }]));
const completion = (content: string | null, extra: { finish_reason?: string; refusal?: string } = {}) => ({
  id: "x",
  object: "chat.completion",
  created: 0,
  model: "m",
  choices: [
    {
      index: 0,
      finish_reason: extra.finish_reason ?? "stop",
      message: { role: "assistant", content, refusal: extra.refusal ?? null },
    },
  ],
});
const ok = (): Reply => ({ status: 200, body: completion(JSON.stringify(GOOD)) });

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const body = JSON.parse(raw) as { messages: Array<{ role: string; content: string }> };
      const r = reply(body.messages.find((x) => x.role === "user")?.content ?? "");
      res.writeHead(r.status, { "content-type": "application/json", connection: "close" });
      res.end(JSON.stringify(r.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterEach(() => server.closeAllConnections());
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const m = market(3);
function input(): EvaluationInput {
  const recs = records(m, [
    answer(true, 0.8, {
      evidence:
        "DODGER text: a long and detailed analysis of the exchange data in November 2026, with figures of 104,000 USD.",
    }),
    answer(true, 0.7),
    answer(false, 0.6),
  ]);
  return { market: m, workers: recs.filter(isAnswered) };
}
function evaluator(warnings: string[]) {
  return createLlmEvaluator({
    baseURL,
    apiKey: "k",
    model: "m",
    timeoutMs: 3_000,
    maxRetries: 1,
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 2,
    fallback: createRubricEvaluator(),
    warn: (w) => warnings.push(w),
  });
}

describe("LLM evaluator: failures are blamed", () => {
  const OWN_FAILURES: Array<[string, Reply, RegExp]> = [
    ["refusal", { status: 200, body: completion(null, { refusal: "I can't help with that." }) }, /model refused/],
    [
      "moderation error",
      {
        status: 400,
        body: {
          error: { message: "flagged by moderation", type: "invalid_request_error", code: "content_policy_violation" },
        },
      },
      /HTTP 400 \(content_policy_violation\)/,
    ],
    ["content filter", { status: 200, body: completion("{", { finish_reason: "content_filter" }) }, /content filter/],
    [
      "truncation",
      { status: 200, body: completion('{"resolutionQuality": {"score": 9', { finish_reason: "length" }) },
      /truncated output/,
    ],
    ["malformed output", { status: 200, body: completion("Sure! Here are the scores: all 100") }, /malformed output/],
  ];
  for (const [what, bad, reason] of OWN_FAILURES) {
    it(`${what} caused by one worker's text: that worker scores at the floor, never the rubric; nothing global`, async () => {
      reply = (user) => (user.includes("DODGER") ? bad : ok());
      const warnings: string[] = [];
      const inp = input();
      const r = await evaluator(warnings).evaluate(inp);
      const dodger = r.evaluations[0];
      const rubric = rubricEvaluate(inp).evaluations[0];
      for (const d of DIMENSIONS) expect(dodger.dimensions[d].score, d).toBe(0);
      expect(dodger.aggregate).toEqual({ resQuality: 0, srcQuality: 0, analysisDepth: 0 });
      // the rubric would have been lenient: the dodge must not pay
      expect(
        rubric.aggregate.resQuality + rubric.aggregate.srcQuality + rubric.aggregate.analysisDepth,
      ).toBeGreaterThan(0);
      expect(dodger.fallbackReason).toMatch(/^llm evaluation failed \(counted against the worker\): /);
      expect(dodger.fallbackReason).toMatch(reason);
      expect(dodger.dimensions.analysisDepth.explanation).toMatch(/because of this worker's text/);
      // the others keep their LLM scores; nothing global, no warning
      for (const e of r.evaluations.slice(1)) {
        expect(e.fallbackReason).toBeUndefined();
        expect(e.dimensions.timeliness.score).toBe(70);
      }
      expect(r.fallbackReason).toBeUndefined();
      expect(r.fallbackEvaluator).toBeUndefined();
      expect(warnings).toEqual([]);
    });
  }

  it("the LLM down for everyone: global rubric fallback with a warning and a flag that ends up in the bundle", async () => {
    reply = () => ({ status: 503, body: { error: { message: "overloaded" } } });
    const warnings: string[] = [];
    const inp = input();
    const run = async () => {
      const evaluation = await evaluator(warnings).evaluate(inp);
      const decision = decideVerdict({
        agentIds: inp.workers.map((w) => w.seat.agentId),
        reports: reportsOf(inp.workers, evaluation),
        history: [],
      });
      return {
        evaluation,
        bundle: buildBundle({
          market: inp.market,
          records: inp.workers,
          quorum: quorumStatus(3, 3),
          evaluation,
          decision,
        }),
      };
    };
    const { evaluation: r, bundle } = await run();
    const rubric = rubricEvaluate(inp);
    expect(r.evaluations.map((e) => e.dimensions)).toEqual(rubric.evaluations.map((e) => e.dimensions));
    expect(r.fallbackEvaluator).toEqual(createRubricEvaluator().identity);
    expect(r.fallbackReason).toMatch(
      /^GLOBAL FALLBACK: LLM evaluation failed for 3 of 3 workers \(HTTP 503 \(after 2 attempts\)\)/,
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toBe(`cresolver: WARNING: ${r.fallbackReason}`);
    const doc = bundle.document as Record<string, any>;
    expect(doc.evaluationFallbackReason).toBe(r.fallbackReason);
    expect(doc.fallbackEvaluator).toEqual(createRubricEvaluator().identity);
    // loud but still reproducible: the same inputs give the same bytes
    expect((await run()).bundle.json).toBe(bundle.json);
  });

  it("a service failure for some workers only: the whole panel is scored by the rubric (no mixed evaluators), loudly", async () => {
    reply = (user) => (user.includes("DODGER") ? ok() : { status: 500, body: { error: { message: "boom" } } });
    const warnings: string[] = [];
    const inp = input();
    const r = await evaluator(warnings).evaluate(inp);
    const rubric = rubricEvaluate(inp);
    expect(r.evaluations.map((e) => e.aggregate)).toEqual(rubric.evaluations.map((e) => e.aggregate));
    expect(r.evaluations[0].fallbackReason).toBe("llm evaluation discarded; global fallback for the panel");
    expect(r.fallbackReason).toMatch(/^GLOBAL FALLBACK: LLM evaluation failed for 2 of 3 workers \(HTTP 500/);
    expect(warnings).toHaveLength(1);
  });

  it("an own failure stays counted against the worker even when the service fails for another", async () => {
    reply = (user) =>
      user.includes("DODGER")
        ? { status: 200, body: completion(null, { refusal: "no" }) }
        : user.includes('"confidence": 0.7')
          ? { status: 502, body: {} }
          : ok();
    const warnings: string[] = [];
    const r = await evaluator(warnings).evaluate(input());
    for (const d of DIMENSIONS) expect(r.evaluations[0].dimensions[d].score).toBe(0);
    expect(r.evaluations[0].fallbackReason).toMatch(/counted against the worker/);
    expect(r.fallbackReason).toMatch(/^GLOBAL FALLBACK/);
    expect(warnings).toHaveLength(1);
  });

  it("two workers, one dodging and one hit by an outage: the dodger still scores at the floor", async () => {
    reply = (user) =>
      user.includes("DODGER") ? { status: 200, body: completion(null, { refusal: "no" }) } : { status: 503, body: {} };
    const warnings: string[] = [];
    const inp = input();
    inp.workers = inp.workers.slice(0, 2);
    const r = await evaluator(warnings).evaluate(inp);
    for (const d of DIMENSIONS) expect(r.evaluations[0].dimensions[d].score).toBe(0);
    expect(r.evaluations[1].aggregate).toEqual(rubricEvaluate(inp).evaluations[1].aggregate);
    expect(r.fallbackReason).toMatch(/^GLOBAL FALLBACK: LLM evaluation failed for 2 of 2 workers \(HTTP 503/);
    expect(warnings).toHaveLength(1);
  });

  it("every worker's call refused (the market text or the model, not one worker): nobody is blamed, rubric for all, loudly", async () => {
    reply = () => ({ status: 200, body: completion(null, { refusal: "I can't discuss this topic." }) });
    const warnings: string[] = [];
    const inp = input();
    const r = await evaluator(warnings).evaluate(inp);
    expect(r.evaluations.map((e) => e.aggregate)).toEqual(rubricEvaluate(inp).evaluations.map((e) => e.aggregate));
    for (const e of r.evaluations)
      expect(e.fallbackReason).toBe("llm evaluation failed: model refused; global fallback for the panel");
    expect(warnings).toHaveLength(1);
  });

  it("writes the global warning to stderr by default", async () => {
    reply = () => ({ status: 503, body: {} });
    const written: string[] = [];
    const original = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      await createLlmEvaluator({
        baseURL,
        apiKey: "k",
        model: "m",
        maxRetries: 0,
        fallback: createRubricEvaluator(),
      }).evaluate(input());
    } finally {
      process.stderr.write = original;
    }
    expect(written.some((w) => /^cresolver: WARNING: GLOBAL FALLBACK: /.test(w))).toBe(true);
  });
});
