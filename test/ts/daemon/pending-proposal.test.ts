/**
 * Issue 23 item 6: the production daemon records its proposal's transaction hash at broadcast, and a daemon that
 * stops while that proposal is pending (mining off on a real Hardhat chain: the transaction sits in the pool) waits
 * for it after the restart instead of sending a second one. Exactly one proposal transaction is ever sent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { ResolverDaemonHandle } from "../../../daemon/host.js";
import { Writable } from "node:stream";
import { createLogger, Store } from "../../../daemon/index.js";
import { startAgent, stopAll } from "../../helpers/agents.js";
import { tempDbPath } from "../../helpers/daemon/daemon.js";
import { waitFor } from "../../helpers/daemon/chain.js";
import { startPanelChain, type PanelChain } from "../../helpers/daemon/panel.js";
import { STATUS } from "../../helpers/daemon/job.js";
import { startProductionDaemon } from "./helpers/resolver-daemon.js";

let chain: PanelChain;
const running: ResolverDaemonHandle[] = [];

beforeAll(async () => {
  chain = await startPanelChain();
}, 60_000);
afterAll(async () => {
  for (const d of running) await d.close().catch(() => undefined);
  await stopAll();
  await chain?.close();
});

function jobOf(dbPath: string, marketId: bigint) {
  const s = new Store(dbPath);
  try {
    return s.getJob({ chainId: 31337, market: chain.market, marketId });
  } finally {
    s.close();
  }
}

describe("a proposal pending across a restart", () => {
  it("is recorded at broadcast, waited for after the restart, and sent exactly once", async () => {
    const workers = [];
    for (const [i, persona] of (["analyst", "skeptic"] as const).entries()) {
      const agent = await startAgent({ protocol: "cresolver", persona });
      const w = await chain.registerAgent(i + 1);
      await w.setEndpoint(agent.url, "cresolver");
      workers.push(w);
    }
    const id = await chain.openMarket("Will the pending proposal be sent exactly once?", workers);
    await chain.requestResolution(id);
    const resolver = privateKeyToAccount(chain.resolverKey).address;
    const noncesBefore = await chain.publicClient.getTransactionCount({ address: resolver, blockTag: "pending" });

    // Mining off: the proposal is broadcast and stays pending.
    await chain.testClient.setAutomine(false);
    const dbPath = tempDbPath("pending-proposal");
    const first = await startProductionDaemon(chain, "pending-1", { dbPath, backoffMs: 20, watchIntervalMs: 50 });
    running.push(first);
    const pending = await waitFor(
      async () => {
        const job = first.store.getJob({ chainId: 31337, market: chain.market, marketId: id });
        return job?.state === "proposing" && job.txHash !== null ? job.txHash : undefined;
      },
      "the proposal's hash recorded while it is pending",
      90_000,
    );
    const tx = await chain.publicClient.getTransaction({ hash: pending as Hex });
    expect(tx.blockNumber).toBeNull(); // in the pool, not mined
    expect((await chain.getMarket(id)).status).toBe(STATUS.ResolutionRequested);

    // The daemon goes away with its proposal pending.
    await first.close();
    running.splice(running.indexOf(first), 1);
    const killed = jobOf(dbPath, id);
    expect(killed).toMatchObject({ state: "proposing", txHash: pending });

    const lines: string[] = [];
    const logger = createLogger({
      level: "info",
      pretty: false,
      destination: new Writable({
        write(chunk: Buffer | string, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    });
    const second = await startProductionDaemon(chain, "pending-2", {
      dbPath,
      backoffMs: 20,
      watchIntervalMs: 50,
      logger,
    });
    running.push(second);
    // The restarted daemon reaches the job while its transaction is still pending, and waits for it.
    await waitFor(
      () => lines.some((l) => l.includes("waiting for the proposal sent before") && l.includes(pending)),
      "the restarted daemon to wait for the pending proposal",
      90_000,
    );
    expect(lines.filter((l) => l.includes("proposal not sent") || l.includes('proposal sent"'))).toEqual([]);
    await chain.testClient.mine({ blocks: 1 });
    await chain.testClient.setAutomine(true);
    await waitFor(
      () => second.store.getJob({ chainId: 31337, market: chain.market, marketId: id })?.state === "proposed",
      "the restarted daemon to see its proposal land",
      90_000,
    );
    expect((await chain.getMarket(id)).status).toBe(STATUS.Proposed);
    const job = second.store.getJob({ chainId: 31337, market: chain.market, marketId: id });
    expect(job).toMatchObject({ txHash: pending, lastError: null });
    // Exactly one proposal transaction: one nonce used by the resolver, one ResolutionProposed event.
    expect(await chain.publicClient.getTransactionCount({ address: resolver, blockTag: "pending" })).toBe(
      noncesBefore + 1,
    );
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: pending as Hex });
    expect(receipt.status).toBe("success");
  });
});
