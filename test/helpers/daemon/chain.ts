/**
 * A real chain for daemon tests: Hardhat's in-process EDR chain served over JSON-RPC/HTTP on loopback
 * (network.createServer), with the real IdentityRegistry + ReputationRegistry + ResolutionMarket deployed
 * from the compiled artifacts (`npx hardhat build --no-tests`). Everything goes through HTTP, so daemons in
 * this process, in a child process, or behind a dropping proxy all see the same chain.
 */
import {
  parseAbi,
  parseEther,
  parseEventLogs,
  type Address,
  type Hex,
  type PublicClient,
  type TestClient,
  type WalletClient,
} from "viem";
import { serveLocalChain } from "./local-chain.js";
import { marketAbi, VERDICT } from "./job.js";

export { marketAbi, STATUS, VERDICT, writerAbi } from "./job.js";

const arbiterAbi = parseAbi([
  "function rule(address market, uint256 marketId, uint8 verdict)",
  "function disputes() view returns (uint256)",
]);
const registerAbi = parseAbi([
  "function register(string agentURI) returns (uint256 agentId)",
  "event Registered(uint256 indexed agentId, string agentURI, address indexed owner)",
]);

export const STAKE = parseEther("0.01");

export interface TestChain {
  rpcUrl: string;
  chainId: number;
  publicClient: PublicClient;
  testClient: TestClient;
  /** accounts[0] deploys/owns and creates markets; [1..12] are workers; [18], [19] are resolvers. */
  accounts: Address[];
  wallet(account: Address): WalletClient;
  market: Address;
  resolvers: [Address, Address];
  workers: { address: Address; agentId: bigint }[];
  /** Opens `questions.length` markets (deadline +1h), seats `workersPerMarket` workers in each. */
  openMarkets(questions: string[], workersPerMarket?: number): Promise<bigint[]>;
  /** Advances time past the deadlines and calls requestResolution for each (one block each, or all in one block). */
  requestResolution(ids: bigint[], opts?: { oneBlock?: boolean }): Promise<{ blockNumber: bigint; minedAt: number }>;
  /** Opens and requests: the common case. */
  requestedMarkets(questions: string[], workersPerMarket?: number): Promise<bigint[]>;
  getMarket(id: bigint): Promise<{ status: number; bundleHash: Hex; outcome: boolean; question: string }>;
  /** Every ResolutionProposed / MarketFinalized log of the market contract, counted per market id. */
  settlementLogs(): Promise<{
    proposed: Map<bigint, number>;
    resolved: Map<bigint, number>;
    invalidated: Map<bigint, number>;
  }>;
  /** Moves the chain's clock forward (one block mined). */
  advance(seconds: number): Promise<void>;
  /** The test arbiter every market of this chain uses. */
  arbiter: Address;
  /** The test arbiter rules on a disputed market. */
  rule(id: bigint, verdict: keyof typeof VERDICT): Promise<void>;
  /** Disputes a proposal from `from` with the market's bond, claiming `claimed`. */
  dispute(id: bigint, claimed: keyof typeof VERDICT, from: Address): Promise<void>;
  mine(blocks?: number): Promise<void>;
  /** Deploys another ResolutionMarket on the same chain and registries (same resolvers); helpers bound to it. */
  deployMarket(): Promise<TestChain>;
  close(): Promise<void>;
}

