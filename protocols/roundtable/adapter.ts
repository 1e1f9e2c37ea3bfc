/**
 * The platform side of the round-table External Agent Protocol: ask → /analyze, challenge → /challenge,
 * review → /vote (README.md has the full mapping and the determination rule). The protocol's parts live in
 * sibling modules, re-exported here: wire.ts, requests.ts, determination.ts, answers.ts, challenge-mapping.ts.
 */
import type { CallResult, WorkerEndpoint, WorkerProtocolAdapter, WorkerSeat } from "../../workflow/core/types.js";
import { sanitizeString } from "../../workflow/core/text.js";
import type { SafeHttpClient } from "../../workflow/http/client.js";
import { bearerHeaders, callWithRetry, InvalidReplyError, routeEndpoint } from "../../workflow/adapters/call.js";
import type { CredentialStore } from "../../workflow/adapters/credentials.js";
import { describeIssues } from "../shared/wire-fields.js";
import { AbstainedError, analysisToAnswer, voteToVerdict } from "./answers.js";
import { mapChallengeReplies } from "./challenge-mapping.js";
import { analyzeRequest, challengeRequestBody, voteRequestBody } from "./requests.js";
import {
  analysisReplySchema,
  challengeReplySchema,
  ROUNDTABLE_LIMITS,
  ROUNDTABLE_PROTOCOL,
  voteReplySchema,
} from "./wire.js";

export {
  ROUNDTABLE_PROTOCOL,
  ROUNDTABLE_LIMITS,
  SEVERITIES,
  observationSchema,
  recommendationSchema,
  analysisReplySchema,
  challengeItemSchema,
  concessionItemSchema,
  challengeReplySchema,
  voteReplySchema,
} from "./wire.js";
export type { Observation, AnalysisReply, ChallengeReply, VoteReply } from "./wire.js";
export { EVIDENCE_LEVEL_WEIGHTS, readEvidence, readDetermination, answerConfidence } from "./determination.js";
export type { EvidenceLevel, EvidenceReading, DeterminationReading } from "./determination.js";
export {
  ANALYZE_CONSTRAINTS,
  taskId,
  taskContent,
  analyzeRequest,
  peerAnalysis,
  challengeRequestBody,
  voteRequestBody,
} from "./requests.js";
export { injectionFlags, AbstainedError, analysisToAnswer, voteToVerdict } from "./answers.js";
export { mapChallengeReplies } from "./challenge-mapping.js";

export interface RoundtableAdapterConfig {
  http: SafeHttpClient;
  /** Bearer tokens per agent id, from the resolver's configuration. */
  credentials?: CredentialStore;
  /** Deadline of each phase (/analyze, /challenge, /vote). Default 120,000 ms (spec). */
  timeoutMs?: number;
  /** Reply size cap. Default 5 MB (spec). */
  maxResponseBytes?: number;
}

/** Every string of a parsed reply cut to the spec's 50,000 characters (independent of the client's setting). */
function capStrings(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return sanitizeString(value, ROUNDTABLE_LIMITS.maxStringLength);
  if (depth > 64 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => capStrings(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, capStrings(v, depth + 1)]));
}

// ---------------------------------------------------------------------------------------------------
// The adapter.

export function createRoundtableAdapter(config: RoundtableAdapterConfig): WorkerProtocolAdapter {
  const timeoutMs = config.timeoutMs ?? ROUNDTABLE_LIMITS.timeoutMs;
  const maxBytes = config.maxResponseBytes ?? ROUNDTABLE_LIMITS.maxResponseBytes;

  async function post<T>(
    endpoint: WorkerEndpoint,
    seat: WorkerSeat,
    path: string,
    body: unknown,
    read: (reply: unknown) => T,
  ): Promise<CallResult<T>> {
    const route = routeEndpoint(config.credentials, seat, endpoint.url, path);
    if ("failure" in route) return { ok: false, failure: route.failure, latencyMs: 0, attempts: 0 };
    const { url } = route;
    const headers = bearerHeaders(route.credentials);
    let abstained: string | undefined;
    const result = await callWithRetry(
      async (remainingMs) => {
        const res = await config.http.postJson(url, body, {
          timeoutMs: remainingMs,
          maxBytes,
          ...(headers ? { headers } : {}),
        });
        try {
          return read(capStrings(res.body));
        } catch (error) {
          if (error instanceof AbstainedError) abstained = error.message;
          throw error;
        }
      },
      // No retry: the spec excludes an agent from the phase on any 4xx/5xx or timeout.
      { timeoutMs, minRetryBudgetMs: Number.POSITIVE_INFINITY },
    );
    if (!result.ok && abstained !== undefined) return { ...result, failure: { kind: "abstained", message: abstained } };
    return result;
  }

  return {
    protocol: ROUNDTABLE_PROTOCOL,
    deadlines: { ask: timeoutMs, challenge: timeoutMs, review: timeoutMs },

    ask(endpoint, seat, request) {
      return post(endpoint, seat, "analyze", analyzeRequest(request), (raw) => {
        const parsed = analysisReplySchema.safeParse(raw);
        if (!parsed.success) throw new InvalidReplyError(describeIssues("analysis", parsed.error));
        return analysisToAnswer(parsed.data);
      });
    },

    async challenge(endpoint, seat, request) {
      if (request.challenges.length === 0) return { ok: true, value: [], latencyMs: 0, attempts: 0 };
      return post(endpoint, seat, "challenge", challengeRequestBody(request), (raw) => {
        const parsed = challengeReplySchema.safeParse(raw);
        if (!parsed.success) throw new InvalidReplyError(describeIssues("challenge reply", parsed.error));
        return mapChallengeReplies(request.challenges, parsed.data);
      });
    },

    review(endpoint, seat, proposal) {
      return post(endpoint, seat, "vote", voteRequestBody(proposal), (raw) => {
        const parsed = voteReplySchema.safeParse(raw);
        if (!parsed.success) throw new InvalidReplyError(describeIssues("vote", parsed.error));
        return voteToVerdict(parsed.data);
      });
    },
  };
}
