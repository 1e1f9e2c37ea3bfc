/**
 * The proposal lifecycle through the CLI, in-process against a real chain: `market create` with admission and
 * settings, `resolve --plan` proposing, `market show` (window, proposal, disputer, results), `dispute`, `finalize`,
 * two-step `cancel`, `publish-feedback` for a market larger than the inline feedback, and `settings`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatEther, keccak256, parseAbi, parseEther, toHex, zeroAddress, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { identityRegistryAbi, resolutionMarketAbi } from "../../../workflow/chain/abis.js";
import { signAnswer } from "../../../workflow/core/answer-signature.js";
import { sendContractTx } from "../../../workflow/chain/writer.js";
import { joinMarket, registerAgent } from "../../../workflow/chain/actions.js";
import { withKey } from "../../../workflow/chain/clients.js";
import { feedbackClientOf, governanceOf } from "../../../workflow/chain/lifecycle.js";
import { createCliHarness, type CliHarness } from "./helpers/inprocess.js";
import { hardhatKey } from "./helpers/keys.js";

let h: CliHarness;
const RESOLVER = hardhatKey(0);
const agents = new Map<number, bigint>();
/** The key that registered each agent (its wallet): plans sign the agents' answers with it. */
const agentKeys = new Map<bigint, Hex>();

async function agentOf(i: number): Promise<bigint> {
  let id = agents.get(i);
  if (id === undefined) {
    id = (await registerAgent(withKey(h.owner, hardhatKey(i)), h.identity, `data:,w${i}`)).agentId;
    agents.set(i, id);
    agentKeys.set(id, hardhatKey(i));
  }
  return id;
}

async function create(extra: string[] = []): Promise<bigint> {
  const r = await h.cresolver(
    [
      "market",
      "create",
      "--question",
      `Will ${Math.random()} hold?`,
      "--deadline",
      "+10m",
      "--reward",
      "1",
      "--dispute-window",
      "10m",
      ...extra,
    ],
    { key: RESOLVER },
  );
  expect(r.code, r.stderr).toBe(0);
  return BigInt(r.json!.marketId as string);
}

async function join_(marketId: bigint, i: number): Promise<void> {
  const r = await h.cresolver(
    ["market", "join", String(marketId), "--agent-id", String(await agentOf(i)), "--stake", "0.01"],
    { key: hardhatKey(i) },
  );
  expect(r.code, r.stderr).toBe(0);
}

async function frozen(keys: number[], extra: string[] = []): Promise<bigint> {
  const id = await create(extra);
  for (const k of keys) await join_(id, k);
  await h.increaseTime(601);
  const r = await h.cresolver(["market", "request-resolution", String(id)], { key: RESOLVER });
  expect(r.code, r.stderr).toBe(0);
  return id;
}

/** Writes a plan whose Yes/No reports carry their agent's EIP-712 signature (signed seats, docs/RECORDS.md §2). */
async function plan(marketId: bigint, name: string, verdict: string, answers: [string, number][]): Promise<string> {
  const [, agentIds] = await h.owner.publicClient.readContract({
    address: h.market,
    abi: resolutionMarketAbi,
    functionName: "getWorkers",
    args: [marketId],
  });
  const reports = await Promise.all(
    answers.map(async ([answer, c], seat) => {
      if (answer !== "yes" && answer !== "no")
        return { answer, confidenceBps: 0, resQuality: 0, srcQuality: 0, analysisDepth: 0 };
      const agentId = agentIds[seat] ?? 0n;
      const key = agentKeys.get(agentId);
      const replyHash = keccak256(toHex(`${name} seat ${seat}`));
      const kind: "yes" | "no" = answer;
      const fields = {
        chainId: h.owner.chainId,
        market: h.market,
        marketId,
        agentId,
        answer: kind,
        confidenceBps: c,
        replyHash,
      };
      const signature = key === undefined ? undefined : await signAnswer(privateKeyToAccount(key), fields);
      return { answer, confidenceBps: c, resQuality: 70, srcQuality: 60, analysisDepth: 50, replyHash, signature };
    }),
  );
  writeFileSync(
    join(h.dir, name),
    JSON.stringify({ verdict, reports, bundleHash: `0x${"5a".repeat(32)}`, bundleURI: "ipfs://bafy-bundle" }),
  );
  return name;
}

