/**
 * viem implementations of the chain ports: MarketReader, AgentDirectory, ReputationSource
 * (IResolutionMarket views, IdentityRegistry.tokenURI) and ResolutionWriter (resolveMarket).
 *
 * ABIs are hand-written (parseAbi) from contracts/market/interfaces/IResolutionMarket.sol and the
 * ERC-721 `tokenURI` of the ERC-8004 identity registry, so this module neither needs a compile
 * step nor ties itself to one deployment's artifacts (the canonical ERC-8004 singletons expose the
 * same `tokenURI`).
 */
import { BaseError, ContractFunctionRevertedError, parseAbi, type Account, type Address, type Chain, type PublicClient, type WalletClient } from "viem";
import type { MarketSnapshot, PastReputation, SettlementPlan, WorkerSeat } from "../core/types.js";
import type { AgentDirectory, MarketReader, ReputationSource, ResolutionWriter, WriteReceipt } from "../ports.js";

export const resolutionMarketAbi = parseAbi([
  "struct MarketInfo { address creator; uint64 deadline; uint64 requestedAt; uint8 status; bool outcome; uint32 workerCount; uint256 rewardPool; uint256 totalStake; bytes32 bundleHash; string question; }",
  "function getMarket(uint256 marketId) view returns (MarketInfo info)",
  "function getWorkers(uint256 marketId) view returns (address[] workers, uint256[] agentIds, uint256[] stakes)",
  "function getReputation(uint256 agentId) view returns (uint64 count, uint8 resQuality, uint8 srcQuality, uint8 analysisDepth)",
  "function identityRegistry() view returns (address)",
  "function resolveMarket(uint256 marketId, address[] workers, uint256[] weights, uint8[] scores, bool resolution, bytes32 bundleHash, string bundleURI)",
]);

export const identityRegistryAbi = parseAbi(["function tokenURI(uint256 agentId) view returns (string)"]);

/** IResolutionMarket.Status */
export const MarketStatus = { None: 0, Open: 1, ResolutionRequested: 2, Resolved: 3, Invalid: 4, Cancelled: 5 } as const;

type ReadClient = Pick<PublicClient, "readContract" | "getChainId" | "getBlockNumber" | "waitForTransactionReceipt">;

export interface ChainPortsConfig {
  publicClient: ReadClient;
  marketAddress: Address;
  /** Default: the market's own `identityRegistry()`. */
  identityRegistry?: Address;
  /** Extra context for workers (the market stores none on-chain). Default "". */
  context?: string | ((marketId: bigint) => string);
  /** Refuse markets that are not in ResolutionRequested (worker set not frozen). Default true. */
  requireResolutionRequested?: boolean;
  /** For the writer. */
  walletClient?: WalletClient;
  /** Gas limit of resolveMarket (the market asks for an explicit one). Default 5,000,000. */
  gas?: bigint;
  /** bundleURI argument of resolveMarket. Default "". */
  bundleURI?: string | ((plan: SettlementPlan) => string);
}

export class ChainReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChainReadError";
  }
}

export interface ChainPorts {
  market: MarketReader;
  directory: AgentDirectory;
  reputation: ReputationSource;
  /** Present when a walletClient was given. */
  writer?: ResolutionWriter;
}

export function createChainPorts(config: ChainPortsConfig): ChainPorts {
  const client = config.publicClient;
  const market = config.marketAddress;
  let identity: Promise<Address> | undefined = config.identityRegistry !== undefined ? Promise.resolve(config.identityRegistry) : undefined;
  const identityAddress = (): Promise<Address> => {
    identity ??= client.readContract({ address: market, abi: resolutionMarketAbi, functionName: "identityRegistry" }).catch((e: unknown) => {
      identity = undefined; // let a later call try again
      throw e;
    });
    return identity;
  };

  const reader: MarketReader = {
    async readMarket(marketId) {
      // Both views at one block, so the snapshot is consistent.
      const [chainId, blockNumber] = await Promise.all([client.getChainId(), client.getBlockNumber()]);
      const [info, workers] = await Promise.all([
        client.readContract({ address: market, abi: resolutionMarketAbi, functionName: "getMarket", args: [marketId], blockNumber }),
        client.readContract({ address: market, abi: resolutionMarketAbi, functionName: "getWorkers", args: [marketId], blockNumber }),
      ]);
      if ((config.requireResolutionRequested ?? true) && info.status !== MarketStatus.ResolutionRequested) {
        throw new ChainReadError(`market ${marketId} has status ${info.status}, not ResolutionRequested (${MarketStatus.ResolutionRequested})`);
      }
      const [addresses, agentIds, stakes] = workers;
      if (addresses.length !== info.workerCount || agentIds.length !== addresses.length || stakes.length !== addresses.length) {
        throw new ChainReadError(`market ${marketId}: worker arrays disagree with workerCount ${info.workerCount}`);
      }
      const seats: WorkerSeat[] = addresses.map((address, i) => ({ address, agentId: agentIds[i], stake: stakes[i] }));
      const context = typeof config.context === "function" ? config.context(marketId) : (config.context ?? "");
      const snapshot: MarketSnapshot = {
        chainId,
        marketAddress: market,
        marketId,
        question: info.question,
        deadline: Number(info.deadline),
        context,
        workers: seats,
      };
      return snapshot;
    },
  };

  const directory: AgentDirectory = {
    async agentURI(agentId) {
      const registry = await identityAddress();
      try {
        return await client.readContract({ address: registry, abi: identityRegistryAbi, functionName: "tokenURI", args: [agentId] });
      } catch (error) {
        // A revert (unknown agent, not a registry) is the agent's problem; transport errors propagate.
        if (error instanceof BaseError && error.walk((e) => e instanceof ContractFunctionRevertedError) !== null) return undefined;
        throw error;
      }
    },
  };

  const reputation: ReputationSource = {
    async pastReputation(seat): Promise<PastReputation | undefined> {
      const [count, resQuality, srcQuality, analysisDepth] = await client.readContract({
        address: market,
        abi: resolutionMarketAbi,
        functionName: "getReputation",
        args: [seat.agentId],
      });
      return { count: Number(count), resQuality, srcQuality, analysisDepth };
    },
  };

  const ports: ChainPorts = { market: reader, directory, reputation };
  const wallet = config.walletClient;
  if (wallet !== undefined) {
    ports.writer = {
      async writeResolution(plan): Promise<WriteReceipt> {
        const account = wallet.account as Account | undefined;
        if (account === undefined) throw new Error("walletClient has no account");
        const bundleURI = typeof config.bundleURI === "function" ? config.bundleURI(plan) : (config.bundleURI ?? "");
        const txHash = await wallet.writeContract({
          address: market,
          abi: resolutionMarketAbi,
          functionName: "resolveMarket",
          args: [plan.marketId, plan.workers, plan.weights, plan.scores, plan.resolution, plan.bundleHash, bundleURI],
          account,
          chain: (wallet.chain ?? null) as Chain | null,
          gas: config.gas ?? 5_000_000n,
        });
        const receipt = await client.waitForTransactionReceipt({ hash: txHash });
        if (receipt.status !== "success") throw new Error(`resolveMarket transaction ${txHash} reverted`);
        return { txHash };
      },
    };
  }
  return ports;
}
