/**
 * The CRE A2A worker protocol (docs/protocols/cresolver.md):
 *   POST {endpoint}/a2a/resolve   {market_id, question, deadline, context?} → {determination, confidence, evidence, sources}
 *   POST {endpoint}/a2a/challenge {challenges}                            → {responses}
 * Optional platform auth: a bearer token configured for the agent (credentials file, bound to the endpoint's
 * origin) is sent as `Authorization: Bearer …`; without one nothing is sent, as the spec has no auth.
 *
 * Replies are validated strictly (zod, no coercion): `"yes"` is not a boolean, `"0.8"` is not a
 * number, confidence must lie in [0,1], evidence must contain non-whitespace text, sources must be
 * 1..32 non-blank strings of at most 2,048 chars. Unknown reply fields are dropped.
 *
 * market_id: the on-chain id is a uint256 (bigint). The spec types it as a JSON number. We send it
 * as a JSON number whose digits are the exact decimal value (stringifyJson writes bigints as integer
 * literals), so it is never rounded on our side. Ids up to 2^53-1 (every id a sequential market
 * counter will reach) are therefore byte-identical to what `JSON.stringify(Number(id))` gives;
 * larger ids stay exact on the wire, and a worker that needs them exactly must parse big integers.
 */
import { z } from "zod";
import type { AskRequest, CallResult, ChallengeRequest, WorkerAnswer, WorkerEndpoint, WorkerProtocolAdapter, WorkerSeat } from "../core/types.js";
import type { SafeHttpClient } from "../http/types.js";
import { callWithRetry, InvalidReplyError, joinEndpoint } from "./call.js";
import type { CredentialStore } from "./credentials.js";

export const CRESOLVER_PROTOCOL = "cresolver";

export const CRESOLVER_LIMITS = {
  maxSources: 32,
  maxSourceLength: 2_048,
  maxEvidenceLength: 50_000,
  maxChallengeReplies: 16,
  maxReplyLength: 50_000,
} as const;

export interface CresolverAdapterConfig {
  http: SafeHttpClient;
  /** Default 30,000 ms (spec). */
  resolveTimeoutMs?: number;
  /** Default 15,000 ms (spec). */
  challengeTimeoutMs?: number;
  /** Pause before the one retry. Default 250 ms. */
  retryDelayMs?: number;
  /** Extra headers for every call (never logged). */
  headers?: Record<string, string>;
  /** Optional per-agent bearer tokens (platform auth), each bound to its endpoint origin. */
  credentials?: CredentialStore;
}

const nonBlank = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => s.trim().length > 0, { message: "must not be blank" });

export const resolveReplySchema = z.object({
  determination: z.boolean(),
  confidence: z.number().min(0).max(1),
  evidence: nonBlank(CRESOLVER_LIMITS.maxEvidenceLength),
  sources: z.array(nonBlank(CRESOLVER_LIMITS.maxSourceLength)).min(1).max(CRESOLVER_LIMITS.maxSources),
});

export const challengeReplySchema = z.object({
  responses: z.array(z.string().max(CRESOLVER_LIMITS.maxReplyLength)).max(CRESOLVER_LIMITS.maxChallengeReplies),
});

/** Sends the id as a plain number when it is a safe integer, otherwise as an exact big integer literal. */
export function marketIdForWire(id: bigint): number | bigint {
  return id <= BigInt(Number.MAX_SAFE_INTEGER) && id >= 0n ? Number(id) : id;
}

export function describeIssues(what: string, error: z.ZodError): string {
  const issues = error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
  return `${what} does not match the protocol: ${issues.join("; ")}${error.issues.length > 3 ? "; …" : ""}`;
}

