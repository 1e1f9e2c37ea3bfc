/**
 * Ctrl-C (cli/main.ts aborts the run's signal on SIGINT; here the test aborts it): the command stops at once with
 * exit 130 and one line per transaction it started, saying which was confirmed, sent but not yet mined, or not sent.
 * The chain is Hardhat in-process with automining off, so a sent transaction stays pending until the test mines it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { run } from "../../../cli/program.js";
import { TxJournal } from "../../../cli/shared/tx-journal.js";
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
      const r = await interruptible(
        ["market", "create", "--question", "Interrupted?", "--deadline", "+1h", "--reward", "0.01"],
        interrupt,
      );
      // The stop hook is pulled once the node has the transaction (it stays pending: nothing mines).
      await vi.waitFor(
        () => expect(h.bridge.methods.filter((m) => m === "eth_sendRawTransaction").length).toBe(sentBefore + 1),
        { timeout: 60_000, interval: 50 },
      );
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
    journal.record({ label: "A.first", stage: "sent", hash });
    journal.record({ label: "A.first", stage: "confirmed", hash, block: 7n });
    journal.record({ label: "A.second", stage: "sending" });
    journal.record({ label: "A.second", stage: "sent", hash: other });
    journal.record({ label: "A.third", stage: "sending" });
    journal.record({ label: "A.third", stage: "failed" });
    journal.record({ label: "A.fourth", stage: "sending" });
    expect(journal.lines()).toEqual([
      `  confirmed  A.first: ${hash} in block 7`,
      `  sent       A.second: ${other} (not confirmed yet: it may still be mined; check it before sending again)`,
      "  not sent   A.third (refused)",
      "  not sent   A.fourth",
    ]);
    expect(journal.interruptReport()).toMatch(/^interrupted: 4 transaction\(s\) started\n/);
    expect(new TxJournal().interruptReport()).toBe("interrupted: no transaction was sent\n");
  });
});
