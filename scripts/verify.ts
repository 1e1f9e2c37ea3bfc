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

const connection = await network.getOrCreate();
const file = process.env.CRESOLVER_DEPLOYMENT ?? `deployments/${connection.networkName}.json`;

/** The deployment file, or undefined after one `error:` line (no stack trace: a missing file is not a bug). */
function readDeployment(path: string): Deployment | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const missing = (error as { code?: unknown }).code === "ENOENT";
    console.error(
      missing
        ? `error: no deployment file ${path}: deploy first (npx cresolver deploy) or set CRESOLVER_DEPLOYMENT`
        : `error: cannot read ${path}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`,
    );
    return undefined;
  }
  try {
    return JSON.parse(text) as Deployment;
  } catch {
    console.error(`error: ${path} is not JSON`);
    return undefined;
  }
}

const loaded = readDeployment(file);
const deployment = loaded ?? { contracts: {} };
let failed = loaded === undefined ? 1 : 0;
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
