/**
 * zod schemas for the values a proposal carries (IResolutionMarket.WorkerReport and its hashes), for input read
 * back from storage or files before it is sent on-chain. Typed as the core types (`Hex`, `WorkerReport`), so a
 * parse needs no cast.
 */
import { z } from "zod";
import type { Hex, WorkerReport } from "./types.js";

const HASH32 = /^0x[0-9a-fA-F]{64}$/;
const HEX_BYTES = /^0x(?:[0-9a-fA-F]{2})*$/;

/** A 0x-prefixed 32-byte hash. */
export const hash32Schema = z.custom<Hex>((v) => typeof v === "string" && HASH32.test(v), {
  message: "must be 0x + 64 hex digits",
});

/** 0x-prefixed hex bytes (an even number of digits). */
export const hexBytesSchema = z.custom<Hex>((v) => typeof v === "string" && HEX_BYTES.test(v), {
  message: "must be 0x-prefixed hex bytes",
});

/** One seat's WorkerReport as proposeResolution takes it. */
export const workerReportSchema = z.object({
  answer: z.enum(["failed", "abstained", "no", "yes"]),
  confidenceBps: z.number().int().min(0).max(10_000),
  resQuality: z.number().int().min(0).max(100),
  srcQuality: z.number().int().min(0).max(100),
  analysisDepth: z.number().int().min(0).max(100),
  replyHash: hash32Schema.exactOptional(),
  signature: hexBytesSchema.exactOptional(),
}) satisfies z.ZodType<WorkerReport>;
