/**
 * The platform side of Factagora BYOA: one webhook POST per round, replies checked against every "Response
 * Validation" rule (README.md has the full mapping: endpoint, rounds, auth, deadlines and retries, NEUTRAL).
 * Wire format and validation in wire.ts, request building and reply mapping in mapping.ts (re-exported here).
 */
import type {
  CallResult,
  WorkerAnswer,
  WorkerFailure,
  WorkerProtocolAdapter,
  WorkerSeat,
} from "../../workflow/core/types.js";
import type { SafeHttpClient } from "../../workflow/http/client.js";
import { isHttpError } from "../../workflow/http/errors.js";
import { retry } from "../../workflow/util/retry.js";
import { InvalidReplyError, routeWithSecret, toFailure } from "../../workflow/adapters/call.js";
import type { CredentialStore } from "../../workflow/adapters/credentials.js";
import {
  buildRound1Request,
  buildRound2Request,
  challengeReplies,
  extrasOf,
  predictionIdFor,
  renderEvidence,
} from "./mapping.js";
import {
  describeViolations,
  FACTAGORA_LIMITS,
  FACTAGORA_PROTOCOL,
  sourcesOf,
  validateFactagoraResponse,
  type FactagoraRequest,
  type FactagoraResponse,
  type FactagoraRuleFinding,
} from "./wire.js";

export {
  FACTAGORA_ACTION_TYPES,
  FACTAGORA_EVIDENCE_TYPES,
  FACTAGORA_LIMITS,
  FACTAGORA_POSITIONS,
  FACTAGORA_PROTOCOL,
  NO_CONTEXT_DESCRIPTION,
  RESOLUTION_CRITERIA,
  ROUND2_MARKER,
  describeViolations,
  sourcesOf,
  validateFactagoraResponse,
  type FactagoraAction,
  type FactagoraArgument,
  type FactagoraEvidence,
  type FactagoraPosition,
  type FactagoraRequest,
  type FactagoraResponse,
  type FactagoraRuleFinding,
  type FactagoraValidation,
} from "./wire.js";
export {
  PREDICTION_ID_NAMESPACE,
  buildRound1Request,
  buildRound2Request,
  challengeReplies,
  extrasOf,
  isoDeadline,
  peerArgument,
  predictionIdFor,
  renderEvidence,
  round2Description,
  workerName,
} from "./mapping.js";

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

type Round =
  | { ok: true; reply: FactagoraResponse; warnings: FactagoraRuleFinding[] }
  | { ok: false; failure: WorkerFailure };

/** A bearer token usable as a header value (visible ASCII, no spaces): anything else is a configuration error. */
const TOKEN_OK = /^[\x21-\x7e]+$/;

export function createFactagoraAdapter(config: FactagoraAdapterConfig): WorkerProtocolAdapter {
  const timeoutMs = config.timeoutMs ?? FACTAGORA_LIMITS.timeoutMs;
  const maxRetries = config.maxRetries ?? FACTAGORA_LIMITS.maxRetries;
  const baseDelay = config.retryBaseDelayMs ?? FACTAGORA_LIMITS.retryBaseDelayMs;
  const category = config.category ?? "general";
  const namespace = config.predictionNamespace ?? "cresolver";

  /** POSTs one round with the spec's retry discipline; validates the reply. */
  async function round(
    endpoint: string,
    seat: WorkerSeat,
    body: FactagoraRequest,
  ): Promise<{ result: Round; latencyMs: number; attempts: number }> {
    const start = performance.now();
    const done = (result: Round, attempts: number) => ({
      result,
      latencyMs: Math.round(performance.now() - start),
      attempts,
    });
    const route = routeWithSecret(config.credentials, seat, endpoint, (c) => c.bearerToken, "factagora bearer token");
    if ("failure" in route) return done({ ok: false, failure: route.failure }, 0);
    const { url, secret: token } = route;
    if (!TOKEN_OK.test(token)) {
      return done(
        {
          ok: false,
          failure: {
            kind: "auth",
            message: `the factagora bearer token configured for agent ${seat.agentId.toString()} is not a valid header value; not called`,
          },
        },
        0,
      );
    }
    const headers = { authorization: `Bearer ${token}` };
    let attempts = 0;
    try {
      const reply = await retry(
        async (attempt) => {
          attempts = attempt;
          const res = await config.http.postJson(url, body, {
            timeoutMs,
            headers,
            ...(config.maxResponseBytes !== undefined ? { maxBytes: config.maxResponseBytes } : {}),
          });
          const checked = validateFactagoraResponse(res.body);
          if (checked.value === undefined) throw new InvalidReplyError(describeViolations(checked.violations));
          return { reply: checked.value, warnings: checked.warnings };
        },
        {
          attempts: maxRetries + 1,
          delayMs: { baseMs: baseDelay },
          retryable: (error) => isHttpError(error) && error.status === 500,
        },
      );
      return done({ ok: true, ...reply }, attempts);
    } catch (error) {
      const failure = toFailure(error);
      if (failure.kind === "timeout") failure.message = `${failure.message} (deadline ${timeoutMs} ms)`;
      if (failure.kind === "auth")
        failure.message = `${failure.message}: the agent rejected the bearer token configured for agent ${seat.agentId.toString()}`;
      if (isHttpError(error) && error.status === 500)
        failure.message = `${failure.message} (${attempts} attempts; the spec retries a 500 at most ${maxRetries} times)`;
      return done({ ok: false, failure }, attempts);
    }
  }

  return {
    protocol: FACTAGORA_PROTOCOL,

    async ask(endpoint, seat, request): Promise<CallResult<WorkerAnswer>> {
      const predictionId = predictionIdFor(request.marketId, namespace);
      const { result, latencyMs, attempts } = await round(
        endpoint.url,
        seat,
        buildRound1Request(request, predictionId, category),
      );
      if (!result.ok) return { ok: false, failure: result.failure, latencyMs, attempts };
      const reply = result.reply;
      if (reply.position === "NEUTRAL") {
        return {
          ok: false,
          failure: {
            kind: "abstained",
            message: `factagora agent answered NEUTRAL (confidence ${reply.confidence}): abstention, no vote and no quorum credit`,
          },
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

    async challenge(endpoint, seat, request): Promise<CallResult<string[]>> {
      if (request.challenges.length === 0) return { ok: true, value: [], latencyMs: 0, attempts: 0 };
      const predictionId = predictionIdFor(request.ask.marketId, namespace);
      const { result, latencyMs, attempts } = await round(
        endpoint.url,
        seat,
        buildRound2Request(request, predictionId, category),
      );
      if (!result.ok) return { ok: false, failure: result.failure, latencyMs, attempts };
      return { ok: true, value: challengeReplies(result.reply, request.challenges.length), latencyMs, attempts };
    },
  };
}
