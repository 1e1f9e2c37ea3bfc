/**
 * The one settlement path and the proposal lifecycle on Hardhat's in-process chain (EIP-7825 enforced by its
 * default hardfork): propose with the market's bond, "already settled" as the one answer to a market that left
 * ResolutionRequested, refusals before sending, the retry policy through a faulty loopback RPC, dispute, finalize,
 * two-step cancel, the track record from logs, and a 100-seat market whose every transaction stays under 2^24 gas.
 * Needs `npx hardhat build`.
 */
import { network } from "hardhat";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEther, type Address, type Hex } from "viem";
import { signedReports } from "../../helpers/signed-seats.js";
import {
  createMarket,
  joinMarket,
  registerAgent,
  requestResolution,
  type MarketParamsInput,
} from "../../../workflow/chain/actions.js";
import { connect, connectProvider, withKey, type ChainContext } from "../../../workflow/chain/clients.js";
import { deployAll } from "../../../workflow/chain/deploy.js";
import { marketDisputeBond } from "../../../workflow/chain/dispute-bond.js";
import { PROTOCOL_TX_GAS_CAP } from "../../../workflow/chain/gas.js";
import { createChainPorts } from "../../../workflow/chain/ports.js";
import {
  cancelStale,
  dispute,
  finalize,
  getMarketConfig,
  getProposal,
  publishFeedback,
  requestCancel,
} from "../../../workflow/chain/lifecycle.js";
import { readMarketState } from "../../../workflow/chain/snapshot.js";
import { readRecordHead } from "../../../workflow/chain/record.js";
import { cutoffFor, recordHistory } from "../../../workflow/chain/track-record.js";
import type { WorkerReport } from "../../../workflow/core/types.js";
import { createSettler, SettleError } from "../../../workflow/settle/index.js";
import { hardhatKey } from "../cli/helpers/keys.js";
import { startRpcBridge, type RpcBridge } from "../cli/helpers/rpc-bridge.js";

type Provider = { request(args: { method: string; params?: unknown[] }): Promise<unknown> };

let provider: Provider;
let owner: ChainContext;
let market: Address;
let identity: Address;
const agents = new Map<number, bigint>();
const WINDOW = 600;
const HASH = `0x${"ab".repeat(32)}` as Hex;

const yes = (c = 8000): WorkerReport => ({
  answer: "yes",
  confidenceBps: c,
  resQuality: 70,
  srcQuality: 60,
  analysisDepth: 50,
});
const no = (c = 7000): WorkerReport => ({
  answer: "no",
  confidenceBps: c,
  resQuality: 40,
  srcQuality: 30,
  analysisDepth: 20,
});
const failed: WorkerReport = { answer: "failed", confidenceBps: 0, resQuality: 0, srcQuality: 0, analysisDepth: 0 };

async function increaseTime(seconds: number): Promise<void> {
  await provider.request({ method: "evm_increaseTime", params: [seconds] });
  await provider.request({ method: "evm_mine", params: [] });
}
const now = async () => (await owner.publicClient.getBlock({ blockTag: "latest" })).timestamp;

/** The agent of key `i` (registered once). */
async function agentOf(i: number): Promise<bigint> {
  let id = agents.get(i);
  if (id === undefined) {
    id = (await registerAgent(withKey(owner, hardhatKey(i)), identity, `data:application/json,{"name":"w${i}"}`))
      .agentId;
    agents.set(i, id);
  }
  return id;
}

/** A frozen market seated by keys `keys` (in order). */
async function frozenMarket(keys: number[], params: MarketParamsInput = {}): Promise<bigint> {
  const { marketId } = await createMarket(
    owner,
    market,
    `Will test ${Math.random()} pass?`,
    (await now()) + 600n,
    parseEther("1"),
    { disputeWindow: WINDOW, ...params },
  );
  for (const k of keys)
    await joinMarket(withKey(owner, hardhatKey(k)), market, marketId, await agentOf(k), parseEther("0.01"));
  await increaseTime(601);
  await requestResolution(owner, market, marketId);
  return marketId;
}

beforeAll(async () => {
  provider = (await network.create()).provider as unknown as Provider;
  owner = await connectProvider({ provider, privateKey: hardhatKey(0) });
  const deployment = await deployAll(owner, { network: "hardhat" });
  market = deployment.contracts.ResolutionMarket.address;
  identity = deployment.contracts.IdentityRegistry.address;
});

