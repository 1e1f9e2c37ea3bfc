/**
 * The track-record hash chain (docs/RECORDS.md §3) on the REAL ResolutionMarket, Hardhat in-process: markets
 * finalized Resolved, Invalid and by a committee arbiter's ruling after a dispute; the TypeScript chain step over
 * the `MarketRecorded` entries reproduces every event's head and `recordHead()`; a market requested in between keeps
 * the cut-off of that moment; the daemon's SQLite index built over this chain verifies against `recordHead()`; the
 * index's history and the chain ports' record (no index) feed `decideVerdict` the same verdict; a contract without
 * the record chain is refused (no other record path). Needs `npx hardhat build`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify from "fastify";
import { network } from "hardhat";
import { type Address, type Hex, parseEther, zeroAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servedTrackRecord } from "../../../cli/commands/track-record-source.js";
import { mountTrackRecord } from "../../../daemon/record-api.js";
import { indexTrackRecord, RecordIndex } from "../../../daemon/record-index.js";
import { DatabaseSync } from "../../../daemon/sqlite.js";
import { committeeArbiterAbi, marketGovernanceAbi, resolutionMarketAbi } from "../../../workflow/chain/abis.js";
import { createMarket, joinMarket, registerAgent, requestResolution } from "../../../workflow/chain/actions.js";
import { type ChainContext, connectProvider, withKey } from "../../../workflow/chain/clients.js";
import { deployAll } from "../../../workflow/chain/deploy.js";
import { createChainPorts } from "../../../workflow/chain/ports.js";
import { dispute, finalize } from "../../../workflow/chain/lifecycle.js";
import { entryOfLog, readCutoff, readRecordHead, scanRecordLogs } from "../../../workflow/chain/record.js";
import { cutoffFor, recordHistory } from "../../../workflow/chain/track-record.js";
import { sendContractTx } from "../../../workflow/chain/writer.js";
import { chainHead, chainStep, type RecordEntry, ZERO_HEAD } from "../../../workflow/core/track-record.js";
import type { WorkerReport } from "../../../workflow/core/types.js";
import { decideVerdict } from "../../../workflow/core/vote.js";
import { createSafeHttpClient } from "../../../workflow/http/client.js";
import { createSettler } from "../../../workflow/settle/index.js";
import { hardhatKey } from "../cli/helpers/keys.js";

type Provider = { request(args: { method: string; params?: unknown[] }): Promise<unknown> };

const WINDOW = 600;
const POOL = parseEther("1");
const STAKE = parseEther("0.01");
const HASH = `0x${"ab".repeat(32)}` as Hex;
/** A seat's report; an abstained or failed seat carries no scores (the settler refuses them otherwise). */
const report = (answer: WorkerReport["answer"], confidenceBps: number): WorkerReport => {
  const q = answer === "yes" || answer === "no" ? 50 : 0;
  return { answer, confidenceBps, resQuality: q, srcQuality: q, analysisDepth: q };
};

let provider: Provider;
let owner: ChainContext;
let market: Address;
let identity: Address;
let committee: Address;
let dir: string;
let db: DatabaseSync | undefined;
const agents = new Map<number, bigint>();
/** Every `MarketRecorded` log, in chain order. */
let recorded: { entry: RecordEntry; head: Hex }[] = [];
/** The markets, by role. */
const ids: Record<"resolved" | "invalid" | "disputed" | "current" | "later", bigint> = {
  resolved: 0n,
  invalid: 0n,
  disputed: 0n,
  current: 0n,
  later: 0n,
};
/** `recordHead()` right before `current` was requested. */
let headAtRequest: { count: number; head: Hex };

async function increaseTime(seconds: number): Promise<void> {
  await provider.request({ method: "evm_increaseTime", params: [seconds] });
  await provider.request({ method: "evm_mine", params: [] });
}
const now = async () => (await owner.publicClient.getBlock({ blockTag: "latest" })).timestamp;

async function agentOf(i: number): Promise<bigint> {
  let id = agents.get(i);
  if (id === undefined) {
    id = (await registerAgent(withKey(owner, hardhatKey(i)), identity, `data:application/json,{"name":"w${i}"}`))
      .agentId;
    agents.set(i, id);
  }
  return id;
}

/** A market seated by keys `keys` (in order), its deadline passed; requested unless `request` is false. */
async function frozenMarket(keys: number[]): Promise<bigint> {
  const { marketId } = await createMarket(
    owner,
    market,
    `Will record ${Math.random()} hold?`,
    (await now()) + 600n,
    POOL,
    {
      disputeWindow: WINDOW,
    },
  );
  for (const k of keys) await joinMarket(withKey(owner, hardhatKey(k)), market, marketId, await agentOf(k), STAKE);
  await increaseTime(601);
  await requestResolution(owner, market, marketId);
  return marketId;
}

