/**
 * Issue 7 acceptance: one market, five workers, one per protocol — cresolver, Factagora (bearer token),
 * round-table, Agora Arena (JWTs verified against the daemon's /.well-known/jwks.json, events streamed to the
 * daemon's WebSocket) and AI Olympics (HMAC secret) — resolved by the production daemon from the
 * ResolutionRequested event. Per-agent credentials are given to the daemon keyed by agent id. Each worker
 * gets its stake back and a reward when it answered; the cresolver agent signs its answer and gets its two ERC-8004
 * records from the market, the other four protocols' seats are attested and get none.
 * Real chain over HTTP, real SQLite file, real reference agents on loopback with their auth.
 */
import { keccak256, stringToBytes } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResolverDaemonHandle } from "../../../daemon/host.js";
import { resolutionMarketAbi } from "../../../workflow/chain/abis.js";
import {
  type AgentCredentials,
  type BoundAgentCredentials,
  credentialStoreOver,
  endpointOrigin,
} from "../../../workflow/adapters/credentials.js";
import { startAgent, stopAll } from "../../helpers/agents.js";
import { getJson, waitFor } from "../../helpers/daemon/chain.js";
import { startProductionDaemon } from "./helpers/resolver-daemon.js";
import { STATUS } from "../../helpers/daemon/job.js";
import {
  hardhatKey,
  POOL,
  STAKE,
  startPanelChain,
  type PanelChain,
  type PanelWorker,
} from "../../helpers/daemon/panel.js";

const FACTAGORA_TOKEN = "factagora-token-0123456789abcdef";
const ROUNDTABLE_TOKEN = "roundtable-token-0123456789abcdef";
const OLYMPICS_SECRET = "olympics-webhook-secret-0123456789";

let chain: PanelChain;
let daemon: ResolverDaemonHandle;
const workers: (PanelWorker & { protocol: string })[] = [];

beforeAll(async () => {
  chain = await startPanelChain();
  // Agent ids first: the daemon's credentials are keyed by them.
  const protocols = ["cresolver", "factagora", "roundtable", "agora", "ai-olympics"];
  const registered: (Awaited<ReturnType<PanelChain["registerAgent"]>> & { protocol: string })[] = [];
  for (const [i, protocol] of protocols.entries())
    registered.push(Object.assign(await chain.registerAgent(i + 1), { protocol }));
  const id = (protocol: string) => registered.find((w) => w.protocol === protocol)!.agentId.toString();

  const secrets = new Map<bigint, BoundAgentCredentials>();
  const auth: Record<string, AgentCredentials> = {
    factagora: { bearerToken: FACTAGORA_TOKEN },
    roundtable: { bearerToken: ROUNDTABLE_TOKEN },
    "ai-olympics": { hmacSecret: OLYMPICS_SECRET },
  };
  daemon = await startProductionDaemon(chain, "five", {
    maxAttempts: 2,
    // Fresh agents have no track record and vote as one unproven bloc: the threshold is pinned at one half so these
    // tests do not depend on the verdict model's defaults (it has its own tests).
    resolution: { vote: { thresholdBps: 5_000 } },
    watchIntervalMs: 50,
    backoffMs: 20,
    shutdownGraceMs: 2_000,
    credentials: credentialStoreOver(secrets), // filled below, bound to each agent's origin once it listens
  });

  // The agents, each with the auth its protocol uses; Agora verifies against the daemon's JWKS and streams to it.
  const servers: Record<string, { opts: Parameters<typeof startAgent>[0]; path: string }> = {
    // The cresolver agent signs its answers with its owner's key (registered as owner index 1): a signed seat.
    cresolver: { opts: { protocol: "cresolver", persona: "analyst", signingKey: hardhatKey(1) }, path: "" },
    factagora: {
      opts: { protocol: "factagora", persona: "analyst", auth: { bearerToken: FACTAGORA_TOKEN } },
      path: "/webhook",
    },
    roundtable: {
      opts: { protocol: "roundtable", persona: "analyst", auth: { bearerToken: ROUNDTABLE_TOKEN } },
      path: "",
    },
    agora: {
      opts: {
        protocol: "agora",
        persona: "analyst",
        auth: { jwksUrl: daemon.jwksUrl },
        agentId: id("agora"),
        agoraStreamUrl: daemon.agoraStreamUrl,
      },
      path: "/agora",
    },
    "ai-olympics": {
      opts: { protocol: "ai-olympics", persona: "analyst", auth: { hmacSecret: OLYMPICS_SECRET } },
      path: "/webhook",
    },
  };
  for (const w of registered) {
    const { opts, path } = servers[w.protocol];
    const agent = await startAgent(opts);
    await w.setEndpoint(`${agent.url}${path}`, w.protocol);
    if (auth[w.protocol] !== undefined)
      secrets.set(w.agentId, { origin: endpointOrigin(agent.url)!, ...auth[w.protocol] });
    workers.push(w);
  }
}, 120_000);

afterAll(async () => {
  await daemon?.close();
  await stopAll();
  await chain?.close();
});