describe("createSettler().propose", () => {
  it("proposes with the market's bond; a second call answers already-settled and sends nothing", async () => {
    const marketId = await frozenMarket([1, 2]);
    const { bond } = await getMarketConfig(owner, market, marketId);
    const settler = createSettler(owner, market, { bundleURI: "ipfs://bundle" });
    const first = await settler.propose({ marketId, verdict: "yes", reports: [yes(), no()], bundleHash: HASH });
    expect(first).toMatchObject({ status: "proposed", bond, attempts: 1 });
    if (first.status !== "proposed") throw new Error("unreachable");
    const tx = await owner.publicClient.getTransaction({ hash: first.txHash });
    expect(tx.value).toBe(bond);
    expect(tx.gas).toBeLessThanOrEqual(PROTOCOL_TX_GAS_CAP);
    const proposal = await getProposal(owner, market, marketId);
    expect(proposal).toMatchObject({
      verdict: "yes",
      bundleHash: HASH,
      bundleURI: "ipfs://bundle",
      bond,
      disputeEndsAt: first.disputeEndsAt,
    });
    const nonce = await owner.publicClient.getTransactionCount({ address: owner.account!.address });
    expect(await settler.propose({ marketId, verdict: "no", reports: [yes(), no()], bundleHash: HASH })).toEqual({
      status: "already-settled",
      marketStatus: "Proposed",
      reason: `market ${marketId} is already Proposed`,
      proposer: owner.account!.address,
      ours: true,
    });
    expect(
      await createSettler(withKey(owner, hardhatKey(9)), market).propose({
        marketId,
        verdict: "no",
        reports: [yes(), no()],
        bundleHash: HASH,
      }),
    ).toMatchObject({ status: "already-settled", ours: false });
    expect(await owner.publicClient.getTransactionCount({ address: owner.account!.address })).toBe(nonce);
  });

  it("two resolvers racing: one proposes, the other answers already-settled", async () => {
    const marketId = await frozenMarket([1]);
    const settler = createSettler(owner, market);
    const results = await Promise.all(
      [0, 1, 2].map(() => settler.propose({ marketId, verdict: "invalid", reports: [failed], bundleHash: HASH })),
    );
    expect(results.map((r) => r.status).sort()).toEqual(["already-settled", "already-settled", "proposed"]);
  });

  it("refuses before sending: a market not requested, reports the contract would reject, a key that is not a resolver", async () => {
    const { marketId: open } = await createMarket(owner, market, "Still open?", (await now()) + 600n, parseEther("1"));
    const settler = createSettler(owner, market);
    await expect(
      settler.propose({ marketId: open, verdict: "yes", reports: [], bundleHash: HASH }),
    ).rejects.toMatchObject({
      name: "SettleError",
      retryable: false,
      message: expect.stringMatching(/is Open, not ResolutionRequested/),
    });
    const marketId = await frozenMarket([1, 2]);
    const nonce = await owner.publicClient.getTransactionCount({ address: owner.account!.address });
    for (const [reports, msg] of [
      [[yes()], /1 reports for 2 seats/],
      [[yes(4000), no()], /confidenceBps 4000/],
      [[failed, failed], /needs at least one yes\/no answer/],
    ] as const) {
      await expect(
        settler.propose({ marketId, verdict: "yes", reports: [...reports], bundleHash: HASH }),
      ).rejects.toMatchObject({ retryable: false, message: expect.stringMatching(msg) });
    }
    await expect(
      createSettler(withKey(owner, hardhatKey(7)), market).propose({
        marketId,
        verdict: "yes",
        reports: [yes(), no()],
        bundleHash: HASH,
      }),
    ).rejects.toThrow(/is not a resolver active for market/);
    expect(await owner.publicClient.getTransactionCount({ address: owner.account!.address })).toBe(nonce);
    expect((await readMarketState(owner, market, marketId)).statusName).toBe("ResolutionRequested");
  });

  describe("through a faulty RPC", () => {
    let bridge: RpcBridge;
    beforeAll(async () => {
      bridge = await startRpcBridge(provider);
    });
    afterAll(async () => bridge.close());

    it("retries what the transport could not, then proposes; gives up after `attempts` as retryable, never with another verdict", async () => {
      const resolver = await connect({
        rpcUrl: bridge.url,
        privateKey: hardhatKey(0),
        retry: { retries: 1, baseDelayMs: 5 },
      });
      const marketId = await frozenMarket([1]);
      const retries: number[] = [];
      const settler = createSettler(resolver, market, { backoffMs: 5, onRetry: (r) => retries.push(r.attempt) });
      bridge.inject("eth_sendRawTransaction", "503", "503");
      const r = await settler.propose({ marketId, verdict: "yes", reports: [yes()], bundleHash: HASH });
      expect(r).toMatchObject({ status: "proposed", attempts: 2 });
      expect(retries).toEqual([1]);

      const other = await frozenMarket([2]);
      bridge.inject("eth_sendRawTransaction", "503", "503", "503", "503", "503", "503");
      const err = (await createSettler(resolver, market, { backoffMs: 5, attempts: 3 })
        .propose({ marketId: other, verdict: "no", reports: [no()], bundleHash: HASH })
        .catch((e: unknown) => e)) as SettleError;
      expect(err).toBeInstanceOf(SettleError);
      expect(err).toMatchObject({ retryable: true, attempts: 3 });
      expect((await readMarketState(owner, market, other)).statusName).toBe("ResolutionRequested");
    });
  });
});

