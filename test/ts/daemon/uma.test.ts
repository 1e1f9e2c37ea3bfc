/**
 * The production daemon escalates a dispute of its proposal to UMA's real Optimistic Oracle V3 (`@uma/contracts-node`,
 * MockOracleAncillary standing in for the DVM) through the market's UmaArbiter: it counters the disputer's
 * assertion on OOv3 from its own account; the DVM rules; settlement calls the arbiter back, the market is
 * finalized and the daemon records whether its proposal stood or was overturned. Without UMA's bond currency the
 * daemon sends nothing and says why, then escalates once funded. Real chain over HTTP, real SQLite,
 * the real pipeline with three CRE reference agents. Needs `npx hardhat build`.
 */
import { parseEther, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResolverDaemonHandle } from "../../../daemon/host.js";
import { marketGovernanceAbi, resolutionMarketAbi } from "../../../workflow/chain/abis.js";
import { connect, type ChainContext } from "../../../workflow/chain/clients.js";
import { sendContractTx } from "../../../workflow/chain/writer.js";
import {
  approveCurrency,
  currencyBalance,
  deployUmaArbiter,
  deployUmaStack,
  getAssertion,
  mintCurrency,
  pushMockPrice,
  settleAssertion,
  type UmaStack,
} from "../../../workflow/chain/uma.js";
import { startAgent, stopAll } from "../../helpers/agents.js";
import { getJson, waitFor } from "../../helpers/daemon/chain.js";
import { hardhatKey, startPanelChain, STAKE, type PanelChain } from "../../helpers/daemon/panel.js";
import { startProductionDaemon } from "./helpers/resolver-daemon.js";
import { STATUS } from "../../helpers/daemon/job.js";

const E18 = 10n ** 18n;
const VERDICTS = ["no", "yes", "invalid"] as const;

let chain: PanelChain;
let daemon: ResolverDaemonHandle;
let owner: ChainContext;
let disputer: ChainContext;
let uma: UmaStack;
let arbiter: Address;

beforeAll(async () => {
  chain = await startPanelChain();
  owner = await connect({ rpcUrl: chain.rpcUrl, privateKey: hardhatKey(0) });
  disputer = await connect({ rpcUrl: chain.rpcUrl, privateKey: hardhatKey(10) });
  uma = await deployUmaStack(owner, { finalFee: 50n * E18 });
  arbiter = (await deployUmaArbiter(owner, uma, { markets: [chain.market], liveness: 3_600 })).address;
  // A market may only name an arbiter on the deployment's allow-list (no market yet: the owner's queueing applies at once).
  await sendContractTx(owner, {
    address: await owner.publicClient.readContract({
      address: chain.market,
      abi: resolutionMarketAbi,
      functionName: "governance",
    }),
    abi: marketGovernanceAbi,
    functionName: "queueArbiter",
    args: [arbiter],
    label: "MarketGovernance.queueArbiter",
  });
  // UMA's bond currency for both sides of the OOv3 dispute (the resolver's daemon pays its counter-bond).
  for (const who of [chain.accounts[10], chain.accounts[19]]) await mintCurrency(owner, uma, who, 1_000n * E18);
  daemon = await startProductionDaemon(chain, "uma", {
    watchIntervalMs: 50,
    backoffMs: 20,
    onDispute: "escalate",
    // The UmaArbiter is not the deployment's default arbiter: the resolver vouches for it (workflow/settle/guard.ts).
    settlerGuard: { trustedArbiters: [arbiter] },
    resolution: { vote: { thresholdBps: 5_000 } }, // fresh agents: see host.test.ts
    resolveTimeoutMs: 5_000,
    challengeTimeoutMs: 5_000,
  });
}, 180_000);

afterAll(async () => {
  await daemon?.close();
  await stopAll();
  await chain?.close();
});

