/**
 * The pipeline's chain ports (MarketReader, AgentDirectory, ReputationSource, ResolutionWriter) over
 * the chain layer: one ChainContext (clients, retries, nonce queue), the one-block market snapshot
 * (multicall3 where the chain has it) and the resolution writer that re-reads the market and skips
 * a settled one. The ABIs are the generated ones (workflow/chain/abis.ts).
 */
import type { Address, Hex } from "viem";
import type { MarketSnapshot, PastReputation, SettlementPlan } from "../core/types.js";
import type { AgentDirectory, MarketReader, ReputationSource, ResolutionWriter, WriteReceipt } from "../ports.js";
import { identityRegistryAbi, resolutionMarketAbi } from "./abis.js";
import type { ChainContext } from "./clients.js";
import { ChainError, toChainError } from "./errors.js";
import { readMarketState } from "./snapshot.js";
import { createResolutionWriter, type ResolutionWriterOptions } from "./writer.js";

export interface ChainPortsConfig {
  ctx: ChainContext;
  marketAddress: Address;
  /** Default: the market's own `identityRegistry()`. */
  identityRegistry?: Address;
  /** Extra context for workers (the market stores none on-chain). Default "". */
  context?: string | ((marketId: bigint) => string);
  /** Refuse markets that are not in ResolutionRequested (worker set not frozen). Default true. */
  requireResolutionRequested?: boolean;
  /** bundleURI and gas of the write (defaults: "" and the writer's feedback-aware estimate). */
  writer?: ResolutionWriterOptions;
}

export interface ChainPorts {
  market: MarketReader;
  directory: AgentDirectory;
  reputation: ReputationSource;
  /** Present when the context carries a key. */
  writer?: ResolutionWriter & {
    /** The no-quorum / invalid verdict: full refunds. Skips a market that is already settled. */
    settleInvalid(marketId: bigint, bundleHash: Hex): Promise<WriteReceipt>;
  };
}

export function createChainPorts(config: ChainPortsConfig): ChainPorts {
  const { ctx, marketAddress: market } = config;
  let identity: Promise<Address> | undefined = config.identityRegistry !== undefined ? Promise.resolve(config.identityRegistry) : undefined;
  const identityAddress = (): Promise<Address> => {
    identity ??= ctx.publicClient.readContract({ address: market, abi: resolutionMarketAbi, functionName: "identityRegistry" }).catch((e: unknown) => {
      identity = undefined; // let a later call try again
      throw toChainError(e, "ResolutionMarket.identityRegistry");
    });
    return identity;
  };

  const reader: MarketReader = {
    async readMarket(marketId) {
      const state = await readMarketState(ctx, market, marketId, { reputation: false });
      if ((config.requireResolutionRequested ?? true) && state.statusName !== "ResolutionRequested") {
        throw new ChainError("precondition", `market ${marketId} is ${state.statusName}, not ResolutionRequested`);
      }
      const snapshot: MarketSnapshot = {
        chainId: ctx.chainId,
        marketAddress: market,
        marketId,
        question: state.question,
        deadline: Number(state.deadline),
        context: typeof config.context === "function" ? config.context(marketId) : (config.context ?? ""),
        workers: state.workers.map((w) => ({ address: w.address, agentId: w.agentId, stake: w.stake })),
      };
      return snapshot;
    },
  };

  const directory: AgentDirectory = {
    async agentURI(agentId) {
      const registry = await identityAddress();
      try {
        return await ctx.publicClient.readContract({ address: registry, abi: identityRegistryAbi, functionName: "tokenURI", args: [agentId] });
      } catch (error) {
        // A revert (unknown agent, not a registry) is the agent's problem; transport errors propagate.
        if (toChainError(error, "IdentityRegistry.tokenURI").kind === "revert") return undefined;
        throw error;
      }
    },
  };

  const reputation: ReputationSource = {
    async pastReputation(seat): Promise<PastReputation> {
      const [count, resQuality, srcQuality, analysisDepth] = await ctx.publicClient.readContract({
        address: market,
        abi: resolutionMarketAbi,
        functionName: "getReputation",
        args: [seat.agentId],
      });
      return { count: Number(count), resQuality, srcQuality, analysisDepth };
    },
  };

  const ports: ChainPorts = { market: reader, directory, reputation };
  if (ctx.walletClient !== undefined && ctx.account !== undefined) {
    const write = createResolutionWriter(ctx, market, config.writer ?? {});
    const receipt = (r: Awaited<ReturnType<typeof write.writeResolution>>): WriteReceipt =>
      r.status === "written" ? { txHash: r.txHash } : { alreadySettled: r.reason };
    ports.writer = {
      writeResolution: async (plan: SettlementPlan) => receipt(await write.writeResolution(plan)),
      settleInvalid: async (marketId, bundleHash) => receipt(await write.settleInvalid(marketId, bundleHash)),
    };
  }
  return ports;
}