beforeAll(async () => {
  h = await createCliHarness();
});
afterAll(async () => h?.close());

describe("market create: admission and settings", () => {
  it("allow-list: listed agents join, others are refused before sending; show prints the rule", async () => {
    const listed = await agentOf(1);
    const id = await create([
      "--admission",
      "allow-list",
      "--allow",
      String(listed),
      "--min-stake",
      "0.005",
      "--bond",
      "0.002",
      "--max-workers",
      "3",
    ]);
    const shown = await h.cresolver(["market", "show", String(id)]);
    expect(shown.json).toMatchObject({
      config: {
        admission: "allow-list",
        minStake: parseEther("0.005").toString(),
        bond: parseEther("0.002").toString(),
        maxWorkers: 3,
        disputeWindow: 600,
      },
    });
    await h.refuses(
      ["market", "join", String(id), "--agent-id", String(await agentOf(2)), "--stake", "0.01"],
      new RegExp(`agent ${agents.get(2)} is not admitted to market ${id} \\(allow-list\\)`),
      { key: hardhatKey(2) },
    );
    await join_(id, 1);
    const text = await h.cresolver(["market", "show", String(id)], { json: false });
    expect(text.stdout).toMatch(/admission +allow-list/);
    expect(text.stdout).toMatch(/dispute window 10m, bond 0\.002 ETH/);
  });

  it("track-record: a fresh agent is refused (a flood of new agents cannot take the seats)", async () => {
    const id = await create(["--admission", "track-record", "--min-settled", "1", "--min-correctness", "50"]);
    await h.refuses(
      ["market", "join", String(id), "--agent-id", String(await agentOf(3)), "--stake", "0.01"],
      /is not admitted .*track record: at least 1 settled markets here with average correctness ≥ 50/,
      { key: hardhatKey(3) },
    );
  });
});

