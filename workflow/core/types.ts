/**
 * Shared vocabulary of the resolution pipeline. Pure data: no I/O here.
 * Stages (files under workflow/pipeline/, in order): read → discover → ask → quorum → challenge → evaluate → resolve → review → bundle → write.
 */

export type Address = `0x${string}`;
export type Hex = `0x${string}`;

/** One seat of a market's frozen worker set, as read from the chain. */
export interface WorkerSeat {
  address: Address;
  agentId: bigint;
  stake: bigint;
}

/** What the pipeline needs to know about a market (read stage). */
export interface MarketSnapshot {
  chainId: number;
  marketAddress: Address;
  marketId: bigint;
  question: string;
  /** Unix seconds. */
  deadline: number;
  /** Extra context for workers (optional, may be empty). */
  context: string;
  /** The frozen worker set, in on-chain order. n for the quorum is its length. */
  workers: WorkerSeat[];
}

/** Where and how to reach a worker (discover stage). */
export interface WorkerEndpoint {
  url: string;
  /** Protocol named in the registration file's service entry, e.g. "cresolver". */
  protocol: string;
}

/** Why a worker produced nothing usable. Recorded in the bundle; never thrown out of the pipeline. */
export type FailureKind =
  | "registration"
  | "destination-refused"
  | "timeout"
  | "http-status"
  | "network"
  | "too-large"
  | "invalid-response"
  | "unsupported-protocol"
  | "auth"
  /** The worker answered validly but took no side (e.g. Factagora NEUTRAL): no vote, no quorum credit. */
  | "abstained";

export interface WorkerFailure {
  kind: FailureKind;
  /** Human-readable, sanitized (no secrets, capped length). */
  message: string;
}

/** The canonical finding of a worker, whatever protocol it speaks. */
export interface WorkerAnswer {
  /** true = YES, false = NO. */
  determination: boolean;
  /** In [0, 1]. */
  confidence: number;
  evidence: string;
  sources: string[];
  /** Protocol-specific extras kept for the bundle (sanitized JSON). */
  extras?: Record<string, unknown>;
  /**
   * Hash of the reply as received (docs/RECORDS.md §2), computed by the adapter, never taken from the agent; set by
   * protocols that carry signatures (cresolver).
   */
  replyHash?: Hex;
  /**
   * The agent's EIP-712 signature over this answer, as received (untrusted text, capped by the protocol's schema);
   * checked by the pipeline (pipeline/signatures.ts).
   */
  signature?: string;
}

/**
 * The pipeline's check of an answer's signature: `signed` when it verified against the agent's ERC-8004 agentWallet
 * (or owner), `attested` (only the proposer vouches) when there was none or it did not verify (`reason`).
 */
export interface SignatureCheck {
  status: "signed" | "attested";
  replyHash: Hex;
  /** As received when well-formed hex, else "0x". */
  signature: Hex;
  /** The address it verified against (signed only). */
  signer?: Address;
  /** Why it is attested although a signature came (one line). */
  reason?: string;
}

/** Result of one outbound call to a worker. */
export type CallResult<T> =
  | { ok: true; value: T; latencyMs: number; attempts: number }
  | { ok: false; failure: WorkerFailure; latencyMs: number; attempts: number };

/** The resolver's question to a worker (ask stage). */
export interface AskRequest {
  marketId: bigint;
  question: string;
  deadline: number;
  context: string;
  /** Size of the frozen panel (protocols that tell an agent how many others it faces). */
  workerCount?: number;
  /** The chain and market contract (what an agent needs to sign its answer, docs/RECORDS.md §2). */
  chainId?: number;
  marketAddress?: Address;
}

/**
 * Another answering worker's finding as shown to a challenged worker. Carries nothing that identifies
 * its author (no address, agent id, seat order or protocol extras).
 */
export interface PeerFinding {
  determination: boolean;
  confidence: number;
  evidence: string;
  sources: string[];
}

/** The resolver's challenge to one worker (challenge stage). */
export interface ChallengeRequest {
  /** The same market data the worker was asked about. */
  ask: AskRequest;
  /** Exactly the challenges to answer, in order. */
  challenges: string[];
  /** The worker's own answer from the ask stage. */
  own: WorkerAnswer;
  /** The other answering workers' findings, anonymised, in a deterministic order. */
  peers: PeerFinding[];
}

/** The vote totals shown to a reviewer (core/vote.ts Tally without the raw integer sums). */
export interface ReviewTallySummary {
  yesWeight: number;
  noWeight: number;
  /** |yes−no|/(yes+no). */
  margin: number;
  yesVoters: number;
  noVoters: number;
}

/** The computed resolution shown to the answering workers before it is written (review stage). */
export interface ReviewProposal {
  /** The same market data the workers were asked about. */
  ask: AskRequest;
  /** The resolution about to be written: true = YES. */
  resolution: boolean;
  tally: ReviewTallySummary;
  /** Every answering worker's finding, anonymised like PeerFinding, in canonical (not seat) order. */
  findings: PeerFinding[];
}

