/**
 * Admission that costs what it protects (docs/RECORDS.md §5): the REAL MarketReputation's counters by value bucket
 * and `workflow/core/admission.ts` agree, Hardhat in-process. Markets created by an agent's owner, worth little
 * per seat, seated by one owner's agents (undisputed, and ruled by the allowed committee) are finalized and then
 * counted by anyone's `countAdmission` (once: a second count is refused); for every
 * agent and floor the contract's `admissionRecord` equals the TypeScript mirror over the `MarketRecorded` entries,
 * a TrackRecord-gated market's `admits` equals the mirror and `isAdmitted`, and the vote's "proven" history
 * (`decideVerdict` with the same admission) counts exactly the markets the contract counts. Needs `npx hardhat build`.
 */
import { network } from "hardhat";
import { type Address, type Hex, parseEther } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { committeeArbiterAbi, identityRegistryAbi } from "../../../workflow/chain/abis.js";
import { createMarket, joinMarket, registerAgent, requestResolution } from "../../../workflow/chain/actions.js";
import { type ChainContext, connectProvider, withKey } from "../../../workflow/chain/clients.js";
import { deployAll } from "../../../workflow/chain/deploy.js";
import { countAdmission, dispute, finalize } from "../../../workflow/chain/lifecycle.js";
import { isAdmitted, readWriter } from "../../../workflow/chain/market-reads.js";
import { entryOfLog, scanRecordLogs } from "../../../workflow/chain/record.js";
import { sendContractTx } from "../../../workflow/chain/writer.js";
import {
  type AgentControllers,
  admissionFloor,
  admissionRecord,
  admits,
  floorBucket,
  meetsFloor,
  valueBucket,
} from "../../../workflow/core/admission.js";
import { toHistoryMarket } from "../../../workflow/core/track-record.js";
import type { HistoryMarket, WorkerReport } from "../../../workflow/core/types.js";
import { decideVerdict } from "../../../workflow/core/vote.js";
import { createSettler } from "../../../workflow/settle/index.js";
import { hardhatKey } from "../cli/helpers/keys.js";
import { signedReports } from "../../helpers/signed-seats.js";

type Provider = { request(args: { method: string; params?: unknown[] }): Promise<unknown> };

const WINDOW = 600;
const STAKE = parseEther("0.01");
const HASH = `0x${"cd".repeat(32)}` as Hex;
const yes = (confidenceBps = 9000): WorkerReport => ({
  answer: "yes",
  confidenceBps,
  resQuality: 50,
  srcQuality: 50,
  analysisDepth: 50,
});
const no = (confidenceBps = 9000): WorkerReport => ({ ...yes(confidenceBps), answer: "no" });

let provider: Provider;
let owner: ChainContext;
let market: Address;
let committee: Address;
const history: HistoryMarket[] = [];
/** Agents by name, their joining key, and their controllers as the mirror sees them. */
const agents = new Map<string, { id: bigint; key: number; ownerKey: number }>();
const controllers = new Map<bigint, AgentControllers>();
const addressOf = (key: number): Address => {
  const a = withKey(owner, hardhatKey(key)).account?.address;
  if (a === undefined) throw new Error(`no account for key ${key}`);
  return a;
};
const agent = (name: string) => {
  const a = agents.get(name);
  if (a === undefined) throw new Error(`unknown agent ${name}`);
  return a;
};
let gated = 0n;
const GATE = { minSettled: 2, minCorrectness: 50 };
const GATED_POOL = parseEther("1");

async function increaseTime(seconds: number): Promise<void> {
  await provider.request({ method: "evm_increaseTime", params: [seconds] });
  await provider.request({ method: "evm_mine", params: [] });
}
const now = async () => (await owner.publicClient.getBlock({ blockTag: "latest" })).timestamp;