describe("propose → window → finalize", () => {
  it("resolve proposes; show/status give the window and that nobody disputed; finalize after it; results per worker", async () => {
    const id = await frozen([1, 2, 3]);
    const p = await h.cresolver(
      [
        "resolve",
        String(id),
        "--plan",
        await plan(id, "p1.json", "yes", [
          ["yes", 9000],
          ["no", 6000],
          ["failed", 0],
        ]),
      ],
      { key: RESOLVER },
    );
    expect(p.code, p.stderr).toBe(0);
    expect(p.json).toMatchObject({ status: "proposed", verdict: "yes" });
    const status = await h.cresolver(["market", "status", String(id)], { json: false });
    expect(status.stdout).toMatch(/: Proposed/);
    expect(status.stdout).toMatch(/window +open until 20\d\d-/);
    expect(status.stdout).toMatch(/disputed +no/);
    expect(status.stdout).toMatch(/bundle +0x(5a){32} at ipfs:\/\/bafy-bundle/);
    await h.refuses(["market", "finalize", String(id)], /the dispute window is open until 20\d\d-.*finalize after it/, {
      key: hardhatKey(5),
    });
    await h.increaseTime(601);
    await h.refuses(["market", "dispute", String(id), "--claim", "no"], /the dispute window ended at/, {
      key: hardhatKey(5),
    });
    const f = await h.cresolver(["market", "finalize", String(id)], { key: hardhatKey(5), json: false });
    expect(f.code, f.stderr).toBe(0);
    expect(f.stdout).toMatch(/finalized: Resolved → YES/);
    expect(f.stdout).toMatch(/agent \d+: YES at 90 %; correctness 99; reward [0-9.]+ ETH; stake back 0\.01 ETH/);
    // A wrong but honest-sized answer still earns by its correctness (only a lost dispute slashes): 64 vs 99; the
    // reward weight is correctness × (600 + correctness + sources + depth) (Resolution Quality = correctness).
    expect(f.stdout).toMatch(/agent \d+: NO at 60 %; correctness 64; reward 0\.\d+ ETH/);
    expect(f.stdout).toMatch(/agent \d+: failed; correctness 0; reward 0 ETH/);
    const shown = await h.cresolver(["market", "show", String(id)]);
    expect(shown.json).toMatchObject({
      status: "Resolved",
      outcome: "YES",
      proposal: { verdict: "yes", windowOpen: false },
      feedbackPending: "0",
    });
    expect((shown.json!.results as unknown[]).length).toBe(3);
    // The goal is already met: exit 0, say so, send nothing.
    const sentBefore = h.bridge.methods.filter((m) => m === "eth_sendRawTransaction").length;
    const again = await h.cresolver(["market", "finalize", String(id)], { key: hardhatKey(5), json: false });
    expect(again).toMatchObject({ code: 0, stderr: "" });
    expect(again.stdout).toMatch(/^market \d+ is already final \(Resolved\): nothing sent/);
    const nothing = await h.cresolver(["market", "publish-feedback", String(id)], { key: hardhatKey(5), json: false });
    expect(nothing).toMatchObject({ code: 0, stderr: "" });
    expect(nothing.stdout).toMatch(/no ERC-8004 feedback pending, every record is written; nothing sent/);
    expect(h.bridge.methods.filter((m) => m === "eth_sendRawTransaction").length).toBe(sentBefore);
  });

  it("a captured panel's wrong proposal is disputed and overturned by the committee: the disputer gets both bonds and the wrong seats' stakes, the bettors on the true side are paid", async () => {
    // Bets are capped at 10 × the market's bond: 0.05 ETH takes the 0.4 ETH below.
    const id = await create(["--bond", "0.05"]);
    for (const k of [1, 2]) await join_(id, k);
    await h.cresolver(["bet", "place", String(id), "--side", "no", "--amount", "0.2"], { key: hardhatKey(18) });
    await h.cresolver(["bet", "place", String(id), "--side", "yes", "--amount", "0.2"], { key: hardhatKey(19) });
    await h.increaseTime(601);
    await h.cresolver(["market", "request-resolution", String(id)], { key: RESOLVER });
    // The panel says YES; the truth is NO.
    await h.cresolver(
      [
        "resolve",
        String(id),
        "--plan",
        await plan(id, "p2.json", "yes", [
          ["yes", 9000],
          ["yes", 8000],
        ]),
      ],
      { key: RESOLVER },
    );
    await h.refuses(["market", "dispute", String(id), "--claim", "yes"], /already says yes/, { key: hardhatKey(6) });
    const disputer = withKey(h.owner, hardhatKey(6));
    const before = (await h.cresolver(["market", "show", String(id)])).json!;
    const bond = BigInt((before.config as { bond: string }).bond);
    const d = await h.cresolver(["market", "dispute", String(id), "--claim", "no"], { key: hardhatKey(6) });
    expect(d.code, d.stderr).toBe(0);
    // The CLI sent the market's dispute bond: the bond + 10 % of the 1 ETH pool and the two 0.01 ETH stakes.
    const disputeBond = BigInt(d.json!.bond as string);
    expect(disputeBond).toBe(bond + parseEther("0.102"));
    const after = await h.cresolver(["market", "status", String(id)], { json: false });
    expect(after.stdout).toMatch(/: Disputed/);
    expect(after.stdout).toMatch(new RegExp(`disputed +by ${disputer.account!.address}, claim NO`));
    await h.increaseTime(601);
    await h.refuses(["market", "finalize", String(id)], /is Disputed, not Proposed/, { key: RESOLVER });

    // The deployment's committee (the deployer alone, threshold 1) rules NO; outsiders cannot vote.
    await h.refuses(["market", "vote", String(id), "--verdict", "no"], /is not a member of the committee/, {
      key: hardhatKey(6),
    });
    const vote = await h.cresolver(["market", "vote", String(id), "--verdict", "no"], { key: RESOLVER });
    expect(vote.json).toMatchObject({
      status: "Resolved",
      arbiter: (before.config as { arbiter: string }).arbiter,
      votesFor: 1,
      threshold: "1",
      members: 1,
    });
    const final = await h.cresolver(["market", "show", String(id)]);
    expect(final.json).toMatchObject({ status: "Resolved", outcome: "NO" });
    // The summary reads as one story: proposal, ruling with its votes, who took the bonds and the slashed stakes.
    const text = await h.cresolver(["market", "show", String(id)], { json: false });
    expect(text.stdout).toMatch(/summary +Proposed YES, overturned to NO by the committee \(1 of 1 votes\)/);
    expect(text.stdout).toContain(
      `money         The disputer ${disputer.account!.address} took both bonds (${formatEther(bond + disputeBond)} ETH) plus 0.02 ETH of slashed stakes (2 seats on the losing side)`,
    );
    expect(text.stdout).toMatch(/dispute +Ruling: NO \(the proposal is overturned\)/);
    expect(text.stdout).not.toMatch(/bps/);
    const results = final.json!.results as { stakeSlashed: string; reward: string }[];
    expect(results.map((r) => r.stakeSlashed)).toEqual([parseEther("0.01").toString(), parseEther("0.01").toString()]);
    const w = await h.cresolver(["market", "withdraw"], { key: hardhatKey(6) });
    expect(BigInt(w.json!.amount as string)).toBe(bond + disputeBond + parseEther("0.02"));
    const paid = await h.cresolver(["bet", "claim", String(id)], { key: hardhatKey(18) });
    expect(paid.json).toMatchObject({ amount: parseEther("0.4").toString(), refund: false });
    await h.refuses(["bet", "claim", String(id)], /nothing to claim/, { key: hardhatKey(19) });
  });
});

