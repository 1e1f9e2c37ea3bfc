/**
 * Source verification of a deployment: every contract `cresolver deploy` deployed (deployments/<network>.json, or
 * CRESOLVER_DEPLOYMENT) on the block explorers enabled in hardhat.config.ts (Etherscan with ETHERSCAN_API_KEY,
 * Blockscout, Sourcify), with the constructor arguments recorded at deployment.
 *   npx hardhat run --network sepolia scripts/verify.ts      (npm run verify -- --network sepolia)
 */
import { readFileSync } from "node:fs";
import { network } from "hardhat";
import { verifyContract } from "@nomicfoundation/hardhat-verify/verify";
import hre from "hardhat";
import { CONTRACT_SOURCES, type ContractName } from "../workflow/chain/artifacts.js";
import type { Deployment } from "../workflow/chain/deploy.js";

const connection = await network.connect();
const file = process.env.CRESOLVER_DEPLOYMENT ?? `deployments/${connection.networkName}.json`;
const deployment = JSON.parse(readFileSync(file, "utf8")) as Deployment;
let failed = 0;
for (const [name, c] of Object.entries(deployment.contracts) as [
  ContractName,
  Deployment["contracts"]["ResolutionMarket"],
][]) {
  if (c.source !== "deployed") continue;
  // CommitteeArbiter's threshold is a uint256: recorded as a decimal string.
  const args =
    name === "CommitteeArbiter" && c.constructorArgs
      ? c.constructorArgs.map((a, i) => (i === 1 ? BigInt(a as string) : a))
      : (c.constructorArgs ?? []);
  try {
    await verifyContract(
      { address: c.address, constructorArgs: args, contract: `${CONTRACT_SOURCES[name]}:${name}` },
      hre,
    );
    console.log(`verified ${name} at ${c.address}`);
  } catch (error) {
    failed++;
    console.error(`${name} at ${c.address}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
  }
}
process.exitCode = failed > 0 ? 1 : 0;
