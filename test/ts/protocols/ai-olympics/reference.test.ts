import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebhookVerifier } from "../../../../protocols/ai-olympics/agent.js";
import {
  createAiOlympicsAdapter,
  buildTurnRequest,
  askTaskPrompt,
  initialPageState,
  signTurnRequest,
} from "../../../../protocols/ai-olympics/adapter.js";
import { anyOriginStore } from "../../workflow/helpers/credentials.js";
import { createSafeHttpClient, type SafeHttpClient } from "../../../../workflow/http/index.js";
import type { WorkerProtocolAdapter } from "../../../../workflow/core/types.js";
import { startAgent, stopAll } from "../../../helpers/agents.js";
import { startStandIn, type StandIn } from "../../agents/llm-standin.js";
import { startDns, type TestDns } from "../../workflow/helpers/dns.js";
import { challengeRequest, credentials, request, SECRET, seat } from "./helpers.js";

const endpoint = (url: string) => ({ url, protocol: "ai-olympics" });

describe("ai-olympics adapter against the reference agent (offline)", () => {
  let http: SafeHttpClient;
  let actionHttp: SafeHttpClient;
  let dns: TestDns;
  let adapter: WorkerProtocolAdapter;
  let url: string;

  beforeAll(async () => {
    // Every name is NXDOMAIN: the offline agent's navigate to its (public) source fails fast, offline.
    dns = await startDns({});
    http = createSafeHttpClient({ allowLoopback: true });
    actionHttp = createSafeHttpClient({ dnsServers: [dns.server] });
    adapter = createAiOlympicsAdapter({ http, actionHttp, credentials, turnTimeoutMs: 5_000 });
    const started = await startAgent({ protocol: "ai-olympics", persona: "analyst", auth: { hmacSecret: SECRET } });
    url = `${started.url}/webhook`;
  });
  afterAll(async () => {
    await stopAll();
    await http.close();
    await actionHttp.close();
    await dns.close();
  });

  it("asks: navigate on turn 1 (its failure recorded and fed back), done on turn 2", async () => {
    const r = await adapter.ask(endpoint(url), seat, request);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.attempts).toBe(2);
    expect(typeof r.value.determination).toBe("boolean");
    expect(r.value.confidence).toBeGreaterThan(0);
    expect(r.value.evidence.length).toBeGreaterThan(100);
    expect(r.value.sources.length).toBeGreaterThan(0);
    const extras = r.value.extras as any;
    expect(extras.protocol).toBe("ai-olympics");
    expect(extras.turns).toBe(2);
    expect(extras.actions[0]).toMatchObject({ turn: 1, index: 0, tool: "navigate", status: "failed", method: "GET" });
    expect(extras.actions[0].reason).toMatch(/^network: host of https:\/\/.* not found/);
    expect(extras.actions[1]).toMatchObject({ turn: 2, index: 0, tool: "done", status: "executed" });
    expect(extras.thinking.map((t: any) => t.turn)).toEqual([1, 2]);
    expect(JSON.stringify(extras)).not.toContain(SECRET);
  });

  it("is deterministic: the same question gives the same finding and extras", async () => {
    const a = await adapter.ask(endpoint(url), seat, request);
    const b = await adapter.ask(endpoint(url), seat, request);
    expect(a.ok && b.ok).toBe(true);
    if (!a.ok || !b.ok) return;
    expect(b.value).toEqual(a.value);
  });

  it("the root path serves the webhook too", async () => {
    const r = await adapter.ask(endpoint(url.replace(/\/webhook$/, "/")), seat, request);
    expect(r.ok).toBe(true);
  });

  it("challenge: a new one-turn session answered with one response per challenge", async () => {
    const r = await adapter.challenge(endpoint(url), seat, challengeRequest());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toHaveLength(2);
    expect(r.value.every((s) => s.trim().length > 20)).toBe(true);
    expect(r.attempts).toBe(1);
  });

  it("a wrong secret is refused by the agent (401) and surfaced as auth on turn 1", async () => {
    const wrong = createAiOlympicsAdapter({
      http,
      actionHttp,
      credentials: anyOriginStore({ "7": { hmacSecret: "not-the-secret" } }),
    });
    const r = await wrong.ask(endpoint(url), seat, request);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.failure.kind).toBe("auth");
    expect(r.failure.message).toContain("401");
    expect(r.attempts).toBe(1);
  });

  it("a stale timestamp (resolver clock 6 minutes behind) is refused and surfaced as auth", async () => {
    const stale = createAiOlympicsAdapter({ http, actionHttp, credentials, now: () => Date.now() - 6 * 60 * 1000 });
    const r = await stale.ask(endpoint(url), seat, request);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure.kind).toBe("auth");
    const future = createAiOlympicsAdapter({ http, actionHttp, credentials, now: () => Date.now() + 6 * 60 * 1000 });
    const f = await future.ask(endpoint(url), seat, request);
    expect(f.ok).toBe(false);
    if (!f.ok) expect(f.failure.kind).toBe("auth");
  });

  it("no secret configured for the agent: auth failure, nothing sent unsigned", async () => {
    const none = createAiOlympicsAdapter({
      http,
      actionHttp,
      credentials: anyOriginStore({ "8": { hmacSecret: SECRET } }),
    });
    const r = await none.ask(endpoint(url), seat, request);
    expect(r).toMatchObject({ ok: false, attempts: 0, failure: { kind: "auth" } });
    const c = await none.challenge(endpoint(url), seat, challengeRequest());
    expect(c).toMatchObject({ ok: false, attempts: 0, failure: { kind: "auth" } });
  });

  it("refuses unsigned requests, a replayed request and a body whose timestamp differs from the header", async () => {
    const body = buildTurnRequest({
      timestamp: Date.now(),
      agentId: 7n,
      marketId: 42n,
      taskPrompt: askTaskPrompt(request, 5),
      pageState: initialPageState(),
      previousActions: [],
      turnNumber: 1,
    });
    const { text, headers } = signTurnRequest(SECRET, body);
    const post = (h: Record<string, string>, b = text) =>
      fetch(url, { method: "POST", headers: { "content-type": "application/json", ...h }, body: b });
    const unsigned = await post({});
    expect(unsigned.status).toBe(401);
    const first = await post(headers);
    expect(first.status).toBe(200);
    const again = await post(headers);
    expect(again.status).toBe(401);
    expect(((await again.json()) as { message: string }).message).toMatch(/replayed/);
    // Header timestamp moved (still in the window) without re-signing: the signed body's timestamp disagrees.
    const moved = { ...headers, "x-ai-olympics-timestamp": String(body.timestamp + 1_000) };
    const fresh = buildTurnRequest({
      ...{
        timestamp: body.timestamp,
        agentId: 7n,
        marketId: 43n,
        taskPrompt: askTaskPrompt(request, 5),
        pageState: initialPageState(),
        previousActions: [],
        turnNumber: 1,
      },
    });
    const signedFresh = signTurnRequest(SECRET, fresh);
    const mismatch = await post(
      { ...signedFresh.headers, "x-ai-olympics-timestamp": moved["x-ai-olympics-timestamp"] },
      signedFresh.text,
    );
    expect(mismatch.status).toBe(401);
    expect(((await mismatch.json()) as { message: string }).message).toMatch(/timestamp differs/);
  });

  it("an agent without a webhook secret refuses to start", async () => {
    await expect(startAgent({ protocol: "ai-olympics" })).rejects.toThrow(/hmacSecret/);
  });
});