describe("market cancel (two steps)", () => {
  it("requests after the grace period, executes after the cancel window; show names when", async () => {
    const id = await frozen([1]);
    await h.refuses(["market", "cancel", String(id)], /grace period runs until/, { key: hardhatKey(7) });
    const grace = Number(
      ((await h.cresolver(["market", "show", String(id)])).json!.config as { gracePeriod: number }).gracePeriod,
    );
    await h.increaseTime(grace + 1);
    const first = await h.cresolver(["market", "cancel", String(id)], { key: hardhatKey(7) });
    expect(first.json).toMatchObject({ step: "requested" });
    expect((await h.cresolver(["market", "show", String(id)], { json: false })).stdout).toMatch(
      /cancel +requested; cancelStale possible from 20\d\d-/,
    );
    await h.refuses(["market", "cancel", String(id)], /cancellation was requested; it can be executed from 20\d\d-/, {
      key: hardhatKey(7),
    });
    await h.increaseTime(Number(BigInt(first.json!.cancellableAt as string) - (await h.now())) + 1);
    const second = await h.cresolver(["market", "cancel", String(id)], { key: hardhatKey(7) });
    expect(second.json).toMatchObject({ step: "cancelled" });
    expect((await h.cresolver(["market", "show", String(id)])).json).toMatchObject({ status: "Cancelled" });
  });
});

describe("bet place|claim|position", () => {
  it("bets while open; a proposed (not final) market pays nothing yet; after finalization the true side is paid", async () => {
    const id = await create(["--bond", "0.05"]); // bets up to 10 × the bond: 0.5 ETH
    await join_(id, 15);
    const yes = await h.cresolver(["bet", "place", String(id), "--side", "yes", "--amount", "0.3"], {
      key: hardhatKey(16),
    });
    expect(yes.code, yes.stderr).toBe(0);
    await h.cresolver(["bet", "place", String(id), "--side", "no", "--amount", "0.1"], { key: hardhatKey(17) });
    await h.refuses(["bet", "place", String(id), "--side", "maybe", "--amount", "1"], /argument 'maybe' is invalid/, {
      key: hardhatKey(16),
    });
    await h.refuses(["bet", "place", String(id), "--side", "yes", "--amount", "0"], /--amount must be more than 0/, {
      key: hardhatKey(16),
    });
    await h.increaseTime(601);
    await h.refuses(
      ["bet", "place", String(id), "--side", "no", "--amount", "0.1"],
      /BettingClosed|betting is closed/,
      { key: hardhatKey(17), code: 1 },
    );
    await h.cresolver(["market", "request-resolution", String(id)], { key: RESOLVER });
    await h.cresolver(["resolve", String(id), "--plan", await plan(id, "p5.json", "yes", [["yes", 9000]])], {
      key: RESOLVER,
    });
    // Proposed is not final: nothing is claimable, the claim is refused before sending.
    const pending = await h.cresolver(["bet", "position", String(id)], { key: hardhatKey(16) });
    expect(pending.json).toMatchObject({
      settlement: "pending",
      claimable: "0",
      yesStake: parseEther("0.3").toString(),
    });
    await h.refuses(["bet", "claim", String(id)], /not final yet/, { key: hardhatKey(16) });
    await h.increaseTime(601);
    await h.cresolver(["market", "finalize", String(id)], { key: RESOLVER });
    const text = await h.cresolver(
      ["bet", "position", String(id), "--account", withKey(h.owner, hardhatKey(16)).account!.address],
      { json: false },
    );
    expect(text.stdout).toMatch(/pays YES; pools YES 0\.3 ETH, NO 0\.1 ETH/);
    const won = await h.cresolver(["bet", "claim", String(id)], { key: hardhatKey(16) });
    expect(won.json).toMatchObject({ amount: parseEther("0.4").toString(), refund: false });
    await h.refuses(["bet", "claim", String(id)], /already claimed/, { key: hardhatKey(16) });
    await h.refuses(["bet", "claim", String(id)], /nothing to claim/, { key: hardhatKey(17) });
  });
});