/** A market created by `creatorKey` with `pool`, seated by `names`, proposed `verdict` with `reports`. */
async function proposed(
  creatorKey: number,
  pool: bigint,
  names: string[],
  verdict: "yes" | "no",
  reports: WorkerReport[],
): Promise<bigint> {
  const { marketId } = await createMarket(
    withKey(owner, hardhatKey(creatorKey)),
    market,
    `Admission ${Math.random()}?`,
    (await now()) + 600n,
    pool,
    { disputeWindow: WINDOW },
  );
  for (const n of names) {
    const a = agent(n);
    await joinMarket(withKey(owner, hardhatKey(a.key)), market, marketId, a.id, STAKE);
  }
  await increaseTime(601);
  await requestResolution(owner, market, marketId);
  // Each seat signed by its agent's owner: only signed seats are counted (docs/RECORDS.md §2, §5).
  const signed = await signedReports(
    { chainId: await owner.publicClient.getChainId(), market, marketId },
    reports.map((_, i) => {
      const a = agent(names[i] ?? "");
      return { agentId: a.id, key: hardhatKey(a.ownerKey) };
    }),
    reports,
  );
  const r = await createSettler(owner, market).propose({ marketId, verdict, reports: signed, bundleHash: HASH });
  expect(r.status).toBe("proposed");
  return marketId;
}

async function settled(...args: Parameters<typeof proposed>): Promise<bigint> {
  const id = await proposed(...args);
  await increaseTime(WINDOW + 1);
  await finalize(owner, market, id);
  await countAdmission(withKey(owner, hardhatKey(8)), market, id); // anyone counts it (finalization does not)
  return id;
}

beforeAll(async () => {
  provider = (await network.create()).provider as unknown as Provider;
  owner = await connectProvider({ provider, privateKey: hardhatKey(0) });
  const deployment = await deployAll(owner, { network: "hardhat" });
  market = deployment.contracts.ResolutionMarket.address;
  const identity = deployment.contracts.IdentityRegistry.address;
  const arbiter = deployment.contracts.CommitteeArbiter?.address;
  if (arbiter === undefined) throw new Error("the default deployment has no CommitteeArbiter");
  committee = arbiter;
  const register = async (name: string, ownerKey: number, joinKey = ownerKey) => {
    const { agentId } = await registerAgent(withKey(owner, hardhatKey(ownerKey)), identity, `data:,${name}`);
    agents.set(name, { id: agentId, key: joinKey, ownerKey });
    controllers.set(agentId, {
      owner: addressOf(ownerKey),
      ...(joinKey !== ownerKey ? { others: [addressOf(joinKey)] } : {}),
    });
    if (joinKey !== ownerKey)
      await sendContractTx(withKey(owner, hardhatKey(ownerKey)), {
        address: identity,
        abi: identityRegistryAbi,
        functionName: "approve",
        args: [addressOf(joinKey), agentId],
        label: "IdentityRegistry.approve",
      });
  };
  for (const k of [1, 2, 3, 4]) await register(`a${k}`, k);
  await register("b1", 5);
  await register("b2", 5, 6); // same owner, joins from an approved operator

  const ETH = parseEther("1");
  await settled(0, ETH, ["a1", "a2", "a3"], "yes", [yes(), no(7000), yes(8000)]); // (1 + 0.03) / 3 a seat
  await settled(1, ETH, ["a1", "a2"], "yes", [yes(), yes()]); // created by a1's owner
  await settled(0, parseEther("0.001"), ["a1", "a2", "a3", "a4"], "yes", [yes(9500), yes(9500), yes(), no()]);
  await settled(0, ETH, ["b1", "b2"], "yes", [yes(), yes()]); // one owner: no independent seat
  const ruled = await proposed(0, ETH, ["b1", "b2"], "no", [yes(), yes()]);
  await dispute(withKey(owner, hardhatKey(9)), market, ruled, "yes");
  await sendContractTx(owner, {
    address: committee,
    abi: committeeArbiterAbi,
    functionName: "vote",
    args: [market, ruled, 1],
    label: "CommitteeArbiter.vote",
  });
  const counted = await countAdmission(owner, market, ruled);
  expect(counted.counted.map((c) => c.agentId)).toEqual([agent("b1").id, agent("b2").id]);
  await expect(countAdmission(owner, market, ruled)).rejects.toThrow(/already counted for admission/);
  await settled(2, ETH, ["a2", "a4", "b1"], "no", [no(), no(6000), yes()]); // created by a2's owner

  gated = (
    await createMarket(owner, market, "Gated?", (await now()) + 3600n, GATED_POOL, {
      admission: "track-record",
      minSettled: GATE.minSettled,
      minCorrectness: GATE.minCorrectness,
      maxWorkers: 4,
      minStake: STAKE,
    })
  ).marketId;

  for await (const chunk of scanRecordLogs(owner, market, {}))
    for (const log of chunk.logs)
      history.push(
        toHistoryMarket(entryOfLog(log).entry, { chainId: owner.chainId, market, trustedArbiters: [committee] }),
      );
}, 300_000);

