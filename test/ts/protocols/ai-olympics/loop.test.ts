/** The action loop: real webhook agents and a real "web page" server on loopback. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createAiOlympicsAdapter } from "../../../../protocols/ai-olympics/adapter.js";
import { AGENT_ID_HEADER, TIMESTAMP_HEADER } from "../../../../protocols/ai-olympics/signing.js";
import { createSafeHttpClient, type SafeHttpClient } from "../../../../workflow/http/index.js";
import { sendJson, startServer, type TestServer } from "../../workflow/helpers/servers.js";
import { credentials, doneAction, finding, request, seat, startScriptedAgent } from "./helpers.js";

const endpoint = (url: string) => ({ url, protocol: "ai-olympics" });

describe("ai-olympics action loop", () => {
  let http: SafeHttpClient;
  let loopbackActions: SafeHttpClient;
  let strictActions: SafeHttpClient;
  let web: TestServer;
  const servers: TestServer[] = [];
  const agent = async (...args: Parameters<typeof startScriptedAgent>) => {
    const s = await startScriptedAgent(...args);
    servers.push(s);
    return s;
  };

  beforeAll(async () => {
    http = createSafeHttpClient({ allowLoopback: true });
    // The operator's explicit allow flag, for this test only.
    loopbackActions = createSafeHttpClient({ allowLoopback: true });
    strictActions = createSafeHttpClient({});
    web = await startServer((req, res) => {
      const path = (req.url ?? "").split("?")[0];
      if (path === "/page") {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        return res.end(
          "<!doctype html><html><head><title>Census 2026 &amp; estimates</title><script>var x = 'hidden';</script></head><body><h1>Population</h1><p>Estimate: 2,040,000 residents.</p></body></html>",
        );
      }
      if (path === "/api" && req.method === "POST")
        return sendJson(res, 200, { received: JSON.parse(req.bodyText), population: 2040000 });
      if (path === "/api") return sendJson(res, 200, { population: 2040000 });
      if (path === "/redirect") {
        res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" });
        return res.end();
      }
      if (path === "/big") {
        res.writeHead(200, { "content-type": "text/plain" });
        return res.end("x".repeat(300_000));
      }
      res.writeHead(404);
      res.end();
    });
  });
  afterEach(() => {
    web.requests.length = 0;
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await web.close();
    await http.close();
    await loopbackActions.close();
    await strictActions.close();
  });

  it("sends spec-shaped, correctly signed turns and feeds a navigated page back as page state", async () => {
    const a = await agent(({ body }) => {
      if (body.turnNumber === 1)
        return { thinking: "look", actions: [{ tool: "navigate", args: { url: `${web.url}/page` } }] };
      return { actions: [doneAction(finding("no"))], done: true };
    });
    const adapter = createAiOlympicsAdapter({
      http,
      actionHttp: loopbackActions,
      credentials,
      now: () => 1_800_000_000_000,
    });
    const r = await adapter.ask(endpoint(`${a.url}/hook`), seat, request);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.determination).toBe(false);
    expect(a.turns.every((t) => t.signatureValid)).toBe(true);
    expect(a.requests[0].path).toBe("/hook");
    expect(a.requests[0].headers[TIMESTAMP_HEADER]).toBe("1800000000000");
    expect(a.requests[0].headers[AGENT_ID_HEADER]).toBe("7");
    expect(a.requests[0].headers["content-type"]).toBe("application/json");
    const t1 = a.turns[0].body;
    expect(t1).toMatchObject({
      version: "1.0",
      timestamp: 1_800_000_000_000,
      agentId: "7",
      turnNumber: 1,
      previousActions: [],
      competitionId: "cresolver-market-42",
    });
    expect(t1.pageState).toEqual({ url: "about:blank", title: "", accessibilityTree: "", error: null });
    expect(t1.task.taskPrompt).toContain("BEGIN_TASK_DATA");
    expect(t1.task.taskPrompt).toContain('"determination"');
    expect(t1.availableTools.map((t: any) => t.name)).toEqual(["navigate", "api_call", "done"]);
    const t2 = a.turns[1].body;
    expect(t2.turnNumber).toBe(2);
    expect(t2.previousActions).toEqual([{ name: "navigate", arguments: { url: `${web.url}/page` } }]);
    expect(t2.pageState.title).toBe("Census 2026 & estimates");
    expect(t2.pageState.accessibilityTree).toContain("Estimate: 2,040,000 residents.");
    expect(t2.pageState.accessibilityTree).not.toContain("hidden");
    expect(t2.pageState.error).toBeNull();
    expect(t2.actionResults[0]).toMatchObject({ tool: "navigate", ok: true });
    const extras = r.value.extras as any;
    expect(extras.actions[0]).toMatchObject({
      turn: 1,
      tool: "navigate",
      status: "executed",
      method: "GET",
      title: "Census 2026 & estimates",
    });
    expect(extras.actions[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(extras.thinking).toEqual([{ turn: 1, text: "look" }]);
  });

  it("refuses link-local, private and loopback action targets under the strict client, and records them", async () => {
    const targets = [
      "http://169.254.169.254/latest/meta-data/",
      "http://10.1.2.3/",
      `http://localhost:${web.port}/page`,
      `${web.url}/page`,
      "http://[::ffff:127.0.0.1]/",
      "http://0x7f.1/",
    ];
    const a = await agent(({ body }) =>
      body.turnNumber === 1
        ? { actions: targets.map((url) => ({ tool: "navigate", args: { url } })) }
        : { actions: [doneAction(finding())] },
    );
    const adapter = createAiOlympicsAdapter({ http, actionHttp: strictActions, credentials });
    const r = await adapter.ask(endpoint(a.url), seat, request);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(web.requests).toHaveLength(0);
    const recorded = (r.value.extras as any).actions.filter((x: any) => x.turn === 1);
    expect(recorded).toHaveLength(targets.length);
    for (const x of recorded) {
      expect(x.status).toBe("failed");
      expect(x.reason).toMatch(/^destination-refused: /);
    }
    expect(recorded[0].reason).toContain("link-local");
    expect(recorded[1].reason).toContain("private");
    expect(a.turns[1].body.pageState.error).toContain("destination-refused");
  });

  it("without an actionHttp, a strict client is used (never the webhook client that allows loopback)", async () => {
    const a = await agent(({ body }) =>
      body.turnNumber === 1
        ? { actions: [{ tool: "navigate", args: { url: `${web.url}/page` } }] }
        : { actions: [doneAction(finding())] },
    );
    const adapter = createAiOlympicsAdapter({ http, credentials });
    const r = await adapter.ask(endpoint(a.url), seat, request);
    expect(r.ok).toBe(true);
    expect(web.requests).toHaveLength(0);
    if (r.ok) expect((r.value.extras as any).actions[0].reason).toMatch(/destination-refused.*loopback/);
  });

  it("api_call: GET and JSON POST run; other methods and non-JSON POST bodies are skipped", async () => {
    const a = await agent(({ body }) =>
      body.turnNumber === 1
        ? {
            actions: [
              { tool: "api_call", args: { method: "get", url: `${web.url}/api` } },
              { tool: "api_call", args: { method: "POST", url: `${web.url}/api`, body: '{"q":"population"}' } },
              { tool: "api_call", args: { method: "PUT", url: `${web.url}/api` } },
              { tool: "api_call", args: { method: "POST", url: `${web.url}/api`, body: "q=population" } },
              { tool: "api_call", args: { method: "GET", url: "file:///etc/passwd" } },
            ],
          }
        : { actions: [doneAction(finding())] },
    );
    const adapter = createAiOlympicsAdapter({ http, actionHttp: loopbackActions, credentials });
    const r = await adapter.ask(endpoint(a.url), seat, request);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(web.requests.map((q) => `${q.method} ${q.path}`)).toEqual(["GET /api", "POST /api"]);
    expect(JSON.parse(web.requests[1].body)).toEqual({ q: "population" });
    const recorded = (r.value.extras as any).actions.filter((x: any) => x.turn === 1);
    expect(recorded.map((x: any) => x.status)).toEqual(["executed", "executed", "skipped", "skipped", "skipped"]);
    expect(recorded[2].reason).toMatch(/GET or POST/);
    expect(recorded[3].reason).toMatch(/must be JSON/);
    expect(recorded[4].reason).toMatch(/http\(s\) URL/);
    const results = a.turns[1].body.actionResults;
    expect(results[1].content).toContain('"received":{"q":"population"}');
  });

  it("does not follow redirects and caps action responses", async () => {
    const a = await agent(({ body }) =>
      body.turnNumber === 1
        ? {
            actions: [
              { tool: "navigate", args: { url: `${web.url}/redirect` } },
              { tool: "navigate", args: { url: `${web.url}/big` } },
            ],
          }
        : { actions: [doneAction(finding())] },
    );
    const adapter = createAiOlympicsAdapter({
      http,
      actionHttp: loopbackActions,
      credentials,
      actionMaxBytes: 100_000,
    });
    const r = await adapter.ask(endpoint(a.url), seat, request);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const [redirect, big] = (r.value.extras as any).actions;
    expect(redirect).toMatchObject({ status: "failed" });
    expect(redirect.reason).toMatch(/^http-status: .*302 \(redirect\)/);
    expect(big).toMatchObject({ status: "failed" });
    expect(big.reason).toMatch(/^too-large: /);
  });

  it("considers at most 10 actions a turn; the rest are skipped and recorded", async () => {
    const a = await agent(({ body }) =>
      body.turnNumber === 1
        ? {
            actions: Array.from({ length: 12 }, (_, i) => ({
              tool: "navigate",
              args: { url: `${web.url}/page?i=${i}` },
            })),
          }
        : { actions: [doneAction(finding())] },
    );
    const adapter = createAiOlympicsAdapter({ http, actionHttp: loopbackActions, credentials });
    const r = await adapter.ask(endpoint(a.url), seat, request);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(web.requests).toHaveLength(10);
    const recorded = (r.value.extras as any).actions.filter((x: any) => x.turn === 1);
    expect(recorded.filter((x: any) => x.status === "executed")).toHaveLength(10);
    expect(recorded.filter((x: any) => x.status === "skipped").map((x: any) => [x.index, x.reason])).toEqual([
      [10, "over the limit of 10 actions per turn"],
      [11, "over the limit of 10 actions per turn"],
    ]);
    expect(a.turns[1].body.pageState.error).toContain("2 action(s) skipped");
  });

  it("skips unknown, browser-only and malformed actions, records why, and continues", async () => {
    const a = await agent(({ body }) =>
      body.turnNumber === 1
        ? {
            actions: [
              { tool: "teleport", args: {} },
              { tool: "click", args: { element: "Submit" } },
              { type: "navigate", args: { url: `${web.url}/page` } },
              { tool: "navigate", args: "x" },
              "navigate",
              null,
            ],
          }
        : { actions: [doneAction(finding())] },
    );
    const adapter = createAiOlympicsAdapter({ http, actionHttp: loopbackActions, credentials });
    const r = await adapter.ask(endpoint(a.url), seat, request);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(web.requests).toHaveLength(0);
    const recorded = (r.value.extras as any).actions.filter((x: any) => x.turn === 1);
    expect(recorded).toHaveLength(6);
    expect(recorded.every((x: any) => x.status === "skipped")).toBe(true);
    expect(recorded[0]).toMatchObject({ tool: "teleport", reason: 'unknown tool "teleport"' });
    expect(recorded[1].reason).toMatch(/needs a browser/);
    expect(recorded[2].reason).toMatch(/action does not match the protocol: tool/);
    expect(a.turns[1].body.pageState.error).toContain("teleport");
  });

  it("fails after 5 turns without done (invalid-response), each turn numbered and previous actions accumulated", async () => {
    const a = await agent(() => ({ actions: [{ tool: "navigate", args: { url: `${web.url}/page` } }] }));
    const adapter = createAiOlympicsAdapter({ http, actionHttp: loopbackActions, credentials });
    const r = await adapter.ask(endpoint(a.url), seat, request);
    expect(r).toMatchObject({
      ok: false,
      attempts: 5,
      failure: { kind: "invalid-response", message: "no valid done within 5 turns" },
    });
    expect(a.turns.map((t) => t.body.turnNumber)).toEqual([1, 2, 3, 4, 5]);
    expect(a.turns[4].body.previousActions).toHaveLength(4);
    expect(web.requests).toHaveLength(5);
  });

  it("an invalid done is skipped and its problem fed back; a later valid done is taken", async () => {
    const a = await agent(({ body }) =>
      body.turnNumber === 1
        ? { actions: [doneAction(finding("YES", { confidence: 1.5 }))], done: true }
        : { actions: [doneAction(JSON.stringify(finding(true)))] },
    );
    const adapter = createAiOlympicsAdapter({ http, actionHttp: loopbackActions, credentials });
    const r = await adapter.ask(endpoint(a.url), seat, request);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.determination).toBe(true);
    expect(a.turns[1].body.pageState.error).toMatch(/done result invalid: .*confidence/);
  });

  it.each([
    ["YES", true],
    [" no ", false],
    [true, true],
    [false, false],
  ])("maps determination %j → %s", async (determination, expected) => {
    const a = await agent(() => ({ actions: [], done: true, result: finding(determination) }));
    const adapter = createAiOlympicsAdapter({ http, credentials });
    const r = await adapter.ask(endpoint(a.url), seat, request);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value.determination).toBe(expected);
  });

  it.each([
    ["determination maybe", finding("maybe")],
    ["determination 1", finding(1)],
    ["confidence as a string", finding("YES", { confidence: "0.8" })],
    ["no sources", finding("YES", { sources: [] })],
    ["blank evidence", finding("YES", { evidence: "   " })],
    ["result a plain string", "Task completed"],
  ])("rejects a done with %s (invalid-response after the turn budget)", async (_name, result) => {
    const a = await agent(() => ({ actions: [doneAction(result)] }));
    const adapter = createAiOlympicsAdapter({ http, credentials, maxTurns: 2 });
    const r = await adapter.ask(endpoint(a.url), seat, request);
    expect(r).toMatchObject({ ok: false, attempts: 2, failure: { kind: "invalid-response" } });
    if (!r.ok) expect(r.failure.message).toMatch(/done result invalid/);
  });

  it("done with success=false is an abstention", async () => {
    const a = await agent(() => ({ actions: [doneAction("I could not decide", false)] }));
    const r = await createAiOlympicsAdapter({ http, credentials }).ask(endpoint(a.url), seat, request);
    expect(r).toMatchObject({ ok: false, attempts: 1, failure: { kind: "abstained" } });
  });

  it("actions listed with a valid done in the same turn are not executed", async () => {
    const a = await agent(() => ({
      actions: [{ tool: "navigate", args: { url: `${web.url}/page` } }, doneAction(finding())],
    }));
    const r = await createAiOlympicsAdapter({ http, actionHttp: loopbackActions, credentials }).ask(
      endpoint(a.url),
      seat,
      request,
    );
    expect(r.ok).toBe(true);
    expect(web.requests).toHaveLength(0);
    if (r.ok)
      expect((r.value.extras as any).actions[0]).toMatchObject({
        status: "skipped",
        reason: "not executed: the turn ended with done",
      });
  });

  it("challenge: the task carries challenges, own answer and anonymised peers; responses are cut to the challenges", async () => {
    const a = await agent(() => ({ actions: [doneAction({ responses: ["one", "two", "three"] })] }));
    const r = await createAiOlympicsAdapter({ http, credentials }).challenge(endpoint(a.url), seat, {
      ask: request,
      challenges: ["c1?", "c2?"],
      own: {
        determination: true,
        confidence: 0.7,
        evidence: "mine",
        sources: ["https://a.example"],
        extras: { secret: "x" },
      },
      peers: [{ determination: false, confidence: 0.6, evidence: "theirs", sources: ["https://b.example"] }],
    });
    expect(r).toMatchObject({ ok: true, value: ["one", "two"], attempts: 1 });
    const prompt: string = a.turns[0].body.task.taskPrompt;
    expect(prompt).toContain("c1?");
    expect(prompt).toContain("theirs");
    expect(prompt).not.toContain("secret");
    expect(prompt).not.toContain("0x0000000000000000000000000000000000000007");
  });

  it("challenge with no challenges sends nothing", async () => {
    const a = await agent(() => ({ actions: [] }));
    const r = await createAiOlympicsAdapter({ http, credentials }).challenge(endpoint(a.url), seat, {
      ask: request,
      challenges: [],
      own: { determination: true, confidence: 1, evidence: "e", sources: ["s"] },
      peers: [],
    });
    expect(r).toMatchObject({ ok: true, value: [], attempts: 0 });
    expect(a.turns).toHaveLength(0);
  });
});