async function propose(marketId: bigint, verdict: "yes" | "no" | "invalid", reports: WorkerReport[]): Promise<void> {
  const r = await createSettler(owner, market).propose({ marketId, verdict, reports, bundleHash: HASH });
  expect(r.status).toBe("proposed");
}

async function readRecorded(): Promise<{ entry: RecordEntry; head: Hex }[]> {
  const out: { entry: RecordEntry; head: Hex }[] = [];
  for await (const chunk of scanRecordLogs(owner, market, {})) for (const log of chunk.logs) out.push(entryOfLog(log));
  return out;
}

beforeAll(async () => {
  provider = (await network.create()).provider as unknown as Provider;
  owner = await connectProvider({ provider, privateKey: hardhatKey(0) });
  // The default deployment: a CommitteeArbiter whose one member (threshold 1) is the deployer.
  const deployment = await deployAll(owner, { network: "hardhat" });
  market = deployment.contracts.ResolutionMarket.address;
  identity = deployment.contracts.IdentityRegistry.address;
  const arbiter = deployment.contracts.CommitteeArbiter?.address;
  if (arbiter === undefined) throw new Error("the default deployment has no CommitteeArbiter");
  committee = arbiter;

  // Disputed first: NO proposed, disputed as YES, the committee rules YES (resolveDispute → Resolved, disputed).
  ids.disputed = await frozenMarket([1, 3]);
  await propose(ids.disputed, "no", [report("no", 9000), report("yes", 6000)]);
  await dispute(withKey(owner, hardhatKey(9)), market, ids.disputed, "yes");
  await sendContractTx(owner, {
    address: committee,
    abi: committeeArbiterAbi,
    functionName: "vote",
    args: [market, ids.disputed, 1],
    label: "CommitteeArbiter.vote",
  });
  // Then an Invalid and a Resolved market, finalized in the reverse of their creation order.
  ids.resolved = await frozenMarket([1, 2, 3]);
  await propose(ids.resolved, "yes", [report("yes", 8000), report("no", 7000), report("abstained", 0)]);
  ids.invalid = await frozenMarket([2, 3]);
  await propose(ids.invalid, "invalid", [report("failed", 0), report("failed", 0)]);
  await increaseTime(WINDOW + 1);
  await finalize(owner, market, ids.invalid);
  await finalize(owner, market, ids.resolved);
  // `current` is requested now (its cut-off: three entries); `later` is finalized after that.
  headAtRequest = await readRecordHead(owner, market);
  ids.current = await frozenMarket([1, 2, 3]);
  ids.later = await frozenMarket([2]);
  await propose(ids.later, "no", [report("no", 9900)]);
  await increaseTime(WINDOW + 1);
  await finalize(owner, market, ids.later);
  recorded = await readRecorded();
  dir = mkdtempSync(join(tmpdir(), "record-chain-"));
}, 300_000);

