/**
 * Ports of the resolution pipeline: everything that does I/O (chain, HTTP, LLM) sits behind one of
 * these, so the stages in workflow/pipeline/ are orchestration only and workflow/core/ stays pure.
 *
 * Implementations: workflow/chain/ (viem: MarketReader, AgentDirectory, ReputationSource, the track record),
 * workflow/http/ (the UriFetcher), workflow/adapters/ (worker protocols), workflow/evaluate/ (Evaluator).
 * The pipeline never writes: its verdict is proposed through workflow/settle/.
 */
import type { AdapterRegistry } from "./adapters/index.js";
import type { Evaluator, MarketSnapshot, PastReputation, WorkerSeat } from "./core/types.js";
import type { VoteConfig } from "./core/vote.js";
import type { UriFetcher } from "./registration/index.js";

/** Reads a market whose worker set is frozen (read stage). Throws if the market cannot be resolved now. */
export interface MarketReader {
  readMarket(marketId: bigint): Promise<MarketSnapshot>;
}

/** ERC-8004 identity registry lookups (discover stage). */
export interface AgentDirectory {
  /**
   * The agent's `tokenURI` (its registration file: data:, https:, http: or ipfs:), or `undefined`
   * when the registry has none for it (unknown agent, the call reverted). That makes the worker a
   * non-responder. Throw only for infrastructure failures (RPC down): the run then stops instead of
   * turning an outage into a panel of non-responders.
   */
  agentURI(agentId: bigint): Promise<string | undefined>;
}

/** Past reputation per agent (resolve stage). `undefined` = unknown, treated as a new agent. */
export interface ReputationSource {
  pastReputation(seat: WorkerSeat): Promise<PastReputation | undefined>;
}

export interface PipelinePorts {
  market: MarketReader;
  directory: AgentDirectory;
  /** Fetches https:/http:/ipfs: registration files; use the safe HTTP client's `fetcher`. */
  fetcher: UriFetcher;
  /** Worker protocol adapters, selected by the endpoint's protocol. */
  adapters: AdapterRegistry;
  evaluator: Evaluator;
  /** Used when `evaluator` throws. Default: the rubric evaluator. */
  fallbackEvaluator?: Evaluator;
  /** Default: every agent is treated as new (neutral reputation factor). */
  reputation?: ReputationSource;
}

export interface ResolutionConfig {
  /** Path-style IPFS gateway for ipfs:// registration URIs. Default: the registration module's. */
  ipfsGateway?: string;
  /** Cap on a registration file. Default: the registration module's (1 MB). */
  registrationMaxBytes?: number;
  /** Deadline for loading one registration file. Default: the registration module's (10 s). */
  registrationTimeoutMs?: number;
  /** Vote parameters (margin, multipliers). Default: wf-eval's DEFAULT_VOTE_CONFIG. */
  vote?: Partial<VoteConfig>;
  /** Deterministic metadata hashed into the bundle as given (e.g. a pipeline version). */
  bundleExtra?: Record<string, unknown>;
}
