/**
 * The pipeline's chain ports (MarketReader, AgentDirectory, TrackRecordSource) over the chain layer: one
 * ChainContext (clients, retries, nonce queue), the one-block market snapshot (multicall3 where the chain has it)
 * and the track record rebuilt from logs. The pipeline never writes: its verdict goes through workflow/settle/.
 */
import { zeroAddress, type Address } from "viem";
import { verifyAnswer } from "../core/answer-signature.js";
import type { HistoryMarket, MarketSnapshot, PastReputation } from "../core/types.js";
import type { AgentDirectory, AnswerSignatureVerifier, MarketReader, ReputationSource } from "../ports.js";
import { identityRegistryAbi, resolutionMarketAbi } from "./abis.js";
import type { ChainContext } from "./clients.js";
import { ChainError, toChainError } from "./errors.js";
import { getReputation } from "./lifecycle.js";
import { readMarketState } from "./snapshot.js";
import { withAllowedRulings } from "../allowed-rulings.js";
import { cutoffFor, recordHistory, type TrackRecordOptions } from "./track-record.js";
import { chainAllowList } from "./trusted-rulings.js";

export interface ChainPortsConfig {
  ctx: ChainContext;
  marketAddress: Address;
  /** Default: the market's own `identityRegistry()`. */
  identityRegistry?: Address;
  /** Extra context for workers (the market stores none on-chain). Default "". */
  context?: string | ((marketId: bigint) => string);
  /** Refuse markets that are not in ResolutionRequested (worker set not frozen). Default true. */
  requireResolutionRequested?: boolean;
  /** Where and how to scan logs for the track record (default: from block 0, 10,000 blocks per request). */
  trackRecord?: TrackRecordOptions;
}

/** The public track record of the market contract (see workflow/chain/track-record.ts). */
export interface ChainTrackRecord {
  history(market: MarketSnapshot): Promise<HistoryMarket[]>;
}

export interface ChainPorts {
  market: MarketReader;
  directory: AgentDirectory;
  /** @deprecated the v1 reputation view (settled count and quality averages); the vote reads `trackRecord`. */
  reputation: ReputationSource;
  trackRecord: ChainTrackRecord;
  /** Answer signatures against the agent's ERC-8004 agentWallet, then its owner (EOA or ERC-1271). */
  signatures: AnswerSignatureVerifier;
}

export function createChainPorts(config: ChainPortsConfig): ChainPorts {
  const { ctx, marketAddress: market } = config;
  let identity: Promise<Address> | undefined =
    config.identityRegistry !== undefined ? Promise.resolve(config.identityRegistry) : undefined;
  const identityAddress = (): Promise<Address> => {
    identity ??= ctx.publicClient
      .readContract({ address: market, abi: resolutionMarketAbi, functionName: "identityRegistry" })
      .catch((e: unknown) => {
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
        return await ctx.publicClient.readContract({
          address: registry,
          abi: identityRegistryAbi,
          functionName: "tokenURI",
          args: [agentId],
        });
      } catch (error) {
        // A revert (unknown agent, not a registry) is the agent's problem; transport errors propagate.
        if (toChainError(error, "IdentityRegistry.tokenURI").kind === "revert") return undefined;
        throw error;
      }
    },
  };

  const reputation: ReputationSource = {
    async pastReputation(seat): Promise<PastReputation> {
      const r = await getReputation(ctx, market, seat.agentId);
      return {
        count: Number(r.settled),
        resQuality: r.resQuality,
        srcQuality: r.srcQuality,
        analysisDepth: r.analysisDepth,
      };
    },
  };

  // The hash-chain record before the market's cut-off; rulings of arbiters the deployment allows are known truth
  // (RECORDS §4), marked by the wrapper the daemon's index and the DON share.
  const trackRecord: ChainTrackRecord = withAllowedRulings(
    {
      /** The window's finalized markets in which one of this market's agents held a seat, oldest first. */
      async history(snapshot) {
        const cutoff = await cutoffFor(ctx, market, snapshot.marketId);
        return recordHistory(
          ctx,
          market,
          cutoff,
          snapshot.workers.map((w) => w.agentId),
          config.trackRecord ?? {},
        );
      },
    },
    chainAllowList(ctx, market),
  );

  const signatures: AnswerSignatureVerifier = {
    async verify(fields, signature) {
      const registry = await identityAddress();
      const read = (functionName: "getAgentWallet" | "ownerOf") =>
        ctx.publicClient
          .readContract({ address: registry, abi: identityRegistryAbi, functionName, args: [fields.agentId] })
          .catch((e: unknown) => {
            throw toChainError(e, `IdentityRegistry.${functionName}`);
          });
      const [wallet, owner] = await Promise.all([read("getAgentWallet"), read("ownerOf")]);
      for (const candidate of [wallet, owner]) {
        if (candidate === zeroAddress) continue;
        if (await verifyAnswer(ctx.publicClient, candidate, fields, signature)) return candidate;
      }
      return undefined;
    },
  };

  return { market: reader, directory, reputation, trackRecord, signatures };
}
