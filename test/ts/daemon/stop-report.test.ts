/**
 * `cresolver daemon` stopped by Ctrl-C (in process: the test aborts the run's signal, which is what main.ts does on
 * SIGINT): it stops gracefully, exits 130 and says, in the words of the other commands' Ctrl-C report, what this
 * run sent and what its store still holds. Mining is off on a real Hardhat chain, so the proposal stays pending.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../../cli/program.js";
import { Store } from "../../../daemon/index.js";
import { startAgent, stopAll } from "../../helpers/agents.js";
import { waitFor } from "../../helpers/daemon/chain.js";
import { STATUS } from "../../helpers/daemon/job.js";
import { startPanelChain, type PanelChain } from "../../helpers/daemon/panel.js";

let chain: PanelChain;
let dir: string;

beforeAll(async () => {
  chain = await startPanelChain();
  dir = mkdtempSync(join(tmpdir(), "cresolver-daemon-stop-"));
}, 60_000);

afterAll(async () => {
  await chain?.testClient.setAutomine(true);
  await stopAll();
  await chain?.close();
});

/** The CLI's daemon in process until `interrupt` is aborted. */
function daemon(dbPath: string, interrupt: AbortController, logLevel = "silent") {
  const out = { stdout: "", stderr: "" };
  const code = run(
    [
      "--json",
      "--market",
      chain.market,
      "daemon",
      "--db",
      dbPath,
      "--api-port",
      "0",
      "--confirmations",
      "0",
      "--poll-interval-ms",
      "50",
      "--allow-loopback",
      "--no-publish",
      "--log-level",
      logLevel,
    ],
    {
      stdout: (s) => (out.stdout += s),
      stderr: (s) => (out.stderr += s),
      env: { RPC_URL: chain.rpcUrl, PRIVATE_KEY: chain.resolverKey },
      cwd: dir,
      signal: interrupt.signal,
    },
  );
  return { code, out };
}

const SENT_NOTE = "(not confirmed yet: it may still be mined; check it before sending again)";
const HINT =
  "the next start with the same --db waits for the sent proposals instead of sending them again, and sends the rest";

describe("cresolver daemon on Ctrl-C", () => {
  it("stops gracefully, exits 130 and lists the proposal it sent but that is not mined, from its journal and store", async () => {
    const workers = [];
    for (const [i, persona] of (["analyst", "skeptic"] as const).entries()) {
      const agent = await startAgent({ protocol: "cresolver", persona });
      const w = await chain.registerAgent(i + 1);
      await w.setEndpoint(agent.url, "cresolver");
      workers.push(w);
    }
    const id = await chain.openMarket("Will the stopped daemon say what it sent?", workers);
    await chain.requestResolution(id);
    const resolver = privateKeyToAccount(chain.resolverKey).address;
    const nonce = await chain.publicClient.getTransactionCount({ address: resolver, blockTag: "pending" });
    const dbPath = join(dir, "daemon.sqlite");

    await chain.testClient.setAutomine(false);
    const interrupt = new AbortController();
    const first = daemon(dbPath, interrupt);
    // The proposal reaches the node's pool and stays there (nothing mines).
    await waitFor(
      async () =>
        (await chain.publicClient.getTransactionCount({ address: resolver, blockTag: "pending" })) === nonce + 1,
      "the daemon's proposal in the pool",
      90_000,
    );
    interrupt.abort();
    expect(await first.code).toBe(130);

    const store = new Store(dbPath);
    const job = store.getJob({ chainId: 31337, market: chain.market, marketId: id });
    store.close();
    expect(job?.state).toBe("proposing");
    const hash = job?.txHash ?? "";
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await chain.publicClient.getTransaction({ hash: hash as Hex })).blockNumber).toBeNull();
    // One line for the transaction this run sent, labelled with the store's market; then what a restart does.
    expect(first.out.stderr).toBe(
      [
        "daemon stopped (SIGINT): 1 transaction(s) sent by this run, 1 pending or not sent",
        `  sent       ResolutionMarket.proposeResolution (market ${id}): ${hash} ${SENT_NOTE}`,
        HINT,
        "",
      ].join("\n"),
    );
    expect(JSON.parse(first.out.stdout)).toMatchObject({
      status: "stopped",
      signal: "SIGINT",
      transactions: [{ label: `ResolutionMarket.proposeResolution (market ${id})`, stage: "sent", hash }],
    });

    // A second run sends nothing (it waits for the pending proposal): its report names the store's sent proposal.
    const again = new AbortController();
    const second = daemon(dbPath, again, "info");
    await waitFor(
      () => second.out.stderr.includes("waiting for the proposal sent before"),
      "the second run to wait for the pending proposal",
      90_000,
    );
    again.abort();
    expect(await second.code).toBe(130);
    const report = second.out.stderr.slice(second.out.stderr.indexOf("daemon stopped (SIGINT)"));
    expect(report).toBe(
      [
        "daemon stopped (SIGINT): no transaction sent by this run, 1 pending or not sent",
        `  sent       ResolutionMarket.proposeResolution (market ${id}): ${hash} ${SENT_NOTE}`,
        HINT,
        "",
      ].join("\n"),
    );

    // Exactly one proposal transaction was ever sent, and it lands.
    await chain.testClient.mine({ blocks: 1 });
    await chain.testClient.setAutomine(true);
    expect(await chain.publicClient.getTransactionCount({ address: resolver, blockTag: "pending" })).toBe(nonce + 1);
    expect((await chain.publicClient.getTransactionReceipt({ hash: hash as Hex })).status).toBe("success");
    expect((await chain.getMarket(id)).status).toBe(STATUS.Proposed);
  }, 180_000);
});
