/**
 * The explorer explains its decisions, in a real Chromium against the production daemon on a real chain: a market
 * the new-agent bloc decided, a below-threshold market (a proven agent against the bloc) and a proposal overturned
 * by a 2-of-3 CommitteeArbiter each show the right one-line reason and where the money went; a question with a
 * right-to-left override renders in logical order with the control visible. Agents answer through a scripted
 * engine (the stand-in for their LLM), so each market's answers are known.
 */
import type { Browser, Page } from "playwright-core";
import { createWalletClient, getAddress, http, parseEventLogs, type Abi, type Address } from "viem";
import { hardhat } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnswerEngine, Finding } from "../../../agents/kit/answer-engine.js";
import type { ResolverDaemonHandle } from "../../../daemon/host.js";
import { startAgent, stopAll } from "../../helpers/agents.js";
import { getJson, waitFor } from "../../helpers/daemon/chain.js";
import {
  hardhatKey,
  POOL,
  STAKE,
  startPanelChain,
  type PanelChain,
  type PanelWorker,
} from "../../helpers/daemon/panel.js";
import { committeeArbiterAbi, marketGovernanceAbi, resolutionMarketAbi } from "../../../workflow/chain/abis.js";
import { loadArtifact } from "../../../workflow/chain/artifacts.js";
import { startProductionDaemon } from "../daemon/helpers/resolver-daemon.js";
import { launchChromium } from "./helpers.js";

const WAIT = { timeout: 60_000 };
const BIDI = "Will this be \u202Ereversed\u202C by Friday?";

/** An engine that answers YES on questions containing any of `yesOn`, NO otherwise, at 80 %. */
function scripted(yesOn: string[]): AnswerEngine {
  return {
    mode: "offline",
    persona: "analyst",
    async investigate(q): Promise<Finding> {
      const yes = yesOn.some((tag) => q.question.includes(tag));
      return {
        determination: yes,
        confidence: 0.8,
        evidence: `The record on ${q.question.slice(0, 40)} points to ${yes ? "YES" : "NO"}. Reports from November 2026 agree.`,
        sources: ["https://example.org/report", "javascript:alert(1)"],
        observations: [`Points to ${yes ? "YES" : "NO"}`],
        keyTerms: ["record"],
      };
    },
    async defend(_q, f, challenges) {
      return challenges.map(() => `I keep ${f.determination ? "YES" : "NO"}: the reports agree.`);
    },
  };
}

let chain: PanelChain;
let daemon: ResolverDaemonHandle;
let browser: Browser;
const ids = { bloc: 0n, below: 0n, overturned: 0n, bidi: 0n };
let disputer: Address;

async function agent(owner: number, yesOn: string[]): Promise<PanelWorker> {
  // Signed by the agent's owner (accounts[owner]): signed seats are the ones a ruling slashes (docs/RECORDS.md §2).
  const server = await startAgent({ protocol: "cresolver", engine: scripted(yesOn), signingKey: hardhatKey(owner) });
  const w = await chain.registerAgent(owner);
  await w.setEndpoint(server.url, "cresolver");
  return w;
}

const job = async (id: bigint) => (await getJson(`${daemon.url}/markets/${id}`)).job;
const until = (id: bigint, ok: (j: { state?: string }) => boolean, what: string) =>
  waitFor(async () => ok((await job(id)) ?? {}), what, 120_000);

