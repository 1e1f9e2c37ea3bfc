/**
 * Factagora BYOA ("Bring Your Own Agent", ../shared/specs/factagora-byoa.md). The resolver plays the
 * Factagora platform: it POSTs a prediction request to the agent's webhook and reads back a position
 * (YES/NO/NEUTRAL), a confidence and a ReAct cycle. Mapping (docs/protocols/factagora.md):
 *
 * - Endpoint: the registered endpoint IS the webhook URL (the spec registers "your webhook URL"); it is
 *   POSTed to as is (fragment dropped), nothing is appended.
 * - Ask = round 1: predictionId (UUID v5 of the namespace and the market id, see predictionIdFor),
 *   title = question, description = context (a fixed sentence when the market has none), category,
 *   ISO deadline, roundNumber 1, existingArguments [], metadata.resolutionCriteria.
 * - Challenge = round 2: same predictionId/title/deadline, existingArguments = the other answering workers
 *   as "Worker A", "Worker B", … (peers are already anonymised and canonically ordered), and the
 *   challenges folded into the description after a fixed marker line, numbered "Challenge 1: …".
 *   Reply i is the `result` of an `agent_review` action whose query starts "Challenge i", else the text
 *   of an observation starting "Challenge i:"; a skipped challenge gets "". A round-2 reply with no
 *   labelled reply at all gives one reply: its position and synthesisThought.
 * - Auth: `Authorization: Bearer <token>`, the token from the credential store for the seat's agent id.
 *   No token configured → failure "auth" without calling (the spec sends the header on every request).
 *   401/403 → failure "auth".
 * - Deadline 30 s per request; HTTP 500 is retried up to 2 times with exponential backoff (1 s, 2 s),
 *   exactly the spec's "retry up to 2 times"; nothing else is retried. Each attempt has its own 30 s.
 * - Every "Response Validation" rule is checked (validateFactagoraResponse); any violation makes the
 *   worker a non-responder ("invalid-response", message naming the rule ids). The soft quality checks
 *   become extras.warnings. YES/NO → determination; a valid NEUTRAL → failure "abstained" (no vote,
 *   no quorum credit, weight 0).
 * - evidence = the ReAct cycle rendered as text; sources = evidence[].url then actions[].source
 *   (non-blank, ≤ 2,048 chars, deduplicated, ≤ 32). The spec allows evidence without URLs, so an answer
 *   with zero sources is kept (Source Quality scores it low) and warned about.
 */
import { createHash } from "node:crypto";
import type { AskRequest, CallResult, ChallengeRequest, PeerFinding, WorkerAnswer, WorkerEndpoint, WorkerFailure, WorkerProtocolAdapter, WorkerSeat } from "../core/types.js";
import type { SafeHttpClient } from "../http/client.js";
import { isHttpError } from "../http/errors.js";
import { InvalidReplyError, toFailure } from "./call.js";
import type { CredentialStore } from "./credentials.js";

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
export const FACTAGORA_ACTION_TYPES = ["web_search", "api_call", "database_query", "agent_review", "calculation", "document_analysis"] as const;
export const FACTAGORA_EVIDENCE_TYPES = ["link", "data", "citation"] as const;

/** Line that separates the market context from the round-2 challenges in the description. */
export const ROUND2_MARKER = "=== ROUND 2: CHALLENGES FROM THE RESOLVER ===";
/** Description sent when the market has no context (the spec requires a description). */
export const NO_CONTEXT_DESCRIPTION = "No additional context was provided for this market; resolve the question exactly as stated in the title.";
export const RESOLUTION_CRITERIA =
  "Resolves YES if the event described in the title happens by the deadline (UTC), NO otherwise. Answer YES or NO; NEUTRAL counts as an abstention (no vote).";

