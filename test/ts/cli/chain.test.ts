/**
 * Chain layer on Hardhat's in-process chain: deployment, reads (parallel and multicall3), decoded
 * custom errors, concurrent writes from one key, the EIP-7825 gas cap, and retries through a faulty
 * loopback RPC bridge. Needs `npx hardhat build`.
 */
import { network } from "hardhat";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPublicClient, formatEther, http, parseEther, type Address, type Hex } from "viem";
import { readFileSync } from "node:fs";
import {
  createMarket,
  joinMarket,
  registerAgent,
  requestResolution,
  setAgentWallet,
} from "../../../workflow/chain/actions.js";
import { connect, connectProvider, withKey, type ChainContext } from "../../../workflow/chain/clients.js";
import { deployAll, type Deployment } from "../../../workflow/chain/deploy.js";
import { ChainError } from "../../../workflow/chain/errors.js";
import { MULTICALL3_ADDRESS, readMarketState } from "../../../workflow/chain/snapshot.js";
import { sendContractTx } from "../../../workflow/chain/writer.js";
import { cappedGas, PROTOCOL_TX_GAS_CAP, txGasCeiling } from "../../../workflow/chain/gas.js";
import { getMarketConfig, readGovernance } from "../../../workflow/chain/lifecycle.js";
import { resolutionMarketAbi, identityRegistryAbi } from "../../../workflow/chain/abis.js";
import { hardhatKey } from "./helpers/keys.js";
import { startRpcBridge, type RpcBridge } from "./helpers/rpc-bridge.js";

/** viem ships multicall3's creation code but does not export it: read it from its dist (test only). */
const multicall3Bytecode = /multicall3Bytecode = '(0x[0-9a-f]+)'/.exec(
  readFileSync("node_modules/viem/_esm/constants/contracts.js", "utf8"),
)![1];

type Provider = { request(args: { method: string; params?: unknown[] }): Promise<unknown> };

let provider: Provider;
let owner: ChainContext;
let deployment: Deployment;
let market: Address;
let identity: Address;

async function increaseTime(seconds: number): Promise<void> {
  await provider.request({ method: "evm_increaseTime", params: [seconds] });
  await provider.request({ method: "evm_mine", params: [] });
}

async function now(): Promise<bigint> {
  return (await owner.publicClient.getBlock({ blockTag: "latest" })).timestamp;
}

/** A market with `workers` seated agents (keys 1..workers), frozen. */
async function frozenMarket(workers: number): Promise<bigint> {
  const { marketId } = await createMarket(
    owner,
    market,
    `Will test ${Math.random()} pass?`,
    (await now()) + 600n,
    parseEther("1"),
  );
  for (let i = 1; i <= workers; i++) {
    const worker = withKey(owner, hardhatKey(i));
    const { agentId } = await registerAgent(worker, identity, `data:application/json,{"name":"w${i}"}`);
    await joinMarket(worker, market, marketId, agentId, parseEther("0.01"));
  }
  await increaseTime(601);
  await requestResolution(owner, market, marketId);
  return marketId;
}

beforeAll(async () => {
  const connection = await network.create();
  provider = connection.provider as unknown as Provider;
  owner = await connectProvider({ provider, privateKey: hardhatKey(0) });
  deployment = await deployAll(owner, { network: "hardhat" });
  market = deployment.contracts.ResolutionMarket.address;
  identity = deployment.contracts.IdentityRegistry.address;
});

