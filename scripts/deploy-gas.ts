/**
 * Gas of a full `cresolver deploy` (own registries, betting, a CRE receiver, the committee arbiter) on Hardhat's
 * in-process chain: one line per contract and the total. The table in docs/DEPLOY.md comes from this.
 *   npx hardhat run scripts/deploy-gas.ts
 */
import { network } from "hardhat";
import { connectProvider } from "../workflow/chain/clients.js";
import { deployAll } from "../workflow/chain/deploy.js";
import { localDevKey } from "../workflow/chain/dev-accounts.js";

const { provider } = await network.create();
const ctx = await connectProvider({ provider, privateKey: localDevKey(0) });
const deployment = await deployAll(ctx, {
  network: "gas",
  ownRegistries: true,
  forwarder: "0x00000000000000000000000000000000000f0f0f",
});
const block = await ctx.publicClient.getBlockNumber();
let bootstrap = 0n;
// Every transaction after the contracts: queueResolver per resolver and queueDefaultArbiter.
for (let n = 1n; n <= block; n++) {
  const b = await ctx.publicClient.getBlock({ blockNumber: n, includeTransactions: true });
  for (const tx of b.transactions)
    if (tx.to !== null) bootstrap += (await ctx.publicClient.getTransactionReceipt({ hash: tx.hash })).gasUsed;
}
let total = 0n;
for (const [name, c] of Object.entries(deployment.contracts)) {
  total += BigInt(c.gasUsed ?? "0");
  console.log(`| ${name} | ${Number(c.gasUsed).toLocaleString("en-US")} |`);
}
console.log(`| contracts total | ${total.toLocaleString("en-US")} |`);
console.log(`| bootstrap transactions (resolvers, default arbiter) | ${bootstrap.toLocaleString("en-US")} |`);
console.log(`| deploy total | ${(total + bootstrap).toLocaleString("en-US")} |`);
