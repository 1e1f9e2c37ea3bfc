/**
 * `cresolver resolve` says whom it waits on and until when, and names every failed worker and why (issue 15
 * item 4): the CLI in-process against a Hardhat chain, two reference agents and one loopback agent that accepts
 * the connection and never answers. Progress goes to stderr only: with --json, stdout stays one JSON object.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEther } from "viem";
import { createReferenceAgent, type ReferenceAgent } from "../../../agents/reference/server.js";
import { createResolvePipeline } from "../../../cli/shared/resolve-pipeline.js";
import { createMarket, joinMarket, registerAgent, requestResolution } from "../../../workflow/chain/actions.js";
import { withKey } from "../../../workflow/chain/clients.js";
import { buildRegistrationFile, encodeRegistrationDataUri } from "../../../workflow/registration/index.js";
import { createCliHarness, type CliHarness } from "./helpers/inprocess.js";
import { hardhatKey } from "./helpers/keys.js";

const DEADLINE_MS = 1_500;
let h: CliHarness;
const agents: ReferenceAgent[] = [];
let hanging: Server;
let hangingUrl: string;

beforeAll(async () => {
  h = await createCliHarness();
  hanging = createServer(() => undefined); // reads the request, never answers
  await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
  const address = hanging.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  hangingUrl = `http://127.0.0.1:${address.port}`;
}, 120_000);
afterAll(async () => {
  hanging?.closeAllConnections();
  await new Promise((resolve) => hanging?.close(resolve));
  await Promise.all(agents.map((a) => a.close()));
  await h?.close();
});

describe("resolve progress", () => {
  it("prints the workers waited on with their deadline, each failure, and a summary naming the hanging worker with timeout", async () => {
    const endpoints: string[] = [];
    for (let i = 0; i < 2; i++) {
      const agent = createReferenceAgent({ protocol: "cresolver", persona: "analyst" });
      agents.push(agent);
      endpoints.push((await agent.start({ host: "127.0.0.1", port: 0 })).replace(/\/$/, ""));
    }
    endpoints.splice(1, 0, hangingUrl); // seat 1 hangs
    const deadline = BigInt((await h.owner.publicClient.getBlock()).timestamp) + 100n;
    const { marketId } = await createMarket(
      h.owner,
      h.market,
      "Will the progress lines name the hanging worker?",
      deadline,
      parseEther("1"),
    );
    const agentIds: bigint[] = [];
    for (const [i, endpoint] of endpoints.entries()) {
      const worker = withKey(h.owner, hardhatKey(10 + i));
      const { agentId } = await registerAgent(
        worker,
        h.identity,
        encodeRegistrationDataUri(buildRegistrationFile({ name: `seat ${i}`, endpoint, protocol: "cresolver" })),
      );
      agentIds.push(agentId);
      await joinMarket(worker, h.market, marketId, agentId, parseEther("0.01"));
    }
    await h.increaseTime(101);
    await requestResolution(h.owner, h.market, marketId);

    const started = Date.now();
    const r = await h.cresolver(["resolve", String(marketId), "--dry-run", "--allow-loopback"], {
      key: hardhatKey(0),
      pipeline: createResolvePipeline({ resolveTimeoutMs: DEADLINE_MS, challengeTimeoutMs: DEADLINE_MS }),
    });
    expect(r.code, r.stderr).toBe(0);
    // stdout: exactly the one JSON object (the harness parsed it); the run still resolves on two answers.
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
    expect(r.json).toMatchObject({ status: "dry-run", quorum: { n: 3, answered: 2 } });

    const lines = r.stderr.split("\n");
    const waiting = lines.find((l) => l.startsWith(`market ${marketId} ask: waiting on 3 worker(s)`));
    expect(waiting, r.stderr).toBeDefined();
    const until = new RegExp(`seat 1 \\(agent ${agentIds[1]}, cresolver\\) until (\\S+Z)`).exec(waiting ?? "");
    expect(until, waiting).not.toBeNull();
    const deadlineAt = Date.parse(until![1]);
    // The deadline printed is the adapter's, counted from when the ask stage started (inside this command).
    expect(deadlineAt - started).toBeGreaterThanOrEqual(DEADLINE_MS);
    expect(deadlineAt).toBeLessThanOrEqual(Date.now() + DEADLINE_MS);

    expect(
      lines.some((l) =>
        new RegExp(`^market ${marketId} ask: seat 1 \\(agent ${agentIds[1]}\\) failed after \\d+ ms: timeout: `).test(
          l,
        ),
      ),
      r.stderr,
    ).toBe(true);
    expect(
      lines.some((l) =>
        new RegExp(`^market ${marketId} ask: seat 0 \\(agent ${agentIds[0]}\\) answered in \\d+ ms$`).test(l),
      ),
      r.stderr,
    ).toBe(true);
    // The summary names the hanging worker and why, and nobody else.
    const summary = lines.indexOf(`market ${marketId} 1 worker failure(s):`);
    expect(summary, r.stderr).toBeGreaterThanOrEqual(0);
    expect(lines[summary + 1]).toMatch(
      new RegExp(`^  seat 1 \\(agent ${agentIds[1]}\\) ask: timeout: .*\\(deadline ${DEADLINE_MS} ms\\)$`),
    );
    expect(r.json!.failedWorkers).toEqual([expect.objectContaining({ seat: 1, kind: "timeout" })]);
  }, 120_000);
});