// ------------------------------------------------------------------------------------------ wire types

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
  else if (confidence < 0 || confidence > 1) bad("factagora.response.confidence", "confidence must be between 0.0 and 1.0 (inclusive)");
  else if (Math.abs(Math.round(confidence * 100) - confidence * 100) > 1e-9) {
    warn("factagora.quality.confidence-precision", "confidence has more than 2 decimal places (2 recommended)");
  }

  const cycle = body.reactCycle;
  const thought = (field: "initialThought" | "synthesisThought", v: unknown): string | undefined => {
    const rule = `factagora.response.reactCycle.${field}`;
    if (typeof v !== "string" || v.trim() === "") return void bad(rule, `reactCycle.${field} must be a non-empty string`);
    if (v.length < L.thoughtMin) return void bad(rule, `reactCycle.${field} must be at least ${L.thoughtMin} characters`);
    if (v.length > L.thoughtMax) return void bad(rule, `reactCycle.${field} must be at most ${L.thoughtMax} characters`);
    return v;
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
    bad("factagora.response.reactCycle", "reactCycle must be an object with initialThought, actions, observations, synthesisThought and evidence");
  } else {
    initialThought = thought("initialThought", cycle.initialThought);

    const rawActions = sized("actions", cycle.actions, L.actionsMin, L.actionsMax, "action");
    rawActions?.forEach((a, i) => {
      const rule = "factagora.response.reactCycle.actions.item";
      if (!isObject(a)) return bad(rule, `reactCycle.actions[${i}] must be an object`);
      const missing = (["type", "query", "result"] as const).filter((k) => typeof a[k] !== "string");
      if (missing.length > 0) return bad(rule, `reactCycle.actions[${i}] must have ${missing.join(", ")} (strings)`);
      const action: FactagoraAction = { type: a.type as string, query: a.query as string, result: a.result as string };
      if (!(FACTAGORA_ACTION_TYPES as readonly string[]).includes(action.type)) warn("factagora.optional.action-type", `reactCycle.actions[${i}].type is not one of the spec's action types`);
      if (typeof a.source === "string") action.source = a.source;
      else if (a.source !== undefined && a.source !== null) warn("factagora.optional.action-source", `reactCycle.actions[${i}].source must be a string; ignored`);
      if (typeof a.timestamp === "string" && !Number.isNaN(Date.parse(a.timestamp))) action.timestamp = a.timestamp;
      else if (a.timestamp !== undefined && a.timestamp !== null) warn("factagora.optional.action-timestamp", `reactCycle.actions[${i}].timestamp must be an ISO 8601 string; ignored`);
      actions.push(action);
    });

    const rawObservations = sized("observations", cycle.observations, L.observationsMin, L.observationsMax, "observation");
    if (Array.isArray(cycle.observations) && cycle.observations.length === 0) warn("factagora.quality.observations-empty", "observations array is empty");
    rawObservations?.forEach((o, i) => {
      if (typeof o !== "string") return bad("factagora.response.reactCycle.observations.item", `reactCycle.observations[${i}] must be a string`);
      observations.push(o);
    });

    synthesisThought = thought("synthesisThought", cycle.synthesisThought);
    if (synthesisThought !== undefined && synthesisThought.length < L.briefSynthesis) {
      warn("factagora.quality.synthesis-length", `synthesisThought is brief (< ${L.briefSynthesis} characters)`);
    }

    const rawEvidence = sized("evidence", cycle.evidence, L.evidenceMin, L.evidenceMax, "evidence item");
    rawEvidence?.forEach((e, i) => {
      const rule = "factagora.response.reactCycle.evidence.item";
      if (!isObject(e)) return bad(rule, `reactCycle.evidence[${i}] must be an object`);
      const missing = (["type", "title"] as const).filter((k) => typeof e[k] !== "string");
      if (missing.length > 0) return bad(rule, `reactCycle.evidence[${i}] must have ${missing.join(", ")} (strings)`);
      const item: FactagoraEvidence = { type: e.type as string, title: e.title as string };
      if (!(FACTAGORA_EVIDENCE_TYPES as readonly string[]).includes(item.type)) warn("factagora.optional.evidence-type", `reactCycle.evidence[${i}].type is not "link", "data" or "citation"`);
      if (typeof e.url === "string") item.url = e.url;
      else if (e.url !== undefined && e.url !== null) warn("factagora.optional.evidence-url", `reactCycle.evidence[${i}].url must be a string; ignored`);
      if (typeof e.description === "string") {
        item.description = e.description;
        if (e.description.length > L.evidenceDescriptionMax) warn("factagora.optional.evidence-description", `reactCycle.evidence[${i}].description is longer than ${L.evidenceDescriptionMax} characters`);
      } else if (e.description !== undefined && e.description !== null) warn("factagora.optional.evidence-description", `reactCycle.evidence[${i}].description must be a string; ignored`);
      if (inUnit(e.reliability)) item.reliability = e.reliability;
      else if (e.reliability !== undefined && e.reliability !== null) warn("factagora.optional.evidence-reliability", `reactCycle.evidence[${i}].reliability must be a number in [0, 1]; ignored`);
      evidence.push(item);
    });
  }

  // Optional fields: wrong types are warnings and the field is dropped.
  const out: Partial<FactagoraResponse> = {};
  if (typeof body.reasoning === "string") {
    out.reasoning = body.reasoning;
    if (body.reasoning.length > L.reasoningMax) warn("factagora.optional.reasoning", `reasoning is longer than ${L.reasoningMax} characters`);
  } else if (body.reasoning !== undefined && body.reasoning !== null) warn("factagora.optional.reasoning", "reasoning must be a string; ignored");
  if (Array.isArray(body.limitations) && body.limitations.every((x) => typeof x === "string")) out.limitations = body.limitations as string[];
  else if (body.limitations !== undefined && body.limitations !== null) warn("factagora.optional.limitations", "limitations must be an array of strings; ignored");
  const cb = body.confidence_breakdown;
  if (isObject(cb)) {
    const keys = ["data_quality", "source_reliability", "time_horizon"] as const;
    if (keys.every((k) => cb[k] === undefined || inUnit(cb[k]))) {
      const kept: NonNullable<FactagoraResponse["confidence_breakdown"]> = {};
      for (const k of keys) if (inUnit(cb[k])) kept[k] = cb[k];
      out.confidence_breakdown = kept;
    } else warn("factagora.optional.confidence_breakdown", "confidence_breakdown values must be numbers in [0, 1]; ignored");
  } else if (cb !== undefined && cb !== null) warn("factagora.optional.confidence_breakdown", "confidence_breakdown must be an object; ignored");

  if (violations.length > 0) return { violations, warnings };

  // Soft quality checks of the spec (only meaningful on a valid reply).
  const conf = confidence as number;
  if (conf > L.highConfidence && !evidence.some((e) => (e.reliability ?? 0) >= L.highReliability)) {
    warn("factagora.quality.high-confidence-evidence", `confidence > ${L.highConfidence} without high-reliability evidence (reliability ≥ ${L.highReliability})`);
  }
  if (evidence.length < L.fewEvidence) warn("factagora.quality.evidence-count", `fewer than ${L.fewEvidence} evidence items`);
  if (!actions.some((a) => a.type === "web_search")) warn("factagora.quality.web-search", "no web_search actions for external claims");

  const value: FactagoraResponse = {
    position: position as FactagoraPosition,
    confidence: conf,
    reactCycle: { initialThought: initialThought as string, actions, observations, synthesisThought: synthesisThought as string, evidence },
    ...out,
  };
  if (sourcesOf(value).length === 0) warn("factagora.sources.none", "no evidence url or action source: the answer has no sources (Source Quality scores it low)");
  return { violations, warnings, value };
}

