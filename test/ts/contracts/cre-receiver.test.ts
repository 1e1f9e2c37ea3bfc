/**
 * The TypeScript side of a CRE settlement, against the real contracts on Hardhat's in-process chain:
 * metadata and report encoded with viem exactly as a CREsolver workflow would, delivered by the configured
 * forwarder account, settle the ResolutionMarket; bettors then claim. Needs `npx hardhat build`.
 */
import { network } from "hardhat";
import { describe, expect, it } from "vitest";
import {
  encodeAbiParameters,
  encodePacked,
  keccak256,
  parseAbiParameters,
  parseEther,
  toHex,
  type Address,
  type Hex,
} from "viem";

const REPORT_PARAMS = parseAbiParameters("uint256 marketId, address[] workers, uint256[] weights, uint8[] dimScores, bool resolution");
const WORKFLOW_ID = keccak256(toHex("cresolver-workflow-v1"));
const WORKFLOW_NAME: Hex = "0x63726573736f6c766572"; // bytes10, as it appears in CRE metadata
const STATUS_RESOLVED = 3;

describe("CREReceiver end to end (viem encoding)", () => {
  it("settles the market from a viem-encoded report and pays workers and bettors", async () => {
    const { viem } = await network.connect();
    const publicClient = await viem.getPublicClient();
    const testClient = await viem.getTestClient();
    const wallets = await viem.getWalletClients();
    const [owner, forwarder, w1, w2, w3, yesBettor, noBettor, stranger] = wallets;
    const workflowOwner = owner.account.address;

    const identity = await viem.deployContract("IdentityRegistry");
    const reputation = await viem.deployContract("ReputationRegistry", [identity.address]);
    const market = await viem.deployContract("ResolutionMarket", [identity.address, reputation.address, owner.account.address]);
    const receiver = await viem.deployContract("CREReceiver", [market.address, forwarder.account.address, owner.account.address]);
    const betting = await viem.deployContract("BettingMarket", [market.address]);

    const wait = async (hash: Hex) => {
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe("success");
      return receipt;
    };
    await wait(await market.write.addResolver([receiver.address]));
    await wait(await receiver.write.setWorkflowIdAllowed([WORKFLOW_ID, true]));
    await wait(await receiver.write.setExpectedWorkflowOwner([workflowOwner]));
    await wait(await receiver.write.setExpectedWorkflowName([WORKFLOW_NAME]));

    const now = (await publicClient.getBlock()).timestamp;
    const deadline = now + 3600n;
    await wait(await market.write.createMarket(["Will it rain?", deadline], { value: parseEther("3") }));
    const marketId = (await market.read.marketCount()) as bigint;

    const workers: Address[] = [];
    for (const w of [w1, w2, w3]) {
      const agentId = (await identity.read.register(["ipfs://agent"], { account: w.account })) as bigint;
      await wait(await identity.write.register(["ipfs://agent"], { account: w.account }));
      await wait(await market.write.joinMarket([marketId, agentId], { account: w.account, value: parseEther("0.01") }));
      workers.push(w.account.address);
    }
    await wait(await betting.write.bet([marketId, 1], { account: yesBettor.account, value: parseEther("1") }));
    await wait(await betting.write.bet([marketId, 0], { account: noBettor.account, value: parseEther("2") }));

    await testClient.setNextBlockTimestamp({ timestamp: deadline });
    await wait(await market.write.requestResolution([marketId]));

    const weights = [1n, 2n, 3n];
    const dimScores = [90, 80, 70, 60, 50, 40, 100, 0, 55];
    const report = encodeAbiParameters(REPORT_PARAMS, [marketId, workers, weights, dimScores, true]);
    // KeystoneForwarder passes workflowId | workflowName | workflowOwner | reportId (64 bytes).
    const metadata = encodePacked(["bytes32", "bytes10", "address", "bytes2"], [WORKFLOW_ID, WORKFLOW_NAME, workflowOwner, "0x0001"]);

    // The receiver decodes exactly what viem encoded.
    const decoded = (await receiver.read.decodeReport([report])) as readonly [bigint, Address[], bigint[], number[], boolean];
    expect(decoded[0]).toBe(marketId);
    expect(decoded[1].map((a) => a.toLowerCase())).toEqual(workers.map((a) => a.toLowerCase()));
    expect(decoded[2]).toEqual(weights);
    expect(decoded[3]).toEqual(dimScores);
    expect(decoded[4]).toBe(true);
    const [id, name, wfOwner] = (await receiver.read.decodeMetadata([metadata])) as readonly [Hex, Hex, Address];
    expect(id).toBe(WORKFLOW_ID);
    expect(name).toBe(WORKFLOW_NAME);
    expect(wfOwner.toLowerCase()).toBe(workflowOwner.toLowerCase());

    // Only the forwarder may deliver.
    await expect(receiver.write.onReport([metadata, report], { account: stranger.account })).rejects.toThrow(/UnauthorizedForwarder/);

    await wait(await receiver.write.onReport([metadata, report], { account: forwarder.account, gas: 9_000_000n }));

    const info = (await market.read.getMarket([marketId])) as { status: number; outcome: boolean; bundleHash: Hex };
    expect(info.status).toBe(STATUS_RESOLVED);
    expect(info.outcome).toBe(true);
    expect(info.bundleHash).toBe(keccak256(report));

    // Workers: 0.5 / 1 / 1.5 ether of the pool plus their 0.01 stake.
    const expected = [parseEther("0.51"), parseEther("1.01"), parseEther("1.51")];
    for (const [i, w] of workers.entries()) expect(await market.read.pendingWithdrawal([w])).toBe(expected[i]);

    // Bettors: YES takes the whole 3 ether betting pool.
    expect(await betting.read.claimable([marketId, yesBettor.account.address])).toBe(parseEther("3"));
    const before = await publicClient.getBalance({ address: yesBettor.account.address });
    const receipt = await wait(await betting.write.claim([marketId], { account: yesBettor.account }));
    const after = await publicClient.getBalance({ address: yesBettor.account.address });
    expect(after - before + receipt.gasUsed * receipt.effectiveGasPrice).toBe(parseEther("3"));
    await expect(betting.write.claim([marketId], { account: noBettor.account })).rejects.toThrow(/NothingToClaim/);
    expect(await publicClient.getBalance({ address: betting.address })).toBe(0n);
  });
});
