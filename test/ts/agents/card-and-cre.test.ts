/**
 * Interop with the real platforms' code, reference-agent side: the A2A agent card the Chainlink CRE workflow
 * probes (issue 13 item 16), and the CRE side's memory keyed by market AND question with optional platform auth
 * (item 19). Real agents and real HTTP on loopback.
 */
import { afterAll, describe, expect, it } from "vitest";
import { checkCresolver } from "../../../protocols/cresolver/conformance.js";
import { createSafeHttpClient } from "../../../workflow/http/index.js";
import { sendJson, startServer } from "../workflow/helpers/servers.js";
import { get, startAgent, stopAll } from "../../helpers/agents.js";

afterAll(stopAll);

async function postWith(base: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe("A2A agent card (GET /.well-known/agent.json)", () => {
  for (const [protocol, path] of [
    ["cresolver", ""],
    ["factagora", "/webhook"],
    ["roundtable", ""],
    ["ai-olympics", "/webhook"],
  ] as const) {
    it(`${protocol}: served at the origin and under the endpoint, with the A2A card fields; url = the endpoint`, async () => {
      const auth =
        protocol === "factagora" || protocol === "roundtable"
          ? { bearerToken: "t-0123456789" }
          : protocol === "ai-olympics"
            ? { hmacSecret: "s-0123456789" }
            : undefined;
      const { url } = await startAgent({ protocol, name: `card-${protocol}`, ...(auth ? { auth } : {}) });
      for (const where of [...new Set(["", path])]) {
        for (const file of ["agent.json", "agent-card.json"]) {
          const res = await get(url, `${where}/.well-known/${file}`);
          expect(res.status, `${where}/.well-known/${file}`).toBe(200);
          expect(res.contentType).toMatch(/application\/json/);
          const card = res.json;
          expect(card).toMatchObject({
            name: `card-${protocol}`,
            url: `${url}${path}`,
            version: expect.any(String),
            protocolVersion: expect.any(String),
          });
          expect(card.description).toMatch(/prediction-market/);
          expect(card.capabilities).toEqual({
            streaming: false,
            pushNotifications: false,
            stateTransitionHistory: false,
          });
          expect(card.skills.map((s: { id: string }) => s.id)).toEqual(["resolve-market", "defend-answer"]);
          for (const skill of card.skills)
            expect(skill).toMatchObject({
              name: expect.any(String),
              description: expect.any(String),
              tags: expect.any(Array),
            });
        }
      }
    });
  }

  it("uses the configured public URL when given (behind a proxy)", async () => {
    const { url } = await startAgent({ publicUrl: "https://agent.example/cre" });
    expect((await get(url, "/.well-known/agent.json")).json.url).toBe("https://agent.example/cre");
  });

  it("agent check: a worker with a card gets no card warning; one without gets a warning, not a violation", async () => {
    const http = createSafeHttpClient({ allowLoopback: true });
    try {
      const { url } = await startAgent({ protocol: "cresolver" });
      const good = await checkCresolver({ url, http });
      expect(good.findings.filter((f) => f.rule === "cresolver.agent-card")).toEqual([]);

      // A worker that answers the protocol but serves no card (as a spec-only agent would).
      const bare = await startServer(async (req, res) => {
        if (req.url === "/a2a/resolve") {
          const body = JSON.parse(req.bodyText) as { question?: unknown };
          if (typeof body.question !== "string") return sendJson(res, 400, { error: "question" });
          return sendJson(res, 200, {
            determination: true,
            confidence: 0.7,
            evidence: "Evidence text.",
            sources: ["https://a.example/x"],
          });
        }
        if (req.url === "/a2a/challenge") return sendJson(res, 200, { responses: ["one", "two", "three"] });
        res.writeHead(404).end();
      });
      try {
        const report = await checkCresolver({ url: bare.url, http });
        const card = report.findings.filter((f) => f.rule === "cresolver.agent-card");
        expect(card).toHaveLength(1);
        expect(card[0].severity).toBe("warning");
        expect(card[0].message).toMatch(/no agent card .*CRE workflow drops workers without/);
        expect(report.passed).toBe(true);
      } finally {
        await bare.close();
      }
    } finally {
      await http.close();
    }
  });
});

describe("CRE side: memory by market and question, optional platform auth", () => {
  it("two markets with the same id but different questions are defended separately", async () => {
    const { url } = await startAgent({ protocol: "cresolver", persona: "analyst" });
    const a = { market_id: 1, question: "Will the city's population exceed 2 million by the end of 2026?" };
    const b = { market_id: 1, question: "Will it snow in Lisbon on 25 December 2026?" };
    const ra = await postWith(url, "/a2a/resolve", a);
    const rb = await postWith(url, "/a2a/resolve", b);
    expect(ra.status).toBe(200);
    expect(rb.status).toBe(200);

    // Naming the question picks that answer even though another one for market 1 came later.
    const ca = await postWith(url, "/a2a/challenge", {
      market_id: 1,
      question: a.question,
      challenges: ["What would change your mind?"],
    });
    const cb = await postWith(url, "/a2a/challenge", {
      market_id: 1,
      question: b.question,
      challenges: ["What would change your mind?"],
    });
    expect(ca.status).toBe(200);
    expect(cb.status).toBe(200);
    expect(ca.json.responses).not.toEqual(cb.json.responses);
    const direct = await postWith(url, "/a2a/challenge", {
      market_id: 1,
      question: a.question,
      challenges: ["What would change your mind?"],
    });
    expect(direct.json.responses).toEqual(ca.json.responses);

    // An unknown question for a known id is not answered with another question's record.
    const other = await postWith(url, "/a2a/challenge", {
      market_id: 1,
      question: "Some question never asked?",
      challenges: ["Why?"],
    });
    expect((other.json.responses as string[])[0]).toMatch(/no determination on record for market 1/);
    // market_id alone still works (the latest answer for that id), as before.
    expect((await postWith(url, "/a2a/challenge", { market_id: 1, challenges: ["Why?"] })).status).toBe(200);
  });

  it("with a bearer token configured, /a2a/resolve and /a2a/challenge need it (401 otherwise); the card and /health stay open", async () => {
    const token = "platform-token-0123456789";
    const { url } = await startAgent({ protocol: "cresolver", auth: { bearerToken: token } });
    const body = { market_id: 7, question: "Will the central bank cut rates in March 2026?" };
    expect((await postWith(url, "/a2a/resolve", body)).status).toBe(401);
    expect((await postWith(url, "/a2a/resolve", body, { authorization: "Bearer wrong-token" })).status).toBe(401);
    expect((await postWith(url, "/a2a/challenge", { challenges: ["x"] })).status).toBe(401);
    expect((await postWith(url, "/a2a/resolve", body, { authorization: `Bearer ${token}` })).status).toBe(200);
    expect(
      (
        await postWith(
          url,
          "/a2a/challenge",
          { market_id: 7, challenges: ["Why?"] },
          { authorization: `Bearer ${token}` },
        )
      ).status,
    ).toBe(200);
    expect((await get(url, "/health")).status).toBe(200);
    expect((await get(url, "/.well-known/agent.json")).status).toBe(200);

    // The conformance check sends a given token, so such an agent passes.
    const http = createSafeHttpClient({ allowLoopback: true });
    try {
      expect((await checkCresolver({ url, http, credentials: { bearerToken: token } })).passed).toBe(true);
    } finally {
      await http.close();
    }
  });

  it("without a token configured the routes stay open (the spec has no auth)", async () => {
    const { url } = await startAgent({ protocol: "cresolver" });
    expect(
      (await postWith(url, "/a2a/resolve", { market_id: 8, question: "Will it rain in Paris on 14 July 2026?" }))
        .status,
    ).toBe(200);
  });
});
