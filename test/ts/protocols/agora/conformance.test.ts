import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkAgora } from "../../../../protocols/agora/conformance.js";
import { createSafeHttpClient, type SafeHttpClient } from "../../../../workflow/http/index.js";
import { sendJson, startServer, type TestServer } from "../../workflow/helpers/servers.js";
import { startAgent, stopAll } from "../../../helpers/agents.js";
import { startJwksServer, testKey, type TestKey } from "./helpers.js";

describe("agora conformance checker", () => {
  let http: SafeHttpClient;
  let key: TestKey;
  let jwks: Awaited<ReturnType<typeof startJwksServer>>;
  const servers: TestServer[] = [];
  beforeAll(async () => {
    http = createSafeHttpClient({ allowLoopback: true });
    key = await testKey();
    jwks = await startJwksServer(key.jwks);
  });
  afterAll(async () => {
    await stopAll();
    await jwks.close();
    await http.close();
    await Promise.all(servers.map((s) => s.close()));
  });

  it("passes the reference agent with no violation and times every request", async () => {
    const { url } = await startAgent({ protocol: "agora", auth: { jwksUrl: jwks.jwksUrl }, agentId: "5" });
    const report = await checkAgora({
      url: `${url}/agora`,
      http,
      signer: key.signer(),
      agentId: "5",
      timeoutMs: 10_000,
    });
    expect(report.findings.filter((f) => f.severity === "violation")).toEqual([]);
    expect(report.passed).toBe(true);
    expect(Object.keys(report.timings).sort()).toEqual([
      "bad-signature",
      "challenge",
      "health",
      "no-token",
      "task",
      "wrong-match",
    ]);
  });

  it("without a signer checks health and auth refusal only, and says so", async () => {
    const { url } = await startAgent({ protocol: "agora", auth: { jwksUrl: jwks.jwksUrl } });
    const report = await checkAgora({ url: `${url}/agora`, http });
    expect(report.passed).toBe(true);
    expect(report.findings.map((f) => f.rule)).toEqual(["agora.auth.no-signer"]);
  });

  it("fails a broken agent, naming every rule it breaks", async () => {
    const broken = await startServer((req, res) => {
      if (req.method === "GET" && req.url === "/agora/health")
        return sendJson(res, 200, { status: "up", version: 1, capabilities: "all", avg_latency_ms: 3 });
      if (req.method === "POST" && req.url === "/agora")
        return sendJson(res, 200, { answer: "Maybe", confidence: 7, reasoning: "", tools_used: {}, tokens: -2 });
      sendJson(res, 404, {});
    });
    servers.push(broken);
    const report = await checkAgora({ url: `${broken.url}/agora`, http, signer: key.signer(), timeoutMs: 5_000 });
    expect(report.passed).toBe(false);
    const rules = new Set(report.findings.filter((f) => f.severity === "violation").map((f) => f.rule));
    for (const rule of [
      "agora.health.status-ok",
      "agora.health.version",
      "agora.health.capabilities",
      "agora.health.max-concurrent",
      "agora.auth.missing-token-refused",
      "agora.auth.bad-signature-refused",
      "agora.auth.wrong-match-refused",
      "agora.response.answer-in-options",
      "agora.response.confidence-range",
      "agora.response.reasoning",
      "agora.response.subagents-used",
      "agora.response.tools-used",
      "agora.response.tokens",
      "agora.response.latency-ms",
    ]) {
      expect(rules.has(rule), rule).toBe(true);
    }
    expect(report.findings.find((f) => f.rule === "agora.response.answer-in-options")?.message).toContain('"Maybe"');
  });

  it("reports an unreachable agent and a non-JSON health check", async () => {
    const down = await checkAgora({ url: "http://127.0.0.1:9/agora", http, timeoutMs: 2_000 });
    expect(down.passed).toBe(false);
    expect(down.findings.map((f) => f.rule)).toContain("agora.health.reachable");
    const html = await startServer((_req, res) => sendJson(res, 200, "<html>", "text/html"));
    servers.push(html);
    const report = await checkAgora({ url: `${html.url}/agora`, http, timeoutMs: 2_000 });
    expect(report.findings.map((f) => f.rule)).toContain("agora.health.json");
  });
});
