/**
 * The schema of the resolution bundle document (core/bundle.ts `buildBundle` writes it, canonical JSON): the one
 * definition of its shape. The writer is typed by `BundleDocument`; every reader goes through `parseBundle`, which
 * also caps the size. Bigints are decimal strings here, as canonical JSON writes them. Objects are strict: a field
 * the writer adds without adding it here fails the bundle tests, not a reader later.
 */
import { z } from "zod";
import { parseJsonWith } from "../util/parse-json.js";
import { ANSWER_NAMES } from "./codes.js";
import { DIMENSIONS, type FailureKind } from "./types.js";
import { CresolverError } from "../util/errors.js";

export const BUNDLE_SCHEMA = "cresolver.resolution-bundle.v2";
/** The small document the daemon proposes invalid with when no run produced a bundle (daemon/proposals.ts). */
export const DAEMON_INVALID_SCHEMA = "cresolver.daemon-invalid.v1";
/** Largest bundle a resolver stores and serves (the daemon refuses bigger ones). */
export const MAX_BUNDLE_BYTES = 8 * 1024 * 1024;

/** More seats than any market can have (uint8 maxWorkers). */
const MAX_BUNDLE_SEATS = 256;

const FAILURE_KINDS = [
  "registration",
  "destination-refused",
  "timeout",
  "http-status",
  "network",
  "too-large",
  "invalid-response",
  "unsupported-protocol",
  "auth",
  "abstained",
] as const satisfies readonly FailureKind[];
// Compile-time: every FailureKind is listed.
type MissingFailureKind = Exclude<FailureKind, (typeof FAILURE_KINDS)[number]>;
const everyFailureKind: MissingFailureKind extends never ? true : never = true;
void everyFailureKind;

const decimal = z.string().regex(/^(0|[1-9][0-9]*)$/, "expected a decimal integer string");
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "expected a 0x-prefixed 20-byte address");
const hash32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "expected a 0x-prefixed 32-byte hash");
const count = z.int().nonnegative();
const bps = z.int().min(0).max(10_000);
const score = z.number().min(0).max(100);
const answerKind = z.enum(ANSWER_NAMES);
const verdictKind = z.enum(["no", "yes", "invalid"]);

const failure = z.strictObject({ kind: z.enum(FAILURE_KINDS), message: z.string() });

const evaluatorIdentity = z.strictObject({
  kind: z.enum(["rubric", "llm"]),
  model: z.string(),
  promptVersion: z.string(),
  seed: z.number(),
});

const hexBytes = z.string().regex(/^0x(?:[0-9a-fA-F]{2})*$/, "expected 0x-prefixed hex bytes");

const workerReport = z.strictObject({
  answer: answerKind,
  confidenceBps: bps,
  resQuality: score,
  srcQuality: score,
  analysisDepth: score,
  replyHash: hash32.optional(),
  signature: hexBytes.optional(),
});

/** An answer's signature check (docs/RECORDS.md §2): what anyone needs to re-verify it. */
const signatureCheck = z.strictObject({
  status: z.enum(["signed", "attested"]),
  replyHash: hash32,
  signature: hexBytes,
  signer: address.optional(),
  reason: z.string().optional(),
});

const dimensionScores = z.strictObject(
  Object.fromEntries(DIMENSIONS.map((d) => [d, z.strictObject({ score, explanation: z.string() })])) as Record<
    (typeof DIMENSIONS)[number],
    z.ZodObject<{ score: typeof score; explanation: z.ZodString }, z.core.$strict>
  >,
);

