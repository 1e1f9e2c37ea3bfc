/**
 * The platform side of the cresolver protocol: POST {endpoint}/a2a/resolve and /a2a/challenge (README.md).
 * Replies are parsed with wire.ts's strict schemas; market ids go out exactly (marketIdForWire).
 */
import type {
  CallResult,
  WorkerAnswer,
  WorkerEndpoint,
  WorkerProtocolAdapter,
  WorkerSeat,
} from "../../workflow/core/types.js";
import type { SafeHttpClient } from "../../workflow/http/types.js";
import { bearerHeaders, callWithRetry, InvalidReplyError, routeEndpoint } from "../../workflow/adapters/call.js";
import { replyHash } from "../../workflow/core/answer-signature.js";
import type { CredentialStore } from "../../workflow/adapters/credentials.js";
import { describeIssues } from "../shared/wire-fields.js";
import {
  challengeReplySchema,
  CRESOLVER_PROTOCOL,
  CRESOLVER_TIMEOUTS,
  marketIdForWire,
  resolveReplySchema,
  type ChallengeRequestWire,
  type ResolveRequestWire,
} from "./wire.js";

export {
  challengeReplySchema,
  CRESOLVER_LIMITS,
  CRESOLVER_PROTOCOL,
  marketIdForWire,
  resolveReplySchema,
} from "./wire.js";

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

export function createCresolverAdapter(config: CresolverAdapterConfig): WorkerProtocolAdapter {
  const resolveTimeoutMs = config.resolveTimeoutMs ?? CRESOLVER_TIMEOUTS.resolveMs;
  const challengeTimeoutMs = config.challengeTimeoutMs ?? CRESOLVER_TIMEOUTS.challengeMs;
  /** Headers for one seat's endpoint: the configured ones plus its bearer token, or the refusal of a moved endpoint. */
  /** The URL of `path` under the worker's endpoint and its headers, or the seat's failure (bad URL, credential refused). */
  function routeTo(
    endpoint: WorkerEndpoint,
    seat: WorkerSeat,
    path: string,
  ): { url: string; headers?: Record<string, string> } | { refused: CallResult<never> } {
    const route = routeEndpoint(config.credentials, seat, endpoint.url, path);
    if ("failure" in route) return { refused: { ok: false, failure: route.failure, latencyMs: 0, attempts: 0 } };
    const headers = bearerHeaders(route.credentials, config.headers);
    return headers ? { url: route.url, headers } : { url: route.url };
  }

  return {
    protocol: CRESOLVER_PROTOCOL,
    deadlines: { ask: resolveTimeoutMs, challenge: challengeTimeoutMs },

    async ask(endpoint, seat, request): Promise<CallResult<WorkerAnswer>> {
      const body: ResolveRequestWire = {
        market_id: marketIdForWire(request.marketId),
        question: request.question,
        deadline: request.deadline,
      };
      if (request.context !== "") body.context = request.context;
      // What the agent signs over besides its answer (README.md "Signed answers").
      if (request.chainId !== undefined && request.marketAddress !== undefined) {
        body.chain_id = request.chainId;
        body.market_address = request.marketAddress;
        body.agent_id = marketIdForWire(seat.agentId);
      }
      const route = routeTo(endpoint, seat, "a2a/resolve");
      if ("refused" in route) return route.refused;
      const { url, headers } = route;
      return callWithRetry(
        async (remainingMs) => {
          const res = await config.http.postJson(url, body, {
            timeoutMs: remainingMs,
            ...(headers ? { headers } : {}),
          });
          const parsed = resolveReplySchema.safeParse(res.body);
          if (!parsed.success) throw new InvalidReplyError(describeIssues("resolve reply", parsed.error));
          const { signature, ...reply } = parsed.data;
          const answer: WorkerAnswer = {
            determination: reply.determination,
            confidence: reply.confidence,
            evidence: reply.evidence,
            sources: reply.sources,
            // Hashed here, from what arrived: an agent's signature only ever covers the reply it sent.
            replyHash: replyHash(reply),
          };
          if (signature !== undefined) answer.signature = signature;
          return answer;
        },
        {
          timeoutMs: resolveTimeoutMs,
          ...(config.retryDelayMs !== undefined ? { retryDelayMs: config.retryDelayMs } : {}),
        },
      );
    },

    async challenge(endpoint, seat, request): Promise<CallResult<string[]>> {
      const challenges = request.challenges;
      if (challenges.length === 0) return { ok: true, value: [], latencyMs: 0, attempts: 0 };
      const route = routeTo(endpoint, seat, "a2a/challenge");
      if ("refused" in route) return route.refused;
      const { url, headers } = route;
      return callWithRetry(
        async (remainingMs) => {
          // market_id and question are additions to the spec's body: they let an agent serving several markets
          // (or market contracts sharing ids) defend the right answer. Agents following the spec ignore them.
          const body: ChallengeRequestWire = {
            market_id: marketIdForWire(request.ask.marketId),
            question: request.ask.question,
            challenges,
          };
          const res = await config.http.postJson(url, body, {
            timeoutMs: remainingMs,
            ...(headers ? { headers } : {}),
          });
          const parsed = challengeReplySchema.safeParse(res.body);
          if (!parsed.success) throw new InvalidReplyError(describeIssues("challenge reply", parsed.error));
          // Fewer replies than challenges is recorded as is (it lowers Collaboration); extra ones are ignored.
          return parsed.data.responses.slice(0, challenges.length);
        },
        {
          timeoutMs: challengeTimeoutMs,
          ...(config.retryDelayMs !== undefined ? { retryDelayMs: config.retryDelayMs } : {}),
        },
      );
    },
  };
}
