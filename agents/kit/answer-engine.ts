/**
 * Protocol-independent vocabulary of the reference agent's answer engines.
 * Protocol handlers (protocols/<name>/agent.ts) translate their wire format to and from these types.
 */
import { CresolverError } from "../../workflow/util/errors.js";

/** A market question as any protocol hands it to the engine. */
export interface Question {
  /** On-chain market identifier (uint256). */
  marketId: bigint;
  /** The market question, as asked. */
  question: string;
  /** Unix seconds of the market deadline, when known. */
  deadline?: number | undefined;
  /** Additional context supplied by the resolver (may be empty). */
  context?: string | undefined;
}

/** The engine's answer to a question. A superset of the CRE A2A resolve response. */
export interface Finding {
  /** true = YES, false = NO. */
  determination: boolean;
  /** In [0, 1]. */
  confidence: number;
  /** Multi-sentence analysis supporting the determination. */
  evidence: string;
  /** At least one URL or reference. */
  sources: string[];
  /** Short standalone claims drawn from the analysis (for protocols that want observations/arguments). */
  observations: string[];
  /** Salient terms of the question the analysis is about. */
  keyTerms: string[];
}

export const PERSONAS = ["analyst", "skeptic", "contrarian", "optimist"] as const;
export type PersonaName = (typeof PERSONAS)[number];

export type EngineMode = "offline" | "llm";

/** Answers questions and defends its answers. Knows nothing about HTTP or wire formats. */
export interface AnswerEngine {
  readonly mode: EngineMode;
  readonly persona: PersonaName;
  /** Investigate a question. Same question (and, in LLM mode, same market) → same finding. */
  investigate(q: Question): Promise<Finding>;
  /** One reply per challenge, in order, defending or conceding `finding` (the engine's own answer to `q`). */
  defend(q: Question, finding: Finding, challenges: string[]): Promise<string[]>;
}

/**
 * The upstream (LLM endpoint) failed or produced something unusable. Protocol modules answer 502 with
 * `message`, which is sanitized: no secrets, no stack, capped length.
 */
export class EngineUpstreamError extends CresolverError {
  readonly statusCode = 502;
  constructor(
    message: string,
    readonly kind: "upstream" | "invalid-output",
  ) {
    super(message);
    this.name = "EngineUpstreamError";
  }
}
