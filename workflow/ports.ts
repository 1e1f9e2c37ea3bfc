/**
 * Ports of the resolution pipeline: everything that does I/O (chain, HTTP, LLM) sits behind one of
 * these, so the stages in workflow/pipeline/ are orchestration only and workflow/core/ stays pure.
 *
 * Implementations: workflow/chain/ (viem: MarketReader, AgentDirectory, TrackRecordSource), workflow/http/ (the
 * UriFetcher), workflow/adapters/ (worker protocols), workflow/evaluate/ (Evaluator). The pipeline never writes:
 * its verdict is proposed through workflow/settle/.
 */
import type { AdapterRegistry } from "../protocols/shared/types.js";
import type { AnswerFields } from "./core/answer-signature.js";
import type {
  Address,
  Evaluator,
  HistoryMarket,
  Hex,
  MarketSnapshot,
  PastReputation,
  WorkerSeat,
} from "./core/types.js";
import type { Admission } from "./core/admission.js";
import type { VerdictConfigInput } from "./core/vote.js";
import type { DonRunMode } from "./don-limits.js";
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

/**
 * The public track record (resolve stage): every finalized market (Resolved or Invalid; Cancelled ones carry no
 * answers) in which at least one of `market`'s agents answered, with all its answers, oldest first (finalization
 * order), EXCLUDING `market` itself. Suggested cut-off: markets finalized before `market`'s resolution was
 * requested (MarketInfo.requestedAt), so every resolver — whenever it runs — and any auditor rebuild the same
 * record (the bundle carries its size and hash). Rebuilt from chain logs (ResolutionProposed reports +
 * MarketFinalized). Throw only for infrastructure failures (RPC down): the run then stops instead of voting on
 * a partial record.
 */
export interface TrackRecordSource {
  history(market: MarketSnapshot): Promise<HistoryMarket[]>;
}

/**
 * Checks an agent's answer signature (docs/RECORDS.md §2) against its ERC-8004 `agentWallet`, then its owner (EOA
 * signature or ERC-1271). Returns the address it verified against, or undefined when it verifies against neither.
 * May throw (RPC down): the seat is then attested with the reason, the run goes on.
 */
export interface AnswerSignatureVerifier {
  verify(fields: AnswerFields, signature: Hex): Promise<Address | undefined>;
}

/**
 * @deprecated No longer read by the pipeline (the vote uses TrackRecordSource); kept only until the chain
 * ports drop their implementation.
 */
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
  /** The public track record. Default: none (every agent unproven: they vote as one bloc). */
  trackRecord?: TrackRecordSource;
  /** Checks answer signatures. Default: none (every seat attested: signatures are dropped, never posted unchecked). */
  signatures?: AnswerSignatureVerifier;
}

export interface ResolutionConfig {
  /** Path-style IPFS gateway for ipfs:// registration URIs. Default: the registration module's. */
  ipfsGateway?: string;
  /** Cap on a registration file. Default: the registration module's (1 MB). */
  registrationMaxBytes?: number;
  /** Deadline for loading one registration file. Default: the registration module's (10 s). */
  registrationTimeoutMs?: number;
  /** Verdict parameters (threshold, minimum history, accuracy estimation). Default: core/vote.ts defaults. */
  vote?: VerdictConfigInput;
  /** Who counts as "proven" (core/admission.ts, docs/RECORDS.md §5). Default: every yes/no answer counts. */
  admission?: Admission;
  /** Deterministic metadata hashed into the bundle as given (e.g. a pipeline version). */
  bundleExtra?: Record<string, unknown>;
  /**
   * DON-compatible mode (workflow/don-limits.ts, workflow/pipeline/don-mode.ts): keep to one CRE DON execution's
   * quotas — the challenge round runs only when they afford it — so a daemon and a DON produce one bundle.
   */
  don?: DonRunMode;
}
