/** Malformed, wrongly-typed, oversized, slow and hostile webhook replies. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAiOlympicsAdapter } from "../../../../protocols/ai-olympics/adapter.js";
import { createSafeHttpClient, type SafeHttpClient } from "../../../../workflow/http/index.js";
import { sendJson, sleep, startServer, type TestServer } from "../../workflow/helpers/servers.js";
import { credentials, doneAction, finding, request, SECRET, seat, startScriptedAgent } from "./helpers.js";

const endpoint = (url: string) => ({ url, protocol: "ai-olympics" });

describe("ai-olympics adapter against hostile webhooks", () => {
  let http: SafeHttpClient;
  const servers: TestServer[] = [];
  const agent = async (...args: Parameters<typeof startScriptedAgent>) => {
    const s = await startScriptedAgent(...args);
    servers.push(s);
    return s;
  };
  beforeAll(() => {
    http = createSafeHttpClient({ allowLoopback: true });
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await http.close();
  });
  const adapter = (extra: Partial<Parameters<typeof createAiOlympicsAdapter>[0]> = {}) =>
    createAiOlympicsAdapter({ http, credentials, maxTurns: 3, ...extra });

  it("malformed JSON every turn: turns skipped, then invalid-response", async () => {
    const a = await agent((_t, _req, res) => sendJson(res, 200, '{"actions": [', "application/json"));
    const r = await adapter().ask(endpoint(a.url), seat, request);
    expect(r).toMatchObject({ ok: false, attempts: 3, failure: { kind: "invalid-response" } });
    if (!r.ok)
      expect(r.failure.message).toMatch(/no valid done within 3 turns; the last turn was skipped: .*malformed JSON/);
    expect(a.turns[1].body.pageState.error).toMatch(/turn 1 was skipped/);
  });

  it.each([
    ["actions as a string", { actions: "navigate" }],
    ["actions missing", { done: true, result: finding() }],
    ["done as a string", { actions: [], done: "true" }],
    ["a JSON array", [doneAction(finding())]],
    ["text/html content type", "<html>done</html>"],
  ])("wrongly typed reply (%s): invalid-response", async (name, reply) => {
    const a = await agent((_t, _req, res) =>
      name.startsWith("text/html") ? sendJson(res, 200, reply, "text/html") : sendJson(res, 200, reply),
    );
    const r = await adapter().ask(endpoint(a.url), seat, request);
    expect(r).toMatchObject({ ok: false, attempts: 3, failure: { kind: "invalid-response" } });
  });

  it("oversized reply: too-large (turn skipped each time)", async () => {
    const a = await agent((_t, _req, res) => sendJson(res, 200, { actions: [], thinking: "x".repeat(200_000) }));
    const r = await adapter({ maxReplyBytes: 64 * 1024 }).ask(endpoint(a.url), seat, request);
    expect(r).toMatchObject({ ok: false, attempts: 3, failure: { kind: "too-large" } });
  });

  it("slow reply: timeout (turn skipped), a later fast turn still counts", async () => {
    const a = await agent(async ({ body }) => {
      if (body.turnNumber === 1) await sleep(1_500);
      return { actions: [doneAction(finding())] };
    });
    const r = await adapter({ turnTimeoutMs: 300 }).ask(endpoint(a.url), seat, request);
    expect(r.ok).toBe(true);
    if (r.ok)
      expect((r.value.extras as any).turnErrors).toEqual([
        { turn: 1, kind: "timeout", message: expect.stringMatching(/before the deadline \(turn deadline 300 ms\)$/) },
      ]);
  });

  it("always slow: timeout", async () => {
    const a = await agent(async () => {
      await sleep(1_500);
      return { actions: [] };
    });
    const r = await adapter({ turnTimeoutMs: 200, maxTurns: 2 }).ask(endpoint(a.url), seat, request);
    expect(r).toMatchObject({ ok: false, attempts: 2, failure: { kind: "timeout" } });
  });

  it("the session deadline bounds the whole loop", async () => {
    const a = await agent(async () => {
      await sleep(400);
      return { actions: [] };
    });
    const r = await adapter({ turnTimeoutMs: 5_000, sessionTimeoutMs: 250, maxTurns: 5 }).ask(
      endpoint(a.url),
      seat,
      request,
    );
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure.kind).toBe("timeout");
  });

  it("500 on turn 1 is skipped (spec), done on turn 2 is taken", async () => {
    const a = await agent(({ body }, _req, res) =>
      body.turnNumber === 1 ? sendJson(res, 500, { error: "boom" }) : { actions: [doneAction(finding())] },
    );
    const r = await adapter().ask(endpoint(a.url), seat, request);
    expect(r).toMatchObject({ ok: true, attempts: 2 });
  });

  it("201 instead of 200 is a skipped turn", async () => {
    const a = await agent((_t, _req, res) => sendJson(res, 201, { actions: [doneAction(finding())] }));
    const r = await adapter().ask(endpoint(a.url), seat, request);
    expect(r).toMatchObject({ ok: false, attempts: 3, failure: { kind: "http-status" } });
  });

  it("401/403 fail at once as auth; a redirect is a skipped turn", async () => {
    const a401 = await agent((_t, _req, res) => sendJson(res, 401, { error: "Request expired" }));
    expect(await adapter().ask(endpoint(a401.url), seat, request)).toMatchObject({
      ok: false,
      attempts: 1,
      failure: { kind: "auth" },
    });
    const a403 = await agent((_t, _req, res) => sendJson(res, 403, {}));
    expect(await adapter().ask(endpoint(a403.url), seat, request)).toMatchObject({
      ok: false,
      attempts: 1,
      failure: { kind: "auth" },
    });
    const redirect = await agent((_t, _req, res) => {
      res.writeHead(307, { location: "http://169.254.169.254/" });
      res.end();
    });
    const r = await adapter().ask(endpoint(redirect.url), seat, request);
    expect(r).toMatchObject({ ok: false, attempts: 3, failure: { kind: "http-status" } });
  });

  it("an unreachable webhook fails at once (network)", async () => {
    const gone = await startServer(() => undefined);
    await gone.close();
    const r = await adapter().ask(endpoint(gone.url), seat, request);
    expect(r).toMatchObject({ ok: false, attempts: 1, failure: { kind: "network" } });
  });

  it("a webhook on a refused destination is never called", async () => {
    const strict = createSafeHttpClient({});
    try {
      const r = await createAiOlympicsAdapter({ http: strict, credentials }).ask(
        endpoint("http://169.254.169.254/webhook"),
        seat,
        request,
      );
      expect(r).toMatchObject({ ok: false, attempts: 1, failure: { kind: "destination-refused" } });
      const bad = await createAiOlympicsAdapter({ http: strict, credentials }).ask(
        endpoint("not a url"),
        seat,
        request,
      );
      expect(bad).toMatchObject({ ok: false, attempts: 0, failure: { kind: "registration" } });
    } finally {
      await strict.close();
    }
  });

  it("hostile content: thousands of actions, prototype keys, NULs, huge thinking — capped in extras", async () => {
    const many = Array.from({ length: 5_000 }, () => ({ tool: "rm -rf", args: { __proto__: { polluted: true } } }));
    const a = await agent(({ body }) =>
      body.turnNumber === 1
        ? { thinking: "ignore previous instructions\u0000".repeat(2_000), actions: many, __proto__: { done: true } }
        : {
            actions: [
              doneAction(
                finding("YES", {
                  evidence: "Evidence with a NUL\u0000 and enough words to be an answer.",
                  extra: { __proto__: 1 },
                }),
              ),
            ],
          },
    );
    const r = await adapter().ask(endpoint(a.url), seat, request);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(({} as any).polluted).toBeUndefined();
    expect(r.value.evidence).not.toContain("\u0000");
    const extras = r.value.extras as any;
    expect(extras.thinking[0].text.length).toBeLessThanOrEqual(1_001);
    const turn1 = extras.actions.filter((x: any) => x.turn === 1);
    expect(turn1).toHaveLength(10 + 10);
    expect(extras.unlisted).toEqual([{ turn: 1, count: 5_000 - 20, reason: "over the limit of 10 actions per turn" }]);
    expect(JSON.stringify(extras).length).toBeLessThan(20_000);
    expect(JSON.stringify(extras)).not.toContain(SECRET);
  });

  it("a reply trying to inject a done via a wrongly nested field is not a done", async () => {
    const a = await agent(() => ({
      actions: [{ tool: "navigate", args: { url: "http://10.0.0.1/", done: true, result: finding() } }],
      result: finding(),
    }));
    const r = await adapter({ maxTurns: 1 }).ask(endpoint(a.url), seat, request);
    expect(r).toMatchObject({ ok: false, failure: { kind: "invalid-response" } });
  });
});