const arbiterViews = [
  { type: "function", name: "disputeBond", stateMutability: "view", inputs: [], outputs: [{ type: "uint256" }] },
  {
    type: "function",
    name: "assertionIdOf",
    stateMutability: "view",
    inputs: [{ type: "address" }, { type: "uint256" }],
    outputs: [{ type: "bytes32" }],
  },
] as const;
const transferAbi = [
  {
    type: "function",
    name: "transfer",
    stateMutability: "nonpayable",
    inputs: [{ type: "address" }, { type: "uint256" }],
    outputs: [{ type: "bool" }],
  },
] as const;
let nextOwner = 1;

const jobView = (id: bigint) => getJson(`${daemon.url}/markets/${id}`);

/** A market of three CRE agents whose arbiter is the UmaArbiter, requested; resolves once the daemon proposed. */
async function proposedUmaMarket(question: string): Promise<{ id: bigint; verdict: "yes" | "no" }> {
  const workers = [];
  for (const persona of ["analyst", "analyst", "skeptic"] as const) {
    const agent = await startAgent({ protocol: "cresolver", persona });
    const w = await chain.registerAgent(nextOwner++);
    await w.setEndpoint(agent.url, "cresolver");
    workers.push(w);
  }
  const block = await chain.publicClient.getBlock();
  const params = {
    admission: 0,
    minCorrectness: 0,
    minSettled: 0,
    minStake: 0n,
    maxWorkers: 0,
    disputeWindow: 0,
    bond: 0n,
    arbiter,
    allowedAgents: [],
  };
  const created = await sendContractTx(owner, {
    address: chain.market,
    abi: resolutionMarketAbi,
    functionName: "createMarketWith",
    args: [question, block.timestamp + 3_600n, params],
    value: parseEther("1"),
  });
  const id = created.result;
  for (const w of workers) {
    const ctx = await connect({ rpcUrl: chain.rpcUrl, privateKey: hardhatKey(chain.accounts.indexOf(w.address)) });
    await sendContractTx(ctx, {
      address: chain.market,
      abi: resolutionMarketAbi,
      functionName: "joinMarket",
      args: [id, w.agentId],
      value: STAKE,
    });
  }
  await chain.requestResolution(id);
  const proposed = await waitFor(
    async () => {
      const v = await jobView(id);
      return v.job?.state === "proposed" ? v : undefined;
    },
    "the daemon to propose",
    90_000,
  );
  const verdict = proposed.job.verdict as "yes" | "no";
  expect(["yes", "no"]).toContain(verdict);
  return { id, verdict };
}

/** The disputer approves UMA's bond to the arbiter and disputes with the market bond; returns the OOv3 assertion. */
async function disputeAs(id: bigint, claimed: "yes" | "no"): Promise<{ assertionId: Hex; bond: bigint }> {
  const umaBond = (await chain.publicClient.readContract({
    address: arbiter,
    abi: arbiterViews,
    functionName: "disputeBond",
  })) as bigint;
  await approveCurrency(disputer, uma, arbiter, umaBond);
  const bond = await chain.publicClient.readContract({
    address: await chain.publicClient.readContract({
      address: chain.market,
      abi: resolutionMarketAbi,
      functionName: "governance",
    }),
    abi: marketGovernanceAbi,
    functionName: "disputeBond",
    args: [id],
  });
  await sendContractTx(disputer, {
    address: chain.market,
    abi: resolutionMarketAbi,
    functionName: "dispute",
    args: [id, VERDICTS.indexOf(claimed)],
    value: bond,
  });
  const assertionId = (await chain.publicClient.readContract({
    address: arbiter,
    abi: arbiterViews,
    functionName: "assertionIdOf",
    args: [chain.market, id],
  })) as Hex;
  return { assertionId, bond };
}

