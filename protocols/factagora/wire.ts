/**
 * Factagora BYOA wire format (README.md), the only declaration of it: constants and limits, the prediction
 * request (zod, as an agent parses it), the response types and validateFactagoraResponse, which applies every
 * rule of the spec's "Response Validation" section (violations) and its soft quality checks (warnings). Shared by
 * the adapter, mapping.ts, the reference agent and the conformance checker. No I/O.
 */
import { z } from "zod";
import { textField } from "../shared/wire-fields.js";

export const FACTAGORA_PROTOCOL = "factagora";

export const FACTAGORA_LIMITS = {
  /** Spec: "respond within 30 seconds". */
  timeoutMs: 30_000,
  /** Spec: "We will retry up to 2 times with exponential backoff" (on HTTP 500). */
  maxRetries: 2,
  retryBaseDelayMs: 1_000,
  thoughtMin: 20,
  thoughtMax: 2_000,
  actionsMin: 1,
  actionsMax: 10,
  observationsMin: 1,
  observationsMax: 20,
  evidenceMin: 1,
  evidenceMax: 10,
  reasoningMax: 1_000,
  evidenceDescriptionMax: 200,
  /** Soft checks. */
  briefSynthesis: 100,
  fewEvidence: 3,
  highConfidence: 0.95,
  highReliability: 0.9,
  /** Ours: sources kept, like the CRE adapter. */
  maxSources: 32,
  maxSourceLength: 2_048,
  /** Ours: cap of the rendered evidence text and of each string kept in extras. */
  maxEvidenceLength: 50_000,
  maxExtrasString: 2_000,
  /** Ours: reasoning of one peer shown in round 2. */
  maxPeerReasoning: 4_000,
  maxPeerEvidence: 10,
} as const;

export const FACTAGORA_POSITIONS = ["YES", "NO", "NEUTRAL"] as const;
export type FactagoraPosition = (typeof FACTAGORA_POSITIONS)[number];
export const FACTAGORA_ACTION_TYPES = [
  "web_search",
  "api_call",
  "database_query",
  "agent_review",
  "calculation",
  "document_analysis",
] as const;
export const FACTAGORA_EVIDENCE_TYPES = ["link", "data", "citation"] as const;

/** Line that separates the market context from the round-2 challenges in the description. */
export const ROUND2_MARKER = "=== ROUND 2: CHALLENGES FROM THE RESOLVER ===";
/** Description sent when the market has no context (the spec requires a description). */
export const NO_CONTEXT_DESCRIPTION =
  "No additional context was provided for this market; resolve the question exactly as stated in the title.";
export const RESOLUTION_CRITERIA =
  "Resolves YES if the event described in the title happens by the deadline (UTC), NO otherwise. Answer YES or NO; NEUTRAL counts as an abstention (no vote).";

// ------------------------------------------------------------------------------------------ wire types

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

const optionalString = (max: number) =>
  z
    .string({ error: "must be a string" })
    .max(max, `must be at most ${max} characters`)
    .nullish()
    .transform((v) => v ?? undefined);

/** The prediction request as an agent parses it (violations → 400 INVALID_PREDICTION naming the field). */
export const predictionRequestSchema = z.object(
  {
    predictionId: textField(200),
    title: textField(4_000),
    description: z
      .string({ error: (iss) => (iss.input === undefined ? "required" : "must be a string") })
      .max(20_000, "must be at most 20000 characters"),
    deadline: z
      .string({ error: (iss) => (iss.input === undefined ? "required" : "must be an ISO 8601 string") })
      .refine(
        (s) => ISO_8601.test(s) && !Number.isNaN(Date.parse(s)),
        "must be an ISO 8601 timestamp with a time zone, e.g. 2026-12-31T23:59:59Z",
      ),
    roundNumber: z
      .number({ error: (iss) => (iss.input === undefined ? "required" : "must be a number") })
      .int("must be an integer")
      .min(1, "must be 1..10")
      .max(10, "must be 1..10"),
    category: optionalString(100),
    // Any number of entries, each read leniently by the receiver: one bad argument must not fail the request.
    existingArguments: z.unknown().optional(),
    metadata: z
      .object(
        { resolutionCriteria: optionalString(4_000), sourceLinks: z.array(z.string().max(2_048)).max(20).nullish() },
        { error: "must be an object" },
      )
      .nullish(),
  },
  { error: "must be a JSON object" },
);
export type PredictionRequest = z.infer<typeof predictionRequestSchema>;

