/**
 * Ctrl-C (cli/main.ts aborts the run's signal on SIGINT; here the test aborts it): the command stops at once with
 * exit 130 and one line per transaction it started, saying which was confirmed, sent but not yet mined, or not sent.
 * The chain is Hardhat in-process with automining off, so a sent transaction stays pending until the test mines it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { run } from "../../../cli/program.js";
import { pendingTransactions, RESTART_HINT, stopReport } from "../../../cli/commands/daemon-stop.js";
import { TxJournal } from "../../../cli/shared/tx-journal.js";
import type { JobRow } from "../../../daemon/store-rows.js";
import { createCliHarness, type CliHarness } from "./helpers/inprocess.js";
import { hardhatKey } from "./helpers/keys.js";

let h: CliHarness;

beforeAll(async () => {
  h = await createCliHarness();
}, 120_000);

afterAll(async () => {
  await h.close();
});

async function interruptible(args: string[], interrupt: AbortController) {
  let stdout = "";
  let stderr = "";
  const code = run(args, {
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
    env: { RPC_URL: h.bridge.url, PRIVATE_KEY: hardhatKey(0) },
    cwd: h.dir,
    signal: interrupt.signal,
  });
  return { code, out: () => ({ stdout, stderr }) };
}

describe("Ctrl-C says what was and was not sent", { timeout: 120_000 }, () => {
  it("a transaction sent but not mined: its hash, not confirmed, exit 130 at once", async () => {
    await h.provider.request({ method: "evm_setAutomine", params: [false] });
    try {
      const interrupt = new AbortController();
      const sentBefore = h.bridge.methods.filter((m) => m === "eth_sendRawTransaction").length;
      const start = h.bridge.methods.length;
      const r = await interruptible(
        ["market", "create", "--question", "Interrupted?", "--deadline", "+1h", "--reward", "0.01"],
        interrupt,
      );
      // The stop hook is pulled once the node has the transaction (it stays pending: nothing mines) and the command
      // has its hash: it asks the node something else (its receipt wait) only after journaling the hash. Pulled on
      // the node's copy alone, the command could still be waiting for the broadcast's answer (a race under load).
      await vi.waitFor(
        () => {
          const after = h.bridge.methods.slice(start);
          const sent = after.indexOf("eth_sendRawTransaction");
          expect(sent !== -1 && after.length > sent + 1).toBe(true);
        },
        { timeout: 60_000, interval: 50 },
      );
      expect(h.bridge.methods.filter((m) => m === "eth_sendRawTransaction").length).toBe(sentBefore + 1);
      interrupt.abort();
      expect(await r.code).toBe(130);
      const { stdout, stderr } = r.out();
      expect(stdout).toBe("");
      expect(stderr.split("\n").slice(-3)).toEqual([
        "interrupted: 1 transaction(s) started",
        expect.stringMatching(
          /^ {2}sent {7}ResolutionMarket\.createMarketWith: 0x[0-9a-f]{64} \(not confirmed yet: it may still be mined; check it before sending again\)$/,
        ),
        "",
      ]);
    } finally {
      await h.provider.request({ method: "evm_setAutomine", params: [true] });
      await h.provider.request({ method: "evm_mine", params: [] });
    }
  });

  it("interrupted before anything was sent: says so, exit 130, and nothing reaches the node", async () => {
    const interrupt = new AbortController();
    interrupt.abort();
    const sentBefore = h.bridge.methods.filter((m) => m === "eth_sendRawTransaction").length;
    const r = await interruptible(["market", "withdraw"], interrupt);
    expect(await r.code).toBe(130);
    expect(r.out().stderr).toBe("interrupted: no transaction was sent\n");
    expect(h.bridge.methods.filter((m) => m === "eth_sendRawTransaction").length).toBe(sentBefore);
  });

  it("a command that finishes before Ctrl-C exits as usual (0) and says nothing about interruption", async () => {
    const interrupt = new AbortController();
    const r = await interruptible(["--json", "market", "list"], interrupt);
    expect(await r.code).toBe(0);
    interrupt.abort();
    expect(r.out().stderr).not.toMatch(/interrupted/);
  });
});

describe("TxJournal lines", () => {
  it("confirmed, sent, reverted and refused transactions each read as what happened", () => {
    const journal = new TxJournal();
    const hash = `0x${"ab".repeat(32)}` as const;
    const other = `0x${"cd".repeat(32)}` as const;
    journal.record({ label: "A.first", stage: "sending" });
    journal.record({ label: "A.first", stage: "broadcasting" });
    journal.record({ label: "A.first", stage: "sent", hash });
    journal.record({ label: "A.first", stage: "confirmed", hash, block: 7n });
    journal.record({ label: "A.second", stage: "sending" });
    journal.record({ label: "A.second", stage: "sent", hash: other });
    journal.record({ label: "A.third", stage: "sending" });
    journal.record({ label: "A.third", stage: "failed" });
    journal.record({ label: "A.fourth", stage: "sending" });
    journal.record({ label: "A.fifth", stage: "sending" });
    journal.record({ label: "A.fifth", stage: "broadcasting" });
    expect(journal.lines()).toEqual([
      `  confirmed  A.first: ${hash} in block 7`,
      `  sent       A.second: ${other} (not confirmed yet: it may still be mined; check it before sending again)`,
      "  not sent   A.third (refused)",
      "  not sent   A.fourth",
      "  unknown    A.fifth (stopped while it was signed and broadcast: the node may have it; check the account's transactions before sending again)",
    ]);
    expect(journal.interruptReport()).toMatch(/^interrupted: 5 transaction\(s\) started\n/);
    expect(new TxJournal().interruptReport()).toBe("interrupted: no transaction was sent\n");
  });

  it("two sends of one label at once keep their own hashes (the daemon proposes for several markets)", () => {
    const journal = new TxJournal();
    const a = `0x${"aa".repeat(32)}` as const;
    const b = `0x${"bb".repeat(32)}` as const;
    journal.record({ label: "M.propose", stage: "sending" });
    journal.record({ label: "M.propose", stage: "sending" });
    journal.record({ label: "M.propose", stage: "sent", hash: a });
    journal.record({ label: "M.propose", stage: "sent", hash: b });
    journal.record({ label: "M.propose", stage: "confirmed", hash: a, block: 3n });
    expect(journal.lines()).toEqual([
      `  sent       M.propose: ${b} (not confirmed yet: it may still be mined; check it before sending again)`,
      `  confirmed  M.propose: ${a} in block 3`,
    ]);
  });

  it("keeps at most its limit: the oldest finished transactions go first, counted; unfinished ones stay", () => {
    const journal = new TxJournal(3);
    const hash = (i: number) => `0x${i.toString(16).padStart(64, "0")}` as const;
    journal.record({ label: "M.open", stage: "sending" });
    for (let i = 1; i <= 5; i++) {
      journal.record({ label: `M.t${i}`, stage: "sending" });
      journal.record({ label: `M.t${i}`, stage: "sent", hash: hash(i) });
      journal.record({ label: `M.t${i}`, stage: "confirmed", hash: hash(i), block: BigInt(i) });
    }
    expect(journal.list().map((e) => e.label)).toEqual(["M.open", "M.t4", "M.t5"]);
    expect(journal.lines()[0]).toBe("  (3 earlier confirmed or failed transaction(s) not listed)");
    expect(journal.interruptReport()).toMatch(/^interrupted: 6 transaction\(s\) started\n/);
  });
});

describe("the daemon's stop report", () => {
  const job = (marketId: bigint, state: JobRow["state"], more: Partial<JobRow> = {}): JobRow => ({
    id: Number(marketId),
    chainId: 31337,
    market: "0x0000000000000000000000000000000000000001",
    marketId,
    state,
    attempts: 1,
    sendAttempts: 0,
    lastOutcome: null,
    lastError: null,
    source: "event",
    requestedBlock: 1,
    requestedTx: null,
    verdict: null,
    reason: null,
    payload: null,
    bundleHash: null,
    bundleUri: null,
    txHash: null,
    disputeEndsAt: null,
    disputer: null,
    claimed: null,
    disputeAction: null,
    disputeTx: null,
    finalStatus: null,
    finalVerdict: null,
    finalizeTx: null,
    feedback: null,
    createdAt: 0,
    updatedAt: 0,
    startedAt: null,
    finishedAt: null,
    nextAttemptAt: 0,
    ...more,
  });
  const sent = `0x${"12".repeat(32)}`;
  const landed = `0x${"34".repeat(32)}` as const;

  it("names every unfinished job's transaction, sent with its hash or not sent; disputed and terminal jobs have none", () => {
    expect(
      pendingTransactions([
        job(1n, "requested"),
        job(2n, "running"),
        job(3n, "proposing"),
        job(4n, "proposing", { txHash: sent }),
        job(5n, "proposed", { txHash: landed }),
        job(6n, "disputed"),
        job(7n, "finalized", { feedback: "pending" }),
        job(8n, "finalized", { feedback: "done" }),
        job(9n, "failed"),
      ]),
    ).toEqual([
      { label: "ResolutionMarket.proposeResolution (market 1, not resolved yet)", stage: "sending" },
      { label: "ResolutionMarket.proposeResolution (market 2, not resolved yet)", stage: "sending" },
      { label: "ResolutionMarket.proposeResolution (market 3)", stage: "sending" },
      { label: "ResolutionMarket.proposeResolution (market 4)", stage: "sent", hash: sent },
      { label: "ResolutionMarket.finalize (market 5, after the dispute window)", stage: "sending" },
      { label: "MarketReputation.publishFeedback (market 7)", stage: "sending" },
    ]);
  });

  it("merges the store's jobs into this run's transactions: one line per transaction, the store's label", () => {
    const journal = new TxJournal();
    journal.record({ label: "ResolutionMarket.proposeResolution", stage: "sending" });
    journal.record({ label: "ResolutionMarket.proposeResolution", stage: "sent", hash: landed });
    journal.record({ label: "ResolutionMarket.proposeResolution", stage: "confirmed", hash: landed, block: 9n });
    // Stopped before its hash was known: the store says which market.
    journal.record({ label: "ResolutionMarket.proposeResolution", stage: "sending" });
    const report = stopReport(journal, "SIGTERM", [
      job(3n, "proposing"),
      job(4n, "proposing", { txHash: sent }),
      job(5n, "proposed", { txHash: landed }),
    ]);
    expect(report.text).toBe(
      [
        "daemon stopped (SIGTERM): 1 transaction(s) sent by this run, 3 pending or not sent",
        `  confirmed  ResolutionMarket.proposeResolution: ${landed} in block 9`,
        "  not sent   ResolutionMarket.proposeResolution (market 3)",
        `  sent       ResolutionMarket.proposeResolution (market 4): ${sent} (not confirmed yet: it may still be mined; check it before sending again)`,
        "  not sent   ResolutionMarket.finalize (market 5, after the dispute window)",
        RESTART_HINT,
        "",
      ].join("\n"),
    );
    expect(report.transactions).toHaveLength(4);
    expect(stopReport(new TxJournal(), "SIGINT", []).text).toBe(
      "daemon stopped (SIGINT): no transaction sent by this run, nothing pending\n",
    );
  });
});
