/**
 * Round-table wire format (README.md), the only declaration of it: the protocol name, the spec's limits, the
 * three requests as an agent parses them and the strict zod schemas of the three replies (AgentAnalysis,
 * AgentChallenge, AgentVote), shared by the adapter, the reference agent and the conformance checker.
 */
import { z } from "zod";
import { textField } from "../shared/wire-fields.js";

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

/** The replies as an agent writes them (the schemas' input side). */
export type AnalysisReplyWire = z.input<typeof analysisReplySchema>;
export type ChallengeReplyWire = z.input<typeof challengeReplySchema>;
export type VoteReplyWire = z.input<typeof voteReplySchema>;

// ---------------------------------------------------------------------------------------------------
// Request schemas (as an agent parses them).

export const MAX_TASK_ID_CHARS = 200;
export const MAX_CONTENT_CHARS = 50_000;
export const MAX_ANALYSES = 50;
export const MAX_RESOLVER_CHALLENGES = 10;

const optionalArray = <T extends z.ZodType>(item: T, max: number) =>
  z
    .array(item, { error: "must be an array" })
    .max(max, `must contain at most ${max} items`)
    .nullish()
    .transform((v) => v ?? []);

/** POST /analyze body, as an agent parses it (violations → 400 naming the field; unknown fields ignored). */
export const analyzeRequestSchema = z.object(
  {
    task_id: textField(MAX_TASK_ID_CHARS),
    content: textField(MAX_CONTENT_CHARS),
    context: z
      .record(z.string(), z.unknown(), { error: "must be an object" })
      .nullish()
      .transform((v) => v ?? {}),
    constraints: optionalArray(z.string({ error: "must be a string" }).max(4_000), 50),
  },
  { error: "must be a JSON object" },
);

const OtherObservation = z.looseObject({
  finding: z.string({ error: "must be a string" }).max(MAX_CONTENT_CHARS),
  evidence: z.string({ error: "must be a string" }).max(MAX_CONTENT_CHARS).nullish(),
});

/** POST /challenge body (resolver_challenges: our extension). */
export const challengeRequestSchema = z.object(
  {
    task_id: textField(MAX_TASK_ID_CHARS),
    content: textField(MAX_CONTENT_CHARS),
    other_analyses: z
      .array(
        z.looseObject({
          agent_name: textField(200),
          observations: optionalArray(OtherObservation, 200),
        }),
        { error: (iss) => (iss.input === undefined ? "required" : "must be an array") },
      )
      .max(MAX_ANALYSES, `must contain at most ${MAX_ANALYSES} analyses`),
    resolver_challenges: optionalArray(textField(4_000), MAX_RESOLVER_CHALLENGES),
  },
  { error: "must be a JSON object" },
);

/** POST /vote body. */
export const voteRequestSchema = z.object(
  {
    task_id: textField(MAX_TASK_ID_CHARS),
    content: textField(MAX_CONTENT_CHARS),
    synthesis: z.looseObject(
      {
        // The platform sends "" when its synthesis has no direction: that is an answerable vote (dissent), not a bad request.
        recommended_direction: z
          .string({ error: (iss) => (iss.input === undefined ? "required" : "must be a string") })
          .max(MAX_CONTENT_CHARS, `must be at most ${MAX_CONTENT_CHARS} characters`)
          .nullable()
          .transform((v) => v ?? ""),
        trade_offs: optionalArray(z.unknown(), 100),
        minority_views: optionalArray(z.unknown(), 100),
      },
      { error: (iss) => (iss.input === undefined ? "required" : "must be an object") },
    ),
  },
  { error: "must be a JSON object" },
);
