/**
 * The TypeScript side of a CRE proposal, against the real contracts on Hardhat's in-process chain: metadata
 * and report encoded with the one encoder (workflow/chain/cre-report.ts) exactly as a CREsolver workflow would,
 * delivered by the configured forwarder account; the receiver proposes with the bond from its float; after the
 * dispute window anyone finalizes; the returned bond is pulled back into the float; bettors claim. Reports
 * for another chain or another market contract are refused. Needs `npx hardhat build`.
 */
import { network } from "hardhat";
import { describe, expect, it } from "vitest";
import {
  getAddress,
  getContract,
  keccak256,
  parseEther,
  toHex,
  zeroHash,
  type Abi,
  type Address,
  type Hex,
} from "viem";
import {
  bettingMarketAbi,
  creReceiverAbi,
  identityRegistryAbi,
  resolutionMarketAbi,
  marketGovernanceAbi,
} from "../../../workflow/chain/abis.js";
import {
  ANSWER,
  VERDICT,
  decodeCreReport,
  encodeCreMetadata,
  encodeCreReport,
  type CreReport,
} from "../../../workflow/chain/cre-report.js";

const WORKFLOW_ID = keccak256(toHex("cresolver-workflow-v1"));
const WORKFLOW_NAME: Hex = "0x63726573736f6c766572"; // bytes10, as it appears in CRE metadata
const STATUS = { proposed: 6, resolved: 3 } as const;
const BUNDLE_HASH = keccak256(toHex("bundle"));
const BUNDLE_URI = "https://resolver.example/bundles/1.json";