describe("WebhookVerifier (injected clock)", () => {
  const secret = "s3cret";
  const body = Buffer.from('{"version":"1.0"}');
  const sig = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
  const headers = (ts: number, signature = sig) => ({
    "x-ai-olympics-signature": signature,
    "x-ai-olympics-timestamp": String(ts),
    "x-ai-olympics-agent-id": "7",
  });
  const T = 1_800_000_000_000;

  it("accepts inside the window (both edges) and refuses outside it, past and future", () => {
    let now = T;
    const v = new WebhookVerifier(secret, { now: () => now });
    expect(v.check(headers(T - 5 * 60 * 1000), body)).toMatchObject({ ok: true });
    const v2 = new WebhookVerifier(secret, { now: () => now });
    expect(v2.check(headers(T + 5 * 60 * 1000), body)).toMatchObject({ ok: true });
    const v3 = new WebhookVerifier(secret, { now: () => now });
    expect(v3.check(headers(T - 5 * 60 * 1000 - 1), body)).toEqual({ ok: false, message: "Request expired" });
    expect(v3.check(headers(T + 5 * 60 * 1000 + 1), body)).toEqual({ ok: false, message: "Request expired" });
    now = T + 10 * 60 * 1000;
    expect(v3.check(headers(T), body)).toEqual({ ok: false, message: "Request expired" });
  });

  it("refuses a duplicate signature within the window; it expires with the window", () => {
    let now = T;
    const v = new WebhookVerifier(secret, { now: () => now });
    expect(v.check(headers(T), body).ok).toBe(true);
    expect(v.check(headers(T), body)).toMatchObject({ ok: false, message: expect.stringMatching(/replayed/) });
    now = T + 4 * 60 * 1000;
    expect(v.check(headers(T), body).ok).toBe(false);
    now = T + 6 * 60 * 1000;
    expect(v.check(headers(T), body)).toEqual({ ok: false, message: "Request expired" });
  });

  it("refuses wrong, malformed, upper-case-prefixed or missing signatures and bad timestamps", () => {
    const v = new WebhookVerifier(secret, { now: () => T });
    expect(v.check(headers(T, `sha256=${"0".repeat(64)}`), body)).toEqual({ ok: false, message: "invalid signature" });
    expect(v.check(headers(T, sig.slice(0, -2)), body).ok).toBe(false);
    expect(v.check(headers(T, `SHA256=${sig.slice(7)}`), body).ok).toBe(false);
    expect(v.check(headers(T, sig), Buffer.from('{"version":"1.1"}'))).toEqual({
      ok: false,
      message: "invalid signature",
    });
    expect(v.check({ "x-ai-olympics-timestamp": String(T), "x-ai-olympics-agent-id": "7" }, body).ok).toBe(false);
    expect(v.check({ ...headers(T), "x-ai-olympics-timestamp": "17e11" }, body).ok).toBe(false);
    expect(v.check({ ...headers(T), "x-ai-olympics-agent-id": "" }, body).ok).toBe(false);
    // Upper-case hex is the same MAC.
    expect(v.check(headers(T, `sha256=${sig.slice(7).toUpperCase()}`), body).ok).toBe(true);
  });
});

