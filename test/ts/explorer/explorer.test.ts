/**
 * The explorer in a real Chromium against the production daemon (real chain over JSON-RPC, real SQLite, CRE
 * reference agents on loopback): pages render, the trace on the page is the bundle's, a status change on chain
 * shows up without a reload, the browser's keccak check says MISMATCH for a tampered bundle, and a question
 * with markup is shown as text.
 */
import { createServer } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResolverDaemonHandle } from "../../../daemon/host.js";
import { startAgent, stopAll } from "../../helpers/agents.js";
import { getJson, waitFor } from "../../helpers/daemon/chain.js";
import { hardhatKey, startPanelChain, type PanelChain, type PanelWorker } from "../../helpers/daemon/panel.js";
import { startProductionDaemon } from "../daemon/helpers/resolver-daemon.js";
import { run } from "../../../cli/program.js";
import { percent, percentOfBps } from "../../../workflow/core/explain.js";
import { launchChromium } from "./helpers.js";

const HOSTILE = `Will <script>window.__pwned = 1</script><b>bold</b> & "quotes" resolve YES?`;
const WAIT = { timeout: 60_000 };

let chain: PanelChain;
let daemon: ResolverDaemonHandle;
let browser: Browser;
let workers: PanelWorker[];
let resolved: bigint;

async function open(path: string): Promise<Page> {
  const page = await browser.newPage();
  const res = await page.goto(`${daemon.url}${path}`, WAIT);
  expect(res?.status(), path).toBe(200);
  return page;
}

