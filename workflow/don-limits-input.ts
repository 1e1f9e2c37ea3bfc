/**
 * The DON limits as a configuration gives them (every field optional, the published quotas for the rest): the one
 * schema of the CRE workflow config's `limits` key (cre/resolution/config.ts) and of `cresolver daemon --don-limits`,
 * so a daemon in DON-compatible mode and the DON it matches read the same JSON the same way.
 */
import { z } from "zod";
import { DEFAULT_DON_LIMITS, type DonLimits } from "./don-limits.js";

const positiveInt = z.number().int().positive();

export const donLimitsInputSchema = z
  .object({
    httpCalls: positiveInt.optional(),
    consensusCalls: positiveInt.min(2).optional(),
    chainReads: positiveInt.optional(),
    callTimeoutMs: positiveInt.max(60_000).optional(),
    maxReplyBytes: positiveInt.optional(),
    maxResponseBytes: positiveInt.optional(),
    maxRequestBytes: positiveInt.optional(),
    maxObservationBytes: positiveInt.optional(),
    maxReportBytes: positiveInt.optional(),
    gasLimit: positiveInt.optional(),
  })
  .strict();

export type DonLimitsInput = z.input<typeof donLimitsInputSchema>;

/** The published quotas with the given ones in their place. */
export function donLimitsOf(input: z.output<typeof donLimitsInputSchema>): DonLimits {
  return {
    ...DEFAULT_DON_LIMITS,
    ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)),
  };
}
