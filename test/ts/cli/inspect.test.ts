/**
 * The read-only overviews and the owner's commands, in-process over a Hardhat chain: `market list`, `agent list|show`,
 * `owed`, `market cancel-stale` (the alias of the two-step cancel) and `owner resolver|defaults|arbiter|cre`.
 */
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keccak256, pad, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { answerTypedData } from "../../../workflow/core/answer-signature.js";
import { registerAgent } from "../../../workflow/chain/actions.js";
import { withKey } from "../../../workflow/chain/clients.js";
import { buildRegistrationFile, encodeRegistrationDataUri } from "../../../workflow/registration/index.js";
import { createCliHarness, type CliHarness } from "./helpers/inprocess.js";
import { hardhatKey } from "./helpers/keys.js";

let h: CliHarness;
let agentId: string;
const OWNER = hardhatKey(0);
const FORWARDER = "0x00000000000000000000000000000000000f0f0f";

async function ok(args: string[], key?: `0x${string}`): Promise<Record<string, unknown>> {
  const r = await h.cresolver(args, key ? { key } : {});
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout.trimEnd().split("\n")).toHaveLength(1);
  return r.json!;
}

beforeAll(async () => {
  h = await createCliHarness(["--forwarder", FORWARDER]);
});
afterAll(async () => h?.close());