const bundleWorker = z.strictObject({
  seat: count,
  address,
  agentId: decimal,
  stake: decimal,
  endpoint: z.strictObject({ url: z.string(), protocol: z.string() }).optional(),
  status: z.enum(["answered", "no-answer"]),
  discoveryFailure: failure.optional(),
  askFailure: failure.optional(),
  answer: z
    .strictObject({
      determination: z.boolean(),
      confidence: z.number().min(0).max(1),
      evidence: z.string(),
      sources: z.array(z.string()),
      extras: z.unknown().optional(),
    })
    .optional(),
  signature: signatureCheck.optional(),
  challenges: z.array(z.string()).optional(),
  challengeReplies: z.array(z.string()).optional(),
  challengeFailure: failure.optional(),
  review: z
    .strictObject({
      approve: z.boolean(),
      conditions: z.array(z.string()),
      dissentReason: z.string().optional(),
      extras: z.unknown().optional(),
    })
    .optional(),
  reviewFailure: failure.optional(),
  evaluation: z
    .strictObject({
      dimensions: dimensionScores,
      aggregate: z.strictObject({ resQuality: score, srcQuality: score, analysisDepth: score }),
      fallbackReason: z.string().optional(),
    })
    .optional(),
  report: workerReport.optional(),
  rewardWeight: decimal.optional(),
  vote: z
    .strictObject({
      history: count,
      accuracy: z.number(),
      calibratedAccuracy: z.number(),
      weight: z.number(),
      unproven: z.boolean(),
      cloneGroup: decimal.optional(),
      excludedReason: z.string().optional(),
    })
    .optional(),
});

const outcome = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("resolved"), resolution: z.boolean() }),
  z.strictObject({ kind: z.literal("no-quorum"), answered: count, required: count }),
  z.strictObject({ kind: z.literal("no-margin"), yesWeight: z.number(), noWeight: z.number(), margin: z.number() }),
]);

const decision = z.strictObject({
  verdict: verdictKind,
  reason: z.enum(["no-quorum", "below-threshold", "tie", "fragile"]).optional(),
  posterior: z.number(),
  logOdds: z.number(),
  thresholdBps: bps,
  quorum: z.strictObject({ n: count, required: count, answered: count }),
  bloc: z.strictObject({
    voters: count,
    yes: count,
    no: count,
    side: z.enum(["yes", "no"]).nullable(),
    weight: z.number(),
  }),
  rewardWeights: z.array(decimal).max(MAX_BUNDLE_SEATS).optional(),
  fragility: z.strictObject({ coalition: z.array(decimal).max(MAX_BUNDLE_SEATS), restLogOdds: z.number() }).optional(),
});

const calibrationBin = z.strictObject({ fromBps: bps, toBps: bps, count, right: z.number(), accuracy: z.number() });

const estimates = z.strictObject({
  agents: z
    .array(
      z.strictObject({
        agentId: decimal,
        count,
        weight: z.number().optional(),
        right: z.number(),
        accuracy: z.number(),
        calibration: z.array(calibrationBin),
        cloneGroup: decimal.optional(),
        changedAfter: count.optional(),
      }),
    )
    .max(MAX_BUNDLE_SEATS),
  dependence: z
    .array(z.strictObject({ a: decimal, b: decimal, d: z.number() }))
    .max((MAX_BUNDLE_SEATS * (MAX_BUNDLE_SEATS - 1)) / 2)
    .optional(),
  sharedErrors: z
    .array(z.strictObject({ a: decimal, b: decimal, d: z.number() }))
    .max((MAX_BUNDLE_SEATS * (MAX_BUNDLE_SEATS - 1)) / 2)
    .optional(),
  markets: count,
  answers: count,
  knownTruths: count,
  iterations: count,
  converged: z.boolean(),
  history: z.strictObject({ markets: count, hash: hash32 }),
});

const voteConfig = z.strictObject({
  thresholdBps: bps,
  minHistory: count,
  unprovenAccuracy: z.number(),
  shrinkage: z.boolean(),
  coalitionK: count.optional(),
  coalitionDependence: z.number().optional(),
  coalitionRestBps: bps.optional(),
  accuracy: z.strictObject({
    priorAccuracy: z.number(),
    priorStrength: z.number(),
    maxIterations: count,
    tolerance: z.number(),
    confidenceBins: z.array(bps),
    calibrationStrength: z.number(),
    cloneAgreement: z.number(),
    cloneMinShared: count,
    maxMarkets: count,
    maxAccuracy: z.number(),
    halfLife: z.number().optional(),
    attestedWeight: z.number().optional(),
    outcomeLogOdds: z.number().optional(),
    dependenceMargin: z.number().optional(),
    dependenceOutlierZ: z.number().optional(),
    dependenceMinShared: count.optional(),
    errorHalfLife: z.number().optional(),
    errorMargin: z.number().optional(),
    errorInEstimate: z.boolean().optional(),
    changePenalty: z.number().optional(),
    changeMaxAgents: count.optional(),
    changeCandidates: count.optional(),
    changeMinKnownWrong: count.optional(),
    majorityPenalty: z.number().optional(),
    copyGroupPenalty: z.number().optional(),
    copyGroupMargin: z.number().optional(),
  }),
});