afterAll(() => {
  db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the real ResolutionMarket's record chain", () => {
  it("one MarketRecorded per finalized market, each entry as RECORDS §3 describes it", () => {
    expect(recorded.map((r) => r.entry.index)).toEqual([0, 1, 2, 3]);
    expect(recorded.map((r) => r.entry.marketId)).toEqual([ids.disputed, ids.invalid, ids.resolved, ids.later]);
    const [disputed, invalid, resolved, later] = recorded.map((r) => r.entry);
    const a = (k: number) => agents.get(k);
    expect(disputed).toMatchObject({ status: 3, outcome: true, disputed: true, value: POOL + 2n * STAKE });
    expect(disputed?.arbiter.toLowerCase()).toBe(committee.toLowerCase());
    expect(disputed?.seats).toEqual([
      { agentId: a(1), answer: 2, confidenceBps: 9000, signed: false },
      { agentId: a(3), answer: 3, confidenceBps: 6000, signed: false },
    ]);
    expect(invalid).toMatchObject({ status: 4, outcome: false, disputed: false, arbiter: zeroAddress });
    expect(invalid?.seats.map((s) => [s.agentId, s.answer])).toEqual([
      [a(2), 0],
      [a(3), 0],
    ]);
    expect(resolved).toMatchObject({ status: 3, outcome: true, disputed: false, value: POOL + 3n * STAKE });
    expect(resolved?.creator.toLowerCase()).toBe(owner.account?.address.toLowerCase());
    // Proposals are not signature-checked yet: every seat is attested.
    expect(resolved?.seats).toEqual([
      { agentId: a(1), answer: 3, confidenceBps: 8000, signed: false },
      { agentId: a(2), answer: 2, confidenceBps: 7000, signed: false },
      { agentId: a(3), answer: 1, confidenceBps: 0, signed: false },
    ]);
    expect(later).toMatchObject({ status: 3, outcome: false, disputed: false });
  });

  it("the TypeScript chain step reproduces every event's head and recordHead()", async () => {
    let head = ZERO_HEAD;
    for (const r of recorded) {
      head = chainStep(head, r.entry);
      expect(head).toBe(r.head);
    }
    const onChain = await readRecordHead(owner, market);
    expect(onChain).toEqual({ count: 4, head });
    expect(
      chainHead(
        ZERO_HEAD,
        recorded.map((r) => r.entry),
      ),
    ).toBe(onChain.head);
    // A changed field changes the head: the step covers the entry, not only its position.
    const first = recorded[0];
    if (first === undefined) throw new Error("no entry");
    expect(chainStep(ZERO_HEAD, { ...first.entry, disputed: false, arbiter: zeroAddress })).not.toBe(first.head);
    expect(chainStep(ZERO_HEAD, { ...first.entry, value: first.entry.value + 1n })).not.toBe(first.head);
  });

  it("a market's cut-off is the record at its request, not later", async () => {
    expect(headAtRequest).toEqual({ count: 3, head: recorded[2]?.head });
    expect(await readCutoff(owner, market, ids.current)).toEqual(headAtRequest);
    // `later` was requested after `current`, still with three entries; finalizing it moved only the live head.
    expect(await readCutoff(owner, market, ids.later)).toEqual(headAtRequest);
    expect((await readRecordHead(owner, market)).count).toBe(4);
    // The first market requested saw an empty record.
    expect(await readCutoff(owner, market, ids.disputed)).toEqual({ count: 0, head: ZERO_HEAD });
    expect(await readCutoff(owner, market, ids.resolved)).toEqual({ count: 1, head: recorded[0]?.head });
  });

  it("the daemon's SQLite index over this chain verifies against recordHead() and serves the cut-off window", async () => {
    db = new DatabaseSync(join(dir, "index.sqlite"));
    const index = new RecordIndex(db, { chainId: owner.chainId, market });
    const synced = await index.sync(owner);
    const onChain = await readRecordHead(owner, market);
    expect(synced).toMatchObject({ count: onChain.count, head: onChain.head, added: 4, dropped: 0 });
    // Same entries; the index stores addresses lower-case (the head hashes bytes, so case cannot change it).
    const lower = (e: RecordEntry) => ({ ...e, arbiter: e.arbiter.toLowerCase(), creator: e.creator.toLowerCase() });
    expect(index.entries(0, 4).map(lower)).toEqual(recorded.map((r) => lower(r.entry)));
    expect(index.headAt(3)).toBe(headAtRequest.head);
    expect(index.window(headAtRequest).map((e) => e.marketId)).toEqual([ids.disputed, ids.invalid, ids.resolved]);
    expect(() => index.window({ count: 3, head: recorded[3]?.head ?? ZERO_HEAD })).toThrow(
      /not the chain's cut-off head/,
    );
    // A second index file from the same chain reaches the same head (nothing in the file but the chain's data).
    const againDb = new DatabaseSync(join(dir, "again.sqlite"));
    try {
      const again = new RecordIndex(againDb, { chainId: owner.chainId, market });
      expect((await again.sync(owner)).head).toBe(onChain.head);
    } finally {
      againDb.close();
    }
  });

  it("the index's history and the chain ports' record (MarketRecorded logs, no index) give decideVerdict the same verdict and posterior", async () => {
    const ports = createChainPorts({ ctx: owner, marketAddress: market });
    const snapshot = await ports.market.readMarket(ids.current);
    const fromLogs = await ports.trackRecord.history(snapshot);
    const indexDb = new DatabaseSync(join(dir, "parity.sqlite"));
    const app = Fastify();
    const http = createSafeHttpClient({ allowLoopback: true });
    try {
      const recordIndex = new RecordIndex(indexDb, { chainId: owner.chainId, market });
      const fromIndex = await indexTrackRecord(recordIndex, owner, market).history(snapshot);
      // A daemon's served window (resolve --record-url), verified against the cut-off: the same history.
      mountTrackRecord(app, owner.chainId, new Map([[market.toLowerCase(), recordIndex]]));
      const base = await app.listen({ host: "127.0.0.1", port: 0 });
      const fromServed = await servedTrackRecord(http, base, { ctx: owner, market, fromBlock: 0n }).history(snapshot);
      expect(fromServed).toEqual(fromIndex);
      // The same markets in the same order (the three finalized before the request; `later` is not in either).
      const key = (id: bigint) => `${owner.chainId}:${market.toLowerCase()}:${id}`;
      expect(fromIndex.map((m) => m.key)).toEqual([key(ids.disputed), key(ids.invalid), key(ids.resolved)]);
      expect(fromLogs.map((m) => m.key)).toEqual(fromIndex.map((m) => m.key));
      const fromChain = await recordHistory(
        owner,
        market,
        await cutoffFor(owner, market, ids.current),
        snapshot.workers.map((w) => w.agentId),
      );
      expect(fromChain.map((m) => m.key)).toEqual(fromIndex.map((m) => m.key));
      const strip = (h: typeof fromIndex) =>
        h.map((m) => ({
          final: m.final,
          disputed: m.disputed,
          answers: m.answers.map((a) => [a.agentId, a.answer, a.confidenceBps]),
          arbiter: m.arbiter?.toLowerCase(),
          trustedRuling: m.trustedRuling === true,
        }));
      expect(strip(fromLogs)).toEqual(strip(fromIndex));
      // The committee is the deployment's default arbiter: its ruling is known truth on both paths (RECORDS §4).
      expect(fromIndex[0]).toMatchObject({ disputed: true, trustedRuling: true });

      const agentIds = snapshot.workers.map((w) => w.agentId);
      const reports = [report("yes", 8000), report("no", 7000), report("yes", 6000)];
      const viaLogs = decideVerdict({ agentIds, reports, history: fromLogs });
      const viaIndex = decideVerdict({ agentIds, reports, history: fromIndex });
      expect(viaIndex.verdict).toBe(viaLogs.verdict);
      expect(viaIndex.posterior).toBeCloseTo(viaLogs.posterior, 12);
      expect(viaIndex.logOdds).toBeCloseTo(viaLogs.logOdds, 12);
      expect(viaIndex.voters.map((v) => [v.agentId, v.history, v.accuracy])).toEqual(
        viaLogs.voters.map((v) => [v.agentId, v.history, v.accuracy]),
      );
      // The history is not ignored: without it the estimate differs.
      const blind = decideVerdict({ agentIds, reports, history: [] });
      expect(blind.voters.map((v) => v.history)).not.toEqual(viaIndex.voters.map((v) => v.history));
    } finally {
      await http.close();
      await app.close();
      indexDb.close();
    }
  });
  it("a ruling by an arbiter the deployment no longer allows is soft evidence on the index and on a served window", async () => {
    const governance = await owner.publicClient.readContract({
      address: market,
      abi: resolutionMarketAbi,
      functionName: "governance",
    });
    await sendContractTx(owner, {
      address: governance,
      abi: marketGovernanceAbi,
      functionName: "removeArbiter",
      args: [committee],
      label: "MarketGovernance.removeArbiter",
    });
    const snapshot = await createChainPorts({ ctx: owner, marketAddress: market }).market.readMarket(ids.current);
    const indexDb = new DatabaseSync(join(dir, "removed.sqlite"));
    const app = Fastify();
    const http = createSafeHttpClient({ allowLoopback: true });
    try {
      const recordIndex = new RecordIndex(indexDb, { chainId: owner.chainId, market });
      const fromIndex = await indexTrackRecord(recordIndex, owner, market).history(snapshot);
      mountTrackRecord(app, owner.chainId, new Map([[market.toLowerCase(), recordIndex]]));
      const base = await app.listen({ host: "127.0.0.1", port: 0 });
      const fromServed = await servedTrackRecord(http, base, { ctx: owner, market, fromBlock: 0n }).history(snapshot);
      for (const history of [fromIndex, fromServed]) {
        const ruled = history.find((m) => m.disputed);
        expect(ruled?.arbiter?.toLowerCase()).toBe(committee.toLowerCase());
        expect(ruled?.trustedRuling).toBe(false);
      }
      // An operator who still vouches for it (the index's configured arbiters) makes it truth again.
      const vouched = new RecordIndex(indexDb, { chainId: owner.chainId, market, trustedArbiters: [committee] });
      expect((await indexTrackRecord(vouched, owner, market).history(snapshot)).find((m) => m.disputed)).toMatchObject({
        trustedRuling: true,
      });
    } finally {
      await http.close();
      await app.close();
      indexDb.close();
    }
  });
  it("a contract without the record chain is refused by the chain ports and the index: no fallback to other logs", async () => {
    const snapshot = await createChainPorts({ ctx: owner, marketAddress: market }).market.readMarket(ids.current);
    // The identity registry answers neither getMarket nor recordHead().
    await expect(
      createChainPorts({ ctx: owner, marketAddress: identity }).trackRecord.history(snapshot),
    ).rejects.toMatchObject({
      name: "ChainError",
      message: expect.stringMatching(/ResolutionMarket\.(getMarket|recordHead)/),
    });
    const noRecordDb = new DatabaseSync(join(dir, "no-record.sqlite"));
    try {
      await expect(
        new RecordIndex(noRecordDb, { chainId: owner.chainId, market: identity }).sync(owner),
      ).rejects.toThrow(/ResolutionMarket\.recordHead/);
    } finally {
      noRecordDb.close();
    }
  });
});