describe("market list, agent list|show, owed", () => {
  let resolvedId: string;
  let openId: string;

  beforeAll(async () => {
    const uri = encodeRegistrationDataUri(
      buildRegistrationFile({
        name: "Lister",
        description: "test agent",
        endpoint: "https://agent.example/a2a",
        protocol: "cresolver",
      }),
    );
    agentId = (await ok(["agent", "register", "--uri", uri], hardhatKey(1))).agentId as string;
    resolvedId = (
      await ok(
        // --bond 0.02: bets up to 10 × the bond (0.2 ETH below)
        [
          "market",
          "create",
          "--question",
          "Listed?",
          "--deadline",
          "+10m",
          "--reward",
          "1",
          "--dispute-window",
          "10m",
          "--bond",
          "0.02",
        ],
        OWNER,
      )
    ).marketId as string;
    openId = (
      await ok(["market", "create", "--question", "Still open?", "--deadline", "+1d", "--reward", "0.5"], OWNER)
    ).marketId as string;
    await ok(["market", "join", resolvedId, "--agent-id", agentId, "--stake", "0.01"], hardhatKey(1));
    await ok(["bet", "place", resolvedId, "--side", "yes", "--amount", "0.2"], hardhatKey(2));
    await h.increaseTime(601);
    await ok(["market", "request-resolution", resolvedId], OWNER);
    // The agent's own signature over its answer (its owner, key 1): a signed seat is recorded (docs/RECORDS.md §2).
    const replyHashOf = keccak256(toHex("the agent's reply"));
    const signature = await privateKeyToAccount(hardhatKey(1)).signTypedData(
      answerTypedData({
        chainId: h.owner.chain.id,
        market: h.market,
        marketId: BigInt(resolvedId),
        agentId: BigInt(agentId),
        answer: "yes",
        confidenceBps: 8000,
        replyHash: replyHashOf,
      }),
    );
    const plan = {
      verdict: "yes",
      reports: [
        {
          answer: "yes",
          confidenceBps: 8000,
          resQuality: 70,
          srcQuality: 60,
          analysisDepth: 50,
          replyHash: replyHashOf,
          signature,
        },
      ],
      bundleHash: `0x${"5a".repeat(32)}`,
      bundleURI: "",
    };
    writeFileSync(join(h.dir, "plan.json"), JSON.stringify(plan));
    await ok(["resolve", resolvedId, "--plan", "plan.json"], OWNER);
    await h.increaseTime(601);
    await ok(["market", "finalize", resolvedId], hardhatKey(5));
  });

  it("market list: every market with status, question, pool and outcome; --status filters", async () => {
    const all = await ok(["market", "list"]);
    expect(all.count).toBe(2);
    expect(all.markets).toEqual([
      expect.objectContaining({
        marketId: resolvedId,
        status: "Resolved",
        question: "Listed?",
        rewardPool: "1000000000000000000",
        workerCount: 1,
        outcome: "YES",
      }),
      expect.objectContaining({
        marketId: openId,
        status: "Open",
        question: "Still open?",
        rewardPool: "500000000000000000",
        workerCount: 0,
        outcome: null,
      }),
    ]);
    const newest = await ok(["market", "list", "--limit", "1"]);
    expect(newest).toMatchObject({ count: 1, total: "2" });
    expect((newest.markets as { marketId: string }[]).map((m) => m.marketId)).toEqual([openId]);
    await h.refuses(["market", "list", "--limit", "0"], /^error: --limit must be an integer from 1 to 100000/);
    const open = await ok(["market", "list", "--status", "open"]);
    expect((open.markets as { marketId: string }[]).map((m) => m.marketId)).toEqual([openId]);
    const text = await h.cresolver(["market", "list"], { json: false });
    expect(text.stdout).toMatch(/Resolved .* 1 ETH +1 workers +→ YES +Listed\?/);
    await h.refuses(["market", "list", "--status", "sideways"], /argument 'sideways' is invalid/);
  });

  it("agent list: registered agents with the markets they joined", async () => {
    const r = await ok(["agent", "list"]);
    expect(r.agents).toEqual([
      { agentId, registeredBy: withKey(h.owner, hardhatKey(1)).account!.address, markets: [resolvedId] },
    ]);
  });

  it("agent show: registration, record, ERC-8004 summary and the answer in the finalized market", async () => {
    const r = await ok(["agent", "show", agentId]);
    expect(r).toMatchObject({
      agentId,
      owner: withKey(h.owner, hardhatKey(1)).account!.address,
      registration: { name: "Lister", endpoint: "https://agent.example/a2a", protocol: "cresolver", error: null },
      reputation: { settled: "1" },
      trackRecord: [
        { marketId: resolvedId, answer: "yes", confidenceBps: 8000, final: true, correct: true, disputed: false },
      ],
      accuracy: 1,
    });
    expect(Number((r.erc8004 as { count: string }).count)).toBeGreaterThan(0);
    await h.refuses(["agent", "show", "999"], /ownerOf\(999\)/, { code: 1 });
  });

  it("agent show fetches an http registration file through the safe client (loopback only when allowed)", async () => {
    const file = buildRegistrationFile({
      name: "Remote",
      description: "served",
      endpoint: "https://remote.example/a2a",
      protocol: "factagora",
    });
    const server = createServer((_req, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(file)),
    );
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent.json`;
      // The CLI registers only https:/ipfs:/data: URIs; an http one can still be on-chain (anyone may register it).
      const id = String((await registerAgent(withKey(h.owner, hardhatKey(7)), h.identity, url)).agentId);
      expect((await ok(["agent", "show", id, "--allow-loopback"])).registration).toEqual({
        name: "Remote",
        endpoint: "https://remote.example/a2a",
        protocol: "factagora",
        error: null,
      });
      const refused = (await ok(["agent", "show", id])).registration as { endpoint: unknown; error: string };
      expect(refused.endpoint).toBeNull();
      expect(refused.error).toMatch(/loopback|refused|destination/i);
      expect((await ok(["agent", "show", id, "--no-fetch"])).registration).toMatchObject({
        error: "not fetched (--no-fetch)",
      });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("owed: the worker's pull balance and the bettor's claimable winnings", async () => {
    const worker = withKey(h.owner, hardhatKey(1)).account!.address;
    const w = await ok(["owed", worker]);
    expect(BigInt(w.market as string)).toBeGreaterThan(1_000_000_000_000_000_000n); // reward pool + stake back
    expect(w.bets).toEqual([]);
    const bettor = await ok(["owed"], hardhatKey(2));
    expect(bettor).toMatchObject({
      market: "0",
      bets: [{ marketId: resolvedId, amount: "200000000000000000" }],
      total: "200000000000000000",
    });
    await ok(["bet", "claim", resolvedId], hardhatKey(2));
    expect(await ok(["owed"], hardhatKey(2))).toMatchObject({ bets: [], total: "0" });
    await h.refuses(["owed"], /owed needs an address/);
  });
});

describe("market cancel-stale", () => {
  it("is the two-step cancel: request after the grace period, cancel after the window", async () => {
    const id = (await ok(["market", "create", "--question", "Stale?", "--deadline", "+10m", "--reward", "1"], OWNER))
      .marketId as string;
    await ok(["market", "join", id, "--agent-id", agentId, "--stake", "0.01"], hardhatKey(1));
    await h.increaseTime(601);
    await ok(["market", "request-resolution", id], OWNER);
    await h.increaseTime(3 * 86_400 + 1);
    expect(await ok(["market", "cancel-stale", id], hardhatKey(4))).toMatchObject({ marketId: id, step: "requested" });
    await h.increaseTime(7 * 86_400);
    expect(await ok(["market", "cancel-stale", id], hardhatKey(4))).toMatchObject({ marketId: id, step: "cancelled" });
    expect((await ok(["market", "show", id])).status).toBe("Cancelled");
  });
});

describe("owner commands", () => {
  it("resolver queue|remove, defaults, arbiter queue", async () => {
    const newcomer = withKey(h.owner, hardhatKey(9)).account!.address;
    const q = await ok(["owner", "resolver", "queue", newcomer], OWNER);
    expect(BigInt(q.activeFrom as string)).toBeGreaterThan(await h.now());
    let s = await ok(["market", "settings"]);
    expect((s.resolvers as { resolver: string }[]).map((r) => r.resolver)).toContain(newcomer);
    await ok(["owner", "resolver", "remove", newcomer], OWNER);
    s = await ok(["market", "settings"]);
    expect((s.resolvers as { resolver: string }[]).map((r) => r.resolver)).not.toContain(newcomer);

    const d = await ok(["owner", "defaults", "--max-workers", "7", "--bond", "0.02"], OWNER);
    expect(d.defaults).toMatchObject({ maxWorkers: 7, bond: "20000000000000000" });
    // Markets exist: new defaults are queued for RESOLVER_DELAY (2 days), then in force for new markets.
    expect((await ok(["market", "settings"])).defaults).not.toMatchObject({ maxWorkers: 7 });
    await h.increaseTime(2 * 86_400);
    expect((await ok(["market", "settings"])).defaults).toMatchObject({ maxWorkers: 7, bond: "20000000000000000" });
    await h.refuses(["owner", "defaults"], /name at least one setting/, { key: OWNER });
    await h.refuses(["owner", "defaults", "--max-workers", "7"], /OwnableUnauthorizedAccount|owner/i, {
      key: hardhatKey(3),
      code: 1,
    });

    const a = await ok(["owner", "arbiter", "queue", h.identity], OWNER);
    expect(BigInt(a.effectiveAt as string)).toBeGreaterThan(await h.now());
    expect((await ok(["market", "settings"])).queuedArbiter).toMatchObject({ arbiter: h.identity });
  });

  it("cre show|queue|cancel: the receiver's settings and a timelocked change", async () => {
    const s = await ok(["owner", "cre", "show"]);
    expect(s).toMatchObject({ forwarder: expect.stringMatching(/0x0+f0f0f$/i), allowAnyWorkflow: false });
    const owner = withKey(h.owner, hardhatKey(6)).account!.address;
    const q = await ok(["owner", "cre", "queue", "--kind", "workflow-owner", "--value", owner], OWNER);
    expect(q).toMatchObject({ action: "queue", kind: "workflow-owner", value: pad(owner).toLowerCase() });
    expect(BigInt(q.effectiveAt as string)).toBeGreaterThanOrEqual((await h.now()) + 2n * 86_400n - 1n);
    await h.refuses(
      ["owner", "cre", "apply", "--kind", "workflow-owner", "--value", owner],
      /TimelockNotOver|timelock/i,
      { key: OWNER, code: 1 },
    );
    expect(await ok(["owner", "cre", "cancel", "--kind", "workflow-owner", "--value", owner], OWNER)).toMatchObject({
      action: "cancel",
    });
    await h.refuses(["owner", "cre", "queue", "--kind", "workflow-name", "--value", "0x12"], /10-byte name/, {
      key: OWNER,
    });
  });
});
