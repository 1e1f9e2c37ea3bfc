/**
 * Round-table replies → canonical results: a validated analysis becomes a WorkerAnswer (determination,
 * weighted confidence, evidence text, sources, extras) or fails as invalid/abstained; a vote becomes a
 * ReviewVerdict; strings are flagged for prompt-injection patterns. Split from the adapter so the mapping
 * can be tested and checked (conformance) without HTTP.
 */
import type { ReviewVerdict, WorkerAnswer } from "../../workflow/core/types.js";
import { detectInjection, sanitizeString } from "../../workflow/core/text.js";
import { InvalidReplyError } from "../../workflow/adapters/call.js";
import { answerConfidence, readDetermination, readEvidence, type EvidenceLevel } from "./determination.js";
import { ROUNDTABLE_LIMITS, ROUNDTABLE_PROTOCOL, type AnalysisReply, type VoteReply } from "./wire.js";
import { CresolverError } from "../../workflow/util/errors.js";

// ---------------------------------------------------------------------------------------------------
// Reply mapping.

/** Injection patterns per string field of a reply ("observations[2].evidence" → ["role-play"]). */
export function injectionFlags(
  value: unknown,
  path = "",
  out: Record<string, string[]> = {},
  depth = 0,
): Record<string, string[]> {
  if (depth > 8 || Object.keys(out).length >= 100) return out;
  if (typeof value === "string") {
    const hits = detectInjection(value);
    if (hits.length > 0) out[path || "(root)"] = hits;
  } else if (Array.isArray(value)) {
    for (const [i, v] of value.slice(0, 200).entries()) injectionFlags(v, `${path}[${i}]`, out, depth + 1);
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) injectionFlags(v, path === "" ? k : `${path}.${k}`, out, depth + 1);
  }
  return out;
}

export class AbstainedError extends CresolverError {
  constructor(message: string) {
    super(message);
    this.name = "AbstainedError";
  }
}

/** Maps a validated analysis onto the canonical answer, or throws InvalidReplyError / AbstainedError. */
export function analysisToAnswer(reply: AnalysisReply): WorkerAnswer {
  const warnings: string[] = [];
  let observations = reply.observations;
  if (observations.length > ROUNDTABLE_LIMITS.maxObservations) {
    warnings.push(
      `only the first ${ROUNDTABLE_LIMITS.maxObservations} of ${observations.length} observations were read`,
    );
    observations = observations.slice(0, ROUNDTABLE_LIMITS.maxObservations);
  }
  if (observations.length === 0) throw new InvalidReplyError("analysis has no observations, so no determination");
  const reading = readDetermination(observations);
  if (reading.kind === "ambiguous")
    throw new InvalidReplyError(`analysis gives no readable determination: ${reading.reason}`);
  if (reading.kind === "abstain") throw new AbstainedError("the agent's determination is UNDETERMINED (abstained)");

  const recommendations = (reply.recommendations ?? []).slice(0, ROUNDTABLE_LIMITS.maxItems);
  const { confidence, strength, base } = answerConfidence({ confidence: reply.confidence, observations });
  const levels: Record<EvidenceLevel, number> = { VERIFIED: 0, CORROBORATED: 0, INDICATED: 0, POSSIBLE: 0, NONE: 0 };
  const sources: string[] = [];
  const obsDocs = observations.map((o) => {
    const ev = readEvidence(o.evidence);
    levels[ev.level] += 1;
    for (const s of ev.sources) if (!sources.includes(s)) sources.push(s);
    return {
      finding: o.finding,
      evidence: o.evidence,
      severity: o.severity,
      confidence: o.confidence,
      level: ev.level,
    };
  });
  if (levels.NONE > 0) warnings.push(`${levels.NONE} observation(s) without an evidence level tag`);
  if (sources.length === 0) warnings.push("no source cited");

  const paragraphs = observations.map((o) => `[${o.severity}] ${o.finding}\nEvidence: ${o.evidence}`);
  for (const r of recommendations) {
    if (r.action !== undefined)
      paragraphs.push(
        `Recommendation${r.priority ? ` (${r.priority})` : ""}: ${r.action}${r.rationale ? ` (${r.rationale})` : ""}`,
      );
  }
  const evidence = sanitizeString(paragraphs.join("\n\n"), ROUNDTABLE_LIMITS.maxStringLength);
  if (evidence.trim() === "") throw new InvalidReplyError("analysis has no evidence text");

  const injection = injectionFlags({
    agent_name: reply.agent_name,
    domain: reply.domain,
    observations,
    recommendations,
  });
  return {
    determination: reading.kind === "yes",
    confidence,
    evidence,
    sources: sources
      .slice(0, ROUNDTABLE_LIMITS.maxSources)
      .map((s) => sanitizeString(s, ROUNDTABLE_LIMITS.maxSourceLength)),
    extras: {
      protocol: ROUNDTABLE_PROTOCOL,
      agentName: reply.agent_name,
      domain: reply.domain,
      determinationBasis: reading.basis,
      determinationObservations: reading.observations,
      reportedConfidence: reply.confidence,
      confidenceBase: base,
      evidenceStrength: strength,
      evidenceLevels: levels,
      observations: obsDocs,
      recommendations,
      ...(Object.keys(injection).length > 0 ? { injection } : {}),
      ...(warnings.length > 0 ? { warnings } : {}),
    },
  };
}

export function voteToVerdict(reply: VoteReply): ReviewVerdict {
  const conditions = (reply.conditions ?? []).slice(0, ROUNDTABLE_LIMITS.maxItems);
  const injection = injectionFlags({ agent_name: reply.agent_name, conditions, dissent_reason: reply.dissent_reason });
  return {
    approve: reply.approve,
    conditions,
    ...(reply.dissent_reason !== undefined && reply.dissent_reason.trim() !== ""
      ? { dissentReason: reply.dissent_reason }
      : {}),
    extras: {
      protocol: ROUNDTABLE_PROTOCOL,
      agentName: reply.agent_name,
      ...(Object.keys(injection).length > 0 ? { injection } : {}),
    },
  };
}
