/**
 * Real panels for the production-daemon tests: Hardhat's in-process chain served over JSON-RPC/HTTP on
 * loopback (network.createServer) with the real IdentityRegistry + ReputationRegistry + ResolutionMarket,
 * ERC-8004 agents registered with data: registration files (service endpoint + protocol), markets created,
 * joined and requested through real transactions. The resolver is Hardhat account 19 (its key is given to
 * the daemon as a hex private key, like in production).
 */
import { parseAbi, parseEther, parseEventLogs, type Address, type Hex, type PublicClient, type TestClient } from "viem";
import { serveLocalChain } from "./local-chain.js";
import { reputationRegistryAbi } from "../../../workflow/chain/abis.js";
import { buildRegistrationFile, encodeRegistrationDataUri } from "../../../workflow/registration/index.js";
import { marketAbi } from "./job.js";

const identityAbi = parseAbi([
  "function register(string agentURI) returns (uint256 agentId)",
  "function setAgentURI(uint256 agentId, string newURI)",
  "event Registered(uint256 indexed agentId, string agentURI, address indexed owner)",
]);
const settledAbi = parseAbi([
  "event WorkerSettled(uint256 indexed marketId, uint256 indexed agentId, address indexed worker, (uint8 answer, uint16 confidenceBps, bool scored, uint8 correctness, uint8 resQuality, uint8 srcQuality, uint8 analysisDepth, uint256 reward, uint256 stakeReturned, uint256 stakeSlashed) result)",
]);

export const STAKE = parseEther("0.01");
export const POOL = parseEther("1");
import { localDevKey as hardhatKey } from "../../../workflow/chain/dev-accounts.js";
export { hardhatKey };

export interface PanelWorker {
  address: Address;
  agentId: bigint;
}

export interface PanelChain {
  rpcUrl: string;
  publicClient: PublicClient;
  testClient: TestClient;
  accounts: Address[];
  identity: Address;
  reputation: Address;
  market: Address;
  creator: Address;
  /** Account 19, added as a resolver of the market. */
  resolverKey: Hex;
  /** Registers an agent owned by accounts[ownerIndex] with a placeholder URI; `setEndpoint` points it at a server later. */
  registerAgent(
    ownerIndex: number,
  ): Promise<PanelWorker & { setEndpoint(endpoint: string, protocol: string): Promise<void> }>;
  /** Creates a market (1 ETH pool, deadline +1 h) and seats the given agents (stake 0.01 ETH each). */
  openMarket(question: string, workers: PanelWorker[]): Promise<bigint>;
  /** Moves the chain's clock forward (one block mined). */
  advance(seconds: number): Promise<void>;
  /** Advances time past the deadline and sends requestResolution. */
  requestResolution(marketId: bigint): Promise<bigint>;
  getMarket(id: bigint): Promise<{ status: number; bundleHash: Hex; outcome: boolean }>;
  pendingWithdrawal(account: Address): Promise<bigint>;
  /** MarketFinalized logs of one market, by final status. */
  settlements(marketId: bigint): Promise<{ resolved: number; invalidated: number }>;
  /** WorkerSettled events of one market, by agent id. */
  workerSettlements(marketId: bigint): Promise<Map<bigint, { payout: bigint; stake: bigint; worker: Address }>>;
  /** ERC-8004 feedback of an agent given by the market (as client). */
  feedback(agentId: bigint): Promise<{ tag1s: readonly string[]; values: readonly bigint[]; count: bigint }>;
  close(): Promise<void>;
}

