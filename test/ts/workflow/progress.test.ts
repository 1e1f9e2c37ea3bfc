/**
 * Progress of a run (issue 15 item 4): a real chain, real loopback workers, one of which never answers. The run
 * says whom it waits on and until when, reports each worker's answer or failure as it arrives, and closes with
 * a summary naming the failed worker and why.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdapterRegistry, defaultAdapters } from "../../../protocols/index.js";
import { createChainPorts } from "../../../workflow/chain/ports.js";
import { createRubricEvaluator } from "../../../workflow/evaluate/rubric.js";
import { createSafeHttpClient, type SafeHttpClient } from "../../../workflow/http/index.js";
import { describeProgress, type ProgressEvent } from "../../../workflow/pipeline/call-worker.js";
import { runResolution } from "../../../workflow/pipeline/run.js";
import { dataUriFor, deployTestChain, type TestChain } from "../../helpers/chain.js";
import { honestAnswer, startWorker, type TestServer } from "./helpers/servers.js";

const DEADLINE_MS = 1_000;
let chain: TestChain;
let http: SafeHttpClient;
const servers: TestServer[] = [];

beforeAll(async () => {
  chain = await deployTestChain();
  http = createSafeHttpClient({ allowLoopback: true });
});
afterAll(async () => {
  await http.close();
  await Promise.all(servers.map((s) => s.close()));
});

describe("run progress", () => {
  it("names the workers waited on with their deadline, each result, and a summary naming the hanging worker with timeout", async () => {
    const ws = await Promise.all([
      startWorker({ resolve: honestAnswer(true) }),
      startWorker({ rawResolve: () => undefined }),
      startWorker({ resolve: honestAnswer(true) }),
    ]);
    servers.push(...ws);
    const marketId = await chain.frozenMarket(
      "Will the progress test pass?",
      ws.map((w) => dataUriFor(w.url)),
    );
    const chainPorts = createChainPorts({ ctx: chain.resolverCtx, marketAddress: chain.market });
    const ports = {
      market: chainPorts.market,
      directory: chainPorts.directory,
      fetcher: http.fetcher,
      adapters: createAdapterRegistry(
        defaultAdapters({ http, resolveTimeoutMs: DEADLINE_MS, challengeTimeoutMs: DEADLINE_MS, retryDelayMs: 20 }),
      ),
      evaluator: createRubricEvaluator(),
    };
    const events: ProgressEvent[] = [];
    const result = await runResolution(
      marketId,
      ports,
      {},
      {
        onProgress: (event) => {
          events.push(event);
          if (events.length === 1) throw new Error("a broken listener must not break the run");
        },
      },
    );
    expect(result.outcome.kind).toBe("resolved");
    const hangingAgent = result.records[1].seat.agentId;

    // Ask: all three waited on, each until the adapter's deadline.
    const waiting = events.find((e) => e.type === "waiting" && e.stage === "ask");
    if (waiting?.type !== "waiting") throw new Error("no ask waiting event");
    expect(waiting.workers.map((w) => [w.seat, w.agentId, w.protocol, w.deadlineAt])).toEqual(
      [0, 1, 2].map((seat) => [seat, result.records[seat].seat.agentId, "cresolver", waiting.at + DEADLINE_MS]),
    );
    const line = describeProgress(waiting);
    expect(line).toContain(
      `seat 1 (agent ${hangingAgent}, cresolver) until ${new Date(waiting.at + DEADLINE_MS).toISOString()}`,
    );

    // Each ask result, the hanging one as a timeout.
    const asked = events.filter((e) => (e.type === "worker-done" || e.type === "worker-failed") && e.stage === "ask");
    expect(asked.map((e) => [e.type, "seat" in e ? e.seat : -1]).sort()).toEqual([
      ["worker-done", 0],
      ["worker-done", 2],
      ["worker-failed", 1],
    ]);
    const failed = asked.find((e) => e.type === "worker-failed");
    expect(failed?.type === "worker-failed" && failed.failure.kind).toBe("timeout");

    // The challenge stage waits only on the two that answered.
    const challenged = events.find((e) => e.type === "waiting" && e.stage === "challenge");
    expect(challenged?.type === "waiting" && challenged.workers.map((w) => w.seat)).toEqual([0, 2]);

    // The summary comes last among the run's events and names the hanging worker with timeout.
    const summary = events.at(-1);
    if (summary?.type !== "summary") throw new Error("the last event is not the summary");
    expect(summary.failed.map((f) => [f.seat, f.agentId, f.stage, f.failure.kind])).toEqual([
      [1, hangingAgent, "ask", "timeout"],
    ]);
    expect(describeProgress(summary)).toMatch(
      new RegExp(
        `^1 worker failure\\(s\\):\\n  seat 1 \\(agent ${hangingAgent}\\) ask: timeout: .*deadline ${DEADLINE_MS} ms`,
      ),
    );
  });
});
