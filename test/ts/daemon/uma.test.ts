/**
 * The production daemon escalates a dispute of its proposal to UMA's real Optimistic Oracle V3 (`@uma/core`,
 * MockOracleAncillary standing in for the DVM) through the market's UmaArbiter: it counters the disputer's
 * assertion on OOv3 from its own account; the DVM rejects the claim; settlement calls the arbiter back, the
 * market is finalized with the proposed verdict and the daemon records it. Real chain over HTTP, real SQLite,
 * the real pipeline with three CRE reference agents. Needs `npx hardhat build`.
 */
import { parseEther, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startResolverDaemon, type ResolverDaemonHandle } from "../../../daemon/host.js";
import { createLogger } from "../../../daemon/index.js";
import { resolutionMarketAbi } from "../../../workflow/chain/abis.js";
import { connect, type ChainContext } from "../../../workflow/chain/clients.js";
import { sendContractTx } from "../../../workflow/chain/writer.js";
import { approveCurrency, deployUmaArbiter, deployUmaStack, getAssertion, mintCurrency, pushMockPrice, settleAssertion, type UmaStack } from "../../../workflow/chain/uma.js";
import { startAgent, stopAll } from "../agents/helpers.js";
import { getJson, waitFor } from "./helpers/chain.js";
import { tempDbPath } from "./helpers/daemon.js";
import { hardhatKey, startPanelChain, STAKE, type PanelChain } from "./helpers/panel.js";
import { STATUS } from "./helpers/job.js";

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
  // UMA's bond currency for both sides of the OOv3 dispute (the resolver's daemon pays its counter-bond).
  for (const who of [chain.accounts[10], chain.accounts[19]]) await mintCurrency(owner, uma, who, 1_000n * E18);
  daemon = await startResolverDaemon({
    rpcUrl: chain.rpcUrl,
    privateKey: chain.resolverKey,
    markets: [chain.market],
    dbPath: tempDbPath("uma"),
    apiPort: 0,
    confirmations: 0,
    pollIntervalMs: 50,
    watchIntervalMs: 50,
    backoffMs: 20,
    onDispute: "escalate",
    resolution: { vote: { thresholdBps: 5_000 } }, // fresh agents: see host.test.ts
    http: { allowLoopback: true },
    resolveTimeoutMs: 5_000,
    challengeTimeoutMs: 5_000,
    logger: createLogger({ level: process.env.DAEMON_TEST_LOG ?? "silent", pretty: false, destination: process.stderr }),
  });
}, 180_000);

afterAll(async () => {
  await daemon?.close();
  await stopAll();
  await chain?.close();
});

describe("a disputed proposal escalated to UMA OOv3", () => {
  it("the daemon counters the disputer's assertion; the DVM rejects the claim; the proposal stands and the job ends finalized", async () => {
    const workers = [];
    for (const [i, persona] of (["analyst", "analyst", "skeptic"] as const).entries()) {
      const agent = await startAgent({ protocol: "cresolver", persona });
      const w = await chain.registerAgent(i + 1);
      await w.setEndpoint(agent.url, "cresolver");
      workers.push(w);
    }
    // A market whose arbiter is the UmaArbiter (chosen at creation).
    const block = await chain.publicClient.getBlock();
    const params = { admission: 0, minCorrectness: 0, minSettled: 0, minStake: 0n, maxWorkers: 0, disputeWindow: 0, bond: 0n, arbiter, allowedAgents: [] };
    const created = await sendContractTx<bigint>(owner, { address: chain.market, abi: resolutionMarketAbi, functionName: "createMarketWith", args: ["Will the S&P 500 close above 7,000 on December 31, 2026?", block.timestamp + 3_600n, params], value: parseEther("1") });
    const id = created.result;
    for (const [i, w] of workers.entries()) {
      const ctx = await connect({ rpcUrl: chain.rpcUrl, privateKey: hardhatKey(i + 1) });
      await sendContractTx(ctx, { address: chain.market, abi: resolutionMarketAbi, functionName: "joinMarket", args: [id, w.agentId], value: STAKE });
    }
    await chain.requestResolution(id);

    const proposed = await waitFor(async () => {
      const v = await getJson(`${daemon.url}/markets/${id}`);
      return v.job?.state === "proposed" ? v : undefined;
    }, "the daemon to propose", 90_000);
    const verdict = proposed.job.verdict as "yes" | "no";
    expect(["yes", "no"]).toContain(verdict);
    const claimed = verdict === "yes" ? "no" : "yes";

    // The disputer: UMA's bond approved to the arbiter, the market bond in ETH.
    const umaBond = (await chain.publicClient.readContract({ address: arbiter, abi: [{ type: "function", name: "disputeBond", stateMutability: "view", inputs: [], outputs: [{ type: "uint256" }] }], functionName: "disputeBond" })) as bigint;
    await approveCurrency(disputer, uma, arbiter, umaBond);
    const { bond } = (await chain.publicClient.readContract({ address: chain.market, abi: resolutionMarketAbi, functionName: "getMarketConfig", args: [id] })) as { bond: bigint };
    await sendContractTx(disputer, { address: chain.market, abi: resolutionMarketAbi, functionName: "dispute", args: [id, VERDICTS.indexOf(claimed)], value: bond });

    // The daemon sees the dispute and counters the assertion on OOv3 (escalation to the DVM).
    const disputed = await waitFor(async () => {
      const v = await getJson(`${daemon.url}/markets/${id}`);
      return v.job?.dispute?.action === "escalated-uma" ? v : undefined;
    }, "the daemon to escalate", 60_000);
    expect(disputed.job.state).toBe("disputed");
    expect(disputed.job.dispute).toMatchObject({ disputer: chain.accounts[10].toLowerCase(), claimed });
    const assertionId = (await chain.publicClient.readContract({ address: arbiter, abi: [{ type: "function", name: "assertionIdOf", stateMutability: "view", inputs: [{ type: "address" }, { type: "uint256" }], outputs: [{ type: "bytes32" }] }], functionName: "assertionIdOf", args: [chain.market, id] })) as Hex;
    const assertion = await getAssertion(owner, uma, assertionId);
    expect(assertion.disputer.toLowerCase()).toBe(chain.accounts[19].toLowerCase());

    // UMA's DVM (mock) rejects the disputer's claim; anyone settles; the arbiter rules the proposed verdict.
    await pushMockPrice(owner, uma, assertionId, false);
    await settleAssertion(owner, uma, assertionId);
    const final = await waitFor(async () => {
      const v = await getJson(`${daemon.url}/markets/${id}`);
      return v.job?.state === "finalized" && v.job.feedback === "done" ? v : undefined;
    }, "the daemon to record the final state", 60_000);
    expect(final.job.finalStatus).toBe("resolved");
    const m = await chain.getMarket(id);
    expect(m.status).toBe(STATUS.Resolved);
    expect(m.outcome).toBe(verdict === "yes");
    // The proposer won the dispute: both market bonds are credited to the resolver.
    expect(await chain.pendingWithdrawal(chain.accounts[19])).toBeGreaterThanOrEqual(2n * bond);
  }, 180_000);
});