describe("the proposal lifecycle", () => {
  it("finalize waits for the window; then Resolved with per-seat results, and the bond back", async () => {
    const marketId = await frozenMarket([1, 2, 3]);
    await createSettler(owner, market).propose({
      marketId,
      verdict: "yes",
      reports: [yes(9000), no(6000), failed],
      bundleHash: HASH,
    });
    await expect(finalize(owner, market, marketId)).rejects.toThrow(/the dispute window is open until 20\d\d-/);
    await increaseTime(WINDOW + 1);
    await expect(dispute(withKey(owner, hardhatKey(8)), market, marketId, "no")).rejects.toThrow(
      /dispute window ended at/,
    );
    const r = await finalize(withKey(owner, hardhatKey(8)), market, marketId);
    expect(r).toMatchObject({ status: "Resolved", outcome: true, disputed: false, feedbackPending: 0n });
    expect(r.seats.map((s) => [s.answer, s.scored, s.correctness])).toEqual([
      ["yes", true, 99],
      ["no", true, 64],
      ["failed", true, 0],
    ]);
    expect(r.seats[0].reward).toBeGreaterThan(r.seats[1].reward);
    expect(r.seats[2].reward).toBe(0n);
    await expect(finalize(owner, market, marketId)).rejects.toThrow(/is Resolved, not Proposed/);
  });

  it("a dispute during the window escalates to the arbiter with the dispute bond (bond + 10 % of pool and stakes); the disputed market cannot be finalized", async () => {
    const marketId = await frozenMarket([1, 2]);
    await createSettler(owner, market).propose({ marketId, verdict: "yes", reports: [yes(), no()], bundleHash: HASH });
    const disputer = withKey(owner, hardhatKey(9));
    await expect(dispute(disputer, market, marketId, "yes")).rejects.toThrow(/already says yes/);
    const config = await getMarketConfig(owner, market, marketId);
    if (/^0x0{40}$/i.test(config.arbiter)) return; // no default arbiter in this deployment: disputes revert in the arbiter call
    const disputeBond = await marketDisputeBond(owner, market, marketId);
    expect(disputeBond).toBeGreaterThan(config.bond); // the market's bond plus 10 % of what the dispute moves
    const r = await dispute(disputer, market, marketId, "no");
    expect(r).toMatchObject({ bond: disputeBond, proposed: "yes" });
    expect((await getProposal(owner, market, marketId))?.dispute).toMatchObject({
      disputer: disputer.account!.address,
      claimed: "no",
    });
    await increaseTime(WINDOW + 1);
    await expect(finalize(owner, market, marketId)).rejects.toThrow(/is Disputed, not Proposed/);
  });

  it("cancel in two steps; a resolver may still propose in between, which ends the cancellation", async () => {
    const a = await frozenMarket([1]);
    const b = await frozenMarket([2]);
    const { gracePeriod } = await getMarketConfig(owner, market, a);
    await expect(requestCancel(owner, market, a)).rejects.toThrow(/grace period runs until/);
    await increaseTime(gracePeriod + 1);
    const ra = await requestCancel(owner, market, a);
    await requestCancel(owner, market, b);
    expect(ra.cancellableAt).toBeGreaterThan(await now());
    await expect(cancelStale(owner, market, a)).rejects.toThrow(/cancel window runs until/);
    await createSettler(owner, market).propose({ marketId: b, verdict: "no", reports: [no()], bundleHash: HASH });
    await increaseTime(Number(ra.cancellableAt - (await now())) + 1);
    await cancelStale(owner, market, a);
    expect((await readMarketState(owner, market, a)).statusName).toBe("Cancelled");
    await expect(cancelStale(owner, market, b)).rejects.toThrow(/is Proposed, not ResolutionRequested/);
  });
});