describe("the daemon resolves a market whose five workers speak the five protocols", () => {
  it("asks, challenges, scores, pays and rates every worker; the bundle holds all five protocols' records", async () => {
    const id = await chain.openMarket("Will the S&P 500 close above 7,000 on December 31, 2026?", workers);
    const before = await Promise.all(workers.map((w) => chain.pendingWithdrawal(w.address)));
    await chain.requestResolution(id);

    const proposed = await waitFor(
      async () => {
        const v = await getJson(`${daemon.url}/markets/${id}`);
        return ["proposed", "failed"].includes(v.job?.state) ? v : undefined;
      },
      "the daemon to propose",
      110_000,
    );
    expect(proposed.job, JSON.stringify(proposed.job)).toMatchObject({
      state: "proposed",
      attempts: 1,
      source: "event",
    });
    await chain.advance(86_400 + 60);
    const view = await waitFor(
      async () => {
        const v = await getJson(`${daemon.url}/markets/${id}`);
        return v.job?.state === "finalized" && v.job.feedback === "done" ? v : undefined;
      },
      "the daemon to finalize the market",
      60_000,
    );

    const onChain = await chain.getMarket(id);
    expect(onChain.status).toBe(STATUS.Resolved);
    expect(keccak256(stringToBytes(view.bundle.json))).toBe(onChain.bundleHash);
    expect(await chain.settlements(id)).toEqual({ resolved: 1, invalidated: 0 });

    // The bundle: one record per protocol, in seat order, each answered with its protocol's extras.
    const doc = view.bundle.document;
    const records = doc.workers as {
      agentId: string;
      endpoint: { protocol: string };
      status: string;
      askFailure?: unknown;
      answer?: { extras?: Record<string, unknown> };
      challengeReplies?: string[];
      review?: { approve: boolean };
    }[];
    expect(records.map((r) => r.endpoint.protocol)).toEqual([
      "cresolver",
      "factagora",
      "roundtable",
      "agora",
      "ai-olympics",
    ]);
    for (const r of records) {
      expect(r.status, `${r.endpoint.protocol}: ${JSON.stringify(r.askFailure)}`).toBe("answered");
      expect(r.challengeReplies?.length ?? 0, r.endpoint.protocol).toBeGreaterThan(0);
    }
    expect(records[1].answer?.extras).toMatchObject({ protocol: "factagora" });
    expect(records[2].answer?.extras).toMatchObject({ protocol: "roundtable" });
    // Round-table's /vote on the computed resolution went into the bundle.
    expect(records[2].review).toMatchObject({ approve: true });
    expect(records[4].answer?.extras).toMatchObject({ protocol: "ai-olympics" });
    expect(records[3].answer?.extras).toHaveProperty("agora");
    const agoraExtras = records[3].answer!.extras!.agora as { match_id: string; events: unknown[] };
    expect(agoraExtras.match_id).toBe(id.toString());
    // The Agora agent streamed its match events to the daemon's WebSocket; they are in the bundle.
    expect(agoraExtras.events.length).toBeGreaterThan(0);

    // Reward (weight computed on chain > 0: every worker answered yes/no), stake back. The cresolver agent signed its
    // answer: two ERC-8004 records (correctness and quality). The other four protocols carry no signature: their
    // seats are attested by the resolver, which can never cost the agent, so they get no record at all.
    const settled = await chain.workerSettlements(id);
    let paid = 0n;
    for (const [i, w] of workers.entries()) {
      const s = settled.get(w.agentId);
      expect(s, w.protocol).toBeDefined();
      expect(s!.stake).toBe(STAKE);
      expect(s!.payout, w.protocol).toBeGreaterThan(0n);
      paid += s!.payout;
      expect((await chain.pendingWithdrawal(w.address)) - before[i], w.protocol).toBe(s!.payout + s!.stake);
      const fb = await chain.feedback(w.agentId);
      if (w.protocol === "cresolver") {
        expect(fb.count, w.protocol).toBe(2n);
        expect([...new Set(fb.tag1s)].sort(), w.protocol).toEqual(["correctness", "quality"]);
      } else expect(fb.count, w.protocol).toBe(0n);
    }
    // The market stored the cresolver seat as signed (ReportCodec bit 51 of the seat's report word), the rest attested.
    const [words] = await chain.publicClient.readContract({
      address: chain.market,
      abi: resolutionMarketAbi,
      functionName: "seatWords",
      args: [id, 0n, BigInt(workers.length)],
    });
    expect(words.map((word) => ((word >> 243n) & 1n) === 1n)).toEqual(workers.map((w) => w.protocol === "cresolver"));
    expect(paid).toBeLessThanOrEqual(POOL);
    expect(POOL - paid).toBeLessThan(BigInt(workers.length));

    // Latencies by protocol for all five.
    const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
    for (const p of ["cresolver", "factagora", "roundtable", "agora", "ai-olympics"]) {
      expect(metrics, p).toMatch(
        new RegExp(`cresolver_agent_call_latency_seconds_count\\{[^}]*protocol="${p}"[^}]*\\} [1-9]`),
      );
    }
  }, 120_000);
});
