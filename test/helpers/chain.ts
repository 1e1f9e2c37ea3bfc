/**
 * A real ERC-8004 IdentityRegistry + ReputationRegistry + ResolutionMarket on Hardhat's in-process
 * chain, and helpers to register agents, open a market, seat workers and freeze it.
 * Needs compiled contracts (`npx hardhat build`).
 */
import { network } from "hardhat";
import { parseAbi, parseEther, parseEventLogs, type Address, type PublicClient, type WalletClient } from "viem";
import { connectProvider, type ChainContext } from "../../workflow/chain/clients.js";
import { buildRegistrationFile, encodeRegistrationDataUri } from "../../workflow/registration/index.js";

const registerAbi = parseAbi([
  "function register(string agentURI) returns (uint256 agentId)",
  "event Registered(uint256 indexed agentId, string agentURI, address indexed owner)",
]);
const marketAbi = parseAbi([
  "function createMarket(string question, uint64 deadline) payable returns (uint256 marketId)",
  "function joinMarket(uint256 marketId, uint256 agentId) payable",
  "function requestResolution(uint256 marketId)",
  "function governance() view returns (address)",
  // MarketGovernance (the market's bounded owner, at governance()):
  "function queueResolver(address resolver)",
  "function queueDefaultArbiter(address arbiter)",
  "event MarketCreated(uint256 indexed marketId, address indexed creator, string question, uint64 deadline, uint256 rewardPool)",
]);

export interface TestChain {
  publicClient: PublicClient;
  /** wallets[0] deploys and owns; wallets[19] is the resolver; 1..18 are worker operators. */
  wallets: WalletClient[];
  resolver: WalletClient;
  /** The chain layer's context with the resolver's key (what the CLI and daemon use). */
  resolverCtx: ChainContext;
  identity: Address;
  market: Address;
  /** Registers an agent with `uri` as its tokenURI, owned by wallets[ownerIndex]. */
  registerAgent(uri: string, ownerIndex: number): Promise<bigint>;
  /**
   * Creates a market, registers one agent per tokenURI (owned by wallets[1..]), seats them in order,
   * advances time past the deadline and requests resolution. Returns the market id.
   */
  frozenMarket(question: string, tokenURIs: string[]): Promise<bigint>;
}

import { localDevKey as hardhatKey } from "../../workflow/chain/dev-accounts.js";
export { hardhatKey };

export function dataUriFor(endpoint: string, name = "Test worker"): string {
  return encodeRegistrationDataUri(buildRegistrationFile({ name, endpoint }));
}

export async function deployTestChain(): Promise<TestChain> {
  // create(): a fresh in-process chain, what the deprecated connect() did.
  const { viem, provider } = await network.create();
  const publicClient = (await viem.getPublicClient()) as unknown as PublicClient;
  const wallets = (await viem.getWalletClients()) as unknown as WalletClient[];
  const testClient = await viem.getTestClient();
  const owner = wallets[0];
  const resolver = wallets[19];
  const resolverCtx = await connectProvider({ provider, privateKey: hardhatKey(19) });
  if (resolverCtx.account!.address.toLowerCase() !== resolver.account!.address.toLowerCase())
    throw new Error("resolver key does not match wallets[19]");
  const identity = await viem.deployContract("IdentityRegistry");
  const reputation = await viem.deployContract("ReputationRegistry", [identity.address]);
  const market = await viem.deployContract("ResolutionMarket", [
    identity.address,
    reputation.address,
    owner.account!.address,
  ]);

  const send = async (wallet: WalletClient, request: Record<string, unknown>) => {
    const hash = await wallet.writeContract(request as unknown as Parameters<WalletClient["writeContract"]>[0]);
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error("transaction reverted");
    return receipt;
  };
  const governance = await publicClient.readContract({
    address: market.address,
    abi: marketAbi,
    functionName: "governance",
  });
  await send(owner, {
    address: governance,
    abi: marketAbi,
    functionName: "queueResolver",
    args: [resolver.account!.address],
    account: owner.account!,
    chain: owner.chain,
  });
  // The v2 market needs a default arbiter to create markets (queued before the first market: in force at once).
  const arbiter = await viem.deployContract("TestArbiter");
  await send(owner, {
    address: governance,
    abi: marketAbi,
    functionName: "queueDefaultArbiter",
    args: [arbiter.address],
    account: owner.account!,
    chain: owner.chain,
  });

  const registerAgent = async (uri: string, ownerIndex: number): Promise<bigint> => {
    const w = wallets[ownerIndex];
    const receipt = await send(w, {
      address: identity.address,
      abi: registerAbi,
      functionName: "register",
      args: [uri],
      account: w.account!,
      chain: w.chain,
    });
    const [log] = parseEventLogs({ abi: registerAbi, logs: receipt.logs, eventName: "Registered" });
    return log.args.agentId;
  };

  const frozenMarket = async (question: string, tokenURIs: string[]): Promise<bigint> => {
    if (tokenURIs.length > 18) throw new Error("at most 18 workers");
    const block = await publicClient.getBlock();
    const deadline = block.timestamp + 3_600n;
    const created = await send(owner, {
      address: market.address,
      abi: marketAbi,
      functionName: "createMarket",
      args: [question, deadline],
      value: parseEther("1"),
      account: owner.account!,
      chain: owner.chain,
    });
    const [log] = parseEventLogs({ abi: marketAbi, logs: created.logs, eventName: "MarketCreated" });
    const marketId = log.args.marketId;
    for (const [i, uri] of tokenURIs.entries()) {
      const agentId = await registerAgent(uri, i + 1);
      const w = wallets[i + 1];
      await send(w, {
        address: market.address,
        abi: marketAbi,
        functionName: "joinMarket",
        args: [marketId, agentId],
        value: parseEther("0.01"),
        account: w.account!,
        chain: w.chain,
      });
    }
    await testClient.increaseTime({ seconds: 3_601 });
    await testClient.mine({ blocks: 1 });
    await send(owner, {
      address: market.address,
      abi: marketAbi,
      functionName: "requestResolution",
      args: [marketId],
      account: owner.account!,
      chain: owner.chain,
    });
    return marketId;
  };

  return {
    publicClient,
    wallets,
    resolver,
    resolverCtx,
    identity: identity.address,
    market: market.address,
    registerAgent,
    frozenMarket,
  };
}