export function createCresolverAdapter(config: CresolverAdapterConfig): WorkerProtocolAdapter {
  const resolveTimeoutMs = config.resolveTimeoutMs ?? 30_000;
  const challengeTimeoutMs = config.challengeTimeoutMs ?? 15_000;
  /** Headers for one seat's endpoint: the configured ones plus its bearer token, or the refusal of a moved endpoint. */
  function headersFor(seat: WorkerSeat, url: string): { headers?: Record<string, string>; refused?: CallResult<never> } {
    const found = config.credentials?.forEndpoint(seat.agentId, url) ?? { kind: "none" };
    if (found.kind === "refused") return { refused: { ok: false, failure: found.failure, latencyMs: 0, attempts: 0 } };
    const token = found.kind === "ok" ? found.credentials.bearerToken : undefined;
    if (token === undefined) return config.headers ? { headers: config.headers } : {};
    return { headers: { ...config.headers, authorization: `Bearer ${token}` } };
  }

  return {
    protocol: CRESOLVER_PROTOCOL,
    deadlines: { ask: resolveTimeoutMs, challenge: challengeTimeoutMs },

    async ask(endpoint: WorkerEndpoint, seat: WorkerSeat, request: AskRequest): Promise<CallResult<WorkerAnswer>> {
      const body: Record<string, unknown> = {
        market_id: marketIdForWire(request.marketId),
        question: request.question,
        deadline: request.deadline,
      };
      if (request.context !== "") body.context = request.context;
      let url: string;
      try {
        url = joinEndpoint(endpoint.url, "a2a/resolve");
      } catch {
        return { ok: false, failure: { kind: "registration", message: "endpoint is not a URL" }, latencyMs: 0, attempts: 0 };
      }
      const { headers, refused } = headersFor(seat, url);
      if (refused !== undefined) return refused;
      return callWithRetry(
        async (remainingMs) => {
          const res = await config.http.postJson(url, body, { timeoutMs: remainingMs, ...(headers ? { headers } : {}) });
          const parsed = resolveReplySchema.safeParse(res.body);
          if (!parsed.success) throw new InvalidReplyError(describeIssues("resolve reply", parsed.error));
          const answer: WorkerAnswer = {
            determination: parsed.data.determination,
            confidence: parsed.data.confidence,
            evidence: parsed.data.evidence,
            sources: parsed.data.sources,
          };
          return answer;
        },
        { timeoutMs: resolveTimeoutMs, ...(config.retryDelayMs !== undefined ? { retryDelayMs: config.retryDelayMs } : {}) },
      );
    },

    async challenge(endpoint: WorkerEndpoint, seat: WorkerSeat, request: ChallengeRequest): Promise<CallResult<string[]>> {
      const challenges = request.challenges;
      if (challenges.length === 0) return { ok: true, value: [], latencyMs: 0, attempts: 0 };
      let url: string;
      try {
        url = joinEndpoint(endpoint.url, "a2a/challenge");
      } catch {
        return { ok: false, failure: { kind: "registration", message: "endpoint is not a URL" }, latencyMs: 0, attempts: 0 };
      }
      const { headers, refused } = headersFor(seat, url);
      if (refused !== undefined) return refused;
      return callWithRetry(
        async (remainingMs) => {
          // market_id and question are additions to the spec's body: they let an agent serving several markets
          // (or market contracts sharing ids) defend the right answer. Agents following the spec ignore them.
          const body = { market_id: marketIdForWire(request.ask.marketId), question: request.ask.question, challenges };
          const res = await config.http.postJson(url, body, { timeoutMs: remainingMs, ...(headers ? { headers } : {}) });
          const parsed = challengeReplySchema.safeParse(res.body);
          if (!parsed.success) throw new InvalidReplyError(describeIssues("challenge reply", parsed.error));
          // Fewer replies than challenges is recorded as is (it lowers Collaboration); extra ones are ignored.
          return parsed.data.responses.slice(0, challenges.length);
        },
        { timeoutMs: challengeTimeoutMs, ...(config.retryDelayMs !== undefined ? { retryDelayMs: config.retryDelayMs } : {}) },
      );
    },
  };
}