describe("the track record from the MarketRecorded chain", () => {
  it("finalized markets in finalization order, with agent ids and answers; only those finalized before the current request", async () => {
    const first = await frozenMarket([3, 4]);
    await createSettler(owner, market).propose({
      marketId: first,
      verdict: "no",
      reports: [no(8000), yes(5500)],
      bundleHash: HASH,
    });
    const second = await frozenMarket([4, 3]);
    await createSettler(owner, market).propose({
      marketId: second,
      verdict: "invalid",
      reports: [failed, failed],
      bundleHash: HASH,
    });
    await increaseTime(WINDOW + 1);
    await finalize(owner, market, second);
    await finalize(owner, market, first);
    const current = await frozenMarket([3]);
    const later = await frozenMarket([4]);
    await createSettler(owner, market).propose({ marketId: later, verdict: "yes", reports: [yes()], bundleHash: HASH });
    await increaseTime(WINDOW + 1);
    await finalize(owner, market, later); // after `current` was requested: not in its record

    const panel = [3, 4].map((k) => agents.get(k) ?? 0n);
    // Entries read in 7-block requests, every head checked against recordHead().
    const all = await recordHistory(owner, market, await readRecordHead(owner, market), panel, { chunkBlocks: 7n });
    const key = (id: bigint) => `${owner.chainId}:${market.toLowerCase()}:${id}`;
    const ids = all.map((m) => m.key);
    expect(ids.indexOf(key(second))).toBeLessThan(ids.indexOf(key(first)));
    expect(all.find((m) => m.key === key(first))).toMatchObject({
      key: key(first),
      final: false,
      disputed: false,
      answers: [
        { agentId: agents.get(3), answer: "no", confidenceBps: 8000 },
        { agentId: agents.get(4), answer: "yes", confidenceBps: 5500 },
      ],
    });
    expect(all.find((m) => m.key === key(second))).toMatchObject({
      final: "invalid",
      answers: [
        { agentId: agents.get(4), answer: "failed" },
        { agentId: agents.get(3), answer: "failed" },
      ],
    });
    const forCurrent = await recordHistory(owner, market, await cutoffFor(owner, market, current), panel);
    expect(forCurrent.map((m) => m.key)).toContain(key(first));
    expect(forCurrent.map((m) => m.key)).not.toContain(key(later));
    expect(forCurrent.map((m) => m.key)).not.toContain(key(current));
    // The pipeline's port: the same record, limited to markets where one of the current panel's agents sat.
    const port = createChainPorts({ ctx: owner, marketAddress: market }).trackRecord;
    const snapshot = await createChainPorts({ ctx: owner, marketAddress: market }).market.readMarket(current);
    const viaPort = await port.history(snapshot);
    expect(viaPort.map((m) => m.key)).toEqual(
      forCurrent.filter((m) => m.answers.some((a) => a.agentId === agents.get(3))).map((m) => m.key),
    );
    expect(viaPort.map((m) => m.key)).toEqual(expect.arrayContaining([key(first), key(second)]));
  });
});