/** A worker's advisory verdict on a ReviewProposal. Never changes the outcome; recorded in the bundle. */
export interface ReviewVerdict {
  approve: boolean;
  /** Conditions attached to the approval (may be empty). */
  conditions: string[];
  /** Why the worker dissents, when it does. */
  dissentReason?: string;
  /** Protocol-specific extras kept for the bundle (sanitized JSON). */
  extras?: Record<string, unknown>;
}

/**
 * Speaks one worker protocol. One implementation per file in workflow/adapters/.
 * Implementations never throw for worker misbehaviour: they return a failed CallResult.
 */
export interface WorkerProtocolAdapter {
  readonly protocol: string;
  /** Overall deadline of one call per stage, ms (progress reports only: the adapter enforces its own). */
  readonly deadlines?: Readonly<Partial<Record<"ask" | "challenge" | "review", number>>>;
  ask(endpoint: WorkerEndpoint, seat: WorkerSeat, request: AskRequest): Promise<CallResult<WorkerAnswer>>;
  challenge(endpoint: WorkerEndpoint, seat: WorkerSeat, request: ChallengeRequest): Promise<CallResult<string[]>>;
  /** Optional (review stage): the worker's advisory approve/dissent on the resolution about to be written. */
  review?(endpoint: WorkerEndpoint, seat: WorkerSeat, proposal: ReviewProposal): Promise<CallResult<ReviewVerdict>>;
}

/**
 * One worker's record as the stages fill it in, discriminated by `answer`: discover → a pending record (endpoint
 * known) or a failed one; ask → `AnsweredWorkerRecord` or `FailedWorkerRecord`; challenge and review add their
 * (optional) results to answered records only. `record.answer !== undefined` narrows a WorkerRecord.
 */
export type WorkerRecord = FailedWorkerRecord | AnsweredWorkerRecord;
/** What the discover stage hands to ask: an endpoint, or why there is none. */
export type DiscoveredWorkerRecord =
  | { seat: WorkerSeat; endpoint: WorkerEndpoint }
  | { seat: WorkerSeat; discoveryFailure: WorkerFailure };

/** No usable answer: discovery failed (no endpoint), the ask failed, or the worker abstained. */
export interface FailedWorkerRecord {
  seat: WorkerSeat;
  endpoint?: WorkerEndpoint;
  discoveryFailure?: WorkerFailure;
  askFailure?: WorkerFailure;
  askLatencyMs?: number;
  // What only an answered record carries, never set here (reading it on any record gives undefined).
  answer?: undefined;
  signatureCheck?: undefined;
  challenges?: undefined;
  challengeReplies?: undefined;
  challengeFailure?: undefined;
  challengeLatencyMs?: undefined;
  review?: undefined;
  reviewFailure?: undefined;
  reviewLatencyMs?: undefined;
}

/** Answered the ask; challenge and review results are added as those stages run. */
export interface AnsweredWorkerRecord {
  seat: WorkerSeat;
  endpoint: WorkerEndpoint;
  answer: WorkerAnswer;
  askLatencyMs?: number;
  /** Set by the signature check after ask, for answers that carried a reply hash. */
  signatureCheck?: SignatureCheck;
  discoveryFailure?: undefined;
  askFailure?: undefined;
  challenges?: string[];
  /** Same length as `challenges` when the worker answered fully; shorter or absent otherwise. */
  challengeReplies?: string[];
  challengeFailure?: WorkerFailure;
  challengeLatencyMs?: number;
  /** Review stage (advisory, only for adapters with `review`, only when the market resolved). */
  review?: ReviewVerdict;
  reviewFailure?: WorkerFailure;
  reviewLatencyMs?: number;
}

export const isAnswered = (record: WorkerRecord): record is AnsweredWorkerRecord => record.answer !== undefined;

/** The 8 scoring dimensions of the CRE agent protocol, each 0-100. */
export const DIMENSIONS = [
  "resolutionQuality",
  "sourceQuality",
  "analysisDepth",
  "reasoningClarity",
  "evidenceStrength",
  "biasAwareness",
  "timeliness",
  "collaboration",
] as const;
export type Dimension = (typeof DIMENSIONS)[number];

export interface DimensionScore {
  score: number;
  explanation: string;
}
export type DimensionScores = Record<Dimension, DimensionScore>;

/** The 3 on-chain scores, integers 0-100. */
export interface AggregateScores {
  resQuality: number;
  srcQuality: number;
  analysisDepth: number;
}

export interface EvaluatorIdentity {
  kind: "rubric" | "llm";
  /** Model name for "llm", rubric version for "rubric". */
  model: string;
  promptVersion: string;
  seed: number;
}