/** The resolution bundle document (`schema` = BUNDLE_SCHEMA). */
export const bundleDocumentSchema = z.strictObject({
  schema: z.literal(BUNDLE_SCHEMA),
  market: z.strictObject({
    chainId: z.int().positive(),
    marketAddress: address,
    marketId: decimal,
    question: z.string(),
    deadline: z.int(),
    context: z.string(),
    workerCount: count,
  }),
  quorum: z.strictObject({ n: count, required: count, answered: count, reached: z.boolean() }),
  evaluator: evaluatorIdentity.optional(),
  fallbackEvaluator: evaluatorIdentity.optional(),
  evaluationFallbackReason: z.string().optional(),
  workers: z.array(bundleWorker).max(MAX_BUNDLE_SEATS),
  outcome: outcome.optional(),
  decision: decision.optional(),
  estimates: estimates.optional(),
  voteConfig: voteConfig.optional(),
  review: z
    .strictObject({ advisory: z.literal(true), asked: count, approve: count, dissent: count, failed: count })
    .optional(),
  extra: z.unknown().optional(),
});
export type BundleDocument = z.infer<typeof bundleDocumentSchema>;
export type BundleWorker = BundleDocument["workers"][number];

/** The daemon's fallback document for an invalid proposal without a run (keys in canonical order). */
export const daemonInvalidDocumentSchema = z.strictObject({
  chainId: z.int().positive(),
  market: address,
  marketId: decimal,
  reason: z.string(),
  schema: z.literal(DAEMON_INVALID_SCHEMA),
});
export type DaemonInvalidDocument = z.infer<typeof daemonInvalidDocumentSchema>;

/** Anything a resolver stores and serves under /bundles/<hash>.json. */
export const storedBundleDocumentSchema = z.discriminatedUnion("schema", [
  bundleDocumentSchema,
  daemonInvalidDocumentSchema,
]);
export type StoredBundleDocument = z.infer<typeof storedBundleDocumentSchema>;

/** A bundle text that is not a valid document; the message is one line. */
export class InvalidBundleError extends CresolverError {
  override readonly name = "InvalidBundleError";
}

function parseWith<T>(schema: z.ZodType<T>, text: string, maxBytes: number): T {
  if (typeof text !== "string") throw new InvalidBundleError("bundle: expected JSON text");
  // UTF-8 is at most 3 bytes per UTF-16 unit: skip the exact count when the text is clearly small.
  const bytes = text.length * 3 <= maxBytes ? text.length : utf8Length(text);
  if (bytes > maxBytes) throw new InvalidBundleError(`bundle: ${bytes} bytes, more than the ${maxBytes} allowed`);
  return parseJsonWith(schema, text, (why) => {
    if (why.kind === "not-json") return new InvalidBundleError(`bundle: not JSON (${oneLine(why.message)})`);
    const where = why.path !== "" ? `at ${why.path}: ` : "";
    const more = why.more > 0 ? ` (and ${why.more} more)` : "";
    return new InvalidBundleError(`bundle: ${where}${oneLine(why.message)}${more}`);
  });
}

/** UTF-8 byte length without Node's Buffer (the schema is also read in browsers). */
function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

const oneLine = (s: string): string => s.replace(/\s+/g, " ").slice(0, 300);

/** Parses and validates a resolution bundle's text. Throws InvalidBundleError (one-line message). */
export function parseBundle(text: string, maxBytes: number = MAX_BUNDLE_BYTES): BundleDocument {
  return parseWith(bundleDocumentSchema, text, maxBytes);
}

/** Parses a stored bundle: a resolution bundle or the daemon's fallback invalid document. */
export function parseStoredBundle(text: string, maxBytes: number = MAX_BUNDLE_BYTES): StoredBundleDocument {
  return parseWith(storedBundleDocumentSchema, text, maxBytes);
}
