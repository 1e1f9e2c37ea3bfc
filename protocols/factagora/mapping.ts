/**
 * Factagora BYOA mapping between the resolver's types and the wire format: prediction ids, deadlines,
 * round-1/round-2 requests (peers as existingArguments, challenges folded into the description), and a
 * validated reply back into a finding (evidence text, extras) and into per-challenge replies. Split out of
 * factagora.ts so the adapter file holds only transport (auth, retries, deadlines). Pure functions, no I/O.
 */
import { createHash } from "node:crypto";
import type { AskRequest, ChallengeRequest, PeerFinding } from "../../workflow/core/types.js";
import {
  FACTAGORA_LIMITS,
  FACTAGORA_PROTOCOL,
  NO_CONTEXT_DESCRIPTION,
  RESOLUTION_CRITERIA,
  ROUND2_MARKER,
  type FactagoraArgument,
  type FactagoraEvidence,
  type FactagoraRequest,
  type FactagoraResponse,
  type FactagoraRuleFinding,
} from "./wire.js";

const oneLine = (s: string): string => s.replace(/\s+/g, " ").trim();
const clip = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** The ReAct cycle as one text (the canonical `evidence`), capped at 50,000 characters. */
export function renderEvidence(reply: FactagoraResponse): string {
  const c = reply.reactCycle;
  const lines: string[] = [
    `Position: ${reply.position} (confidence ${reply.confidence}).`,
    `Initial thought: ${oneLine(c.initialThought)}`,
    "Actions:",
  ];
  for (const [i, a] of c.actions.entries()) {
    lines.push(
      `${i + 1}. [${oneLine(a.type)}] ${oneLine(a.query)} → ${oneLine(a.result)}${a.source ? ` (${oneLine(a.source)})` : ""}`,
    );
  }
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
  if (reply.reasoning !== undefined && reply.reasoning.trim() !== "")
    lines.push(`Summary: ${oneLine(reply.reasoning)}`);
  if (reply.limitations !== undefined && reply.limitations.length > 0)
    lines.push(`Limitations: ${reply.limitations.map(oneLine).join("; ")}`);
  return clip(lines.join("\n"), FACTAGORA_LIMITS.maxEvidenceLength);
}

/** The reply as kept in the bundle: spec fields only, each string capped at 2,000 characters. */
export function extrasOf(
  reply: FactagoraResponse,
  predictionId: string,
  roundNumber: number,
  warnings: readonly FactagoraRuleFinding[],
): Record<string, unknown> {
  const s = (x: string) => clip(x, FACTAGORA_LIMITS.maxExtrasString);
  const c = reply.reactCycle;
  const extras: Record<string, unknown> = {
    protocol: FACTAGORA_PROTOCOL,
    predictionId,
    roundNumber,
    position: reply.position,
    reactCycle: {
      initialThought: s(c.initialThought),
      actions: c.actions.map((a) => ({
        type: s(a.type),
        query: s(a.query),
        result: s(a.result),
        ...(a.source !== undefined ? { source: s(a.source) } : {}),
        ...(a.timestamp !== undefined ? { timestamp: s(a.timestamp) } : {}),
      })),
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
  const bytes = createHash("sha1")
    .update(ns)
    .update(`${namespace}/${marketId.toString(10)}`, "utf8")
    .digest()
    .subarray(0, 16);
  bytes.writeUInt8((bytes.readUInt8(6) & 0x0f) | 0x50, 6);
  bytes.writeUInt8((bytes.readUInt8(8) & 0x3f) | 0x80, 8);
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
export function round2Description(
  context: string,
  own: { determination: boolean; confidence: number },
  challenges: readonly string[],
): string {
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

export function buildRound2Request(
  request: ChallengeRequest,
  predictionId: string,
  category: string,
): FactagoraRequest {
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
  if (last < 0)
    return count > 0
      ? [
          `Round 2 position: ${reply.position} (confidence ${reply.confidence}). ${reply.reactCycle.synthesisThought.trim()}`,
        ]
      : [];
  return labelled.slice(0, last + 1).map((r) => r ?? "");
}
