/**
 * The daemon logs each run's progress in the job's log (issue 15 item 4): the production daemon on a panel chain,
 * two reference agents and one loopback agent that never answers. The pino lines carry the job id, whom the ask
 * stage waits on and until when, the hanging worker's timeout, and the closing summary naming it.
 */
import { createServer, type Server } from "node:http";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResolverDaemonHandle } from "../../../daemon/host.js";
import { createLogger } from "../../../daemon/index.js";
import { startAgent, stopAll } from "../../helpers/agents.js";
import { startPanelChain, type PanelChain } from "../../helpers/daemon/panel.js";
import { startProductionDaemon } from "./helpers/resolver-daemon.js";

const DEADLINE_MS = 1_000;
let chain: PanelChain;
let daemon: ResolverDaemonHandle;
let hanging: Server;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  chain = await startPanelChain();
  hanging = createServer(() => undefined); // reads the request, never answers
  await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
  let buffered = "";
  const sink = new Writable({
    write(chunk, _encoding, done) {
      buffered += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) if (line.trim() !== "") logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  daemon = await startProductionDaemon(chain, "progress", {
    logger: createLogger({ level: "info", pretty: false, destination: sink }),
    resolveTimeoutMs: DEADLINE_MS,
    challengeTimeoutMs: DEADLINE_MS,
    resolution: { vote: { thresholdBps: 5_000 } },
  });
}, 120_000);
afterAll(async () => {
  await daemon?.close();
  hanging?.closeAllConnections();
  await new Promise((resolve) => hanging?.close(resolve));
  await stopAll();
  await chain?.close();
});

async function until<T>(probe: () => T | undefined, what: string, timeoutMs = 90_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("daemon run progress", () => {
  it("logs whom the run waits on with deadlines, the hanging worker's timeout and a summary naming it, per job", async () => {
    const address = hanging.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    const endpoints = [
      (await startAgent({ protocol: "cresolver", persona: "analyst" })).url,
      `http://127.0.0.1:${address.port}`,
      (await startAgent({ protocol: "cresolver", persona: "analyst" })).url,
    ];
    const workers = [];
    for (const [i, endpoint] of endpoints.entries()) {
      const w = await chain.registerAgent(i + 1);
      await w.setEndpoint(endpoint, "cresolver");
      workers.push(w);
    }
    const id = await chain.openMarket("Will the daemon log the hanging worker?", workers);
    await chain.requestResolution(id);

    const summary = await until(
      () => logLines.find((l) => Array.isArray(l.failedWorkers) && l.marketId === id.toString()),
      "the run's summary",
    );
    const jobId = summary.jobId;
    expect(jobId).toEqual(expect.any(Number));
    expect(summary.level).toBe(40); // warn: a worker failed
    expect(summary.failedWorkers).toEqual([
      {
        seat: 1,
        agentId: workers[1].agentId.toString(),
        stage: "ask",
        kind: "timeout",
        message: expect.stringContaining(`deadline ${DEADLINE_MS} ms`),
      },
    ]);

    const mine = logLines.filter((l) => l.jobId === jobId);
    const waiting = mine.find((l) => typeof l.msg === "string" && l.msg.startsWith("job: ask: waiting on 3 worker(s)"));
    expect(waiting, JSON.stringify(mine)).toBeDefined();
    const seat1 = (waiting!.waitingOn as { seat: number; agentId: string; deadline: string }[])[1];
    expect(seat1).toMatchObject({ seat: 1, agentId: workers[1].agentId.toString(), protocol: "cresolver" });
    // The deadline is the adapter's, counted from the moment the stage started waiting (just before this line).
    const ahead = Date.parse(seat1.deadline) - (waiting!.time as number);
    expect(ahead).toBeGreaterThan(0);
    expect(ahead).toBeLessThanOrEqual(DEADLINE_MS);
    expect(waiting!.msg).toContain(`until ${seat1.deadline}`);
    expect(mine.some((l) => l.stage === "ask" && l.seat === 1 && l.kind === "timeout" && l.level === 40)).toBe(true);
  }, 120_000);
});
