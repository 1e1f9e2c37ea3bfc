/**
 * Round-table wire format: the protocol name, the spec's limits and the strict zod schemas of the three
 * replies (AgentAnalysis, AgentChallenge, AgentVote). Split out of roundtable.ts so the request builders,
 * the reading rules, the adapter and the conformance checker share one definition of what a valid reply is.
 */
import { z } from "zod";

export const ROUNDTABLE_PROTOCOL = "roundtable";

export const ROUNDTABLE_LIMITS = {
  /** Per phase (spec: 120 s, configurable). */
  timeoutMs: 120_000,
  /** Reply body cap (spec). */
  maxResponseBytes: 5 * 1024 * 1024,
  /** Per-field string cap (spec). */
  maxStringLength: 50_000,
  /** Observations read from one analysis; later ones are dropped (recorded as a warning). */
  maxObservations: 100,
  /** Recommendations / challenge items / concessions / conditions kept from one reply. */
  maxItems: 64,
  /** Sources kept from one analysis (like the CRE adapter). */
  maxSources: 32,
  maxSourceLength: 2_048,
  /** What we send: the task content (question + context). */
  maxContentChars: 20_000,
  /** What we send about other workers (keeps requests well under a typical 64 KiB body limit). */
  maxPeers: 10,
  maxPeerEvidenceChars: 2_000,
  maxPeerSources: 4,
  maxPeerSourceChars: 300,
  maxMinorityViewChars: 500,
} as const;

// ---------------------------------------------------------------------------------------------------
// Reply schemas (strict types, no coercion; null = absent for optional fields).

const str = z.string();
const nonBlank = z.string().refine((s) => s.trim().length > 0, { message: "must not be blank" });
const optional = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);
const unit = z.number().min(0).max(1);

export const SEVERITIES = ["critical", "warning", "info"] as const;

export const observationSchema = z.object({
  finding: nonBlank,
  evidence: str,
  // Case-insensitive on input (an LLM writing "Critical" still means it); stored lower-case.
  severity: str.transform((s) => s.toLowerCase()).pipe(z.enum(SEVERITIES)),
  confidence: optional(unit),
});
export type Observation = z.output<typeof observationSchema>;

export const recommendationSchema = z.object({
  action: optional(str),
  rationale: optional(str),
  priority: optional(str),
});

export const analysisReplySchema = z.object({
  agent_name: nonBlank,
  domain: str,
  observations: z.array(observationSchema),
  recommendations: optional(z.array(recommendationSchema)),
  confidence: optional(unit),
});
export type AnalysisReply = z.output<typeof analysisReplySchema>;

export const challengeItemSchema = z.object({
  target_agent: str,
  finding_challenged: str,
  counter_evidence: nonBlank,
});
export const concessionItemSchema = z.object({
  target_agent: str,
  finding_accepted: str,
  reason: nonBlank,
});
export const challengeReplySchema = z.object({
  agent_name: nonBlank,
  challenges: optional(z.array(challengeItemSchema)),
  concessions: optional(z.array(concessionItemSchema)),
});
export type ChallengeReply = z.output<typeof challengeReplySchema>;

export const voteReplySchema = z
  .object({
    agent_name: nonBlank,
    approve: z.boolean(),
    conditions: optional(z.array(str)),
    dissent_reason: optional(str),
  })
  .refine((v) => v.approve || (v.dissent_reason !== undefined && v.dissent_reason.trim().length > 0), {
    message: "dissent_reason is required when approve is false",
    path: ["dissent_reason"],
  });
export type VoteReply = z.output<typeof voteReplySchema>;