describe("admission counters: MarketReputation and workflow/core/admission.ts agree", () => {
  it("the bucket rule: a market meets a floor when floor(log2(value per seat)) ≥ ceil(log2(floor))", () => {
    expect(valueBucket(0n)).toBe(-1);
    expect(valueBucket(1n)).toBe(0);
    expect(valueBucket(2n ** 64n - 1n)).toBe(63);
    expect(valueBucket(2n ** 64n)).toBe(64);
    expect(floorBucket(0n)).toBe(0);
    expect(floorBucket(2n ** 64n)).toBe(64);
    expect(floorBucket(2n ** 64n + 1n)).toBe(65);
    expect(meetsFloor(10n * 2n ** 64n, 10, 2n ** 63n + 1n)).toBe(true);
    expect(meetsFloor(10n * (2n ** 64n - 1n), 10, 2n ** 63n + 1n)).toBe(false);
    expect(meetsFloor(5n, 0, 0n)).toBe(false);
    expect(history).toHaveLength(6);
  });

  it("admissionRecord: the contract's counters equal the mirror over the record entries, at every floor", async () => {
    const floors = ["0", "0.005", "0.01", "0.25", "0.3", "1"].map((x) => parseEther(x));
    let nonZero = 0;
    for (const [name, a] of agents)
      for (const floor of floors) {
        const [settledOnChain, correctness] = await readWriter(owner, market, "admissionRecord", [a.id, floor]);
        const mirror = admissionRecord(history, a.id, floor, controllers);
        expect({ name, floor, settled: mirror.settled, correctness: mirror.correctness }).toEqual({
          name,
          floor,
          settled: Number(settledOnChain),
          correctness: Number(correctness),
        });
        if (mirror.settled > 0) nonZero += 1;
      }
    expect(nonZero).toBeGreaterThan(10); // the comparison is not all zeros
    // Spot checks of the rule itself at floor 0: a1 loses the market its owner created, b1 and b2 only count the
    // ruling and the mixed panel, a4 the cheap market and the mixed one.
    const at0 = (n: string) => admissionRecord(history, agent(n).id, 0n, controllers).settled;
    expect([at0("a1"), at0("a2"), at0("a3"), at0("a4"), at0("b1"), at0("b2")]).toEqual([2, 3, 2, 2, 2, 1]);
  });

  it("a TrackRecord-gated market: admits, the mirror and isAdmitted agree, and the floors match", async () => {
    const floor = await readWriter(owner, market, "admissionFloor", [gated]);
    expect(floor).toBe(admissionFloor(GATED_POOL, 4, STAKE));
    const verdicts: boolean[] = [];
    for (const [, a] of agents) {
      const onChain = await readWriter(owner, market, "admits", [gated, a.id]);
      expect(onChain).toBe(admits(history, a.id, { ...GATE, floor }, controllers));
      expect(await isAdmitted(owner, market, gated, a.id)).toBe(onChain);
      verdicts.push(onChain);
    }
    expect(verdicts).toContain(true);
    expect(verdicts).toContain(false);
  });

  it("the vote's proven history counts exactly the markets the contract counts at the same floor", async () => {
    const ids = [...agents.values()].map((a) => a.id);
    for (const floor of [0n, parseEther("0.01"), parseEther("0.3")]) {
      const d = decideVerdict({
        agentIds: ids,
        reports: ids.map(() => yes()),
        history,
        admission: { minValue: floor, controllers },
      });
      for (const v of d.voters) {
        const [onChain] = await readWriter(owner, market, "admissionRecord", [v.agentId, floor]);
        expect({ agent: v.agentId, floor, history: v.history }).toEqual({
          agent: v.agentId,
          floor,
          history: Number(onChain),
        });
      }
    }
  });
});