export interface FactagoraEvidence {
  type: string;
  title: string;
  url?: string;
  description?: string;
  reliability?: number;
}

export interface FactagoraAction {
  type: string;
  query: string;
  result: string;
  source?: string;
  timestamp?: string;
}

export interface FactagoraArgument {
  agentName: string;
  position: FactagoraPosition;
  confidence: number;
  reasoning: string;
  evidence?: FactagoraEvidence[];
}

export interface FactagoraRequest {
  predictionId: string;
  title: string;
  description: string;
  category?: string;
  deadline: string;
  roundNumber: number;
  existingArguments?: FactagoraArgument[];
  metadata?: { resolutionCriteria?: string; sourceLinks?: string[] };
}

export interface FactagoraResponse {
  position: FactagoraPosition;
  confidence: number;
  reactCycle: {
    initialThought: string;
    actions: FactagoraAction[];
    observations: string[];
    synthesisThought: string;
    evidence: FactagoraEvidence[];
  };
  reasoning?: string;
  limitations?: string[];
  confidence_breakdown?: { data_quality?: number; source_reliability?: number; time_horizon?: number };
}

/** A rule finding; same shape as the conformance checker's. Messages are our own words, never agent text. */
export interface FactagoraRuleFinding {
  rule: string;
  severity: "violation" | "warning";
  message: string;
}

export interface FactagoraValidation {
  violations: FactagoraRuleFinding[];
  warnings: FactagoraRuleFinding[];
  /** Present when there is no violation: the reply reduced to the spec's fields (well-typed optional fields only). */
  value?: FactagoraResponse;
}

// ------------------------------------------------------------------------------------------ validation

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const inUnit = (v: unknown): v is number => isNum(v) && v >= 0 && v <= 1;

/**
 * Checks a parsed reply against every rule of the spec's "Response Validation" section (violations) and
 * its soft quality checks plus the documented limits of optional fields (warnings). Never throws.
 */
