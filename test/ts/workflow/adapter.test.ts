import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdapterRegistry, defaultAdapters } from "../../../protocols/index.js";
import { createCresolverAdapter } from "../../../protocols/cresolver/adapter.js";
import type { AskRequest, ChallengeRequest, WorkerProtocolAdapter, WorkerSeat } from "../../../workflow/core/types.js";
import { createSafeHttpClient, type SafeHttpClient } from "../../../workflow/http/index.js";
import { honestAnswer, sendJson, startServer, startWorker, type TestServer } from "./helpers/servers.js";

const seat: WorkerSeat = { address: "0x0000000000000000000000000000000000000001", agentId: 1n, stake: 1n };
const request: AskRequest = { marketId: 42n, question: "Will X happen?", deadline: 1_900_000_000, context: "ctx" };

describe("cresolver adapter", () => {
  let http: SafeHttpClient;
  let adapter: WorkerProtocolAdapter;
  const servers: TestServer[] = [];
  const worker = async (b: Parameters<typeof startWorker>[0]) => {
    const s = await startWorker(b);
    servers.push(s);
    return s;
  };
  const server = async (h: Parameters<typeof startServer>[0]) => {
    const s = await startServer(h);
    servers.push(s);
    return s;
  };

  beforeAll(() => {
    http = createSafeHttpClient({ allowLoopback: true });
    adapter = createCresolverAdapter({ http, resolveTimeoutMs: 2_000, challengeTimeoutMs: 2_000, retryDelayMs: 10 });
  });
  afterAll(async () => {
    await http.close();
    await Promise.all(servers.map((s) => s.close()));
  });

  it("asks an honest worker and sends the protocol's request body", async () => {
    const w = await worker({ resolve: honestAnswer(true, { extra_field: "dropped" }) });
    const r = await adapter.ask({ url: `${w.url}/agent/`, protocol: "cresolver" }, seat, request);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.determination).toBe(true);
    expect(r.value.confidence).toBe(0.8);
    expect(r.value.sources).toHaveLength(2);
    expect(r.value).not.toHaveProperty("extra_field");
    expect(r.attempts).toBe(1);
    expect(w.requests[0].path).toBe("/agent/a2a/resolve");
    expect(JSON.parse(w.requests[0].body)).toEqual({
      market_id: 42,
      question: "Will X happen?",
      deadline: 1_900_000_000,
      context: "ctx",
    });
  });

  it("sends a market id above 2^53 as an exact integer literal", async () => {
    const w = await worker({ resolve: honestAnswer(false) });
    const big = 2n ** 200n + 7n;
    await adapter.ask({ url: w.url, protocol: "cresolver" }, seat, { ...request, marketId: big, context: "" });
    expect(w.requests[0].body).toContain(`"market_id":${big.toString()}`);
    expect(w.requests[0].body).not.toContain("context");
  });

  it.each([
    ["determination as a string", { determination: "yes" }],
    ["determination as a number", { determination: 1 }],
    ["confidence as a string", { confidence: "0.8" }],
    ["confidence above 1", { confidence: 1.5 }],
    ["confidence below 0", { confidence: -0.1 }],
    ["empty evidence", { evidence: "" }],
    ["blank evidence", { evidence: "  \n\t " }],
    ["no sources", { sources: [] }],
    ["sources missing", { sources: undefined }],
    ["non-string source", { sources: [1] }],
    ["blank source", { sources: ["https://a.example", " "] }],
    ["too many sources", { sources: Array.from({ length: 33 }, (_, i) => `https://s${i}.example`) }],
    ["over-long source", { sources: [`https://a.example/${"x".repeat(3_000)}`] }],
    ["evidence as an array", { evidence: ["a", "b"] }],
  ])("rejects wrong types: %s", async (_name, patch) => {
    const w = await worker({ resolve: honestAnswer(true, patch) });
    const r = await adapter.ask({ url: w.url, protocol: "cresolver" }, seat, request);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.failure.kind).toBe("invalid-response");
    expect(r.attempts).toBe(1);
  });

  it("rejects a reply that is not an object", async () => {
    for (const reply of [[honestAnswer(true)], "true", null]) {
      const w = await worker({ rawResolve: (_q, res) => sendJson(res, 200, JSON.stringify(reply)) });
      const r = await adapter.ask({ url: w.url, protocol: "cresolver" }, seat, request);
      expect(r.ok ? "ok" : r.failure.kind).toBe("invalid-response");
    }
  });

  it("rejects invalid JSON without retrying", async () => {
    const w = await worker({
      rawResolve: (_q, res) => sendJson(res, 200, '{"determination": true, "confidence": 0.9,'),
    });
    const r = await adapter.ask({ url: w.url, protocol: "cresolver" }, seat, request);
    expect(r.ok ? "ok" : r.failure.kind).toBe("invalid-response");
    expect(r.attempts).toBe(1);
    expect(w.requests).toHaveLength(1);
  });

  it("retries once after a 5xx and succeeds", async () => {
    let calls = 0;
    const w = await worker({
      rawResolve: (_q, res) =>
        ++calls === 1 ? sendJson(res, 503, { error: "busy" }) : sendJson(res, 200, honestAnswer(true)),
    });
    const r = await adapter.ask({ url: w.url, protocol: "cresolver" }, seat, request);
    expect(r.ok).toBe(true);
    expect(r.attempts).toBe(2);
  });

  it("retries a 5xx only once", async () => {
    const w = await worker({ rawResolve: (_q, res) => sendJson(res, 500, {}) });
    const r = await adapter.ask({ url: w.url, protocol: "cresolver" }, seat, request);
    expect(r.ok ? "ok" : r.failure.kind).toBe("http-status");
    expect(r.attempts).toBe(2);
    expect(w.requests).toHaveLength(2);
  });

  it("does not retry 4xx", async () => {
    const w = await worker({ rawResolve: (_q, res) => sendJson(res, 404, {}) });
    const r = await adapter.ask({ url: w.url, protocol: "cresolver" }, seat, request);
    expect(r.ok ? "ok" : r.failure.kind).toBe("http-status");
    expect(r.attempts).toBe(1);
  });

  it("retries a refused connection once, then reports network", async () => {
    const gone = await startServer(() => undefined);
    await gone.close();
    const r = await adapter.ask({ url: gone.url, protocol: "cresolver" }, seat, request);
    expect(r.ok ? "ok" : r.failure.kind).toBe("network");
    expect(r.attempts).toBe(2);
  });

  it("gives up on a worker that never answers at the deadline, without a retry", async () => {
    const w = await server(() => undefined);
    const quick = createCresolverAdapter({ http, resolveTimeoutMs: 300 });
    const r = await quick.ask({ url: w.url, protocol: "cresolver" }, seat, request);
    expect(r.ok ? "ok" : r.failure.kind).toBe("timeout");
    expect(r.attempts).toBe(1);
  });

  it("refuses a 10 MB reply", async () => {
    const w = await worker({
      rawResolve: (_q, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(honestAnswer(true, { evidence: "x".repeat(10 * 1024 * 1024) })));
      },
    });
    const r = await adapter.ask({ url: w.url, protocol: "cresolver" }, seat, request);
    expect(r.ok ? "ok" : r.failure.kind).toBe("too-large");
  });

  it("refuses a redirect to cloud metadata", async () => {
    const w = await worker({
      rawResolve: (_q, res) => {
        res.writeHead(301, { location: "http://169.254.169.254/latest/meta-data/iam/" });
        res.end();
      },
    });
    const r = await adapter.ask({ url: w.url, protocol: "cresolver" }, seat, request);
    expect(r.ok ? "ok" : r.failure.kind).toBe("http-status");
  });

  describe("challenge", () => {
    const challenges = ["one?", "two?", "three?"];
    const own = { determination: true, confidence: 0.8, evidence: "mine", sources: ["https://a.example/1"] };
    const ask = (c: string[]): ChallengeRequest => ({ ask: request, challenges: c, own, peers: [] });

    it("returns all replies", async () => {
      const w = await worker({});
      const r = await adapter.challenge({ url: w.url, protocol: "cresolver" }, seat, ask(challenges));
      expect(r.ok && r.value.length).toBe(3);
      expect(JSON.parse(w.requests[0].body)).toEqual({ market_id: 42, question: "Will X happen?", challenges });
    });

    it("records short replies as is and ignores extra ones", async () => {
      const short = await worker({ challenge: { responses: ["only one"] } });
      const r = await adapter.challenge({ url: short.url, protocol: "cresolver" }, seat, ask(challenges));
      expect(r.ok && r.value).toEqual(["only one"]);
      const long = await worker({ challenge: { responses: ["a", "b", "c", "d"] } });
      const r2 = await adapter.challenge({ url: long.url, protocol: "cresolver" }, seat, ask(challenges));
      expect(r2.ok && r2.value).toEqual(["a", "b", "c"]);
    });

    it("fails (without throwing) on wrong shapes", async () => {
      for (const reply of [
        { responses: [1, 2, 3] },
        { answers: ["a"] },
        { responses: "a" },
        { responses: Array(17).fill("x") },
      ]) {
        const w = await worker({ challenge: reply });
        const r = await adapter.challenge({ url: w.url, protocol: "cresolver" }, seat, ask(challenges));
        expect(r.ok ? "ok" : r.failure.kind).toBe("invalid-response");
      }
    });
  });

  it("registry selects adapters by protocol, case-insensitively", () => {
    const registry = createAdapterRegistry(defaultAdapters({ http }));
    expect(registry.protocols[0]).toBe("cresolver");
    expect(registry.protocols).toContain("roundtable");
    expect(registry.get("CREsolver")?.protocol).toBe("cresolver");
    for (const p of registry.protocols) expect(registry.get(p.toUpperCase())?.protocol).toBe(p);
    expect(registry.get("no-such-protocol")).toBeUndefined();
    expect(() => createAdapterRegistry([...defaultAdapters({ http }), ...defaultAdapters({ http })])).toThrow();
  });
});