describe("publish-feedback (issue 13 item 2) and settings", () => {
  it("a 12-seat market: finalize writes 10 seats' records, publish-feedback the rest", async () => {
    const keys = Array.from({ length: 12 }, (_, i) => 1 + i);
    const id = await frozen(keys, ["--max-workers", "12"]);
    await h.cresolver(
      [
        "resolve",
        String(id),
        "--plan",
        await plan(
          id,
          "p3.json",
          "no",
          keys.map((k) => ["no", 5000 + k * 100] as [string, number]),
        ),
      ],
      { key: RESOLVER },
    );
    await h.increaseTime(601);
    const f = await h.cresolver(["market", "finalize", String(id)], { key: RESOLVER });
    expect(f.json).toMatchObject({ status: "Resolved", feedbackPending: "2" });
    const p = await h.cresolver(["market", "publish-feedback", String(id), "--max", "5"], { key: hardhatKey(9) });
    expect(p.code, p.stderr).toBe(0);
    expect(p.json).toMatchObject({ published: "2", pending: "0" });
    expect((await h.cresolver(["market", "show", String(id)])).json).toMatchObject({ feedbackPending: "0" });
  });

  it("retry-feedback: a seat that made the market its operator is refused at finalization, its records stay pending and are written once it revokes", async () => {
    const id = await create();
    await join_(id, 13);
    await join_(id, 14);
    const agent = await agentOf(13);
    const worker = withKey(h.owner, hardhatKey(13));
    // After joining (joinMarket refuses it), the agent's owner approves the market's ERC-8004 writer (the records'
    // client since the contract split): ERC-8004 then refuses its feedback on the agent as self-feedback.
    const writer = await feedbackClientOf(h.owner, h.market);
    await sendContractTx(worker, {
      address: h.identity,
      abi: identityRegistryAbi,
      functionName: "approve",
      args: [writer, agent],
    });
    await h.increaseTime(601);
    await h.cresolver(["market", "request-resolution", String(id)], { key: RESOLVER });
    await h.cresolver(
      [
        "resolve",
        String(id),
        "--plan",
        await plan(id, "p4.json", "yes", [
          ["yes", 9000],
          ["yes", 8000],
        ]),
      ],
      { key: RESOLVER },
    );
    await h.increaseTime(601);
    const f = await h.cresolver(["market", "finalize", String(id)], { key: RESOLVER });
    expect(f.json).toMatchObject({
      status: "Resolved",
      seats: [{ reward: "0", stakeReturned: parseEther("0.01").toString() }, { answer: "yes" }],
    });
    expect((await h.cresolver(["market", "show", String(id)])).json).toMatchObject({ refusedSeats: [0] });
    const still = await h.cresolver(["market", "retry-feedback", String(id), "--seat", "0"], { key: hardhatKey(9) });
    expect(still.json).toMatchObject({ written: "0", stillPending: "2" });
    await sendContractTx(worker, {
      address: h.identity,
      abi: identityRegistryAbi,
      functionName: "approve",
      args: [zeroAddress, agent],
    });
    const retried = await h.cresolver(["market", "retry-feedback", String(id), "--seat", "0"], { key: hardhatKey(9) });
    expect(retried.json).toMatchObject({ written: "2", stillPending: "0" });
    await h.refuses(["market", "retry-feedback", String(id), "--seat", "0"], /seat 0 has no refused records to retry/, {
      key: hardhatKey(9),
    });
    expect((await h.cresolver(["market", "show", String(id)])).json).toMatchObject({ refusedSeats: [] });
  });

  it("a 100-seat market settles through `cresolver resolve` on a chain that enforces EIP-7825 (issue 13 acceptance)", async () => {
    const id = await create(["--max-workers", "100"]);
    for (let i = 0; i < 100; i++) {
      const key = `0x${(0x2000 + i).toString(16).padStart(64, "0")}` as `0x${string}`;
      const w = withKey(h.owner, key);
      await h.owner.walletClient!.sendTransaction({
        account: h.owner.account!,
        chain: h.owner.chain,
        to: w.account!.address,
        value: parseEther("0.05"),
      });
      const { agentId } = await registerAgent(w, h.identity, `data:,big${i}`);
      agentKeys.set(agentId, key);
      await joinMarket(w, h.market, id, agentId, parseEther("0.01"));
    }
    await h.increaseTime(601);
    await h.cresolver(["market", "request-resolution", String(id)], { key: RESOLVER });
    const reports = Array.from(
      { length: 100 },
      (_, i) => (i % 4 === 0 ? ["no", 6000] : ["yes", 7000 + i * 30]) as [string, number],
    );
    const p = await h.cresolver(["resolve", String(id), "--plan", await plan(id, "p100.json", "yes", reports)], {
      key: RESOLVER,
    });
    expect(p.json).toMatchObject({ status: "proposed" });
    await h.increaseTime(601);
    const f = await h.cresolver(["market", "finalize", String(id)], { key: RESOLVER });
    expect(f.json).toMatchObject({ status: "Resolved", feedbackPending: "90" });
    let pending = 90n;
    while (pending > 0n)
      pending = BigInt(
        (await h.cresolver(["market", "publish-feedback", String(id), "--max", "100"], { key: RESOLVER })).json!
          .pending as string,
      );
    for (const hash of [p.json!.txHash, f.json!.txHash] as `0x${string}`[])
      expect((await h.owner.publicClient.getTransaction({ hash })).gas).toBeLessThanOrEqual(16_777_216n);
  }, 120_000);

  it("settings: owner, defaults, the deployer as resolver active since deployment, no arbiter change queued", async () => {
    const s = await h.cresolver(["market", "settings"]);
    expect(s.code, s.stderr).toBe(0);
    expect(s.json).toMatchObject({
      owner: h.owner.account!.address,
      resolvers: [{ resolver: h.owner.account!.address, active: true }],
      queuedArbiter: null,
    });
    const text = await h.cresolver(["market", "settings"], { json: false });
    expect(text.stdout).toMatch(
      /defaults +min stake [0-9.]+ ETH, \d+ seats, grace \w+, dispute window 1d, bond [0-9.]+ ETH/,
    );
    expect(formatEther(BigInt((s.json!.defaults as { bond: string }).bond))).toBe("0.01");
  });
});

