import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAiOlympicsAdapter } from "../../../../workflow/adapters/ai-olympics.js";
import { createSafeHttpClient, type SafeHttpClient } from "../../../../workflow/http/index.js";
import type { WorkerProtocolAdapter } from "../../../../workflow/core/types.js";
import { startAgent, stopAll } from "../../agents/helpers.js";
import { startDns, type TestDns } from "../../workflow/helpers/dns.js";
import { challengeRequest, credentials, request, SECRET, seat } from "./helpers.js";

describe("ai-olympics adapter against the reference agent", () => {
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

  it("asks: navigate on turn 1 (refused host recorded), done on turn 2", async () => {
    const r = await adapter.ask({ url, protocol: "ai-olympics" }, seat, request);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.attempts).toBe(2);
    expect(typeof r.value.determination).toBe("boolean");
    expect(r.value.sources.length).toBeGreaterThan(0);
    const extras = r.value.extras as any;
    expect(extras.protocol).toBe("ai-olympics");
    expect(extras.turns).toBe(2);
    expect(extras.actions[0]).toMatchObject({ turn: 1, index: 0, tool: "navigate", status: "failed" });
    expect(extras.actions[1]).toMatchObject({ turn: 2, tool: "done", status: "executed" });
  });

  it("challenge: a new session answered with one response per challenge", async () => {
    const r = await adapter.challenge({ url, protocol: "ai-olympics" }, seat, challengeRequest());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toHaveLength(2);
    expect(r.attempts).toBe(1);
  });
});
