/**
 * End-to-end on Hardhat's in-process chain with our ERC-8004 registries and the v2 market: a 100-seat market is
 * proposed, finalized after its dispute window and its feedback published, every transaction below 10M gas (far
 * under EIP-7825's 2^24), both ERC-8004 records of every answered seat written, the balance equal to what is owed.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { network } from "hardhat";
import { getAddress, keccak256, parseEther, toHex, zeroAddress, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { signedReports } from "../../helpers/signed-seats.js";

const STAKE = parseEther("0.01");
const POOL = parseEther("1");
const URI = "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/bundle.json";
const WINDOW = 600;
const YES = 3;
const NO = 2;

describe("ResolutionMarket (viem, in-process chain)", () => {
  let viem: Awaited<ReturnType<typeof network.create>>["viem"];
  let publicClient: Awaited<ReturnType<typeof viem.getPublicClient>>;
  let testClient: Awaited<ReturnType<typeof viem.getTestClient>>;
  let identity: Awaited<ReturnType<typeof viem.deployContract<"IdentityRegistry">>>;
  let reputation: Awaited<ReturnType<typeof viem.deployContract<"ReputationRegistry">>>;
  let market: Awaited<ReturnType<typeof viem.deployContract<"ResolutionMarket">>>;
  let governance: Awaited<ReturnType<typeof viem.getContractAt<"MarketGovernance">>>;
  /** The market's MarketReputation: the ERC-8004 client of its records. */
  let client: Address;
  let creator: Address;
  let resolver: Address;
  let bond: bigint;
  let nextWorker = 0;

  beforeAll(async () => {
    ({ viem } = await network.create());
    publicClient = await viem.getPublicClient();
    testClient = await viem.getTestClient();
    const [deployer, c, r] = await viem.getWalletClients();
    creator = c.account.address;
    resolver = r.account.address;
    identity = await viem.deployContract("IdentityRegistry", []);
    reputation = await viem.deployContract("ReputationRegistry", [identity.address]);
    market = await viem.deployContract("ResolutionMarket", [
      identity.address,
      reputation.address,
      deployer.account.address,
    ]);
    const arbiter = await viem.deployContract("CommitteeArbiter", [[deployer.account.address], 1n, [market.address]]);
    // Before the first market exists, queued resolvers and the default arbiter are active at once.
    governance = await viem.getContractAt("MarketGovernance", (await market.read.governance()) as Address);
    client = (await market.read.reputation()) as Address;
    await governance.write.queueResolver([resolver]);
    await governance.write.queueDefaultArbiter([arbiter.address]);
    bond = ((await governance.read.getDefaults()) as { bond: bigint }).bond;
  });

  async function freshWorkers(n: number) {
    const out: { address: Address; agentId: bigint; key: Hex }[] = [];
    for (let i = 0; i < n; i++) {
      const key = toHex(0xd0000 + nextWorker++, { size: 32 });
      const address = getAddress(privateKeyToAccount(key).address);
      await testClient.setBalance({ address, value: parseEther("10") });
      await testClient.impersonateAccount({ address });
      const receipt = await publicClient.waitForTransactionReceipt({
        hash: await identity.write.register(["ipfs://agent"], { account: address }),
      });
      const transfer = receipt.logs.find((l) => l.topics.length === 4);
      out.push({ address, agentId: BigInt(transfer!.topics[3]!), key });
    }
    return out;
  }

  /** Each worker signs its own answer (its key owns the agent): signed seats are the ones recorded on ERC-8004. */
  async function signed(
    marketId: bigint,
    workers: { agentId: bigint; key: Hex }[],
    reports: { answer: number; confidenceBps: number; resQuality: number; srcQuality: number; analysisDepth: number }[],
  ) {
    return signedReports(
      { chainId: await publicClient.getChainId(), market: market.address, marketId },
      workers,
      reports,
    );
  }

  async function openAndRequest(workers: { address: Address; agentId: bigint }[]) {
    const deadline = (await publicClient.getBlock()).timestamp + 600n;
    const params = {
      admission: 0,
      minCorrectness: 0,
      minSettled: 0,
      minStake: 0n,
      maxWorkers: 100,
      disputeWindow: WINDOW,
      bond: 0n,
      arbiter: zeroAddress,
      allowedAgents: [],
    } as const;
    await market.write.createMarketWith(["Will the e2e test pass?", deadline, params], {
      account: creator,
      value: POOL,
    });
    const marketId = (await market.read.marketCount()) as bigint;
    for (const w of workers) {
      await market.write.joinMarket([marketId, w.agentId], { account: w.address, value: STAKE });
    }
    await testClient.increaseTime({ seconds: 601 });
    await testClient.mine({ blocks: 1 });
    const receipt = await publicClient.waitForTransactionReceipt({
      hash: await market.write.requestResolution([marketId]),
    });
    expect(receipt.status).toBe("success");
    return marketId;
  }

  async function pastWindow() {
    await testClient.increaseTime({ seconds: WINDOW + 1 });
    await testClient.mine({ blocks: 1 });
  }

  async function pending(marketId: bigint) {
    const writer = await viem.getContractAt("MarketReputation", client);
    const [, p] = (await writer.read.feedbackStatus([marketId])) as readonly [bigint, bigint];
    return p;
  }

  it("proposes, finalizes and publishes a 100-seat market with every transaction below 10M gas", async () => {
    const workers = await freshWorkers(100);
    const marketId = await openAndRequest(workers);
    const [frozen] = (await market.read.getWorkers([marketId])) as readonly [Address[], bigint[], bigint[]];
    expect(frozen).toEqual(workers.map((w) => w.address));

    const reports = await signed(
      marketId,
      workers,
      workers.map((_, i) => ({
        answer: i % 4 === 0 ? NO : YES,
        confidenceBps: 5_000 + ((i * 97) % 5_001),
        resQuality: i % 101,
        srcQuality: (i * 3) % 101,
        analysisDepth: (i * 7) % 101,
      })),
    );
    const propose = await publicClient.waitForTransactionReceipt({
      hash: await market.write.proposeResolution([marketId, 1, reports, keccak256(toHex("bundle")), URI], {
        account: resolver,
        value: bond,
        gas: 10_000_000n,
      }),
    });
    expect(propose.status).toBe("success");
    expect(propose.gasUsed < 10_000_000n).toBe(true);

    await pastWindow();
    const finalize = await publicClient.waitForTransactionReceipt({
      hash: await market.write.finalize([marketId], { gas: 10_000_000n }),
    });
    expect(finalize.status).toBe("success");
    expect(finalize.gasUsed < 10_000_000n).toBe(true);

    let rounds = 0;
    while ((await pending(marketId)) > 0n) {
      const receipt = await publicClient.waitForTransactionReceipt({
        hash: await (await viem.getContractAt("MarketReputation", client)).write.publishFeedback([marketId, 40n], {
          gas: 10_000_000n,
        }),
      });
      expect(receipt.status).toBe("success");
      expect(receipt.gasUsed < 10_000_000n).toBe(true);
      expect(++rounds).toBeLessThan(10);
    }

    // Every answered seat: a "correctness" and a "quality" record from the market.
    for (const w of workers) {
      expect(await reputation.read.getLastIndex([w.agentId, client])).toBe(2n);
    }
    const info = (await market.read.getMarket([marketId])) as { status: number; outcome: boolean };
    expect(info.status).toBe(3); // Resolved
    expect(info.outcome).toBe(true);
    let owed =
      ((await market.read.pendingWithdrawal([creator])) as bigint) +
      ((await market.read.pendingWithdrawal([resolver])) as bigint);
    for (const w of workers) owed += (await market.read.pendingWithdrawal([w.address])) as bigint;
    expect(owed).toBe(POOL + 100n * STAKE + bond);
    expect(await publicClient.getBalance({ address: market.address })).toBe(owed);
  });

  it("finalizes with an estimated gas limit: whatever feedback is deferred is published afterwards", async () => {
    const workers = await freshWorkers(3);
    const marketId = await openAndRequest(workers);
    const reports = await signed(marketId, workers, [
      { answer: NO, confidenceBps: 9_000, resQuality: 90, srcQuality: 80, analysisDepth: 70 },
      { answer: NO, confidenceBps: 6_000, resQuality: 60, srcQuality: 50, analysisDepth: 40 },
      { answer: YES, confidenceBps: 8_000, resQuality: 30, srcQuality: 20, analysisDepth: 10 },
    ]);
    await market.write.proposeResolution([marketId, 0, reports, keccak256("0x01"), URI], {
      account: resolver,
      value: bond,
    });
    await pastWindow();
    const settle = await publicClient.waitForTransactionReceipt({ hash: await market.write.finalize([marketId]) });
    expect(settle.status).toBe("success");
    // eth_estimateGas finds the smallest limit that succeeds, one that may defer feedback records; the
    // permissionless publishFeedback writes them later, and nothing is lost.
    while ((await pending(marketId)) > 0n) {
      await (await viem.getContractAt("MarketReputation", client)).write.publishFeedback([marketId, 10n], {
        gas: 5_000_000n,
      });
    }
    for (const w of workers) {
      expect(await reputation.read.getLastIndex([w.agentId, client])).toBe(2n);
    }
    const info = (await market.read.getMarket([marketId])) as { status: number; outcome: boolean };
    expect(info.status).toBe(3); // Resolved
    expect(info.outcome).toBe(false);
  });
});
