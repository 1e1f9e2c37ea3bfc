/**
 * End to end: the `cresolver` CLI in-process (`run(argv, io)`) with --json against Hardhat's in-process chain
 * behind a loopback RPC endpoint — deploy → register → create → join → request → resolve (first a precomputed plan through
 * `resolve --plan`, then the workflow against two live reference agents on loopback) → status → withdraw,
 * checking balances, market reputation and ERC-8004 feedback on-chain; then the Sepolia path (canonical
 * registries present at their testnet addresses). Needs `npx hardhat build`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createPublicClient,
  http,
  keccak256,
  parseEther,
  toHex,
  type Address,
  type Hex,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createReferenceAgent } from "../../../agents/reference/server.js";
import { referenceTime } from "../../../cli/shared/config.js";
import { identityRegistryAbi, reputationRegistryAbi, resolutionMarketAbi } from "../../../workflow/chain/abis.js";
import { connect } from "../../../workflow/chain/clients.js";
import { CANONICAL_REGISTRIES, deployContract } from "../../../workflow/chain/deploy.js";
import { signAnswer } from "../../../workflow/core/answer-signature.js";
import { hardhatKey } from "./helpers/keys.js";
import { cli, ok, startInProcessChain } from "./helpers/inprocess-cli.js";
import { rpc, type HardhatNode } from "./helpers/processes.js";

let node: HardhatNode;
let dir: string;
let client: PublicClient;
/** Two live reference agents (CRE A2A) that the registered workers point at. */
const agents = [
  // Each agent signs its answers with the key that registers it (its agentWallet): signed seats, ERC-8004 records.
  createReferenceAgent({ persona: "analyst", signingKey: hardhatKey(1) }),
  createReferenceAgent({ persona: "optimist", signingKey: hardhatKey(2) }),
];
let agentUrls: string[] = [];
const deployerKey = hardhatKey(0);
const worker1Key = hardhatKey(1);
const worker2Key = hardhatKey(2);
const creatorKey = hardhatKey(3);
const addr = (k: Hex) => privateKeyToAccount(k).address;

const env = (key: Hex, extra: Record<string, string> = {}) => ({ RPC_URL: node.url, PRIVATE_KEY: key, ...extra });

/** Mines one block `seconds` after the CLI's "now" (see createCliHarness's increaseTime: the chain's clock lags). */
async function advance(seconds: number): Promise<void> {
  const latest = (await client.getBlock({ blockTag: "latest" })).timestamp;
  await rpc(node.url, "evm_setNextBlockTimestamp", [`0x${(referenceTime(latest) + BigInt(seconds)).toString(16)}`]);
  await rpc(node.url, "evm_mine");
}

beforeAll(async () => {
  node = await startInProcessChain();
  dir = mkdtempSync(join(tmpdir(), "cresolver-e2e-"));
  client = createPublicClient({ transport: http(node.url) }) as PublicClient;
  agentUrls = await Promise.all(agents.map((a) => a.start({ host: "127.0.0.1", port: 0 })));
}, 120_000);

