/**
 * The production daemon (`startResolverDaemon`): real chain over HTTP, real SQLite file in a temp dir, the
 * real pipeline and the settle module, CRE reference agents on loopback. Markets are proposed from their
 * ResolutionRequested events only (no manual trigger, no direct call) and finalized by the daemon once the
 * dispute window is over on the chain's clock.
 */
import { keccak256, stringToBytes } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResolverDaemonHandle } from "../../../daemon/host.js";
import { agoraHostSigner } from "../../../protocols/agora/platform-host.js";
import { startAgent, stopAll } from "../../helpers/agents.js";
import { wsExchange } from "../protocols/agora/helpers.js";
import { getJson, waitFor } from "../../helpers/daemon/chain.js";
import { POOL, STAKE, startPanelChain, type PanelChain } from "../../helpers/daemon/panel.js";
import { startProductionDaemon } from "./helpers/resolver-daemon.js";
import { STATUS } from "../../helpers/daemon/job.js";

let chain: PanelChain;
let daemon: ResolverDaemonHandle;

beforeAll(async () => {
  chain = await startPanelChain();
  daemon = await startProductionDaemon(chain, "host", {
    apiHost: "127.0.0.1",
    maxAttempts: 2,
    // Fresh agents have no track record and vote as one unproven bloc: the threshold is pinned at one half so these
    // tests do not depend on the verdict model's defaults (it has its own tests).
    resolution: { vote: { thresholdBps: 5_000 } },
    watchIntervalMs: 50,
    backoffMs: 20,
    maxBackoffMs: 100,
    shutdownGraceMs: 2_000,
    resolveTimeoutMs: 5_000,
    challengeTimeoutMs: 5_000,
  });
}, 120_000);

afterAll(async () => {
  await daemon?.close();
  await stopAll();
  await chain?.close();
});