export async function startTestChain(): Promise<TestChain> {
  const { server, rpcUrl, publicClient, testClient, chainId, chain, accounts, wallet, send, deploy } =
    await serveLocalChain(50);

  const owner = accounts[0];
  const identity = await deploy("erc8004/IdentityRegistry.sol/IdentityRegistry.json", []);
  const reputation = await deploy("erc8004/ReputationRegistry.sol/ReputationRegistry.json", [identity]);
  const resolvers: [Address, Address] = [accounts[18], accounts[19]];
  // Test double arbiter (test/contracts/market/TestArbiter.sol): records disputes, rules when told to.
  const arbiter = await deploy("../test/contracts/market/TestArbiter.sol/TestArbiter.json", []);
  const deployMarketAt = async (): Promise<Address> => {
    const m = await deploy("market/ResolutionMarket.sol/ResolutionMarket.json", [identity, reputation, owner]);
    // Before the first market exists, queued resolvers and the default arbiter are active at once (bootstrap).
    const governance = await publicClient.readContract({ address: m, abi: marketAbi, functionName: "governance" });
    for (const r of resolvers)
      await send(owner, { address: governance, abi: marketAbi, functionName: "queueResolver", args: [r] });
    await send(owner, { address: governance, abi: marketAbi, functionName: "queueDefaultArbiter", args: [arbiter] });
    // Room for 12 seats (feedback past the 10th inline seat); other defaults as deployed.
    await send(owner, {
      address: governance,
      abi: marketAbi,
      functionName: "setDefaults",
      args: [parseEther("0.001"), 12, 3 * 86_400, 86_400, parseEther("0.01")],
    });
    return m;
  };

  const workers: { address: Address; agentId: bigint }[] = [];
  for (const w of accounts.slice(1, 13)) {
    const receipt = await send(w, {
      address: identity,
      abi: registerAbi,
      functionName: "register",
      args: ["ipfs://test-agent"],
    });
    const [log] = parseEventLogs({ abi: registerAbi, logs: receipt.logs, eventName: "Registered" });
    workers.push({ address: w, agentId: log.args.agentId });
  }

  const bind = (market: Address): TestChain => {
    const openMarkets = async (questions: string[], workersPerMarket = 2): Promise<bigint[]> => {
      const ids: bigint[] = [];
      const block = await publicClient.getBlock();
      for (const q of questions) {
        const receipt = await send(owner, {
          address: market,
          abi: marketAbi,
          functionName: "createMarket",
          args: [q, block.timestamp + 3_600n],
          value: parseEther("1"),
        });
        const [log] = parseEventLogs({ abi: marketAbi, logs: receipt.logs, eventName: "MarketCreated" });
        const id = log.args.marketId;
        for (const w of workers.slice(0, workersPerMarket)) {
          await send(w.address, {
            address: market,
            abi: marketAbi,
            functionName: "joinMarket",
            args: [id, w.agentId],
            value: STAKE,
          });
        }
        ids.push(id);
      }
      return ids;
    };

    const requestResolution = async (ids: bigint[], opts: { oneBlock?: boolean } = {}) => {
      await testClient.increaseTime({ seconds: 3_601 });
      await testClient.mine({ blocks: 1 });
      if (opts.oneBlock) {
        await testClient.setAutomine(false);
        try {
          const w = wallet(owner);
          for (const id of ids) {
            await w.writeContract({
              address: market,
              abi: marketAbi,
              functionName: "requestResolution",
              args: [id],
              account: owner,
              chain,
              gas: 200_000n,
            } as never);
          }
          await testClient.mine({ blocks: 1 });
        } finally {
          await testClient.setAutomine(true);
        }
        const minedAt = Date.now();
        return { blockNumber: await publicClient.getBlockNumber({ cacheTime: 0 }), minedAt };
      }
      let blockNumber = 0n;
      for (const id of ids) {
        const r = await send(owner, { address: market, abi: marketAbi, functionName: "requestResolution", args: [id] });
        blockNumber = r.blockNumber;
      }
      return { blockNumber, minedAt: Date.now() };
    };

    const getMarket = async (id: bigint) => {
      const m = (await publicClient.readContract({
        address: market,
        abi: marketAbi,
        functionName: "getMarket",
        args: [id],
      })) as {
        status: number;
        bundleHash: Hex;
        outcome: boolean;
        question: string;
      };
      return { status: m.status, bundleHash: m.bundleHash, outcome: m.outcome, question: m.question };
    };

    const settlementLogs = async () => {
      const logs = await publicClient.getContractEvents({
        address: market,
        abi: marketAbi,
        fromBlock: 0n,
        toBlock: "latest",
      });
      const proposed = new Map<bigint, number>();
      const resolved = new Map<bigint, number>();
      const invalidated = new Map<bigint, number>();
      const bump = (m: Map<bigint, number>, id: bigint) => m.set(id, (m.get(id) ?? 0) + 1);
      for (const l of logs) {
        const args = l.args as { marketId?: bigint; status?: number };
        if (l.eventName === "ResolutionProposed") bump(proposed, args.marketId!);
        if (l.eventName === "MarketFinalized" && args.status === 3) bump(resolved, args.marketId!);
        if (l.eventName === "MarketFinalized" && args.status === 4) bump(invalidated, args.marketId!);
      }
      return { proposed, resolved, invalidated };
    };
    const dispute = async (id: bigint, claimed: keyof typeof VERDICT, from: Address) => {
      const governance = await publicClient.readContract({
        address: market,
        abi: marketAbi,
        functionName: "governance",
      });
      const bond = await publicClient.readContract({
        address: governance,
        abi: marketAbi,
        functionName: "disputeBond",
        args: [id],
      });
      await send(from, {
        address: market,
        abi: marketAbi,
        functionName: "dispute",
        args: [id, VERDICT[claimed]],
        value: bond,
      });
    };

    return {
      rpcUrl,
      chainId,
      publicClient,
      testClient,
      accounts,
      wallet,
      market,
      resolvers,
      workers,
      openMarkets,
      requestResolution,
      requestedMarkets: async (questions, n) => {
        const ids = await openMarkets(questions, n);
        await requestResolution(ids);
        return ids;
      },
      getMarket,
      settlementLogs,
      dispute,
      arbiter,
      rule: async (id, verdict) => {
        await send(owner, {
          address: arbiter,
          abi: arbiterAbi,
          functionName: "rule",
          args: [market, id, VERDICT[verdict]],
        });
      },
      advance: async (seconds) => {
        await testClient.increaseTime({ seconds });
        await testClient.mine({ blocks: 1 });
      },
      mine: async (blocks = 1) => {
        await testClient.mine({ blocks });
      },
      deployMarket: async () => bind(await deployMarketAt()),
      close: () => server.close(),
    };
  };
  return bind(await deployMarketAt());
}

/** Polls `cond` until it returns a truthy value (bounded; no timing assertions). */
export async function waitFor<T>(
  cond: () => T | Promise<T>,
  what: string,
  timeoutMs = 30_000,
  intervalMs = 25,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await cond();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** GET a JSON document from the daemon API. */
export async function getJson<T = Record<string, any>>(url: string): Promise<T> {
  const r = await fetch(url);
  return (await r.json()) as T;
}
