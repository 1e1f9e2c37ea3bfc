/** Field schemas several protocols' wire.ts share (zod; runtime-neutral). */
import { z } from "zod";

/** Optional-or-null → undefined. */
const absent = (v: unknown): boolean => v === undefined || v === null;

const MAX_UINT256 = (1n << 256n) - 1n;

/** Caps on a worker's answer that the answer-shaped protocols (cresolver, AI Olympics) share. */
export const ANSWER_LIMITS = {
  maxSources: 32,
  maxSourceLength: 2_048,
  maxEvidenceLength: 50_000,
  maxChallengeReplies: 16,
  maxReplyLength: 50_000,
} as const;

/**
 * A market id: a non-negative integer sent as a JSON number (up to 2^53 - 1) or as a decimal string of
 * digits (any uint256, the form to use for ids beyond 2^53 - 1). Parsed to bigint.
 */
export function marketIdField(required: true): z.ZodType<bigint, unknown>;
export function marketIdField(required: false): z.ZodType<bigint | undefined, unknown>;
export function marketIdField(required: boolean): z.ZodType<bigint | undefined, unknown> {
  return z
    .unknown()
    .optional()
    .transform((v, ctx): bigint | undefined => {
      if (absent(v)) {
        if (!required) return undefined;
        ctx.addIssue({ code: "custom", message: "required" });
        return z.NEVER;
      }
      if (typeof v === "number") {
        if (Number.isSafeInteger(v) && v >= 0) return BigInt(v);
        ctx.addIssue({
          code: "custom",
          message: "must be a non-negative integer no larger than 2^53-1 (send larger ids as a decimal string)",
        });
        return z.NEVER;
      }
      if (typeof v === "string") {
        if (/^[0-9]{1,78}$/.test(v)) {
          const id = BigInt(v);
          if (id <= MAX_UINT256) return id;
        }
        ctx.addIssue({ code: "custom", message: "must be a decimal string of digits representing a uint256" });
        return z.NEVER;
      }
      ctx.addIssue({ code: "custom", message: "must be a non-negative integer (JSON number) or a decimal string" });
      return z.NEVER;
    });
}

/** A required, non-blank string of at most `max` UTF-16 code units. */
export function textField(max: number) {
  return z
    .string({ error: (iss) => (iss.input === undefined ? "required" : "must be a string") })
    .max(max, `must be at most ${max} characters`)
    .refine((s) => s.trim().length > 0, "must not be empty");
}

/** An optional string (null accepted as absent) of at most `max` characters. */
export function optionalTextField(max: number) {
  return z
    .string({ error: "must be a string" })
    .max(max, `must be at most ${max} characters`)
    .nullish()
    .transform((v) => v ?? undefined);
}

/** One line naming the first few schema issues of an untrusted message (for InvalidReplyError and 400s). */
export function describeIssues(what: string, error: z.ZodError): string {
  const issues = error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
  return `${what} does not match the protocol: ${issues.join("; ")}${error.issues.length > 3 ? "; …" : ""}`;
}