export async function startPanelChain(): Promise<PanelChain> {
  const { server, rpcUrl, publicClient, testClient, accounts, send, deploy } = await serveLocalChain(20);

  const owner = accounts[0];
  const identity = await deploy("erc8004/IdentityRegistry.sol/IdentityRegistry.json", []);
  const reputation = await deploy("erc8004/ReputationRegistry.sol/ReputationRegistry.json", [identity]);
  const market = await deploy("market/ResolutionMarket.sol/ResolutionMarket.json", [identity, reputation, owner]);
  const resolverKey = hardhatKey(19);
  const governance = await publicClient.readContract({ address: market, abi: marketAbi, functionName: "governance" });
  // The ERC-8004 client of the market's records (its MarketReputation).
  const client = await publicClient.readContract({ address: market, abi: marketAbi, functionName: "reputation" });
  await send(owner, { address: governance, abi: marketAbi, functionName: "queueResolver", args: [accounts[19]] });
  const arbiter = await deploy("../test/contracts/market/TestArbiter.sol/TestArbiter.json", []);
  await send(owner, { address: governance, abi: marketAbi, functionName: "queueDefaultArbiter", args: [arbiter] });

  return {
    rpcUrl,
    publicClient,
    testClient,
    accounts,
    identity,
    reputation,
    market,
    creator: owner,
    resolverKey,
    async registerAgent(ownerIndex) {
      const from = accounts[ownerIndex];
      const receipt = await send(from, {
        address: identity,
        abi: identityAbi,
        functionName: "register",
        args: ["ipfs://pending"],
      });
      const [log] = parseEventLogs({ abi: identityAbi, logs: receipt.logs, eventName: "Registered" });
      const agentId = log.args.agentId;
      return {
        address: from,
        agentId,
        async setEndpoint(endpoint, protocol) {
          const uri = encodeRegistrationDataUri(
            buildRegistrationFile({ name: `${protocol} worker ${agentId}`, endpoint, protocol }),
          );
          await send(from, { address: identity, abi: identityAbi, functionName: "setAgentURI", args: [agentId, uri] });
        },
      };
    },
    async openMarket(question, workers) {
      const block = await publicClient.getBlock();
      const receipt = await send(owner, {
        address: market,
        abi: marketAbi,
        functionName: "createMarket",
        args: [question, block.timestamp + 3_600n],
        value: POOL,
      });
      const [log] = parseEventLogs({ abi: marketAbi, logs: receipt.logs, eventName: "MarketCreated" });
      for (const w of workers)
        await send(w.address, {
          address: market,
          abi: marketAbi,
          functionName: "joinMarket",
          args: [log.args.marketId, w.agentId],
          value: STAKE,
        });
      return log.args.marketId;
    },
    async advance(seconds) {
      await testClient.increaseTime({ seconds });
      await testClient.mine({ blocks: 1 });
    },
    async requestResolution(marketId) {
      await testClient.increaseTime({ seconds: 3_601 });
      await testClient.mine({ blocks: 1 });
      const r = await send(owner, {
        address: market,
        abi: marketAbi,
        functionName: "requestResolution",
        args: [marketId],
      });
      return r.blockNumber;
    },
    async getMarket(id) {
      const m = (await publicClient.readContract({
        address: market,
        abi: marketAbi,
        functionName: "getMarket",
        args: [id],
      })) as { status: number; bundleHash: Hex; outcome: boolean };
      return { status: m.status, bundleHash: m.bundleHash, outcome: m.outcome };
    },
    pendingWithdrawal: (account) =>
      publicClient.readContract({
        address: market,
        abi: marketAbi,
        functionName: "pendingWithdrawal",
        args: [account],
      }) as Promise<bigint>,
    async settlements(marketId) {
      const logs = await publicClient.getContractEvents({
        address: market,
        abi: marketAbi,
        fromBlock: 0n,
        toBlock: "latest",
      });
      const mine = logs.filter((l) => (l.args as { marketId?: bigint }).marketId === marketId);
      return {
        resolved: mine.filter((l) => l.eventName === "MarketFinalized" && (l.args as { status?: number }).status === 3)
          .length,
        invalidated: mine.filter(
          (l) => l.eventName === "MarketFinalized" && (l.args as { status?: number }).status === 4,
        ).length,
      };
    },
    async workerSettlements(marketId) {
      const logs = await publicClient.getContractEvents({
        address: market,
        abi: settledAbi,
        eventName: "WorkerSettled",
        args: { marketId },
        fromBlock: 0n,
        toBlock: "latest",
      });
      return new Map(
        logs.map((l) => [
          l.args.agentId!,
          { payout: l.args.result!.reward, stake: l.args.result!.stakeReturned, worker: l.args.worker! },
        ]),
      );
    },
    async feedback(agentId) {
      const all = await publicClient.readContract({
        address: reputation,
        abi: reputationRegistryAbi,
        functionName: "readAllFeedback",
        args: [agentId, [client], "", "", false],
      });
      const [count] = await publicClient.readContract({
        address: reputation,
        abi: reputationRegistryAbi,
        functionName: "getSummary",
        args: [agentId, [client], "", ""],
      });
      return { tag1s: all[4], values: all[2], count };
    },
    close: () => server.close(),
  };
}