describe("a disputed proposal escalated to UMA OOv3", () => {
  it("the daemon counters the disputer's assertion; the DVM rejects the claim; the proposal stands and the job ends finalized", async () => {
    const { id, verdict } = await proposedUmaMarket("Will the S&P 500 close above 7,000 on December 31, 2026?");
    const claimed = verdict === "yes" ? "no" : "yes";
    const { assertionId, bond } = await disputeAs(id, claimed);

    // The daemon sees the dispute and counters the assertion on OOv3 (escalation to the DVM).
    const disputed = await waitFor(
      async () => {
        const v = await jobView(id);
        return v.job?.dispute?.action === "escalated-uma" ? v : undefined;
      },
      "the daemon to escalate",
      60_000,
    );
    expect(disputed.job.state).toBe("disputed");
    expect(disputed.job.dispute).toMatchObject({ disputer: chain.accounts[10].toLowerCase(), claimed });
    const assertion = await getAssertion(owner, uma, assertionId);
    expect(assertion.disputer.toLowerCase()).toBe(chain.accounts[19].toLowerCase());

    // UMA's DVM (mock) rejects the disputer's claim; anyone settles; the arbiter rules the proposed verdict.
    await pushMockPrice(owner, uma, assertionId, false);
    await settleAssertion(owner, uma, assertionId);
    const final = await waitFor(
      async () => {
        const v = await jobView(id);
        return v.job?.state === "finalized" && v.job.feedback === "done" ? v : undefined;
      },
      "the daemon to record the final state",
      60_000,
    );
    expect(final.job).toMatchObject({ finalStatus: "resolved", finalVerdict: verdict, overturned: false });
    const m = await chain.getMarket(id);
    expect(m.status).toBe(STATUS.Resolved);
    expect(m.outcome).toBe(verdict === "yes");
    // The proposer won the dispute: both market bonds (its own and the larger dispute bond) go to the resolver.
    expect(await chain.pendingWithdrawal(chain.accounts[19])).toBeGreaterThan(bond);
  }, 180_000);

  it("without UMA's bond currency the daemon sends nothing and says why, escalates once funded; the DVM backs the claim: overturned", async () => {
    // The resolver's currency goes away.
    const resolverCtx = await connect({ rpcUrl: chain.rpcUrl, privateKey: chain.resolverKey });
    const held = await currencyBalance(owner, uma, chain.accounts[19]);
    if (held > 0n)
      await sendContractTx(resolverCtx, {
        address: uma.currency,
        abi: transferAbi,
        functionName: "transfer",
        args: [chain.accounts[0], held],
      });
    const { id, verdict } = await proposedUmaMarket("Will the resolver have UMA's bond when disputed?");
    const claimed = verdict === "yes" ? "no" : "yes";
    const nonceBefore = await chain.publicClient.getTransactionCount({ address: chain.accounts[19] });
    const { assertionId } = await disputeAs(id, claimed);

    const stuck = await waitFor(
      async () => {
        const v = await jobView(id);
        return v.job?.state === "disputed" && /needs \d+ of currency .* holds 0/.test(v.job.lastError ?? "")
          ? v
          : undefined;
      },
      "the daemon to report the missing currency",
      60_000,
    );
    expect(stuck.job.dispute.action).toBeNull();
    expect(await chain.publicClient.getTransactionCount({ address: chain.accounts[19] })).toBe(nonceBefore); // nothing sent

    await mintCurrency(owner, uma, chain.accounts[19], 1_000n * E18);
    await waitFor(
      async () => (await jobView(id)).job?.dispute?.action === "escalated-uma",
      "the daemon to escalate once funded",
      60_000,
    );
    await pushMockPrice(owner, uma, assertionId, true); // the DVM backs the disputer
    await settleAssertion(owner, uma, assertionId);
    const final = await waitFor(
      async () => {
        const v = await jobView(id);
        return v.job?.state === "finalized" ? v : undefined;
      },
      "the daemon to record the overturn",
      60_000,
    );
    expect(final.job).toMatchObject({ finalVerdict: claimed, overturned: true });
  }, 180_000);
});