/** "factagora.response.position: …; factagora.response.confidence: …" (at most 3, then "…"). */
export function describeViolations(violations: readonly FactagoraRuleFinding[]): string {
  const shown = violations.slice(0, 3).map((v) => `${v.rule}: ${v.message}`);
  return `factagora reply violates ${shown.join("; ")}${violations.length > 3 ? `; … (${violations.length} violations)` : ""}`;
}

// ------------------------------------------------------------------------------------------ mapping

/** Sources: evidence urls, then action sources; trimmed, non-blank, ≤ 2,048 chars, deduplicated, ≤ 32. */
export function sourcesOf(reply: FactagoraResponse): string[] {
  const out: string[] = [];
  const add = (s: string | undefined) => {
    if (s === undefined) return;
    const t = s.trim();
    if (t === "" || t.length > FACTAGORA_LIMITS.maxSourceLength || out.includes(t) || out.length >= FACTAGORA_LIMITS.maxSources) return;
    out.push(t);
  };
  for (const e of reply.reactCycle.evidence) add(e.url);
  for (const a of reply.reactCycle.actions) add(a.source);
  return out;
}

const oneLine = (s: string): string => s.replace(/\s+/g, " ").trim();
const clip = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** The ReAct cycle as one text (the canonical `evidence`), capped at 50,000 characters. */
export function renderEvidence(reply: FactagoraResponse): string {
  const c = reply.reactCycle;
  const lines: string[] = [`Position: ${reply.position} (confidence ${reply.confidence}).`, `Initial thought: ${oneLine(c.initialThought)}`, "Actions:"];
  c.actions.forEach((a, i) => lines.push(`${i + 1}. [${oneLine(a.type)}] ${oneLine(a.query)} → ${oneLine(a.result)}${a.source ? ` (${oneLine(a.source)})` : ""}`));
  lines.push("Observations:");
  for (const o of c.observations) lines.push(`- ${oneLine(o)}`);
  lines.push(`Synthesis: ${oneLine(c.synthesisThought)}`, "Evidence:");
  c.evidence.forEach((e, i) => {
    const parts = [`${i + 1}. [${oneLine(e.type)}] ${oneLine(e.title)}`];
    if (e.description) parts.push(`— ${oneLine(e.description)}`);
    if (e.url) parts.push(`(${oneLine(e.url)})`);
    if (e.reliability !== undefined) parts.push(`reliability ${e.reliability}`);
    lines.push(parts.join(" "));
  });
  if (reply.reasoning !== undefined && reply.reasoning.trim() !== "") lines.push(`Summary: ${oneLine(reply.reasoning)}`);
  if (reply.limitations !== undefined && reply.limitations.length > 0) lines.push(`Limitations: ${reply.limitations.map(oneLine).join("; ")}`);
  return clip(lines.join("\n"), FACTAGORA_LIMITS.maxEvidenceLength);
}