describe("deployAll", () => {
  it("deploys our registries, the market and the betting market, and makes the deployer a resolver", async () => {
    expect(deployment.registries).toBe("own");
    expect(deployment.chainId).toBe(31337);
    for (const c of Object.values(deployment.contracts)) {
      expect(c.source).toBe("deployed");
      expect(c.blockNumber).toBeGreaterThan(0);
      expect(await owner.publicClient.getCode({ address: c.address })).not.toBe("0x");
    }
    expect(deployment.contracts.CREReceiver).toBeUndefined();
    // Queued before the first market: active at once (the deployment bootstrap).
    expect(await readGovernance(owner, market, "resolverActiveFrom", [owner.account!.address])).toBeGreaterThan(0n);
    expect(deployment.resolvers).toEqual([owner.account!.address]);
    expect(JSON.stringify(deployment).toLowerCase()).not.toContain(hardhatKey(0).slice(2).toLowerCase());
  });

  it("deploys a CREReceiver with a forwarder and makes it a resolver", async () => {
    const d = await deployAll(owner, {
      network: "hardhat",
      forwarder: "0x000000000000000000000000000000000000dEaD",
      betting: false,
    });
    expect(d.contracts.BettingMarket).toBeUndefined();
    const receiver = d.contracts.CREReceiver!.address;
    expect(d.resolvers).toContain(receiver);
    expect(
      await readGovernance(owner, d.contracts.ResolutionMarket.address, "resolverActiveFrom", [receiver]),
    ).toBeGreaterThan(0n);
  });

  it("uses registries given explicitly and deploys only the markets", async () => {
    const d = await deployAll(owner, {
      network: "given",
      identityRegistry: identity,
      reputationRegistry: deployment.contracts.ReputationRegistry.address,
    });
    expect(d.registries).toBe("given");
    expect(d.contracts.IdentityRegistry).toEqual({ address: identity, source: "existing" });
    expect(d.contracts.ResolutionMarket.source).toBe("deployed");
    expect(
      await owner.publicClient.readContract({
        address: d.contracts.ResolutionMarket.address,
        abi: resolutionMarketAbi,
        functionName: "identityRegistry",
      }),
    ).toBe(identity);
  });

  it("detects the canonical registries by code at their addresses, unless told to deploy its own", async () => {
    // Auto-detection only looks for code: a one-byte contract is enough here (the full Sepolia path is in e2e.test.ts).
    const { CANONICAL_REGISTRIES, detectCanonicalRegistries } = await import("../../../workflow/chain/deploy.js");
    expect(await detectCanonicalRegistries(owner)).toBeUndefined();
    for (const a of Object.values(CANONICAL_REGISTRIES.mainnet))
      await provider.request({ method: "hardhat_setCode", params: [a, "0x00"] });
    expect(await detectCanonicalRegistries(owner)).toEqual({ ...CANONICAL_REGISTRIES.mainnet, kind: "mainnet" });
    const own = await deployAll(owner, { network: "own", ownRegistries: true, betting: false });
    expect(own.registries).toBe("own");
    for (const a of Object.values(CANONICAL_REGISTRIES.mainnet))
      await provider.request({ method: "hardhat_setCode", params: [a, "0x"] });
  });

  it("reports a constructor revert with its decoded error", async () => {
    const err = await deployAll(owner, {
      network: "hardhat",
      identityRegistry: identity,
      reputationRegistry: "0x000000000000000000000000000000000000bEEF",
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChainError);
    expect((err as ChainError).message).toMatch(/no contract at the reputation registry address/);
  });
});

describe("reads", () => {
  it("reads a market and its frozen worker set in parallel where multicall3 is absent, then through multicall3", async () => {
    const marketId = await frozenMarket(3);
    const parallel = await readMarketState(owner, market, marketId);
    expect(parallel.mode).toBe("parallel");
    expect(parallel.statusName).toBe("ResolutionRequested");
    expect(parallel.workers).toHaveLength(3);
    expect(parallel.workers[0].stake).toBe(parseEther("0.01"));
    expect(parallel.workers[0].reputation?.settled).toBe(0n);
    expect(parallel.minStake).toBe(parallel.config.minStake);
    expect(parallel.config).toMatchObject({ admission: "open" });
    expect(parallel.proposal).toBeUndefined();

    // Put multicall3 at its canonical address: deploy its creation code, copy the runtime code.
    const hash = await owner.walletClient!.sendTransaction({
      account: owner.account!,
      chain: owner.chain,
      data: multicall3Bytecode as Hex,
    });
    const receipt = await owner.publicClient.waitForTransactionReceipt({ hash });
    const code = await owner.publicClient.getCode({ address: receipt.contractAddress! });
    await provider.request({ method: "hardhat_setCode", params: [MULTICALL3_ADDRESS, code] });
    await provider.request({ method: "evm_mine", params: [] });
    // `owner` detected "parallel" before and keeps it: read the same block both ways.
    const parallelAfter = await readMarketState(owner, market, marketId);
    expect(parallelAfter.mode).toBe("parallel");
    const fresh = await connectProvider({ provider });
    const calls: string[] = [];
    const spy: Provider = {
      request: (args) => {
        calls.push(args.method);
        return provider.request(args);
      },
    };
    const spied = await connectProvider({ provider: spy });
    const viaMulticall = await readMarketState(spied, market, marketId, { blockNumber: parallelAfter.blockNumber });
    expect(viaMulticall.mode).toBe("multicall3");
    expect({ ...viaMulticall, mode: "x" }).toEqual({ ...parallelAfter, mode: "x" });
    // getCode (detection) + one aggregate3 for the market + one for reputation.
    expect(calls.filter((m) => m === "eth_call")).toHaveLength(2);
    expect((await readMarketState(fresh, market, marketId)).mode).toBe("multicall3");
    await provider.request({ method: "hardhat_setCode", params: [MULTICALL3_ADDRESS, "0x"] });
  });

  it("names an unknown market and a market address without code", async () => {
    await expect(readMarketState(owner, market, 999n)).rejects.toThrow(/unknown market 999/);
    await expect(readMarketState(owner, "0x000000000000000000000000000000000000bEEF", 1n)).rejects.toThrow(
      /no contract at market address/,
    );
  });
});

describe("writes", () => {
  it("reports a revert with its decoded custom error name and arguments", async () => {
    const { marketId } = await createMarket(owner, market, "Decoded?", (await now()) + 600n, parseEther("0.1"));
    const worker = withKey(owner, hardhatKey(5));
    const { agentId } = await registerAgent(worker, identity, "data:,x");
    const err = (await sendContractTx(worker, {
      address: market,
      abi: resolutionMarketAbi,
      functionName: "joinMarket",
      args: [marketId, agentId],
      value: 1n,
      label: "ResolutionMarket.joinMarket",
    }).catch((e: unknown) => e)) as ChainError;
    expect(err).toBeInstanceOf(ChainError);
    expect(err.kind).toBe("revert");
    expect(err.errorName).toBe("StakeTooLow");
    const { minStake } = await getMarketConfig(owner, market, marketId);
    expect(err.args).toEqual({ stake: 1n, minStake });
    expect(err.message).toBe(`ResolutionMarket.joinMarket reverted: StakeTooLow(stake=1, minStake=${minStake})`);

    // An error raised by the identity registry bubbles through unchanged and is decoded too.
    const stranger = withKey(owner, hardhatKey(6));
    const other = (await sendContractTx(stranger, {
      address: identity,
      abi: identityRegistryAbi,
      functionName: "setAgentURI",
      args: [agentId, "data:,y"],
    }).catch((e: unknown) => e)) as ChainError;
    expect(other.errorName).toBe("IdentityRegistryUnauthorized");
    // The checked action refuses before sending anything.
    await expect(joinMarket(worker, market, marketId, agentId, 1n)).rejects.toThrow(
      new RegExp(
        `insufficient stake: 0\\.000000000000000001 ETH is below market ${marketId}'s minimum stake ${formatEther(minStake).replace(".", "\\.")} ETH`,
      ),
    );
  });

  it("serialises nonces for concurrent writes from one key", async () => {
    const deadline = (await now()) + 3600n;
    const before = await owner.publicClient.getTransactionCount({ address: owner.account!.address });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        createMarket(owner, market, `Concurrent ${i}?`, deadline, parseEther("0.01")),
      ),
    );
    const ids = results.map((r) => r.marketId);
    expect(new Set(ids).size).toBe(8);
    const after = await owner.publicClient.getTransactionCount({ address: owner.account!.address });
    expect(after - before).toBe(8);
    const txs = await Promise.all(results.map((r) => owner.publicClient.getTransaction({ hash: r.txHash })));
    expect(txs.map((t) => t.nonce).sort((a, b) => a - b)).toEqual(Array.from({ length: 8 }, (_, i) => before + i));
  });

  it("a failed send does not burn a nonce", async () => {
    const bad = sendContractTx(owner, {
      address: market,
      abi: resolutionMarketAbi,
      functionName: "createMarket",
      args: ["", (await now()) + 600n],
      value: parseEther("0.1"),
    });
    const good = createMarket(owner, market, "After a failure?", (await now()) + 600n, parseEther("0.1"));
    await expect(bad).rejects.toMatchObject({ errorName: "EmptyQuestion" });
    await expect(good).resolves.toMatchObject({ marketId: expect.any(BigInt) });
  });

  it("gas limits are capped at EIP-7825's 2^24, not at a share of the block gas limit (issue 13 item 1)", async () => {
    const block = await owner.publicClient.getBlock({ blockTag: "latest" });
    // Hardhat's block gas limit is far above 2^24: 90 % of it (the old cap) would be refused by the node.
    expect((block.gasLimit * 9n) / 10n).toBeGreaterThan(PROTOCOL_TX_GAS_CAP);
    expect(await txGasCeiling(owner)).toBe(PROTOCOL_TX_GAS_CAP);
    // The chain enforces EIP-7825: one gas unit above 2^24 is refused outright, however large the block.
    const over = await owner
      .walletClient!.sendTransaction({
        account: owner.account!,
        chain: owner.chain,
        to: owner.account!.address,
        value: 0n,
        gas: PROTOCOL_TX_GAS_CAP + 1n,
      })
      .catch((e: unknown) => e);
    expect(over).toBeInstanceOf(Error);
    const atCap = await owner.walletClient!.sendTransaction({
      account: owner.account!,
      chain: owner.chain,
      to: owner.account!.address,
      value: 0n,
      gas: PROTOCOL_TX_GAS_CAP,
    });
    expect((await owner.publicClient.waitForTransactionReceipt({ hash: atCap })).status).toBe("success");
    const { marketId, txHash } = await createMarket(owner, market, "Capped?", (await now()) + 600n, parseEther("0.1"));
    expect(marketId).toBeGreaterThan(0n);
    expect((await owner.publicClient.getTransaction({ hash: txHash })).gas).toBeLessThanOrEqual(PROTOCOL_TX_GAS_CAP);
    const nonce = await owner.publicClient.getTransactionCount({ address: owner.account!.address });
    const err = (await sendContractTx(owner, {
      address: market,
      abi: resolutionMarketAbi,
      functionName: "createMarket",
      args: ["Too big?", (await now()) + 600n],
      value: parseEther("0.1"),
      gas: () =>
        cappedGas(
          "ResolutionMarket.createMarket",
          PROTOCOL_TX_GAS_CAP + 1n,
          PROTOCOL_TX_GAS_CAP + 1n,
          PROTOCOL_TX_GAS_CAP,
        ),
    }).catch((e: unknown) => e)) as ChainError;
    expect(err.kind).toBe("precondition");
    expect(err.message).toMatch(/above the per-transaction cap of 16777216/);
    expect(await owner.publicClient.getTransactionCount({ address: owner.account!.address })).toBe(nonce);
  });

  it("binds an agent wallet with an EIP-712 signature from the new wallet", async () => {
    const { agentId } = await registerAgent(owner, identity, "data:,wallet");
    const newKey = hardhatKey(9);
    const r = await setAgentWallet(owner, identity, agentId, newKey);
    const bound = await owner.publicClient.readContract({
      address: identity,
      abi: identityRegistryAbi,
      functionName: "getAgentWallet",
      args: [agentId],
    });
    expect(bound).toBe(r.wallet);
    // The bound wallet may now join markets for the agent (the precheck accepts it, so does the market).
    const { marketId } = await createMarket(owner, market, "Wallet joins?", (await now()) + 600n, parseEther("0.1"));
    await joinMarket(withKey(owner, newKey), market, marketId, agentId, parseEther("0.01"));
    expect((await readMarketState(owner, market, marketId)).workers.map((w) => w.address)).toEqual([r.wallet]);
    await expect(setAgentWallet(owner, identity, 12345n, newKey)).rejects.toThrow(/unknown agent 12345/);
    await expect(setAgentWallet(withKey(owner, hardhatKey(8)), identity, agentId, newKey)).rejects.toThrow(
      /may not manage agent/,
    );
  });
});