beforeAll(async () => {
  browser = await launchChromium();
  chain = await startPanelChain();
  const [a, send] = [
    chain.accounts,
    createWalletClient({
      chain: { ...hardhat, id: await chain.publicClient.getChainId() },
      transport: http(chain.rpcUrl),
    }),
  ];
  type Call = { address: Address; abi: Abi; functionName: string; args: readonly unknown[]; value?: bigint };
  const write = async (from: Address, req: Call) => {
    const hash = await send.writeContract({ ...req, account: from, chain: null } as never);
    return chain.publicClient.waitForTransactionReceipt({ hash });
  };

  // The overturned market: a per-market 2-of-3 committee, deployed before the daemon starts so it can vouch for it.
  const art = loadArtifact("CommitteeArbiter");
  const deployed = await send.deployContract({
    abi: committeeArbiterAbi,
    bytecode: art.bytecode,
    args: [[a[16], a[17], a[18]], 2n, [chain.market]],
    account: a[0],
  });
  const committee = (await chain.publicClient.waitForTransactionReceipt({ hash: deployed })).contractAddress as Address;
  // A market may only name an arbiter on the deployment's allow-list (no market yet: the owner's queueing applies at once).
  const governance = await chain.publicClient.readContract({
    address: chain.market,
    abi: resolutionMarketAbi,
    functionName: "governance",
  });
  await write(a[0], { address: governance, abi: marketGovernanceAbi, functionName: "queueArbiter", args: [committee] });
  daemon = await startProductionDaemon(chain, "explain", {
    apiHost: "127.0.0.1",
    // The committee is a per-market arbiter, not the deployment's default: the resolver vouches for it.
    settlerGuard: { trustedArbiters: [committee] },
    // Proven after one market, so a proven agent can stand against the bloc; threshold 70 %, the bloc's posterior.
    resolution: { vote: { minHistory: 1, thresholdBps: 7_000 } },
    watchIntervalMs: 50,
    backoffMs: 20,
    maxBackoffMs: 100,
    shutdownGraceMs: 2_000,
    resolveTimeoutMs: 5_000,
    challengeTimeoutMs: 5_000,
  });
  disputer = getAddress(a[15]);

  // The bloc market: five new agents, four say YES.
  const bloc = [
    await agent(1, ["[bloc]"]),
    await agent(2, ["[bloc]"]),
    await agent(3, ["[bloc]"]),
    await agent(4, ["[bloc]"]),
    await agent(5, []),
  ];
  ids.bloc = await chain.openMarket("Will the bloc decide? [bloc]", bloc);
  // P earns one market of record (with a partner), then stands alone (NO) against two new agents (YES).
  const p = await agent(6, ["[history]"]);
  const history = await chain.openMarket("Will P earn a record? [history]", [p, await agent(7, ["[history]"])]);
  // The overturned market: its 2-of-3 committee (deployed above); the panel says YES 2–1.
  const now = (await chain.publicClient.getBlock()).timestamp;
  const created = await write(a[0], {
    address: chain.market,
    abi: resolutionMarketAbi,
    functionName: "createMarketWith",
    args: [
      "Will the committee agree? [wrong]",
      now + 3_600n,
      {
        admission: 0,
        minCorrectness: 0,
        minSettled: 0,
        minStake: 0n,
        maxWorkers: 0,
        disputeWindow: 0,
        bond: 0n,
        arbiter: committee,
        allowedAgents: [],
      },
    ],
    value: POOL,
  });
  ids.overturned = parseEventLogs({
    abi: resolutionMarketAbi,
    logs: created.logs,
    eventName: "MarketCreated",
  })[0].args.marketId;
  for (const w of [await agent(8, ["[wrong]"]), await agent(9, ["[wrong]"]), await agent(10, [])])
    await write(w.address, {
      address: chain.market,
      abi: resolutionMarketAbi,
      functionName: "joinMarket",
      args: [ids.overturned, w.agentId],
      value: STAKE,
    });

  for (const id of [ids.bloc, history, ids.overturned]) await chain.requestResolution(id);
  for (const id of [ids.bloc, history, ids.overturned])
    await until(id, (j) => j.state === "proposed", `market ${id} proposed`);

  const bond = await chain.publicClient.readContract({
    address: governance,
    abi: marketGovernanceAbi,
    functionName: "disputeBond",
    args: [ids.overturned],
  });
  await write(disputer, {
    address: chain.market,
    abi: resolutionMarketAbi,
    functionName: "dispute",
    args: [ids.overturned, 0],
    value: bond,
  });
  for (const m of [a[16], a[17]])
    await write(m, {
      address: committee,
      abi: committeeArbiterAbi,
      functionName: "vote",
      args: [chain.market, ids.overturned, 0],
    });

  await chain.advance(86_400 + 60);
  for (const id of [ids.bloc, history]) await until(id, (j) => j.state === "finalized", `market ${id} finalized`);

  ids.below = await chain.openMarket("Will the proven agent hold? [new]", [
    p,
    await agent(11, ["[new]"]),
    await agent(12, ["[new]"]),
  ]);
  await chain.requestResolution(ids.below);
  await until(ids.below, (j) => j.state === "proposed", "the below-threshold proposal");
  await chain.advance(86_400 + 60);
  await until(ids.below, (j) => j.state === "finalized", "the below-threshold market finalized");
  ids.bidi = await chain.openMarket(BIDI, [await agent(13, [])]);
}, 420_000);

