/** The Factagora conformance checker: passes the reference agent, fails broken agents naming the rule. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkFactagora } from "../../../../protocols/factagora/conformance.js";
import { createSafeHttpClient, type SafeHttpClient } from "../../../../workflow/http/index.js";
import { startAgent, stopAll } from "../../../helpers/agents.js";
import { sendJson, sleep, startServer, type TestServer } from "../../workflow/helpers/servers.js";
import { startFakeAgent, TOKEN, validReply } from "./fixtures.js";

describe("factagora conformance checker", () => {
  let http: SafeHttpClient;
  const servers: TestServer[] = [];
  const track = (s: TestServer) => {
    servers.push(s);
    return s;
  };

  beforeAll(() => {
    http = createSafeHttpClient({ allowLoopback: true });
  });
  afterAll(async () => {
    await http.close();
    await stopAll();
    await Promise.all(servers.map((s) => s.close()));
  });

  const rules = (r: Awaited<ReturnType<typeof checkFactagora>>, severity: "violation" | "warning") =>
    r.findings.filter((f) => f.severity === severity).map((f) => f.rule);

  it.each(["analyst", "skeptic", "contrarian", "optimist"] as const)(
    "passes the reference agent (%s, offline) with no finding at all",
    async (persona) => {
      const { url } = await startAgent({ protocol: "factagora", persona, auth: { bearerToken: TOKEN } });
      const report = await checkFactagora({ url: `${url}/webhook`, http, credentials: { bearerToken: TOKEN } });
      expect(report.findings).toEqual([]);
      expect(report.passed).toBe(true);
      expect(report.protocol).toBe("factagora");
      expect(Object.keys(report.timings)).toEqual(["round1", "round1-minimal", "round2", "bad-auth", "no-auth"]);
    },
  );

  it("fails an agent whose position is lower case, naming factagora.response.position", async () => {
    const s = track(await startFakeAgent(validReply({ position: "no" })));
    const report = await checkFactagora({ url: `${s.url}/webhook`, http, credentials: { bearerToken: TOKEN } });
    expect(report.passed).toBe(false);
    expect(rules(report, "violation")).toEqual([
      "factagora.response.position",
      "factagora.response.position",
      "factagora.response.position",
    ]);
    expect(report.findings[0].message).toMatch(/^round1: position must be exactly "YES", "NO" or "NEUTRAL"/);
  });

  it("fails an agent that accepts any token (or none)", async () => {
    const s = track(await startServer((_req, res) => sendJson(res, 200, validReply())));
    const report = await checkFactagora({ url: `${s.url}/webhook`, http, credentials: { bearerToken: TOKEN } });
    expect(report.passed).toBe(false);
    expect(rules(report, "violation")).toEqual([
      "factagora.auth.bad-token-accepted",
      "factagora.auth.missing-token-accepted",
    ]);
    // Sent a wrong token, never the real one, on the bad-auth request.
    expect(s.requests[3].headers.authorization).toMatch(/^Bearer invalid-[0-9a-f]{24}$/);
    expect(s.requests[4].headers.authorization).toBeUndefined();
  });

  it("reports every rule of a badly broken reply, and warnings separately", async () => {
    const s = track(
      await startFakeAgent(
        validReply(
          { confidence: 2 },
          {
            initialThought: "short",
            actions: [],
            evidence: [{ type: "link" }],
            synthesisThought: "Brief but valid synthesis.",
          },
        ),
      ),
    );
    const report = await checkFactagora({ url: `${s.url}/webhook`, http, credentials: { bearerToken: TOKEN } });
    const v = new Set(rules(report, "violation"));
    expect([...v].sort()).toEqual([
      "factagora.response.confidence",
      "factagora.response.reactCycle.actions",
      "factagora.response.reactCycle.evidence.item",
      "factagora.response.reactCycle.initialThought",
    ]);
    expect(rules(report, "warning")).toContain("factagora.quality.synthesis-length");
  });

  it("a spec-valid agent that ignores round 2 passes with warnings", async () => {
    const s = track(
      await startFakeAgent(
        validReply(
          {},
          {
            evidence: [{ type: "data", title: "Only one" }],
            actions: [{ type: "web_search", query: "q", result: "r" }],
          },
        ),
      ),
    );
    const report = await checkFactagora({ url: `${s.url}/webhook`, http, credentials: { bearerToken: TOKEN } });
    expect(report.passed).toBe(true);
    const w = rules(report, "warning");
    expect(w).toContain("factagora.quality.evidence-count");
    expect(w).toContain("factagora.sources.none");
    expect(w).toContain("factagora.round2.challenge-replies");
    expect(w).toContain("factagora.quality.round2-arguments");
  });

  it("fails a slow agent (deadline), one that refuses the right token, and one answering 500", async () => {
    const slow = track(
      await startFakeAgent(async (_req, res) => {
        await sleep(1_500);
        sendJson(res, 200, validReply());
      }),
    );
    const r1 = await checkFactagora({
      url: `${slow.url}/webhook`,
      http,
      credentials: { bearerToken: TOKEN },
      timeoutMs: 200,
    });
    expect(rules(r1, "violation")).toContain("factagora.timing.deadline");

    const wrong = track(await startFakeAgent(validReply(), { token: "another-token" }));
    const r2 = await checkFactagora({ url: `${wrong.url}/webhook`, http, credentials: { bearerToken: TOKEN } });
    expect(rules(r2, "violation")).toEqual([
      "factagora.auth.valid-token-refused",
      "factagora.auth.valid-token-refused",
      "factagora.auth.valid-token-refused",
    ]);

    const failing = track(
      await startFakeAgent((_req, res) => sendJson(res, 500, { error: "Internal agent error", code: "LLM_API_ERROR" })),
    );
    const r3 = await checkFactagora({ url: `${failing.url}/webhook`, http, credentials: { bearerToken: TOKEN } });
    expect(rules(r3, "violation")).toEqual(["factagora.http.status", "factagora.http.status", "factagora.http.status"]);
    expect(failing.requests).toHaveLength(5); // no retries in the checker
  });

  it("needs the agent's token", async () => {
    const report = await checkFactagora({ url: "http://127.0.0.1:9/webhook", http });
    expect(report).toMatchObject({
      passed: false,
      findings: [{ rule: "factagora.auth.token", severity: "violation" }],
    });
  });
});