/** A 100-seat market through propose → finalize → publishFeedback; every gas limit and what each transaction used. */
async function hundredSeats(
  ctx: ChainContext,
  m: Address,
  ident: Address,
): Promise<{ limits: bigint[]; used: bigint[]; pendingAfter: bigint }> {
  const now_ = async () => (await ctx.publicClient.getBlock({ blockTag: "latest" })).timestamp;
  const p = ctx.publicClient as unknown as Provider;
  const { marketId } = await createMarket(ctx, m, "Large?", (await now_()) + 3_600n, parseEther("1"), {
    disputeWindow: WINDOW,
    maxWorkers: 100,
  });
  const seats: { key: Hex; agentId: bigint }[] = [];
  for (let i = 0; i < 100; i++) {
    const key = `0x${(0x1000 + i).toString(16).padStart(64, "0")}` as Hex;
    const w = withKey(ctx, key);
    await ctx.walletClient!.sendTransaction({
      account: ctx.account!,
      chain: ctx.chain,
      to: w.account!.address,
      value: parseEther("0.1"),
    });
    const { agentId } = await registerAgent(w, ident, `data:,w${i}`);
    await joinMarket(w, m, marketId, agentId, parseEther("0.01"));
    seats.push({ key, agentId });
  }
  await p.request({ method: "evm_increaseTime", params: [3_601] });
  await p.request({ method: "evm_mine", params: [] });
  await requestResolution(ctx, m, marketId);
  // Every seat signed by its agent's owner, as the reference agent signs: only signed seats are recorded and slashed.
  const reports = await signedReports(
    { chainId: ctx.chain.id, market: m, marketId },
    seats,
    Array.from({ length: 100 }, (_, i) => (i % 3 === 0 ? no(6000) : yes(5000 + i * 50))),
  );
  const proposed = await createSettler(ctx, m).propose({
    marketId,
    verdict: "yes",
    reports,
    bundleHash: HASH,
    bundleURI: "ipfs://x",
  });
  if (proposed.status !== "proposed") throw new Error("not proposed");
  await p.request({ method: "evm_increaseTime", params: [WINDOW + 1] });
  await p.request({ method: "evm_mine", params: [] });
  const fin = await finalize(ctx, m, marketId);
  expect(fin.status).toBe("Resolved");
  expect(fin.seats).toHaveLength(100);
  const gasOf = async (hash: Hex) => (await ctx.publicClient.getTransaction({ hash })).gas;
  const limits = [await gasOf(proposed.txHash), await gasOf(fin.txHash)];
  const used = [proposed.gasUsed, fin.gasUsed];
  let pending = fin.feedbackPending;
  while (pending > 0n) {
    const pub = await publishFeedback(ctx, m, marketId, 100);
    limits.push(await gasOf(pub.txHash));
    used.push(pub.gasUsed);
    expect(pub.published).toBeGreaterThan(0n);
    pending = pub.pending;
  }
  return { limits, used, pendingAfter: pending };
}

const fmt = (used: bigint[]) =>
  `propose ${used[0]}, finalize ${used[1]}, publishFeedback ×${used.length - 2} max ${used.slice(2).reduce((a, b) => (a > b ? a : b), 0n)}`;

describe("100-seat markets stay under EIP-7825's 2^24 gas per transaction (issue 13 item 1)", () => {
  it("on our registries: propose, finalize and publishFeedback all land, each with a gas limit ≤ 16,777,216", async () => {
    const r = await hundredSeats(owner, market, identity);
    for (const g of r.limits) expect(g).toBeLessThanOrEqual(PROTOCOL_TX_GAS_CAP);
    console.log(`100 seats, our registries: ${fmt(r.used)}`);
  }, 240_000);

  it("on a registry whose every record costs ~280k gas (above any real ERC-8004 registry): still settles, no record starved", async () => {
    const { viem, provider: p } = await network.create();
    const idReg = await viem.deployContract("IdentityRegistry");
    const costly = await viem.deployContract("GasRecordingReputationRegistry", [299_000n, 280_000n]);
    const ctx = await connectProvider({ provider: p, privateKey: hardhatKey(0) });
    const d = await deployAll(ctx, {
      network: "costly",
      identityRegistry: idReg.address,
      reputationRegistry: costly.address,
      betting: false,
    });
    const r = await hundredSeats(ctx, d.contracts.ResolutionMarket.address, idReg.address);
    for (const g of r.limits) expect(g).toBeLessThanOrEqual(PROTOCOL_TX_GAS_CAP);
    // Every Yes/No seat got its two records, each call with its full 300k (the market's loop stops before starving one).
    expect(await costly.read.calls()).toBe(200n);
    const minGas = await costly.read.minGasSeen();
    expect(minGas).toBeGreaterThan(290_000n);
    console.log(`100 seats, 280k-gas records: ${fmt(r.used)}; least gas a record call saw ${minGas}`);
  }, 300_000);
});
