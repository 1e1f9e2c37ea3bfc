/**
 * The cresolver wire messages (README.md), the only declaration of them: the adapter builds requests and parses
 * replies with these, the reference agent parses requests and checks its own replies, the conformance checker
 * judges an agent's replies. Runtime-neutral (the CRE workflow bundles it).
 */
import { z } from "zod";
import { MAX_ANSWER_SIGNATURE_BYTES } from "../../workflow/core/answer-signature.js";
import { ANSWER_LIMITS, marketIdField, optionalTextField, textField } from "../shared/wire-fields.js";

export const CRESOLVER_PROTOCOL = "cresolver";

export const CRESOLVER_LIMITS = {
  ...ANSWER_LIMITS,
  maxQuestionChars: 4_000,
  maxContextChars: 20_000,
  maxChallenges: 10,
  maxChallengeChars: 4_000,
} as const;

/** Deadlines the spec gives the agent. */
export const CRESOLVER_TIMEOUTS = { resolveMs: 30_000, challengeMs: 15_000 } as const;

const nonBlank = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => s.trim().length > 0, { message: "must not be blank" });

/** POST /a2a/resolve body, as an agent parses it (market_id: JSON number ≤ 2^53-1 or decimal string). */
export const resolveRequestSchema = z.object(
  {
    market_id: marketIdField(true),
    question: textField(CRESOLVER_LIMITS.maxQuestionChars),
    deadline: z
      .number({ error: "must be a number (Unix seconds)" })
      .int("must be an integer (Unix seconds)")
      .nonnegative("must not be negative")
      .nullish()
      .transform((v) => v ?? undefined),
    context: optionalTextField(CRESOLVER_LIMITS.maxContextChars),
    // Our additions (README.md "Signed answers"): what an agent needs to sign its answer. Agents may ignore them.
    chain_id: z
      .number({ error: "must be a number" })
      .int("must be an integer")
      .positive("must be positive")
      .max(Number.MAX_SAFE_INTEGER)
      .nullish()
      .transform((v) => v ?? undefined),
    market_address: z
      .string({ error: "must be a string" })
      .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte address")
      .nullish()
      .transform((v) => (v ?? undefined) as `0x${string}` | undefined),
    agent_id: marketIdField(false),
  },
  { error: "must be a JSON object" },
);

/** The resolve body as the platform sends it (market_id, agent_id: see marketIdForWire). */
export interface ResolveRequestWire {
  market_id: number | bigint;
  question: string;
  deadline: number;
  context?: string;
  chain_id?: number;
  market_address?: string;
  agent_id?: number | bigint;
}

/** POST /a2a/challenge body. market_id and question are our extensions (agents following the spec ignore them). */
export const challengeRequestSchema = z.object(
  {
    challenges: z
      .array(textField(CRESOLVER_LIMITS.maxChallengeChars), {
        error: (iss) => (iss.input === undefined ? "required" : "must be an array of strings"),
      })
      .min(1, "must contain at least 1 challenge")
      .max(CRESOLVER_LIMITS.maxChallenges, `must contain at most ${CRESOLVER_LIMITS.maxChallenges} challenges`),
    market_id: marketIdField(false),
    question: optionalTextField(CRESOLVER_LIMITS.maxQuestionChars),
  },
  { error: "must be a JSON object" },
);

export interface ChallengeRequestWire {
  market_id: number | bigint;
  question: string;
  challenges: string[];
}

/** Longest signature text kept from a reply: one character over the cap, so the check still reports it too long. */
const MAX_SIGNATURE_CHARS = 2 + 2 * MAX_ANSWER_SIGNATURE_BYTES + 1;

/**
 * An answer signature on the wire. A bad one never makes the reply invalid: anything present is kept as text (a
 * non-string as "invalid", long text clipped) and the pipeline's check turns it into an attested seat with a reason.
 */
const signatureField = z
  .unknown()
  .optional()
  .transform((v) =>
    v === undefined || v === null ? undefined : typeof v === "string" ? v.slice(0, MAX_SIGNATURE_CHARS) : "invalid",
  );

/** A well-formed signature (what the reference agent sends and the conformance checker expects). */
export const SIGNATURE_PATTERN = /^0x(?:[0-9a-fA-F]{2})+$/;

/**
 * The resolve reply: strict (no coercion), unknown fields dropped. `signature` (our addition) is the agent's EIP-712
 * signature of its answer (workflow/core/answer-signature.ts); a reply without it is valid (attested).
 */
export const resolveReplySchema = z.object({
  determination: z.boolean(),
  confidence: z.number().min(0).max(1),
  evidence: nonBlank(CRESOLVER_LIMITS.maxEvidenceLength),
  sources: z.array(nonBlank(CRESOLVER_LIMITS.maxSourceLength)).min(1).max(CRESOLVER_LIMITS.maxSources),
  signature: signatureField.optional(),
});
export type ResolveReply = z.infer<typeof resolveReplySchema>;

/** The challenge reply: one response per challenge, in order. */
export const challengeReplySchema = z.object({
  responses: z.array(z.string().max(CRESOLVER_LIMITS.maxReplyLength)).max(CRESOLVER_LIMITS.maxChallengeReplies),
});
export type ChallengeReply = z.infer<typeof challengeReplySchema>;

/** Sends the id as a plain number when it is a safe integer, otherwise as an exact big integer literal. */
export function marketIdForWire(id: bigint): number | bigint {
  return id <= BigInt(Number.MAX_SAFE_INTEGER) && id >= 0n ? Number(id) : id;
}