/** The reply as kept in the bundle: spec fields only, each string capped at 2,000 characters. */
export function extrasOf(reply: FactagoraResponse, predictionId: string, roundNumber: number, warnings: readonly FactagoraRuleFinding[]): Record<string, unknown> {
  const s = (x: string) => clip(x, FACTAGORA_LIMITS.maxExtrasString);
  const c = reply.reactCycle;
  const extras: Record<string, unknown> = {
    protocol: FACTAGORA_PROTOCOL,
    predictionId,
    roundNumber,
    position: reply.position,
    reactCycle: {
      initialThought: s(c.initialThought),
      actions: c.actions.map((a) => ({ type: s(a.type), query: s(a.query), result: s(a.result), ...(a.source !== undefined ? { source: s(a.source) } : {}), ...(a.timestamp !== undefined ? { timestamp: s(a.timestamp) } : {}) })),
      observations: c.observations.map(s),
      synthesisThought: s(c.synthesisThought),
      evidence: c.evidence.map((e) => ({
        type: s(e.type),
        title: s(e.title),
        ...(e.url !== undefined ? { url: s(e.url) } : {}),
        ...(e.description !== undefined ? { description: s(e.description) } : {}),
        ...(e.reliability !== undefined ? { reliability: e.reliability } : {}),
      })),
    },
    warnings: warnings.map((w) => ({ rule: w.rule, message: w.message })),
  };
  if (reply.reasoning !== undefined) extras.reasoning = s(reply.reasoning);
  if (reply.limitations !== undefined) extras.limitations = reply.limitations.slice(0, 20).map(s);
  if (reply.confidence_breakdown !== undefined) extras.confidence_breakdown = { ...reply.confidence_breakdown };
  return extras;
}