export interface EvaluationInput {
  market: MarketSnapshot;
  /** Only workers with an answer are evaluated. */
  workers: AnsweredWorkerRecord[];
}

export interface WorkerEvaluation {
  address: Address;
  dimensions: DimensionScores;
  aggregate: AggregateScores;
  /** Set when an LLM evaluation failed for this worker and the rubric was used instead. */
  fallbackReason?: string;
}

export interface EvaluationResult {
  evaluator: EvaluatorIdentity;
  evaluations: WorkerEvaluation[];
  /** Set when the whole evaluation fell back to the rubric. */
  fallbackReason?: string;
  /** Identity of the evaluator that produced the scores of workers with a `fallbackReason` (additive, wf-eval). */
  fallbackEvaluator?: EvaluatorIdentity;
}

/** Scores 8 dimensions per answering worker. Pure given its inputs (LLM: given the model's replies). */
export interface Evaluator {
  readonly identity: EvaluatorIdentity;
  evaluate(input: EvaluationInput): Promise<EvaluationResult>;
}

/** Past reputation of an agent, from the market's on-chain averages (count 0 = new agent). */
export interface PastReputation {
  count: number;
  resQuality: number;
  srcQuality: number;
  analysisDepth: number;
}

export type ResolutionOutcome =
  | { kind: "resolved"; resolution: boolean }
  | { kind: "no-quorum"; answered: number; required: number }
  | { kind: "no-margin"; yesWeight: number; noWeight: number; margin: number };

/** Input of the write stage: matches IResolutionMarket.resolveMarket. */
export interface SettlementPlan {
  marketId: bigint;
  workers: Address[];
  weights: bigint[];
  /** 3 per worker, flattened: resQuality, srcQuality, analysisDepth. */
  scores: number[];
  resolution: boolean;
  bundleHash: Hex;
}

// ------------------------------------------------------------------------------------------------
// Round 2: the on-chain record of answers, the track record and the verdict (IResolutionMarket v2)
// ------------------------------------------------------------------------------------------------

/** One seat's answer as recorded on-chain (IResolutionMarket.Answer: None, Abstained, No, Yes). */
export type AnswerKind = "failed" | "abstained" | "no" | "yes";

/**
 * IResolutionMarket.WorkerReport: posted with a proposal, one per seat in seat order. `confidenceBps` is the
 * stated probability (5000..10000) that a yes/no answer is right, 0 otherwise; scores are 0..100, 0 unless answered.
 */
export interface WorkerReport {
  answer: AnswerKind;
  confidenceBps: number;
  resQuality: number;
  srcQuality: number;
  analysisDepth: number;
  /** Hash of the agent's reply (docs/RECORDS.md §2); absent = zero (no reply hash known, e.g. other protocols). */
  replyHash?: Hex;
  /** The agent's verified EIP-712 signature; absent or "0x" = attested (only the proposer vouches). */
  signature?: Hex;
}

/** The verdict a proposal carries (IResolutionMarket.Verdict). */
export type VerdictKind = "no" | "yes" | "invalid";

/** One agent's answer in one finalized market of the public track record. */
export interface HistoryAnswer {
  agentId: bigint;
  answer: AnswerKind;
  /** 0 unless yes/no. */
  confidenceBps: number;
  /** The agent signed this answer (docs/RECORDS.md §2); false or absent: attested by the proposer only. */
  signed?: boolean;
}

/** One finalized market of the public track record (read from chain logs, oldest first). */
export interface HistoryMarket {
  /** Stable id: `${chainId}:${marketAddress lowercased}:${marketId}`. */
  key: string;
  /** Final status: the outcome when Resolved (true = YES), "invalid" otherwise (Invalid; Cancelled markets carry no answers). */
  final: boolean | "invalid";
  /** True when an arbiter decided the outcome: `final` is then known truth for the accuracy estimate. */
  disputed: boolean;
  answers: HistoryAnswer[];
  /** Position in the on-chain track-record hash chain (docs/RECORDS.md §3), when read from it. */
  index?: number;
  /** The address that ruled when disputed (the market's arbiter or the fallback); absent when undisputed. */
  arbiter?: Address;
  /** True when `arbiter` is on the deployment's arbiter allow-list: only then is `final` known truth (§4). */
  trustedRuling?: boolean;
  /** Reward pool plus every seat's stake, in wei, at the request (§5). */
  value?: bigint;
  /** The market's creator (§5: markets an agent's own controller created do not count for admission). */
  creator?: Address;
  /** Block timestamp of the finalization, seconds (recency weighting, §4). */
  finalizedAt?: number;
}

/** What the settlement module posts (IResolutionMarket.proposeResolution), built by the bundle stage. */
export interface VerdictProposal {
  marketId: bigint;
  verdict: VerdictKind;
  /** One per seat, seat order. */
  reports: WorkerReport[];
  bundleHash: Hex;
}