// Last: it queues owner changes that the settings test above expects absent.
describe("the owner's timelocked changes", () => {
  it("a resolver queued now cannot propose on an existing market; settings shows it and a queued arbiter with their effective times", async () => {
    const id = await frozen([1]);
    const late = withKey(h.owner, hardhatKey(11)).account!.address;
    const governance = await governanceOf(h.owner, h.market);
    await sendContractTx(h.owner, {
      address: governance,
      abi: parseAbi(["function queueResolver(address)"]),
      functionName: "queueResolver",
      args: [late],
    });
    await sendContractTx(h.owner, {
      address: governance,
      abi: parseAbi(["function queueDefaultArbiter(address)"]),
      functionName: "queueDefaultArbiter",
      args: [h.identity],
    });
    await h.refuses(
      ["resolve", String(id), "--plan", await plan(id, "p6.json", "yes", [["yes", 9000]])],
      /is not a resolver active for market \d+ .*must wait for its timelock/,
      { key: hardhatKey(11) },
    );
    const s = await h.cresolver(["market", "settings"]);
    const entry = (s.json!.resolvers as { resolver: string; activeFrom: string; active: boolean }[]).find(
      (r) => r.resolver === late,
    );
    expect(entry?.active).toBe(false);
    expect(BigInt(entry!.activeFrom)).toBeGreaterThan((await h.now()) + 86_400n);
    expect(s.json!.queuedArbiter).toMatchObject({ arbiter: h.identity });
    const text = await h.cresolver(["market", "settings"], { json: false });
    expect(text.stdout).toMatch(
      new RegExp(`resolver +${late}: proposes on markets created from 20\\d\\d-.*\\(queued, timelocked\\)`),
    );
    expect(text.stdout).toMatch(/arbiter +0x[0-9a-fA-F]{40} queued, default for markets created from 20\d\d-/);
  });
});
