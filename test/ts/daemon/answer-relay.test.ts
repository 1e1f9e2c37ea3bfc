/**
 * The daemon's `GET /answers/<marketId>` relay (daemon/answer-relay.ts, workflow/relay/gather.ts) on a real fastify
 * server on loopback, gathering from real reference agents that sign their replies: one document per market however
 * many readers ask at once, only verified signed answers in it, every one accepted by the relay adapter a DON runs;
 * bad requests refused in one line.
 */
import Fastify, { type FastifyInstance } from "fastify";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReferenceAgent, type ReferenceAgent } from "../../../agents/reference/server.js";
import { registrationUri } from "../../../cre/test/agents.js";
import { agentKey } from "../../../cre/test/relay.js";
import { mountAnswerRelay } from "../../../daemon/answer-relay.js";
import { createCresolverAdapter } from "../../../protocols/cresolver/adapter.js";
import { createAdapterRegistry } from "../../../protocols/adapter-registry.js";
import type { MarketSnapshot } from "../../../workflow/core/types.js";
import { createSafeHttpClient } from "../../../workflow/http/index.js";
import type { PipelinePorts } from "../../../workflow/ports.js";
import { parseRelayDocument } from "../../../workflow/relay/answer-document.js";
import { gatherSignedAnswers } from "../../../workflow/relay/gather.js";
import { createKnownSignerVerifier } from "../../../workflow/relay/known-signers.js";
import { createRelayAdapter } from "../../../workflow/relay/relay-adapter.js";

const MARKET = "0x5FbDB2315678afecb367f032d93F642f64180aa3" as const;
const http = createSafeHttpClient({ allowLoopback: true });
const agents: ReferenceAgent[] = [];
let app: FastifyInstance;
let base: string;
let gathered = 0;
let snapshot: MarketSnapshot;
let ports: Pick<PipelinePorts, "market" | "directory" | "fetcher" | "adapters" | "signatures">;

beforeAll(async () => {
  // Agents 1 and 2 sign with their wallet keys; agent 3 has no key (unsigned replies).
  const urls: string[] = [];
  for (const key of [agentKey(0), agentKey(1), undefined]) {
    const agent = createReferenceAgent({ protocol: "cresolver", ...(key !== undefined ? { signingKey: key } : {}) });
    agents.push(agent);
    urls.push(await agent.start({ port: 0 }));
  }
  snapshot = {
    chainId: 31337,
    marketAddress: MARKET,
    marketId: 7n,
    question: "Will the 2026 official inflation figure exceed 3%?",
    deadline: 1_767_225_600,
    context: "",
    workers: urls.map((_, i) => ({
      address: `0x${(0x1000 + i).toString(16).padStart(40, "0")}` as `0x${string}`,
      agentId: BigInt(i + 1),
      stake: 1n,
    })),
  };
  const uris = new Map(snapshot.workers.map((w, i) => [w.agentId, registrationUri(`agent ${i + 1}`, urls[i] ?? "")]));
  ports = {
    market: {
      readMarket: async (id) => {
        if (id !== 7n) throw new Error(`market ${id} is not in ResolutionRequested`);
        return snapshot;
      },
    },
    directory: { agentURI: async (id) => uris.get(id) },
    fetcher: http.fetcher,
    adapters: createAdapterRegistry([createCresolverAdapter({ http })]),
    signatures: createKnownSignerVerifier(
      snapshot.workers.map((w, i) => ({ agentId: w.agentId, wallet: privateKeyToAccount(agentKey(i)).address })),
    ),
  };
  app = Fastify();
  mountAnswerRelay(app, {
    markets: [MARKET.toLowerCase()],
    gather: (_market, id) => {
      gathered++;
      return gatherSignedAnswers(id, ports, { maxBytes: 100_000 });
    },
  });
  base = await app.listen({ host: "127.0.0.1", port: 0 });
});

afterAll(async () => {
  await app.close();
  await Promise.all(agents.map((a) => a.close()));
  await http.close();
});

describe("daemon answer relay", () => {
  it("gathers once for concurrent readers and serves only verified signed answers, each accepted by the relay adapter", async () => {
    const [a, b] = await Promise.all([fetch(`${base}/answers/7`), fetch(`${base}/answers/7?market=${MARKET}`)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const text = await a.text();
    expect(await b.text()).toBe(text);
    expect(gathered).toBe(1);
    const doc = JSON.parse(text) as { answers: { agentId: string }[] };
    expect(doc.answers.map((e) => e.agentId)).toEqual(["1", "2"]);

    const at = { chainId: 31337, market: MARKET, marketId: 7n };
    const adapter = createRelayAdapter({
      direct: createCresolverAdapter({ http }),
      document: parseRelayDocument(text, at),
      market: at,
      verifier: ports.signatures,
    });
    const request = { marketId: 7n, question: snapshot.question, deadline: snapshot.deadline, context: "" };
    const endpoint = { url: "http://unused.invalid", protocol: "cresolver" };
    const results = await Promise.all(snapshot.workers.map((seat) => adapter.ask(endpoint, seat, request)));
    expect(results.map((r) => r.ok)).toEqual([true, true, false]);
    expect(results[2]?.ok === false && results[2].failure.message).toBe(
      "relay: no answer from agent 3 in its document",
    );
  });

  it("a document over the size cap leaves the last seats out until it fits", async () => {
    const small = await gatherSignedAnswers(7n, ports, { maxBytes: 1_200 });
    expect(small.dropped).toBeGreaterThan(0);
    expect(new TextEncoder().encode(small.text).length).toBeLessThanOrEqual(1_200);
    expect(small.document.answers.length).toBe(2 - small.dropped);
  });

  it("refuses a bad id (400), an unwatched market (404) and a market that cannot be resolved (409)", async () => {
    const bad = await fetch(`${base}/answers/0x7`);
    expect(bad.status).toBe(400);
    const other = await fetch(`${base}/answers/7?market=0x0000000000000000000000000000000000000001`);
    expect(other.status).toBe(404);
    const closed = await fetch(`${base}/answers/8`);
    expect(closed.status).toBe(409);
    expect(((await closed.json()) as { error: string }).error).toMatch(
      /^market 8 cannot be relayed now: PipelineError: read: market 8 could not be read$/,
    );
  });
});
