/**
 * Gas of ERC-8004 feedback as a resolution market writes it: three `giveFeedback` calls per worker
 * (tag1 resolution_quality / source_quality / analysis_depth, tag2 cresolver, 0 decimals, value 0-100),
 * for a first market (first feedback of this client for each agent) and a repeat market, each in its own
 * transaction, through a probe contract that measures every call with gasleft(). Also prints the receipt
 * gas (intrinsic 21k + calldata included) of lone giveFeedback transactions sent by an EOA.
 *
 *   npx hardhat run scripts/reputation-gas.ts
 */
import { network } from "hardhat";
import { keccak256, parseEventLogs, toHex } from "viem";

const { viem } = await network.create();
const publicClient = await viem.getPublicClient();
const [deployer, ownerA, ownerB, ownerC, client] = await viem.getWalletClients();

const identity = await viem.deployContract("IdentityRegistry");
const reputation = await viem.deployContract("ReputationRegistry", [identity.address]);
const probe = await viem.deployContract("ReputationGasProbe", [reputation.address]);

const agentIds: bigint[] = [];
for (const owner of [ownerA, ownerB, ownerC]) {
  const hash = await identity.write.register(["ipfs://agent"], { account: owner.account });
  await publicClient.waitForTransactionReceipt({ hash });
  agentIds.push(BigInt(agentIds.length));
}

const uri = "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi";
const bundleHash = keccak256(toHex("resolution bundle"));

async function market(label: string): Promise<void> {
  const hash = await probe.write.rate([agentIds, uri, bundleHash], { account: deployer.account });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  const events = parseEventLogs({ abi: probe.abi, logs: receipt.logs, eventName: "Measured" });
  console.log(`${label} (tx gasUsed ${receipt.gasUsed} for ${agentIds.length} workers):`);
  for (const e of events) {
    const { agentId, resolutionQuality, sourceQuality, analysisDepth } = e.args;
    const sum = resolutionQuality + sourceQuality + analysisDepth;
    console.log(`  agent ${agentId}: ${resolutionQuality} + ${sourceQuality} + ${analysisDepth} = ${sum} per worker`);
  }
}

await market("first market");
await market("repeat market");
await market("third market");

// Feedback #1 adds the client and opens a slot, #2 and #3 fill that slot, #4 opens the next one.
for (const label of ["EOA #1 (new client)", "EOA #2", "EOA #3", "EOA #4 (new slot)"]) {
  const hash = await reputation.write.giveFeedback(
    [agentIds[0], 87n, 0, "resolution_quality", "cresolver", "", uri, bundleHash],
    { account: client.account },
  );
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  console.log(`${label} giveFeedback tx gasUsed: ${receipt.gasUsed}`);
}
