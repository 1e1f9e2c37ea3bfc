/**
 * Per-agent credentials are bound to an endpoint origin: a secret reaches only that origin, and an agent whose
 * registration now names another endpoint gets nothing (failure `auth`). Real servers on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAiOlympicsAdapter } from "../../../protocols/ai-olympics/adapter.js";
import {
  createCredentialStore,
  credentialStoreOver,
  endpointOrigin,
  type BoundAgentCredentials,
} from "../../../workflow/adapters/credentials.js";
import { createCresolverAdapter } from "../../../protocols/cresolver/adapter.js";
import { createFactagoraAdapter } from "../../../protocols/factagora/adapter.js";
import { createRoundtableAdapter } from "../../../protocols/roundtable/adapter.js";
import type { AskRequest, WorkerSeat } from "../../../workflow/core/types.js";
import { createSafeHttpClient, type SafeHttpClient } from "../../../workflow/http/index.js";
import { startServer, type TestServer } from "./helpers/servers.js";

const seat: WorkerSeat = { address: "0x0000000000000000000000000000000000000007", agentId: 7n, stake: 1n };
const ask: AskRequest = {
  marketId: 1n,
  question: "Will it rain in Paris on 2026-07-14?",
  deadline: 1_900_000_000,
  context: "",
};
const TOKEN = "bound-token-0123456789";
const SECRET = "bound-hmac-secret-0123456789";

describe("credential store", () => {
  it("returns credentials by agent id for the bound origin only, including ids beyond 2^53", () => {
    const big = (2n ** 200n).toString();
    const store = createCredentialStore({
      "7": { origin: "https://agent.example", bearerToken: "t7" },
      [big]: { origin: "http://10.0.0.1:8080/", hmacSecret: "s" },
    });
    expect(store.forEndpoint(7n, "https://agent.example/webhook?x=1")).toEqual({
      kind: "ok",
      credentials: { bearerToken: "t7" },
    });
    expect(store.forEndpoint(7n, "https://AGENT.example:443/other")).toEqual({
      kind: "ok",
      credentials: { bearerToken: "t7" },
    });
    expect(store.forEndpoint(2n ** 200n, "http://10.0.0.1:8080/hook")).toEqual({
      kind: "ok",
      credentials: { hmacSecret: "s" },
    });
    expect(store.forEndpoint(8n, "https://agent.example")).toEqual({ kind: "none" });
  });

  it("refuses another scheme, host or port, with a message naming origins and never the secret", () => {
    const store = createCredentialStore({
      "7": { origin: "https://agent.example", bearerToken: "secret-token-value" },
    });
    for (const url of [
      "http://agent.example/webhook",
      "https://agent.example:8443/webhook",
      "https://evil.example/webhook",
      "https://agent.example.evil.example/",
      "not a url",
    ]) {
      const found = store.forEndpoint(7n, url);
      expect(found.kind, url).toBe("refused");
      if (found.kind !== "refused") continue;
      expect(found.failure.kind).toBe("auth");
      expect(found.failure.message).toContain("bound to https://agent.example");
      expect(found.failure.message).not.toContain("secret-token-value");
      expect(found.failure.message).not.toContain("/webhook");
    }
  });

  it("refuses malformed configuration with a clear error, including entries without an origin", () => {
    expect(() => createCredentialStore({ "0x7": { origin: "https://a.example", bearerToken: "t" } })).toThrow(
      /decimal integer/,
    );
    expect(() => createCredentialStore({ "7": { origin: "https://a.example", bearerToken: "" } })).toThrow();
    expect(() => createCredentialStore({ "7": { origin: "https://a.example", password: "x" } })).toThrow();
    expect(() => createCredentialStore({ "7": { bearerToken: "t" } })).toThrow(/origin/);
    for (const origin of [
      "https://a.example/webhook",
      "https://a.example?x=1",
      "https://u:p@a.example",
      "ftp://a.example",
      "a.example",
      "https://a.example#f",
    ]) {
      expect(() => createCredentialStore({ "7": { origin, bearerToken: "t" } }), origin).toThrow(/origin must be/);
    }
  });

  it("endpointOrigin normalises default ports and case, and rejects non-http(s)", () => {
    expect(endpointOrigin("HTTPS://Agent.Example:443/x")).toBe("https://agent.example");
    expect(endpointOrigin("http://127.0.0.1:80/")).toBe("http://127.0.0.1");
    expect(endpointOrigin("ws://a.example")).toBeUndefined();
    expect(endpointOrigin("nope")).toBeUndefined();
  });
});

describe("adapters send a secret only to its origin (a moved tokenURI gets nothing)", () => {
  let http: SafeHttpClient;
  let bound: TestServer;
  let elsewhere: TestServer;
  const entries = new Map<bigint, BoundAgentCredentials>();

  beforeAll(async () => {
    http = createSafeHttpClient({ allowLoopback: true });
    // `bound` is where the credential was issued; `elsewhere` is what the agent's registration names now.
    bound = await startServer((_req, res) => res.writeHead(500).end());
    elsewhere = await startServer((_req, res) => res.writeHead(500).end());
  });
  afterAll(async () => {
    await http.close();
    await bound.close();
    await elsewhere.close();
  });

  const cases = [
    {
      protocol: "cresolver",
      secret: { bearerToken: TOKEN },
      make: () => createCresolverAdapter({ http, credentials: credentialStoreOver(entries), retryDelayMs: 1 }),
    },
    {
      protocol: "factagora",
      secret: { bearerToken: TOKEN },
      make: () => createFactagoraAdapter({ http, credentials: credentialStoreOver(entries), maxRetries: 0 }),
    },
    {
      protocol: "roundtable",
      secret: { bearerToken: TOKEN },
      make: () => createRoundtableAdapter({ http, credentials: credentialStoreOver(entries) }),
    },
    {
      protocol: "ai-olympics",
      secret: { hmacSecret: SECRET },
      make: () => createAiOlympicsAdapter({ http, credentials: credentialStoreOver(entries), maxTurns: 1 }),
    },
  ] as const;

  for (const c of cases) {
    it(`${c.protocol}: bound origin called with the secret; another origin not called at all, failure auth`, async () => {
      entries.set(7n, { origin: endpointOrigin(bound.url)!, ...c.secret });
      const before = { bound: bound.requests.length, elsewhere: elsewhere.requests.length };

      await c.make().ask({ url: `${bound.url}/webhook`, protocol: c.protocol }, seat, ask);
      const seen = bound.requests.slice(before.bound);
      expect(seen.length).toBeGreaterThan(0);
      const auth = seen[0].headers.authorization ?? seen[0].headers["x-ai-olympics-signature"];
      expect(auth).toBeDefined();
      if ("bearerToken" in c.secret) expect(seen[0].headers.authorization).toBe(`Bearer ${TOKEN}`);

      const moved = await c.make().ask({ url: `${elsewhere.url}/webhook`, protocol: c.protocol }, seat, ask);
      expect(moved).toMatchObject({ ok: false, failure: { kind: "auth" }, attempts: 0 });
      if (!moved.ok) {
        expect(moved.failure.message).toContain(`bound to ${endpointOrigin(bound.url)}`);
        expect(moved.failure.message).toContain(endpointOrigin(elsewhere.url));
        expect(moved.failure.message).not.toContain(TOKEN);
        expect(moved.failure.message).not.toContain(SECRET);
      }
      expect(elsewhere.requests.length).toBe(before.elsewhere);
    });
  }
});