/** Namespace of our prediction ids (UUID v5). Fixed forever: changing it changes every id. */
export const PREDICTION_ID_NAMESPACE = "3d1f7c52-6b0e-4c59-9a8e-2f4b1d6c8e07";

/**
 * Deterministic, UUID-shaped prediction id (RFC 9562 UUID v5: SHA-1 of namespace + name) for a market.
 * name = `<namespace>/<marketId>`; the adapter's namespace defaults to "cresolver" and should name the chain
 * and market contract (e.g. "31337:0xabc…") when one resolver serves several. Same market → same id in
 * both rounds, so an agent can tie round 2 to its round-1 answer.
 */
export function predictionIdFor(marketId: bigint, namespace = "cresolver"): string {
  const ns = Buffer.from(PREDICTION_ID_NAMESPACE.replaceAll("-", ""), "hex");
  const bytes = createHash("sha1").update(ns).update(`${namespace}/${marketId.toString(10)}`, "utf8").digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Latest instant representable as an ISO date (later deadlines are clamped to it). */
const MAX_DATE_MS = 253_402_300_799_000;

/** Unix seconds → "2026-12-31T23:59:59Z" (no milliseconds, like the spec's samples); clamped to [1970, 9999]. */
export function isoDeadline(unixSeconds: number): string {
  const ms = Number.isFinite(unixSeconds) ? Math.min(Math.max(0, Math.floor(unixSeconds)) * 1000, MAX_DATE_MS) : 0;
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

const position = (d: boolean): "YES" | "NO" => (d ? "YES" : "NO");

/** "Worker A" … "Worker Z", "Worker AA", … */
export function workerName(index: number): string {
  let n = index;
  let s = "";
  do {
    s = String.fromCharCode(65 + (n % 26)) + s;
    n = Math.floor(n / 26) - 1;
  } while (n >= 0);
  return `Worker ${s}`;
}

/** One anonymised peer as a spec Argument: position, confidence, evidence text as reasoning, sources as links. */
export function peerArgument(peer: PeerFinding, index: number): FactagoraArgument {
  const evidence: FactagoraEvidence[] = peer.sources.slice(0, FACTAGORA_LIMITS.maxPeerEvidence).map((src) => {
    const title = clip(oneLine(src), 200);
    return /^https?:\/\//i.test(src.trim()) ? { type: "link", title, url: src.trim() } : { type: "citation", title };
  });
  return {
    agentName: workerName(index),
    position: position(peer.determination),
    confidence: peer.confidence,
    reasoning: clip(peer.evidence, FACTAGORA_LIMITS.maxPeerReasoning),
    ...(evidence.length > 0 ? { evidence } : {}),
  };
}

function baseDescription(context: string): string {
  return context.trim() === "" ? NO_CONTEXT_DESCRIPTION : context;
}

/** The round-2 description: the context, the marker line, the worker's round-1 answer, the numbered challenges and how to answer them. */
export function round2Description(context: string, own: { determination: boolean; confidence: number }, challenges: readonly string[]): string {
  return [
    baseDescription(context),
    "",
    ROUND2_MARKER,
    `Your round-1 answer: ${position(own.determination)} (confidence ${own.confidence}).`,
    `The resolver challenges it (${challenges.length} challenges):`,
    ...challenges.map((c, i) => `Challenge ${i + 1}: ${oneLine(c)}`),
    `Reply to each challenge with one reactCycle action {"type": "agent_review", "query": "Challenge N", "result": "<your reply>"} ` +
      `(or an observation starting "Challenge N:"), N = 1..${challenges.length}; the other agents' positions are in existingArguments.`,
  ].join("\n");
}

export function buildRound1Request(request: AskRequest, predictionId: string, category: string): FactagoraRequest {
  return {
    predictionId,
    title: request.question,
    description: baseDescription(request.context),
    category,
    deadline: isoDeadline(request.deadline),
    roundNumber: 1,
    existingArguments: [],
    metadata: { resolutionCriteria: RESOLUTION_CRITERIA },
  };
}

export function buildRound2Request(request: ChallengeRequest, predictionId: string, category: string): FactagoraRequest {
  return {
    predictionId,
    title: request.ask.question,
    description: round2Description(request.ask.context, request.own, request.challenges),
    category,
    deadline: isoDeadline(request.ask.deadline),
    roundNumber: 2,
    existingArguments: request.peers.map(peerArgument),
    metadata: { resolutionCriteria: RESOLUTION_CRITERIA },
  };
}

/** The reply to challenge n (1-based): agent_review action "Challenge n…" → result; else observation "Challenge n: …". */
function labelledReply(reply: FactagoraResponse, n: number): string | undefined {
  const label = new RegExp(`^\\s*challenge\\s*#?\\s*${n}(?!\\d)\\s*[:.)\\-–—]?\\s*`, "i");
  for (const a of reply.reactCycle.actions) {
    if (a.type === "agent_review" && label.test(a.query) && a.result.trim() !== "") return a.result.trim();
  }
  for (const o of reply.reactCycle.observations) {
    if (label.test(o)) {
      const text = o.replace(label, "").trim();
      if (text !== "") return text;
    }
  }
  return undefined;
}

/**
 * Round-2 reply → one string per challenge, positionally: reply i is the labelled reply to challenge i, ""
 * where the agent skipped one (the array ends at the last labelled reply). No labelled reply at all → one
 * reply: the round-2 position and synthesisThought (the agent's general answer to the round).
 */
export function challengeReplies(reply: FactagoraResponse, count: number): string[] {
  const labelled = Array.from({ length: count }, (_, i) => labelledReply(reply, i + 1));
  const last = labelled.findLastIndex((r) => r !== undefined);
  if (last < 0) return count > 0 ? [`Round 2 position: ${reply.position} (confidence ${reply.confidence}). ${reply.reactCycle.synthesisThought.trim()}`] : [];
  return labelled.slice(0, last + 1).map((r) => r ?? "");
}

// ------------------------------------------------------------------------------------------ adapter

export interface FactagoraAdapterConfig {
  http: SafeHttpClient;
  /** Bearer tokens per agent id (configuration, never the chain). */
  credentials: CredentialStore;
  /** Deadline of each request (attempt). Default 30,000 ms (spec). */
  timeoutMs?: number;
  /** Retries after HTTP 500. Default 2 (spec). */
  maxRetries?: number;
  /** First backoff; doubles each retry. Default 1,000 ms (1 s, then 2 s). */
  retryBaseDelayMs?: number;
  /** `category` of every request. Default "general". */
  category?: string;
  /** Namespace of prediction ids, e.g. `${chainId}:${marketAddress}`. Default "cresolver". */
  predictionNamespace?: string;
  /** Response size cap in bytes. Default: the HTTP client's (5 MB). */
  maxResponseBytes?: number;
}

type Round = { ok: true; reply: FactagoraResponse; warnings: FactagoraRuleFinding[] } | { ok: false; failure: WorkerFailure };

/** A bearer token usable as a header value (visible ASCII, no spaces): anything else is a configuration error. */
const TOKEN_OK = /^[\x21-\x7e]+$/;

export function createFactagoraAdapter(config: FactagoraAdapterConfig): WorkerProtocolAdapter {
  const timeoutMs = config.timeoutMs ?? FACTAGORA_LIMITS.timeoutMs;
  const maxRetries = config.maxRetries ?? FACTAGORA_LIMITS.maxRetries;
  const baseDelay = config.retryBaseDelayMs ?? FACTAGORA_LIMITS.retryBaseDelayMs;
  const category = config.category ?? "general";
  const namespace = config.predictionNamespace ?? "cresolver";

  /** POSTs one round with the spec's retry discipline; validates the reply. */
  async function round(endpoint: WorkerEndpoint, seat: WorkerSeat, body: FactagoraRequest): Promise<{ result: Round; latencyMs: number; attempts: number }> {
    const start = performance.now();
    const done = (result: Round, attempts: number) => ({ result, latencyMs: Math.round(performance.now() - start), attempts });
    let url: string;
    try {
      const u = new URL(endpoint.url);
      u.hash = "";
      url = u.toString();
    } catch {
      return done({ ok: false, failure: { kind: "registration", message: "endpoint is not a URL" } }, 0);
    }
    const token = config.credentials.forAgent(seat.agentId)?.bearerToken;
    if (token === undefined) {
      return done({ ok: false, failure: { kind: "auth", message: `no factagora bearer token configured for agent ${seat.agentId.toString()}; not called` } }, 0);
    }
    if (!TOKEN_OK.test(token)) {
      return done({ ok: false, failure: { kind: "auth", message: `the factagora bearer token configured for agent ${seat.agentId.toString()} is not a valid header value; not called` } }, 0);
    }
    const headers = { authorization: `Bearer ${token}` };
    let attempts = 0;
    for (;;) {
      attempts++;
      try {
        const res = await config.http.postJson(url, body, { timeoutMs, headers, ...(config.maxResponseBytes !== undefined ? { maxBytes: config.maxResponseBytes } : {}) });
        const checked = validateFactagoraResponse(res.body);
        if (checked.value === undefined) throw new InvalidReplyError(describeViolations(checked.violations));
        return done({ ok: true, reply: checked.value, warnings: checked.warnings }, attempts);
      } catch (error) {
        if (isHttpError(error) && error.status === 500 && attempts <= maxRetries) {
          await new Promise((r) => setTimeout(r, baseDelay * 2 ** (attempts - 1)));
          continue;
        }
        const failure = toFailure(error);
        if (failure.kind === "timeout") failure.message = `${failure.message} (deadline ${timeoutMs} ms)`;
        if (failure.kind === "auth") failure.message = `${failure.message}: the agent rejected the bearer token configured for agent ${seat.agentId.toString()}`;
        if (isHttpError(error) && error.status === 500) failure.message = `${failure.message} (${attempts} attempts; the spec retries a 500 at most ${maxRetries} times)`;
        return done({ ok: false, failure }, attempts);
      }
    }
  }

  return {
    protocol: FACTAGORA_PROTOCOL,

    async ask(endpoint: WorkerEndpoint, seat: WorkerSeat, request: AskRequest): Promise<CallResult<WorkerAnswer>> {
      const predictionId = predictionIdFor(request.marketId, namespace);
      const { result, latencyMs, attempts } = await round(endpoint, seat, buildRound1Request(request, predictionId, category));
      if (!result.ok) return { ok: false, failure: result.failure, latencyMs, attempts };
      const reply = result.reply;
      if (reply.position === "NEUTRAL") {
        return {
          ok: false,
          failure: { kind: "abstained", message: `factagora agent answered NEUTRAL (confidence ${reply.confidence}): abstention, no vote and no quorum credit` },
          latencyMs,
          attempts,
        };
      }
      const answer: WorkerAnswer = {
        determination: reply.position === "YES",
        confidence: reply.confidence,
        evidence: renderEvidence(reply),
        sources: sourcesOf(reply),
        extras: extrasOf(reply, predictionId, 1, result.warnings),
      };
      return { ok: true, value: answer, latencyMs, attempts };
    },

    async challenge(endpoint: WorkerEndpoint, seat: WorkerSeat, request: ChallengeRequest): Promise<CallResult<string[]>> {
      if (request.challenges.length === 0) return { ok: true, value: [], latencyMs: 0, attempts: 0 };
      const predictionId = predictionIdFor(request.ask.marketId, namespace);
      const { result, latencyMs, attempts } = await round(endpoint, seat, buildRound2Request(request, predictionId, category));
      if (!result.ok) return { ok: false, failure: result.failure, latencyMs, attempts };
      return { ok: true, value: challengeReplies(result.reply, request.challenges.length), latencyMs, attempts };
    },
  };
}