describe("CREReceiver end to end (viem encoding)", () => {
  it("proposes from a report, finalizes after the window, pays workers and bettors, and refuses other chains and markets", async () => {
    const { viem } = await network.create();
    const publicClient = await viem.getPublicClient();
    const testClient = await viem.getTestClient();
    const [owner, forwarder, w1, w2, w3, yesBettor, noBettor, stranger] = await viem.getWalletClients();
    const workflowOwner = getAddress(owner.account.address);
    const wait = async (hash: Hex) => {
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe("success");
      return receipt;
    };

    // Typed by our generated ABIs (hardhat-viem's own types are not in the tsconfig).
    const typed = <A extends Abi>(address: Address, abi: A) =>
      getContract({ address: getAddress(address), abi, client: { public: publicClient, wallet: owner } });
    const identity = typed((await viem.deployContract("IdentityRegistry")).address, identityRegistryAbi);
    const reputation = await viem.deployContract("ReputationRegistry", [identity.address]);
    const market = typed(
      (await viem.deployContract("ResolutionMarket", [identity.address, reputation.address, owner.account.address]))
        .address,
      resolutionMarketAbi,
    );
    const config = {
      workflowIds: [WORKFLOW_ID],
      workflowOwner,
      workflowName: WORKFLOW_NAME,
      allowAnyWorkflow: false,
    } as const;
    const receiver = typed(
      (
        await viem.deployContract("CREReceiver", [
          market.address,
          forwarder.account.address,
          owner.account.address,
          config,
        ])
      ).address,
      creReceiverAbi,
    );
    const betting = typed((await viem.deployContract("BettingMarket", [market.address])).address, bettingMarketAbi);
    // Before the first market both apply at once: the receiver as resolver, a 1-of-1 committee as default arbiter.
    const governance = typed(await market.read.governance(), marketGovernanceAbi);
    await wait(await governance.write.queueResolver([receiver.address]));
    const arbiter = await viem.deployContract("CommitteeArbiter", [[owner.account.address], 1n, [market.address]]);
    await wait(await governance.write.queueDefaultArbiter([arbiter.address]));
    // BettingMarket takes bets up to 10 × the market's bond: a 0.3 ETH bond takes the 3 ETH bet below.
    await wait(await governance.write.setDefaults([parseEther("0.001"), 10, 3 * 86_400, 86_400, parseEther("0.3")]));
    await wait(await owner.sendTransaction({ to: receiver.address, value: parseEther("0.5") }));

    const deadline = (await publicClient.getBlock()).timestamp + 3600n;
    await wait(await market.write.createMarket(["Will it rain?", deadline], { value: parseEther("3") }));
    const marketId = await market.read.marketCount();
    const { bond, minStake, disputeWindow } = await market.read.getMarketConfig([marketId]);

    const workers: Address[] = [];
    for (const w of [w1, w2, w3]) {
      const { result: agentId } = await publicClient.simulateContract({
        address: identity.address,
        abi: identity.abi,
        functionName: "register",
        args: ["ipfs://agent"],
        account: w.account,
      });
      await wait(await identity.write.register(["ipfs://agent"], { account: w.account }));
      await wait(await market.write.joinMarket([marketId, agentId], { account: w.account, value: minStake }));
      workers.push(getAddress(w.account.address));
    }
    await wait(await betting.write.bet([marketId, 1], { account: yesBettor.account, value: parseEther("1") }));
    await wait(await betting.write.bet([marketId, 0], { account: noBettor.account, value: parseEther("2") }));
    await testClient.setNextBlockTimestamp({ timestamp: deadline });
    await wait(await market.write.requestResolution([marketId]));

    const base: CreReport = {
      chainId: await publicClient.getChainId(),
      market: market.address,
      marketId,
      verdict: VERDICT.yes,
      reports: [
        { answer: ANSWER.yes, confidenceBps: 9000, resQuality: 90, srcQuality: 80, analysisDepth: 70 },
        { answer: ANSWER.yes, confidenceBps: 7000, resQuality: 60, srcQuality: 50, analysisDepth: 40 },
        { answer: ANSWER.failed, confidenceBps: 0, resQuality: 0, srcQuality: 0, analysisDepth: 0 },
      ],
      bundleHash: BUNDLE_HASH,
      bundleURI: BUNDLE_URI,
    };
    const report = encodeCreReport(base);
    const metadata = encodeCreMetadata(WORKFLOW_ID, WORKFLOW_NAME, workflowOwner);

    // The receiver decodes exactly what the TS encoder produced, and so does the TS decoder.
    const decoded = await receiver.read.decodeReport([report]);
    expect(decoded.chainId).toBe(31337n);
    expect(decoded.market).toBe(market.address);
    expect(decoded.marketId).toBe(marketId);
    expect(decoded.verdict).toBe(VERDICT.yes);
    // Absent reply hashes and signatures travel as zero and empty: every seat attested.
    const wire = base.reports.map((r) => ({ ...r, replyHash: zeroHash, signature: "0x" }));
    expect(decoded.reports.map((r) => ({ ...r }))).toEqual(wire);
    expect(decoded.bundleURI).toBe(BUNDLE_URI);
    expect(decodeCreReport(report)).toEqual({ ...base, chainId: 31337n, reports: wire });
    expect(() => encodeCreReport({ ...base, verdict: 3 })).toThrow(RangeError);

    // Only the forwarder, and only a report for this chain and this market.
    await expect(receiver.write.onReport([metadata, report], { account: stranger.account })).rejects.toThrow(
      /UnauthorizedForwarder/,
    );
    const otherChain = encodeCreReport({ ...base, chainId: 1 });
    await expect(receiver.write.onReport([metadata, otherChain], { account: forwarder.account })).rejects.toThrow(
      /WrongChain/,
    );
    const otherMarket = await viem.deployContract("ResolutionMarket", [
      identity.address,
      reputation.address,
      owner.account.address,
    ]);
    const forOther = encodeCreReport({ ...base, market: otherMarket.address });
    await expect(receiver.write.onReport([metadata, forOther], { account: forwarder.account })).rejects.toThrow(
      /WrongMarket/,
    );

    const floatBefore = await publicClient.getBalance({ address: receiver.address });
    await wait(await receiver.write.onReport([metadata, report], { account: forwarder.account }));
    expect(await publicClient.getBalance({ address: receiver.address })).toBe(floatBefore - bond);
    const proposal = await market.read.getProposal([marketId]);
    expect(proposal.proposer).toBe(receiver.address);
    expect(proposal.verdict).toBe(VERDICT.yes);
    expect(proposal.bundleHash).toBe(BUNDLE_HASH);
    expect(proposal.bundleURI).toBe(BUNDLE_URI);
    expect((await market.read.getMarket([marketId])).status).toBe(STATUS.proposed);

    // Undisputed: after the window anyone finalizes; the bond is the receiver's credit, pulled back by anyone.
    await testClient.increaseTime({ seconds: Number(disputeWindow) + 1 });
    await testClient.mine({ blocks: 1 });
    await wait(await market.write.finalize([marketId], { account: stranger.account }));
    const info = await market.read.getMarket([marketId]);
    expect(info.status).toBe(STATUS.resolved);
    expect(info.outcome).toBe(true);
    expect(await market.read.pendingWithdrawal([receiver.address])).toBe(bond);
    await wait(await receiver.write.pullMarketCredits({ account: stranger.account }));
    expect(await publicClient.getBalance({ address: receiver.address })).toBe(floatBefore);
    // Seats 1 and 2 answered YES (right): stake back plus a share of the pool; seat 3 failed: stake back only.
    const credits = await Promise.all(workers.map((w) => market.read.pendingWithdrawal([w])));
    expect(credits[0]! + credits[1]! + credits[2]!).toBe(parseEther("3") + 3n * minStake);
    expect(credits[2]).toBe(minStake);
    expect(credits[0]! > credits[1]!).toBe(true);

    // Bettors: YES takes the whole 3 ether betting pool.
    expect(await betting.read.claimable([marketId, yesBettor.account.address])).toBe(parseEther("3"));
    await wait(await betting.write.claim([marketId], { account: yesBettor.account }));
    await expect(betting.write.claim([marketId], { account: noBettor.account })).rejects.toThrow(/NothingToClaim/);
  });
});