describe("retries through a faulty RPC", () => {
  let bridge: RpcBridge;
  beforeAll(async () => {
    bridge = await startRpcBridge(provider);
  });
  afterAll(async () => {
    await bridge.close();
  });

  it("retries dropped connections and 503s for reads, within the bound", async () => {
    bridge.inject("eth_chainId", "dropBefore", "503");
    const retries: string[] = [];
    const ctx = await connect({
      rpcUrl: bridge.url,
      privateKey: hardhatKey(0),
      retry: { baseDelayMs: 1, onRetry: (r) => retries.push(r.reason) },
    });
    expect(ctx.chainId).toBe(31337);
    expect(retries).toHaveLength(2);
    expect(retries[1]).toBe("HTTP 503");

    bridge.inject("eth_getCode", "dropBefore", "dropBefore", "dropBefore");
    await expect(
      connect({ rpcUrl: bridge.url, retry: { retries: 2, baseDelayMs: 1 } }).then((c) =>
        c.publicClient.getCode({ address: market }),
      ),
    ).rejects.toThrow(/after 3 attempts/);
  });

  it("never retries a revert", async () => {
    const ctx = await connect({ rpcUrl: bridge.url, privateKey: hardhatKey(0), retry: { baseDelayMs: 1 } });
    const start = bridge.methods.length;
    const err = (await sendContractTx(ctx, {
      address: market,
      abi: resolutionMarketAbi,
      functionName: "createMarket",
      args: ["", (await now()) + 600n],
      value: parseEther("0.1"),
    }).catch((e: unknown) => e)) as ChainError;
    expect(err.errorName).toBe("EmptyQuestion");
    expect(bridge.methods.slice(start).filter((m) => m === "eth_call")).toHaveLength(1);
  });

  it("a transaction whose response was lost is not sent twice", async () => {
    const ctx = await connect({ rpcUrl: bridge.url, privateKey: hardhatKey(0), retry: { baseDelayMs: 1 } });
    const before = await ctx.publicClient.getTransactionCount({ address: ctx.account!.address });
    bridge.inject("eth_sendRawTransaction", "dropAfter");
    const r = await createMarket(ctx, market, "Lost response?", (await now()) + 600n, parseEther("0.1"));
    expect(r.marketId).toBeGreaterThan(0n);
    expect(bridge.methods.filter((m) => m === "eth_sendRawTransaction").length).toBeGreaterThanOrEqual(2);
    expect(await ctx.publicClient.getTransactionCount({ address: ctx.account!.address })).toBe(before + 1);
    const direct = createPublicClient({ transport: http(bridge.url) });
    expect(await direct.getChainId()).toBe(31337);
  });
});

describe("generated ABIs", () => {
  it("workflow/chain/abis.ts matches the artifacts (regenerate with `npx tsx scripts/gen-abis.ts`)", async () => {
    const { render } = await import("../../../scripts/gen-abis.js");
    expect(readFileSync("workflow/chain/abis.ts", "utf8")).toBe(render());
  });

  it("workflow/chain/abis-light.ts (market list's selectors and getMarket layout) matches the artifacts", async () => {
    const { renderLight } = await import("../../../scripts/gen-abis.js");
    expect(readFileSync("workflow/chain/abis-light.ts", "utf8")).toBe(renderLight());
  });
});