afterAll(async () => {
  await browser?.close();
  await daemon?.close();
  await stopAll();
  await chain?.close();
});

async function open(id: bigint): Promise<Page> {
  const page = await browser.newPage();
  expect((await page.goto(`${daemon.url}/explorer/markets/${id}`, WAIT))?.status()).toBe(200);
  return page;
}
const text = async (page: Page, sel: string) => ((await page.locator(sel).textContent()) ?? "").trim();

describe("the explorer explains each decision", () => {
  it("a market the new-agent bloc decided: the reason names the bloc, each seat says why it weighs nothing alone", async () => {
    const page = await open(ids.bloc);
    expect(await text(page, '#summary [data-field="headline"]')).toBe("Resolved YES as proposed: nobody disputed");
    expect(await page.locator('#summary [data-field="reason"]').getAttribute("data-code")).toBe("unproven-bloc");
    expect(await text(page, '#summary [data-field="reason"]')).toBe(
      "YES: new agents vote as one bloc: 4 of 5 said YES, and the bloc counts as one voter of 70 % accuracy, so the posterior is 70 %, at or above the 70 % threshold",
    );
    const rows = page.locator("#seats tbody tr");
    expect(await rows.count()).toBe(5);
    for (let i = 0; i < 5; i++) {
      expect(await text(page, `#seats tr[data-seat="${i}"] [data-field="weight"]`)).toBe("bloc");
      expect(await text(page, `#seats tr[data-seat="${i}"] [data-field="confidence"]`)).toBe("80 %");
      expect(await text(page, `#seats tr[data-seat="${i}"] [data-field="agent"]`)).toMatch(
        /^cresolver worker \d+ \(agent \d+\)$/,
      );
    }
    const money = await page.locator("#money li").allTextContents();
    expect(money[0]).toMatch(/^The proposer's bond 0\.\d+ ETH went back to the proposer 0x/);
    expect(money).toContain("Stakes: 0.05 ETH returned to 5 of 5 workers");
    expect(
      money.some((m) => /^Reward pool 1 ETH: [\d.]+ ETH paid to [45] of 5 workers by their on-chain weights$/.test(m)),
    ).toBe(true);
    expect(await text(page, "#feedback")).toBe("ERC-8004 feedback: written for all 5 seats");
    expect(await page.locator("body").textContent()).not.toMatch(/\bbps\b/);
    // Sources: http(s) is a safe link, javascript: stays text.
    const first = page.locator('details.worker[data-seat="0"]');
    await first.locator("summary").click();
    const link = first.locator('[data-field="sources"] a');
    expect(await link.count()).toBe(1);
    expect(await link.getAttribute("href")).toBe("https://example.org/report");
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer nofollow");
    expect(await first.locator('[data-field="sources"]').textContent()).toContain("javascript:alert(1)");
    await page.close();
  }, 120_000);

  it("a below-threshold market: the leading side's posterior against the threshold, the pool back to the creator", async () => {
    const page = await open(ids.below);
    expect(await text(page, '#summary [data-field="headline"]')).toBe("INVALID as proposed: nobody disputed");
    expect(await page.locator('#summary [data-field="reason"]').getAttribute("data-code")).toBe("below-threshold");
    expect(await text(page, '#summary [data-field="reason"]')).toMatch(
      /^Invalid, below threshold: (YES|NO) leads with a posterior of [56]\d(\.\d)? %, under the 70 % needed \(1 proven agent weighs 0\.00 for YES and \d\.\d\d for NO \(log-odds\); new agents vote as one bloc: 2 of 2 said YES/,
    );
    expect(await text(page, '#seats tr[data-seat="0"] [data-field="weight"]')).toMatch(/^\d\.\d\d$/);
    expect(await text(page, '#seats tr[data-seat="0"] [data-field="why"]')).toMatch(
      /^accuracy \d+(\.\d)? % over 1 answers/,
    );
    expect(await text(page, '#seats tr[data-seat="1"] [data-field="weight"]')).toBe("bloc");
    const money = await page.locator("#money li").allTextContents();
    expect(money).toContain(`1 ETH of the reward pool back to the creator ${getAddress(chain.creator)} (Invalid)`);
    expect(money).toContain("Stakes: 0.03 ETH returned to 3 of 3 workers");
    expect(await text(page, "#feedback")).toBe("ERC-8004 feedback: none (an Invalid market writes no records)");
    await page.close();
  }, 120_000);

  it("an overturned dispute reads as one story: proposal, the committee's 2 of 3 votes, the disputer's bonds and slashed stakes", async () => {
    const page = await open(ids.overturned);
    expect(await text(page, '#summary [data-field="headline"]')).toBe(
      "Proposed YES, overturned to NO by the committee (2 of 3 votes)",
    );
    expect(await text(page, '#summary [data-field="reason"]')).toMatch(
      /^YES: new agents vote as one bloc: 2 of 3 said YES/,
    );
    expect(await page.locator("#dispute li").allTextContents()).toEqual([
      `Disputed by ${disputer}, claiming NO (proposal YES)`,
      expect.stringMatching(/^Committee 0x[0-9a-fA-F]{40}: 2 of 3 members must agree; votes YES 0, NO 2, INVALID 0$/),
      "Ruling: NO (the proposal is overturned)",
    ]);
    const money = await page.locator("#money li").allTextContents();
    expect(money[0]).toMatch(
      new RegExp(
        `^The disputer ${disputer} took both bonds \\(0\\.\\d+ ETH\\) plus 0\\.02 ETH of slashed stakes \\(2 seats on the losing side\\)$`,
      ),
    );
    expect(money).toContain("Stakes: 0.01 ETH returned to 1 of 3 workers, 0.02 ETH slashed");
    expect(await text(page, '#seats tr[data-seat="0"] [data-field="stake"]')).toBe("0 ETH / 0.01 ETH");
    expect(await text(page, '#facts [data-field="outcome"]')).toBe("no");
    await page.close();
  }, 120_000);

  it("a right-to-left override in a question is shown as a marker and cannot reorder the text", async () => {
    const page = await open(ids.bidi);
    const shown = "Will this be [U+202E]reversed[U+202C] by Friday?";
    expect(await text(page, "#question")).toBe(shown);
    // Visual order equals logical order: each letter of "reversed" sits right of the one before it.
    const xs = (await page.evaluate(`(() => {
      const node = document.getElementById("question").firstChild;
      const start = node.textContent.indexOf("]reversed") + 1;
      return Array.from({ length: 8 }, (_, i) => {
        const r = document.createRange();
        r.setStart(node, start + i);
        r.setEnd(node, start + i + 1);
        return r.getBoundingClientRect().left;
      });
    })()`)) as number[];
    expect(xs).toHaveLength(8);
    for (let i = 1; i < xs.length; i++) expect(xs[i]).toBeGreaterThan(xs[i - 1]);
    expect(await text(page, '#summary [data-field="headline"]')).toMatch(/^Open: agents can take seats until /);
    const list = await browser.newPage();
    await list.goto(`${daemon.url}/explorer`, WAIT);
    expect(await text(list, `tr[data-key$=":${ids.bidi}"] td[data-field="question"]`)).toBe(shown);
    await list.close();
    await page.close();
  }, 120_000);
});