describe("ai-olympics reference agent in LLM mode", () => {
  let standIn: StandIn;
  let http: SafeHttpClient;
  beforeAll(async () => {
    standIn = await startStandIn();
    http = createSafeHttpClient({ allowLoopback: true });
  });
  afterAll(async () => {
    await stopAll();
    await http.close();
    await standIn.close();
  });

  it("answers through the engine at once (no navigate), done on turn 1", async () => {
    standIn.reply = () => ({
      content: JSON.stringify({
        determination: false,
        confidence: 0.66,
        evidence:
          "The latest census estimate is below the threshold; growth slowed to under one percent a year, so crossing 2 million by the end of 2026 is unlikely.",
        sources: ["https://census.example.org/estimate"],
      }),
    });
    const { url } = await startAgent({
      protocol: "ai-olympics",
      mode: "llm",
      llm: { baseURL: standIn.baseURL, apiKey: "k", model: "standin-model" },
      auth: { hmacSecret: SECRET },
    });
    const adapter = createAiOlympicsAdapter({ http, credentials });
    const r = await adapter.ask(endpoint(`${url}/webhook`), seat, request);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.attempts).toBe(1);
    expect(r.value).toMatchObject({
      determination: false,
      confidence: 0.66,
      sources: ["https://census.example.org/estimate"],
    });
    expect(standIn.requests.length).toBeGreaterThan(0);
  });
});