afterAll(async () => {
  await Promise.all(agents.map((a) => a.close()));
  await node?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("cresolver on a local hardhat node", () => {
  let market: Address;
  let identity: Address;
  let reputation: Address;
  let agent1: string;
  let agent2: string;
  let marketId: string;

  it("deploy writes deployments/localhost.json with our registries and the markets", async () => {
    const out = await ok(["deploy"], { cwd: dir, env: env(deployerKey) });
    expect(out).toMatchObject({
      network: "localhost",
      chainId: 31337,
      registries: "own",
      deployer: addr(deployerKey),
      file: join(dir, "deployments/localhost.json"),
    });
    const file = JSON.parse(readFileSync(join(dir, "deployments/localhost.json"), "utf8")) as {
      contracts: Record<string, { address: Address; blockNumber: number }>;
    };
    for (const name of ["IdentityRegistry", "ReputationRegistry", "ResolutionMarket", "BettingMarket"]) {
      expect(file.contracts[name].blockNumber).toBeGreaterThan(0);
    }
    expect(readFileSync(join(dir, "deployments/localhost.json"), "utf8").toLowerCase()).not.toContain(
      deployerKey.slice(2),
    );
    market = file.contracts.ResolutionMarket.address;
    identity = file.contracts.IdentityRegistry.address;
    reputation = file.contracts.ReputationRegistry.address;
  });

  it("registers two agents with data: URIs, creates a market, and both join", async () => {
    const a1 = await ok(
      [
        "agent",
        "register",
        "--name",
        "Worker one",
        "--endpoint",
        agentUrls[0]!,
        "--protocol",
        "cresolver",
        "--description",
        "e2e",
      ],
      { cwd: dir, env: env(worker1Key) },
    );
    const a2 = await ok(["agent", "register", "--name", "Worker two", "--endpoint", agentUrls[1]!], {
      cwd: dir,
      env: env(worker2Key),
    });
    agent1 = a1.agentId as string;
    agent2 = a2.agentId as string;
    expect(agent1).toBe("0");
    expect(agent2).toBe("1");
    const uri = await client.readContract({
      address: identity,
      abi: identityRegistryAbi,
      functionName: "tokenURI",
      args: [0n],
    });
    expect(uri).toBe(a1.agentURI);
    expect(uri.startsWith("data:application/json")).toBe(true);

    const created = await ok(
      [
        "market",
        "create",
        "--question",
        "Will the e2e test pass?",
        "--deadline",
        "+10m",
        "--reward",
        "1",
        "--dispute-window",
        "10m",
      ],
      { cwd: dir, env: env(creatorKey) },
    );
    marketId = created.marketId as string;
    expect(marketId).toBe("1");
    await ok(["market", "join", marketId, "--agent-id", agent1, "--stake", "0.01"], { cwd: dir, env: env(worker1Key) });
    await ok(["market", "join", marketId, "--agent-id", agent2, "--stake", "0.02"], { cwd: dir, env: env(worker2Key) });
  });

  it("requests resolution after the deadline and shows the frozen worker set", async () => {
    await advance(601);
    const requested = await ok(["market", "request-resolution", marketId], { cwd: dir, env: env(creatorKey) });
    expect(requested.status).toBe("ResolutionRequested");
    const status = await ok(["market", "status", marketId], { cwd: dir, env: { RPC_URL: node.url } });
    expect(status).toMatchObject({
      status: "ResolutionRequested",
      outcome: null,
      rewardPool: parseEther("1").toString(),
      totalStake: parseEther("0.03").toString(),
    });
    expect(status.workers).toEqual([
      expect.objectContaining({ address: addr(worker1Key), agentId: "0", stake: parseEther("0.01").toString() }),
      expect.objectContaining({ address: addr(worker2Key), agentId: "1", stake: parseEther("0.02").toString() }),
    ]);
  });

  it("resolve proposes the plan once, then answers already-settled; finalize after the window; status shows outcome, reputation and ERC-8004 feedback; workers withdraw", async () => {
    // Each report carries its agent's EIP-712 signature (docs/RECORDS.md §2): the seats are stored as signed.
    const report = async (key: Hex, agentId: bigint, c: number, rq: number, sq: number, ad: number) => {
      const replyHash = keccak256(toHex(`e2e reply ${agentId}`));
      const fields = { chainId: 31337, market, marketId: BigInt(marketId), agentId, answer: "yes" as const };
      const signature = await signAnswer(privateKeyToAccount(key), { ...fields, confidenceBps: c, replyHash });
      return {
        answer: "yes",
        confidenceBps: c,
        resQuality: rq,
        srcQuality: sq,
        analysisDepth: ad,
        replyHash,
        signature,
      };
    };
    const plan = {
      verdict: "yes",
      reports: [
        await report(worker1Key, BigInt(agent1), 9000, 90, 80, 70),
        await report(worker2Key, BigInt(agent2), 8000, 60, 50, 40),
      ],
      bundleHash: `0x${"cd".repeat(32)}`,
      bundleURI: "ipfs://bafy-e2e-bundle",
    };
    writeFileSync(join(dir, "plan.json"), JSON.stringify(plan));
    const proposed = await ok(["resolve", marketId, "--plan", "plan.json"], { cwd: dir, env: env(deployerKey) });
    expect(proposed).toMatchObject({ status: "proposed", verdict: "yes", bundleHash: plan.bundleHash });
    const again = await ok(["resolve", marketId, "--plan", "plan.json"], { cwd: dir, env: env(deployerKey) });
    expect(again).toMatchObject({ status: "already-settled", marketStatus: "Proposed" });
    await advance(601);
    const finalized = await ok(["market", "finalize", marketId], { cwd: dir, env: env(creatorKey) });
    expect(finalized).toMatchObject({ status: "Resolved", outcome: true });

    const status = await ok(["market", "status", marketId], { cwd: dir, env: { RPC_URL: node.url } });
    expect(status).toMatchObject({ status: "Resolved", outcome: "YES", bundleHash: plan.bundleHash });
    const [w1, w2] = status.workers as { reputation: Record<string, unknown>; feedbackCount: string }[];
    // correctness: 100·(1 − Brier), rounded half up: 0.9 → 99, 0.8 → 96; resQuality is the correctness (the plan's
    // 90 / 60 are not used at finalization).
    expect(w1.reputation).toEqual({ settled: "1", correctness: 99, resQuality: 99, srcQuality: 80, analysisDepth: 70 });
    expect(w2.reputation).toEqual({ settled: "1", correctness: 96, resQuality: 96, srcQuality: 50, analysisDepth: 40 });
    expect(w1.feedbackCount).toBe("2");

    // ERC-8004 feedback, read straight from the registry: "correctness" and "quality" records from the market.
    const [count, value] = await client.readContract({
      address: reputation,
      abi: reputationRegistryAbi,
      functionName: "getSummary",
      args: [
        0n,
        [await client.readContract({ address: market, abi: resolutionMarketAbi, functionName: "reputation" })],
        "correctness",
        "cresolver",
      ],
    });
    expect([count, value]).toEqual([1n, 99n]);

    // Withdraw: credit = stake + share of the 1 ETH pool, weights correctness × (600 + correctness + src + depth).
    const weights = [99n * (600n + 99n + 80n + 70n), 96n * (600n + 96n + 50n + 40n)];
    const pool = parseEther("1");
    const share1 = pool - (pool * weights[1]) / (weights[0] + weights[1]); // the remainder goes to the largest weight
    const credited = await client.readContract({
      address: market,
      abi: resolutionMarketAbi,
      functionName: "pendingWithdrawal",
      args: [addr(worker1Key)],
    });
    expect(credited).toBe(parseEther("0.01") + share1);
    const before = await client.getBalance({ address: addr(worker1Key) });
    const w = await ok(["market", "withdraw"], { cwd: dir, env: env(worker1Key) });
    expect(w.amount).toBe(credited.toString());
    const receipt = await client.getTransactionReceipt({ hash: w.txHash as Hex });
    const after = await client.getBalance({ address: addr(worker1Key) });
    expect(after - before).toBe(credited - receipt.gasUsed * receipt.effectiveGasPrice);

    const again2 = await cli(["market", "withdraw"], { cwd: dir, env: env(worker1Key) });
    expect(again2.code).toBe(2);
    expect(again2.stdout).toBe("");
    expect(again2.stderr.trim()).toMatch(/^error: nothing to withdraw for 0x[0-9a-fA-F]{40}$/);
  });

  it("resolve runs the workflow against the live agents: asks, challenges, scores, decides and proposes; finalize settles", async () => {
    const created = await ok(
      [
        "market",
        "create",
        "--question",
        "Will the live panel settle this one?",
        "--deadline",
        "+10m",
        "--reward",
        "0.4",
        "--dispute-window",
        "10m",
      ],
      { cwd: dir, env: env(creatorKey) },
    );
    const id = created.marketId as string;
    await ok(["market", "join", id, "--agent-id", agent1, "--stake", "0.01"], { cwd: dir, env: env(worker1Key) });
    await ok(["market", "join", id, "--agent-id", agent2, "--stake", "0.01"], { cwd: dir, env: env(worker2Key) });
    await advance(601);
    await ok(["market", "request-resolution", id], { cwd: dir, env: env(creatorKey) });
    const resolved = await ok(["resolve", id, "--allow-loopback", "--bundle-out", "live-bundle.json"], {
      cwd: dir,
      env: env(deployerKey),
    });
    expect(resolved).toMatchObject({ status: "proposed", quorum: { n: 2, required: 2, answered: 2 } });
    expect(["yes", "no"]).toContain(resolved.verdict);
    // The trace in `market show`: from the bundle file, checked against the on-chain hash.
    const shown = await ok(["market", "show", id, "--bundle", "live-bundle.json"], {
      cwd: dir,
      env: { RPC_URL: node.url },
    });
    const trace = shown.trace as {
      verified: boolean;
      decision: { verdict: string; posterior: number };
      workers: { agentId: string; answer: unknown; scores: Record<string, number>; vote: { weight: number } }[];
    };
    expect(trace.verified).toBe(true);
    expect(trace.decision.verdict).toBe(resolved.verdict);
    expect(trace.decision.posterior).toBeGreaterThan(0);
    expect(trace.workers.map((w) => w.agentId)).toEqual([agent1, agent2]);
    for (const w of trace.workers) {
      expect(w.answer).toMatchObject({ determination: expect.any(Boolean), confidence: expect.any(Number) });
      expect(Object.keys(w.scores).length).toBe(3);
      expect(typeof w.vote.weight).toBe("number");
    }
    const tampered = JSON.parse(readFileSync(join(dir, "live-bundle.json"), "utf8")) as {
      workers: { agentId: string }[];
    };
    tampered.workers[0]!.agentId = "999";
    writeFileSync(join(dir, "tampered.json"), JSON.stringify(tampered));
    expect(
      (
        (await ok(["market", "show", id, "--bundle", "tampered.json"], { cwd: dir, env: { RPC_URL: node.url } }))
          .trace as { verified: boolean }
      ).verified,
    ).toBe(false);
    await advance(601);
    await ok(["market", "finalize", id], { cwd: dir, env: env(creatorKey) });
    const status = await ok(["market", "status", id], { cwd: dir, env: { RPC_URL: node.url } });
    expect(status.status).toBe("Resolved");
    expect(status.outcome).toBe((resolved.verdict as string).toUpperCase());
    // Second scored market for both agents: settled 2, four ERC-8004 records each from the market.
    for (const w of status.workers as { reputation: { settled: string }; feedbackCount: string }[]) {
      expect(w.reputation.settled).toBe("2");
      expect(w.feedbackCount).toBe("4");
    }
  }, 180_000);

  it("agent set-wallet binds a wallet signed by its own key (EIP-712)", async () => {
    const walletKey = hardhatKey(7);
    const out = await ok(["agent", "set-wallet", agent1], {
      cwd: dir,
      env: env(worker1Key, { AGENT_WALLET_KEY: walletKey }),
    });
    expect(out.wallet).toBe(addr(walletKey));
    expect(
      await client.readContract({
        address: identity,
        abi: identityRegistryAbi,
        functionName: "getAgentWallet",
        args: [0n],
      }),
    ).toBe(addr(walletKey));
  });

  it("bad input: one line on stderr naming the problem, non-zero exit, nothing on stdout, nothing sent", async () => {
    const nonce = await client.getTransactionCount({ address: addr(worker2Key) });
    const cases: [string[], RegExp][] = [
      [["market", "join", "99", "--agent-id", agent2, "--stake", "0.01"], /unknown market 99/],
      [
        ["market", "create", "--question", "Late?", "--deadline", "2020-01-01T00:00:00Z", "--reward", "1"],
        /--deadline .* is not in the future/,
      ],
      [["agent", "register", "--name", "X", "--endpoint", "not a url"], /--endpoint is not an absolute URL/],
    ];
    for (const [args, pattern] of cases) {
      const r = await cli(args, { cwd: dir, env: env(worker2Key) });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(pattern);
    }
    const wrongKey = await cli(["market", "withdraw"], {
      cwd: dir,
      env: { RPC_URL: node.url, PRIVATE_KEY: "0xnot-a-key" },
    });
    expect(wrongKey.code).toBe(2);
    expect(wrongKey.stderr.trim()).toBe(
      "error: --private-key / PRIVATE_KEY must be 32 bytes of hex (64 hex digits, optionally 0x-prefixed)",
    );
    expect(await client.getTransactionCount({ address: addr(worker2Key) })).toBe(nonce);
  });
});

describe("the Sepolia path: canonical ERC-8004 registries at their testnet addresses", () => {
  const canonical = CANONICAL_REGISTRIES.testnet;

  /**
   * Puts our registries at the canonical addresses: each is deployed normally (the reputation
   * registry with the canonical identity address as its immutable), then its runtime code and its
   * non-zero storage (ERC-721 name/symbol) are copied over.
   */
  async function installCanonicalRegistries(): Promise<void> {
    const ctx = await connect({ rpcUrl: node.url, privateKey: hardhatKey(19) });
    const identity = await deployContract(ctx, "IdentityRegistry", identityRegistryAbi, []);
    const reputation = await deployContract(ctx, "ReputationRegistry", reputationRegistryAbi, [
      canonical.identityRegistry,
    ]);
    for (const [from, to] of [
      [identity.address, canonical.identityRegistry],
      [reputation.address, canonical.reputationRegistry],
    ] as const) {
      await rpc(node.url, "hardhat_setCode", [to, await rpc<Hex>(node.url, "eth_getCode", [from, "latest"])]);
      for (let slot = 0; slot < 16; slot++) {
        const key = `0x${slot.toString(16).padStart(64, "0")}`;
        const value = await rpc<Hex>(node.url, "eth_getStorageAt", [from, key, "latest"]);
        if (BigInt(value) !== 0n) await rpc(node.url, "hardhat_setStorageAt", [to, key, value]);
      }
    }
    await rpc(node.url, "evm_mine");
  }

  it("deploy uses the canonical registries; register, create, join, request and resolve settle through them", async () => {
    await installCanonicalRegistries();
    const deployed = await ok(["deploy", "--network-name", "sepolia-local"], { cwd: dir, env: env(deployerKey) });
    expect(deployed).toMatchObject({ registries: "canonical", network: "sepolia-local" });
    const contracts = deployed.contracts as Record<string, { address: string; source: string; blockNumber?: number }>;
    expect(contracts.IdentityRegistry).toEqual({ address: canonical.identityRegistry, source: "existing" });
    expect(contracts.ReputationRegistry).toEqual({ address: canonical.reputationRegistry, source: "existing" });
    expect(contracts.ResolutionMarket.source).toBe("deployed");
    const file = ["--deployment", "deployments/sepolia-local.json"];

    const agent = await ok(
      [...file, "agent", "register", "--name", "Canonical worker", "--endpoint", "https://w.example"],
      { cwd: dir, env: env(worker1Key) },
    );
    expect(agent.identityRegistry).toBe(canonical.identityRegistry);
    const created = await ok(
      [
        ...file,
        "market",
        "create",
        "--question",
        "Does the Sepolia path work?",
        "--deadline",
        "+5m",
        "--reward",
        "0.5",
        "--dispute-window",
        "10m",
      ],
      { cwd: dir, env: env(creatorKey) },
    );
    await ok(
      [...file, "market", "join", created.marketId as string, "--agent-id", agent.agentId as string, "--stake", "0.01"],
      { cwd: dir, env: env(worker1Key) },
    );
    await advance(301);
    await ok([...file, "market", "request-resolution", created.marketId as string], { cwd: dir, env: env(creatorKey) });
    // The agent signs its answer (a signed seat gets its ERC-8004 records; an attested one would get none).
    const replyHash = keccak256(toHex("canonical reply"));
    const signature = await signAnswer(privateKeyToAccount(worker1Key), {
      chainId: 31337,
      market: contracts.ResolutionMarket.address as Address,
      marketId: BigInt(created.marketId as string),
      agentId: BigInt(agent.agentId as string),
      answer: "no",
      confidenceBps: 7000,
      replyHash,
    });
    writeFileSync(
      join(dir, "plan-canonical.json"),
      JSON.stringify({
        verdict: "no",
        reports: [
          {
            answer: "no",
            confidenceBps: 7000,
            resQuality: 77,
            srcQuality: 66,
            analysisDepth: 55,
            replyHash,
            signature,
          },
        ],
        bundleHash: `0x${"ef".repeat(32)}`,
      }),
    );
    const resolved = await ok([...file, "resolve", created.marketId as string, "--plan", "plan-canonical.json"], {
      cwd: dir,
      env: env(deployerKey),
    });
    expect(resolved).toMatchObject({ status: "proposed", verdict: "no" });
    await advance(601);
    await ok([...file, "market", "finalize", created.marketId as string], { cwd: dir, env: env(creatorKey) });
    const market = contracts.ResolutionMarket.address as Address;
    // quality = floor mean of resQuality = correctness (right at 0.7 → 91; the plan's 77 is not used), 66, 55 = 70.
    const [count, value] = await client.readContract({
      address: canonical.reputationRegistry,
      abi: reputationRegistryAbi,
      functionName: "getSummary",
      args: [
        BigInt(agent.agentId as string),
        [await client.readContract({ address: market, abi: resolutionMarketAbi, functionName: "reputation" })],
        "quality",
        "cresolver",
      ],
    });
    expect([count, value]).toEqual([1n, 70n]);
  });
});