/** A port free right now: the daemon needs its public URL (the proposals' bundleURI) before it listens. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

beforeAll(async () => {
  browser = await launchChromium();
  chain = await startPanelChain();
  const port = await freePort();
  daemon = await startProductionDaemon(chain, "explorer", {
    apiHost: "127.0.0.1",
    apiPort: port,
    publicUrl: `http://127.0.0.1:${port}`,
    resolution: { vote: { thresholdBps: 5_000 } },
    watchIntervalMs: 50,
    backoffMs: 20,
    maxBackoffMs: 100,
    shutdownGraceMs: 2_000,
    resolveTimeoutMs: 5_000,
    challengeTimeoutMs: 5_000,
  });
  workers = [];
  for (const [i, persona] of (["analyst", "analyst", "skeptic"] as const).entries()) {
    // The agent signs its answers with its owner's key (accounts[i + 1]): signed seats get ERC-8004 records.
    const agent = await startAgent({ protocol: "cresolver", persona, signingKey: hardhatKey(i + 1) });
    const w = await chain.registerAgent(i + 1);
    await w.setEndpoint(agent.url, "cresolver");
    workers.push(w);
  }
  resolved = await chain.openMarket(HOSTILE, workers);
  await chain.requestResolution(resolved);
  await waitFor(
    async () => (await getJson(`${daemon.url}/markets/${resolved}`)).job?.state === "proposed",
    "the daemon to propose",
    90_000,
  );
  await chain.advance(86_400 + 60);
  await waitFor(
    async () => {
      const j = (await getJson(`${daemon.url}/markets/${resolved}`)).job;
      return j?.state === "finalized" && j.feedback === "done";
    },
    "the daemon to finalize",
    90_000,
  );
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await daemon?.close();
  await stopAll();
  await chain?.close();
});

describe("explorer in Chromium", () => {
  it("lists the markets with status, outcome and pool; a question with markup is text, not markup", async () => {
    const page = await open("/explorer");
    const row = page.locator(`tr[data-key$=":${resolved}"]`);
    await row.locator('td[data-field="status"]', { hasText: "Resolved" }).waitFor(WAIT);
    expect(await row.locator('td[data-field="outcome"]').textContent()).toMatch(/^(yes|no)$/);
    expect(await row.locator('td[data-field="pool"]').textContent()).toBe("1 ETH");
    expect(await row.locator('td[data-field="question"]').textContent()).toBe(HOSTILE);
    expect(await page.locator("table#markets b").count()).toBe(0);
    expect(await page.evaluate("window.__pwned")).toBeUndefined();
    expect(await page.getAttribute("html", "lang")).toBe("en");
    await page.keyboard.press("Tab");
    expect(await page.evaluate("document.activeElement?.textContent")).toBe("Skip to content");
    await page.close();
  }, 120_000);

  it("shows the resolution trace of the bundle, its payout from WorkerSettled, and a verified hash", async () => {
    const view = await getJson(`${daemon.url}/markets/${resolved}`);
    const doc = view.bundle.document;
    const page = await open(`/explorer/markets/${resolved}`);
    await page.locator("#hash-check.verified").waitFor(WAIT);
    expect(await page.locator("#hash-check").getAttribute("data-computed-hash")).toBe(view.job.bundleHash);
    expect(await page.locator("#question").textContent()).toBe(HOSTILE);
    expect(await page.locator('#decision [data-field="verdict"]').textContent()).toBe(doc.decision.verdict);
    expect(await page.locator('#decision [data-field="posterior"]').textContent()).toBe(
      percent(doc.decision.posterior),
    );
    expect(await page.locator('#decision [data-field="threshold"]').textContent()).toBe(
      percentOfBps(doc.decision.thresholdBps),
    );
    const settled = await chain.workerSettlements(resolved);
    expect(doc.workers).toHaveLength(3);
    for (const w of doc.workers) {
      const row = page.locator(`#seats tr[data-seat="${w.seat}"]`);
      expect(await row.locator('[data-field="answer"]').textContent()).toBe(
        w.answer ? (w.answer.determination ? "YES" : "NO") : "no answer",
      );
      // The confidence posted on chain (the report), in percent.
      if (w.answer)
        expect(await row.locator('[data-field="confidence"]').textContent()).toMatch(
          new RegExp(`^${percentOfBps(w.report.confidenceBps)}`),
        );
      expect(await row.locator('[data-field="weight"]').textContent()).toBe(
        w.vote.excludedReason !== undefined ? "—" : w.vote.unproven ? "bloc" : w.vote.weight.toFixed(2),
      );
      const payout = settled.get(BigInt(w.agentId))!.payout;
      expect(await row.locator('[data-field="reward"]').textContent()).toMatch(
        payout === 0n ? /^0 ETH$/ : /^0\.\d+ ETH$/,
      );
      const section = page.locator(`details.worker[data-seat="${w.seat}"]`);
      if (w.answer) expect(await section.locator('[data-field="evidence"]').textContent()).toBe(w.answer.evidence);
      const dims = Object.entries(w.evaluation.dimensions) as [string, { score: number; explanation: string }][];
      expect(dims).toHaveLength(8);
      for (const [name, d] of dims) {
        const tr = section.locator(`tr[data-dimension="${name}"]`);
        expect(await tr.locator("td").nth(0).textContent()).toBe(String(d.score));
        expect(await tr.locator("td").nth(1).textContent()).toBe(d.explanation);
      }
      const challenges = await section.locator('[data-field="challenge"]').allTextContents();
      expect(challenges).toEqual((w.challenges ?? []).map((c: string) => `Challenge: ${c}`));
      const replies = await section.locator('[data-field="reply"]').allTextContents();
      expect(replies).toEqual(
        (w.challenges ?? []).map((_: string, i: number) => `Reply: ${w.challengeReplies?.[i] ?? "no reply"}`),
      );
    }
    await page.close();
  }, 120_000);

  it("shows each agent's endpoint, ERC-8004 summary and track-record charts", async () => {
    const list = await open("/explorer/agents");
    await list.locator(`a[href="/explorer/agents/${workers[0].agentId}"]`).click();
    await list.locator("h1", { hasText: `Agent ${workers[0].agentId}` }).waitFor(WAIT);
    expect(await list.locator("#services td").nth(2).textContent()).toBe("cresolver");
    expect(await list.locator("#services td").nth(1).textContent()).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
    const summary = await list.locator("#erc8004 tbody tr").allTextContents();
    expect(summary[0]).toMatch(/^correctness1/);
    expect(summary[1]).toMatch(/^quality1/);
    for (const id of ["chart-accuracy", "chart-calibration", "chart-quality"]) {
      expect(await list.locator(`svg#${id}[role="img"] title`).first().textContent()).not.toBe("");
    }
    expect(await list.locator("#history tbody tr").count()).toBe(1);
    await list.close();
  }, 120_000);

  it("updates a market's status without a reload when the chain changes, in the list and on its page", async () => {
    const page = await open("/explorer");
    const id = await chain.openMarket("Live update market?", workers.slice(0, 2));
    const status = page.locator(`tr[data-key$=":${id}"] td[data-field="status"]`);
    await status.filter({ hasText: /^Open$/ }).waitFor(WAIT);
    const detail = await open(`/explorer/markets/${id}`);
    expect(await detail.locator('#facts [data-field="status"]').textContent()).toBe("Open");
    expect(await detail.locator("#bundle-unavailable").textContent()).toContain("no bundle hash on chain yet");
    await chain.requestResolution(id);
    // The daemon proposes on its own; both pages follow through ResolutionRequested to Proposed.
    await status.filter({ hasText: /^Proposed$/ }).waitFor({ timeout: 90_000 });
    expect(await page.locator(`tr[data-key$=":${id}"] td[data-field="outcome"]`).textContent()).toMatch(
      /^proposed: (yes|no|invalid)$/,
    );
    await detail.locator('#facts [data-field="status"]', { hasText: /^Proposed$/ }).waitFor({ timeout: 90_000 });
    await detail.locator("#live-status", { hasText: "reload for the latest trace" }).waitFor(WAIT);
    await detail.reload();
    await detail.locator("#hash-check.verified").waitFor(WAIT);
    await detail.close();
    await page.close();
  }, 150_000);

  it("`cresolver explorer` alone fetches the bundle from its on-chain bundleURI and verifies it in the browser", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const stop = new AbortController();
    const io = {
      stdout: (t: string) => void out.push(t),
      stderr: (t: string) => void err.push(t),
      env: {},
      cwd: process.cwd(),
      signal: stop.signal,
    };
    const exit = run(
      ["explorer", "--rpc-url", chain.rpcUrl, "--market", chain.market, "--port", "0", "--allow-local-urls", "--json"],
      io,
    );
    try {
      const started = await waitFor(
        async () => (out.length > 0 ? JSON.parse(out.join("")) : err.length > 0 ? { error: err.join("") } : undefined),
        "the explorer to print its URL",
        60_000,
      );
      expect(started.error).toBeUndefined();
      expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/explorer$/);
      const page = await browser.newPage();
      expect((await page.goto(`${started.url}/markets/${resolved}`, WAIT))?.status()).toBe(200);
      await page.locator("#hash-check.verified").waitFor(WAIT);
      expect(await page.locator("#facts").textContent()).toContain(`http://127.0.0.1:`);
      expect(await page.locator("#seats tbody tr").count()).toBe(3);
      await page.close();
    } finally {
      stop.abort();
    }
    expect(await exit).toBe(0);
  }, 120_000);

  it("says MISMATCH when the served bundle is not the one whose hash is on chain", async () => {
    const view = await getJson(`${daemon.url}/markets/${resolved}`);
    const flipped = view.bundle.document.decision.verdict === "yes" ? "no" : "yes";
    const tampered = JSON.stringify({
      ...view.bundle.document,
      // Still a valid bundle (the schema refuses an unknown verdict), so the page renders it and the hash check fails.
      decision: { ...view.bundle.document.decision, verdict: flipped },
    });
    daemon.store.db.prepare("UPDATE bundles SET json = ? WHERE hash = ?").run(tampered, view.job.bundleHash);
    const page = await open(`/explorer/markets/${resolved}`);
    await page.locator("#hash-check.mismatch").waitFor(WAIT);
    expect(await page.locator("#hash-check").textContent()).toContain("MISMATCH");
    expect(await page.locator('#decision [data-field="verdict"]').textContent()).toBe(flipped);
    await page.close();
  }, 120_000);
});
