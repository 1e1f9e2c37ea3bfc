import { createRequire } from "node:module";
import hardhatToolboxViem from "@nomicfoundation/hardhat-toolbox-viem";
import { configVariable, defineConfig } from "hardhat/config";

// solc comes from the `solc` npm package (wasm build), so compiling never downloads a compiler.
const require = createRequire(import.meta.url);
const SOLC_VERSION = "0.8.34";
const solcPath = require.resolve("solc/soljson.js");

// One variable scheme for the CLI and Hardhat tasks: RPC_URL and PRIVATE_KEY (environment or keystore). The older
// per-network names still work from the environment, with a deprecation line.
const RENAMED = [
  ["SEPOLIA_RPC_URL", "RPC_URL"],
  ["CRESOLVER_RPC_URL", "RPC_URL"],
  ["SEPOLIA_PRIVATE_KEY", "PRIVATE_KEY"],
  ["CRESOLVER_PRIVATE_KEY", "PRIVATE_KEY"],
] as const;
for (const [old, current] of RENAMED) {
  const value = process.env[old];
  if (value === undefined || value === "") continue;
  process.stderr.write(`warning: ${old} is deprecated, set ${current} instead (the CLI reads ${current} too)\n`);
  process.env[current] ??= value;
}

export default defineConfig({
  plugins: [hardhatToolboxViem],
  solidity: {
    compilers: [
      {
        version: SOLC_VERSION,
        path: solcPath,
        settings: { evmVersion: "cancun", optimizer: { enabled: true, runs: 200 }, viaIR: false },
      },
    ],
    // ResolutionMarket (with MarketSettlement inlined) is tuned for size: it must keep 2 KB under EIP-170
    // (a test asserts ≤ 22,528 bytes). runs 1 saves ~245 bytes there; the other contracts keep runs 200.
    overrides: {
      "contracts/market/ResolutionMarket.sol": {
        version: SOLC_VERSION,
        path: solcPath,
        settings: { evmVersion: "cancun", optimizer: { enabled: true, runs: 1 }, viaIR: false },
      },
    },
  },
  paths: {
    // Hardhat's node:test runner must not pick up vitest files.
    tests: { solidity: "test/contracts", nodejs: "test/hardhat-node" },
  },
  // Configuration variables come from the environment or the encrypted keystore
  // (`npx hardhat keystore set PRIVATE_KEY`); they are read only when a task uses the network.
  networks: {
    localhost: { type: "http", chainType: "l1", url: "http://127.0.0.1:8545" },
    sepolia: {
      type: "http",
      chainType: "l1",
      chainId: 11155111,
      url: configVariable("RPC_URL"),
      accounts: [configVariable("PRIVATE_KEY")],
    },
    // Any other chain: `--network custom`, the same RPC_URL and PRIVATE_KEY.
    custom: {
      type: "http",
      chainType: "l1",
      url: configVariable("RPC_URL"),
      accounts: [configVariable("PRIVATE_KEY")],
    },
  },
  // `npm run verify -- --network sepolia` (scripts/verify.ts) verifies every contract of deployments/<network>.json.
  verify: {
    etherscan: { apiKey: configVariable("ETHERSCAN_API_KEY") },
  },
});
