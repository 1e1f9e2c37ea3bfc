/**
 * Factagora BYOA ("Bring Your Own Agent", docs/protocols/factagora.md). The resolver plays the
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
 *
 * This file is the adapter (transport: auth, retries, deadlines, NEUTRAL handling). The wire format and the
 * spec's validation rules are in factagora-wire.ts, request building and reply mapping in
 * factagora-mapping.ts; everything they export is re-exported here, so importers need only this module.
 */
import type { AskRequest, CallResult, ChallengeRequest, WorkerAnswer, WorkerEndpoint, WorkerFailure, WorkerProtocolAdapter, WorkerSeat } from "../core/types.js";
import type { SafeHttpClient } from "../http/client.js";
import { isHttpError } from "../http/errors.js";
import { retry } from "../util/retry.js";
import { InvalidReplyError, toFailure } from "./call.js";
import type { CredentialStore } from "./credentials.js";
import { buildRound1Request, buildRound2Request, challengeReplies, extrasOf, predictionIdFor, renderEvidence } from "./factagora-mapping.js";
import { describeViolations, FACTAGORA_LIMITS, FACTAGORA_PROTOCOL, sourcesOf, validateFactagoraResponse, type FactagoraRequest, type FactagoraResponse, type FactagoraRuleFinding } from "./factagora-wire.js";

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
} from "./factagora-wire.js";
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
} from "./factagora-mapping.js";

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
    const found = config.credentials.forEndpoint(seat.agentId, url);
    if (found.kind === "refused") return done({ ok: false, failure: found.failure }, 0);
    const token = found.kind === "ok" ? found.credentials.bearerToken : undefined;
    if (token === undefined) {
      return done({ ok: false, failure: { kind: "auth", message: `no factagora bearer token configured for agent ${seat.agentId.toString()}; not called` } }, 0);
    }
    if (!TOKEN_OK.test(token)) {
      return done({ ok: false, failure: { kind: "auth", message: `the factagora bearer token configured for agent ${seat.agentId.toString()} is not a valid header value; not called` } }, 0);
    }
    const headers = { authorization: `Bearer ${token}` };
    let attempts = 0;
    try {
      const reply = await retry(
        async (attempt) => {
          attempts = attempt;
          const res = await config.http.postJson(url, body, { timeoutMs, headers, ...(config.maxResponseBytes !== undefined ? { maxBytes: config.maxResponseBytes } : {}) });
          const checked = validateFactagoraResponse(res.body);
          if (checked.value === undefined) throw new InvalidReplyError(describeViolations(checked.violations));
          return { reply: checked.value, warnings: checked.warnings };
        },
        { attempts: maxRetries + 1, delayMs: { baseMs: baseDelay }, retryable: (error) => isHttpError(error) && error.status === 500 },
      );
      return done({ ok: true, ...reply }, attempts);
    } catch (error) {
      const failure = toFailure(error);
      if (failure.kind === "timeout") failure.message = `${failure.message} (deadline ${timeoutMs} ms)`;
      if (failure.kind === "auth") failure.message = `${failure.message}: the agent rejected the bearer token configured for agent ${seat.agentId.toString()}`;
      if (isHttpError(error) && error.status === 500) failure.message = `${failure.message} (${attempts} attempts; the spec retries a 500 at most ${maxRetries} times)`;
      return done({ ok: false, failure }, attempts);
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