describe("startResolverDaemon", () => {
  it("proposes a market of three CRE agents from its ResolutionRequested event, finalizes it after the window, exactly once, and serves the hashed bundle", async () => {
    const workers = [];
    for (const [i, persona] of (["analyst", "analyst", "skeptic"] as const).entries()) {
      const agent = await startAgent({ protocol: "cresolver", persona });
      const w = await chain.registerAgent(i + 1);
      await w.setEndpoint(agent.url, "cresolver");
      workers.push(w);
    }
    const id = await chain.openMarket("Will the S&P 500 close above 7,000 on December 31, 2026?", workers);
    const before = await Promise.all(workers.map((w) => chain.pendingWithdrawal(w.address)));
    await chain.requestResolution(id);

    await waitFor(
      async () => (await getJson(`${daemon.url}/markets/${id}`)).job?.state === "proposed",
      "the daemon to propose",
      90_000,
    );
    expect((await chain.getMarket(id)).status).toBe(STATUS.Proposed);
    await chain.advance(86_400 + 60);
    const view = await waitFor(
      async () => {
        const v = await getJson(`${daemon.url}/markets/${id}`);
        return v.job?.state === "finalized" && v.job.feedback === "done" ? v : undefined;
      },
      "the daemon to finalize",
      90_000,
    );

    const onChain = await chain.getMarket(id);
    expect(onChain.status).toBe(STATUS.Resolved);
    expect((await fetch(`${daemon.url}/bundles/${onChain.bundleHash}.json`)).status).toBe(200);
    expect(view.job.attempts).toBe(1);
    expect(view.job.source).toBe("event");
    expect(keccak256(stringToBytes(view.bundle.json))).toBe(onChain.bundleHash);
    expect(view.bundle.hash).toBe(onChain.bundleHash);
    expect(view.bundle.document.workers.map((w: { endpoint: { protocol: string } }) => w.endpoint.protocol)).toEqual([
      "cresolver",
      "cresolver",
      "cresolver",
    ]);

    // Exactly once: one finalization as Resolved, nothing else, and the daemon does not come back to it.
    await chain.testClient.mine({ blocks: 3 });
    await waitFor(
      async () =>
        (await getJson(`${daemon.url}/health`)).markets[0].lastProcessedBlock >=
        Number(await chain.publicClient.getBlockNumber()),
      "the trigger to pass the new blocks",
    );
    expect(await chain.settlements(id)).toEqual({ resolved: 1, invalidated: 0 });
    expect((await getJson(`${daemon.url}/markets/${id}`)).job).toMatchObject({
      state: "finalized",
      attempts: 1,
      finalStatus: "resolved",
    });

    // Stakes back and rewards to the workers that answered.
    const settled = await chain.workerSettlements(id);
    let paid = 0n;
    for (const [i, w] of workers.entries()) {
      const s = settled.get(w.agentId)!;
      expect(s.stake).toBe(STAKE);
      paid += s.payout;
      expect((await chain.pendingWithdrawal(w.address)) - before[i]).toBe(s.payout + s.stake);
    }
    expect(paid).toBeGreaterThan(0n);
    expect(paid).toBeLessThanOrEqual(POOL);

    // Agent latencies by protocol in /metrics (ask and challenge of three cresolver agents).
    const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
    const count = /cresolver_agent_call_latency_seconds_count\{[^}]*protocol="cresolver"[^}]*\} (\d+)/.exec(metrics);
    expect(
      count,
      metrics
        .split("\n")
        .filter((l) => l.includes("agent"))
        .join("\n"),
    ).not.toBeNull();
    expect(Number(count![1])).toBeGreaterThanOrEqual(3);
    expect(metrics).toMatch(/cresolver_daemon_jobs\{state="finalized"\} [1-9]/);
  }, 120_000);

  it("retries a market whose agents are all down, then proposes invalid; finalized Invalid refunds stakes and pool", async () => {
    const workers = [];
    for (const i of [4, 5]) {
      const w = await chain.registerAgent(i);
      // Port 1 on loopback: connection refused, like an agent that is down.
      await w.setEndpoint("http://127.0.0.1:1", "cresolver");
      workers.push(w);
    }
    const id = await chain.openMarket("Will the daemon test market with absent workers resolve?", workers);
    const before = await Promise.all(
      [chain.creator, ...workers.map((w) => w.address)].map((a) => chain.pendingWithdrawal(a)),
    );
    await chain.requestResolution(id);

    const proposed = await waitFor(
      async () => {
        const v = await getJson(`${daemon.url}/markets/${id}`);
        return v.job?.state === "proposed" ? v : undefined;
      },
      "the invalid proposal",
      90_000,
    );
    expect(proposed.job).toMatchObject({ attempts: 2, verdict: "invalid" });
    expect(proposed.job.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    await chain.advance(86_400 + 60);
    const view = await waitFor(
      async () => {
        const v = await getJson(`${daemon.url}/markets/${id}`);
        return v.job?.state === "finalized" ? v : undefined;
      },
      "the invalid finalization",
      90_000,
    );
    expect(view.job.finalStatus).toBe("invalid");

    const onChain = await chain.getMarket(id);
    expect(onChain.status).toBe(STATUS.Invalid);
    expect(await chain.settlements(id)).toEqual({ resolved: 0, invalidated: 1 });
    // The bundle of the last attempt is the one whose hash went on chain.
    expect(keccak256(stringToBytes(view.bundle.json))).toBe(onChain.bundleHash);

    const after = await Promise.all(
      [chain.creator, ...workers.map((w) => w.address)].map((a) => chain.pendingWithdrawal(a)),
    );
    expect(after[0] - before[0]).toBe(POOL);
    expect(after[1] - before[1]).toBe(STAKE);
    expect(after[2] - before[2]).toBe(STAKE);

    const metrics = await (await fetch(`${daemon.url}/metrics`)).text();
    expect(metrics).toMatch(/cresolver_agent_call_failures_total\{protocol="cresolver"\} [1-9]/);
  }, 120_000);

  it("serves its JWKS (public members only) and mounts the Agora event stream, verifying match tokens against its own key", async () => {
    const jwks = await getJson<{ keys: Record<string, unknown>[] }>(daemon.jwksUrl);
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", kid: daemon.signingKey.kid });
    expect(jwks.keys[0]).not.toHaveProperty("d");
    const url = `${daemon.agoraStreamUrl}/agora/matches/77/events`;
    expect((await wsExchange(url, undefined, [])).refusedStatus).toBe(401);
    expect((await wsExchange(url, "not-a-jwt", [])).refusedStatus).toBe(401);
    const signer = agoraHostSigner(daemon.signingKey);
    expect((await wsExchange(url, await signer.sign({ agent_id: "5", match_id: "78" }), [])).refusedStatus).toBe(403);
    // A token the daemon signed for this match: the event is acknowledged and kept for the adapter.
    const ok = await wsExchange(url, await signer.sign({ agent_id: "5", match_id: "77" }), [
      JSON.stringify({ type: "thinking", message: "checking sources" }),
    ]);
    expect(ok.messages).toEqual([{ type: "ack", seq: 1 }]);
    expect(daemon.agoraEvents.events("77", "5").map((e) => e.event)).toEqual([
      { type: "thinking", message: "checking sources" },
    ]);
  });
});