export function validateFactagoraResponse(body: unknown): FactagoraValidation {
  const violations: FactagoraRuleFinding[] = [];
  const warnings: FactagoraRuleFinding[] = [];
  const bad = (rule: string, message: string) => violations.push({ rule, severity: "violation", message });
  const warn = (rule: string, message: string) => warnings.push({ rule, severity: "warning", message });
  const L = FACTAGORA_LIMITS;

  if (!isObject(body)) {
    bad("factagora.response.object", "the reply must be a JSON object");
    return { violations, warnings };
  }

  const position = body.position;
  if (typeof position !== "string" || !(FACTAGORA_POSITIONS as readonly string[]).includes(position)) {
    bad("factagora.response.position", 'position must be exactly "YES", "NO" or "NEUTRAL" (case-sensitive)');
  }

  const confidence = body.confidence;
  if (!isNum(confidence)) bad("factagora.response.confidence", "confidence must be a number");
  else if (confidence < 0 || confidence > 1)
    bad("factagora.response.confidence", "confidence must be between 0.0 and 1.0 (inclusive)");
  else if (Math.abs(Math.round(confidence * 100) - confidence * 100) > 1e-9) {
    warn("factagora.quality.confidence-precision", "confidence has more than 2 decimal places (2 recommended)");
  }

  const cycle = body.reactCycle;
  const thought = (field: "initialThought" | "synthesisThought", v: unknown): string | undefined => {
    const rule = `factagora.response.reactCycle.${field}`;
    if (typeof v !== "string" || v.trim() === "")
      return void bad(rule, `reactCycle.${field} must be a non-empty string`);
    if (v.length < L.thoughtMin)
      return void bad(rule, `reactCycle.${field} must be at least ${L.thoughtMin} characters`);
    if (v.length > L.thoughtMax)
      return void bad(rule, `reactCycle.${field} must be at most ${L.thoughtMax} characters`);
    return v;
  };
  /** The items of reactCycle.<field> that are objects with every `required` field a string; the rest are violations. */
  const wellFormed = (field: string, raw: unknown[] | undefined, required: readonly string[]) => {
    const rule = `factagora.response.reactCycle.${field}.item`;
    const items: [number, Record<string, unknown>][] = [];
    for (const [i, item] of (raw ?? []).entries()) {
      if (!isObject(item)) {
        bad(rule, `reactCycle.${field}[${i}] must be an object`);
        continue;
      }
      const missing = required.filter((k) => typeof item[k] !== "string");
      if (missing.length > 0) bad(rule, `reactCycle.${field}[${i}] must have ${missing.join(", ")} (strings)`);
      else items.push([i, item]);
    }
    return items;
  };
  const sized = (field: string, v: unknown, min: number, max: number, unit: string): unknown[] | undefined => {
    const rule = `factagora.response.reactCycle.${field}`;
    if (!Array.isArray(v)) return void bad(rule, `reactCycle.${field} must be an array`);
    if (v.length < min) return void bad(rule, `reactCycle.${field} must contain at least ${min} ${unit}`);
    if (v.length > max) return void bad(rule, `reactCycle.${field} must contain at most ${max} ${unit}s`);
    return v;
  };

  let initialThought: string | undefined;
  let synthesisThought: string | undefined;
  const actions: FactagoraAction[] = [];
  const observations: string[] = [];
  const evidence: FactagoraEvidence[] = [];

  if (!isObject(cycle)) {
    bad(
      "factagora.response.reactCycle",
      "reactCycle must be an object with initialThought, actions, observations, synthesisThought and evidence",
    );
  } else {
    initialThought = thought("initialThought", cycle.initialThought);

    const rawActions = sized("actions", cycle.actions, L.actionsMin, L.actionsMax, "action");
    for (const [i, a] of wellFormed("actions", rawActions, ["type", "query", "result"])) {
      const action: FactagoraAction = { type: a.type as string, query: a.query as string, result: a.result as string };
      if (!(FACTAGORA_ACTION_TYPES as readonly string[]).includes(action.type))
        warn("factagora.optional.action-type", `reactCycle.actions[${i}].type is not one of the spec's action types`);
      if (typeof a.source === "string") action.source = a.source;
      else if (a.source !== undefined && a.source !== null)
        warn("factagora.optional.action-source", `reactCycle.actions[${i}].source must be a string; ignored`);
      if (typeof a.timestamp === "string" && !Number.isNaN(Date.parse(a.timestamp))) action.timestamp = a.timestamp;
      else if (a.timestamp !== undefined && a.timestamp !== null)
        warn(
          "factagora.optional.action-timestamp",
          `reactCycle.actions[${i}].timestamp must be an ISO 8601 string; ignored`,
        );
      actions.push(action);
    }

    const rawObservations = sized(
      "observations",
      cycle.observations,
      L.observationsMin,
      L.observationsMax,
      "observation",
    );
    if (Array.isArray(cycle.observations) && cycle.observations.length === 0)
      warn("factagora.quality.observations-empty", "observations array is empty");
    for (const [i, o] of (rawObservations ?? []).entries()) {
      if (typeof o === "string") observations.push(o);
      else bad("factagora.response.reactCycle.observations.item", `reactCycle.observations[${i}] must be a string`);
    }

    synthesisThought = thought("synthesisThought", cycle.synthesisThought);
    if (synthesisThought !== undefined && synthesisThought.length < L.briefSynthesis) {
      warn("factagora.quality.synthesis-length", `synthesisThought is brief (< ${L.briefSynthesis} characters)`);
    }

    const rawEvidence = sized("evidence", cycle.evidence, L.evidenceMin, L.evidenceMax, "evidence item");
    for (const [i, e] of wellFormed("evidence", rawEvidence, ["type", "title"])) {
      const item: FactagoraEvidence = { type: e.type as string, title: e.title as string };
      if (!(FACTAGORA_EVIDENCE_TYPES as readonly string[]).includes(item.type))
        warn("factagora.optional.evidence-type", `reactCycle.evidence[${i}].type is not "link", "data" or "citation"`);
      if (typeof e.url === "string") item.url = e.url;
      else if (e.url !== undefined && e.url !== null)
        warn("factagora.optional.evidence-url", `reactCycle.evidence[${i}].url must be a string; ignored`);
      if (typeof e.description === "string") {
        item.description = e.description;
        if (e.description.length > L.evidenceDescriptionMax)
          warn(
            "factagora.optional.evidence-description",
            `reactCycle.evidence[${i}].description is longer than ${L.evidenceDescriptionMax} characters`,
          );
      } else if (e.description !== undefined && e.description !== null)
        warn(
          "factagora.optional.evidence-description",
          `reactCycle.evidence[${i}].description must be a string; ignored`,
        );
      if (inUnit(e.reliability)) item.reliability = e.reliability;
      else if (e.reliability !== undefined && e.reliability !== null)
        warn(
          "factagora.optional.evidence-reliability",
          `reactCycle.evidence[${i}].reliability must be a number in [0, 1]; ignored`,
        );
      evidence.push(item);
    }
  }

  // Optional fields: wrong types are warnings and the field is dropped.
  const out: Partial<FactagoraResponse> = {};
  if (typeof body.reasoning === "string") {
    out.reasoning = body.reasoning;
    if (body.reasoning.length > L.reasoningMax)
      warn("factagora.optional.reasoning", `reasoning is longer than ${L.reasoningMax} characters`);
  } else if (body.reasoning !== undefined && body.reasoning !== null)
    warn("factagora.optional.reasoning", "reasoning must be a string; ignored");
  if (Array.isArray(body.limitations) && body.limitations.every((x) => typeof x === "string"))
    out.limitations = body.limitations as string[];
  else if (body.limitations !== undefined && body.limitations !== null)
    warn("factagora.optional.limitations", "limitations must be an array of strings; ignored");
  const cb = body.confidence_breakdown;
  if (isObject(cb)) {
    const keys = ["data_quality", "source_reliability", "time_horizon"] as const;
    if (keys.every((k) => cb[k] === undefined || inUnit(cb[k]))) {
      const kept: NonNullable<FactagoraResponse["confidence_breakdown"]> = {};
      for (const k of keys) if (inUnit(cb[k])) kept[k] = cb[k];
      out.confidence_breakdown = kept;
    } else
      warn("factagora.optional.confidence_breakdown", "confidence_breakdown values must be numbers in [0, 1]; ignored");
  } else if (cb !== undefined && cb !== null)
    warn("factagora.optional.confidence_breakdown", "confidence_breakdown must be an object; ignored");

  if (violations.length > 0) return { violations, warnings };

  // Soft quality checks of the spec (only meaningful on a valid reply).
  const conf = confidence as number;
  if (conf > L.highConfidence && !evidence.some((e) => (e.reliability ?? 0) >= L.highReliability)) {
    warn(
      "factagora.quality.high-confidence-evidence",
      `confidence > ${L.highConfidence} without high-reliability evidence (reliability ≥ ${L.highReliability})`,
    );
  }
  if (evidence.length < L.fewEvidence)
    warn("factagora.quality.evidence-count", `fewer than ${L.fewEvidence} evidence items`);
  if (!actions.some((a) => a.type === "web_search"))
    warn("factagora.quality.web-search", "no web_search actions for external claims");

  const value: FactagoraResponse = {
    position: position as FactagoraPosition,
    confidence: conf,
    reactCycle: {
      initialThought: initialThought as string,
      actions,
      observations,
      synthesisThought: synthesisThought as string,
      evidence,
    },
    ...out,
  };
  if (sourcesOf(value).length === 0)
    warn(
      "factagora.sources.none",
      "no evidence url or action source: the answer has no sources (Source Quality scores it low)",
    );
  return { violations, warnings, value };
}

/** "factagora.response.position: …; factagora.response.confidence: …" (at most 3, then "…"). */
export function describeViolations(violations: readonly FactagoraRuleFinding[]): string {
  const shown = violations.slice(0, 3).map((v) => `${v.rule}: ${v.message}`);
  return `factagora reply violates ${shown.join("; ")}${violations.length > 3 ? `; … (${violations.length} violations)` : ""}`;
}

/** Sources: evidence urls, then action sources; trimmed, non-blank, ≤ 2,048 chars, deduplicated, ≤ 32. */
export function sourcesOf(reply: FactagoraResponse): string[] {
  const out: string[] = [];
  const add = (s: string | undefined) => {
    if (s === undefined) return;
    const t = s.trim();
    if (
      t === "" ||
      t.length > FACTAGORA_LIMITS.maxSourceLength ||
      out.includes(t) ||
      out.length >= FACTAGORA_LIMITS.maxSources
    )
      return;
    out.push(t);
  };
  for (const e of reply.reactCycle.evidence) add(e.url);
  for (const a of reply.reactCycle.actions) add(a.source);
  return out;
}
