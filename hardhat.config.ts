import { createRequire } from "node:module";
import hardhatToolboxViem from "@nomicfoundation/hardhat-toolbox-viem";
import { defineConfig } from "hardhat/config";

// solc comes from the `solc` npm package (wasm build), so compiling never downloads a compiler.
const require = createRequire(import.meta.url);
const SOLC_VERSION = "0.8.34";
const solcPath = require.resolve("solc/soljson.js");

export default defineConfig({
  plugins: [hardhatToolboxViem],
  solidity: {
    version: SOLC_VERSION,
    path: solcPath,
    settings: {
      evmVersion: "cancun",
      optimizer: { enabled: true, runs: 200 },
      viaIR: false,
    },
  },
  paths: {
    // Hardhat's node:test runner must not pick up vitest files.
    tests: { solidity: "test/contracts", nodejs: "test/hardhat-node" },
  },
  networks: {
    localhost: { type: "http", chainType: "l1", url: "http://127.0.0.1:8545" },
  },
});
