/**
 * Shared call discipline for protocol adapters: one overall deadline per call, at most one retry
 * inside it (only for failures the HTTP layer marks retryable: 5xx and connection-level errors),
 * and every failure returned as a CallResult, never thrown.
 */
import type { CallResult, FailureKind, WorkerFailure, WorkerSeat } from "../core/types.js";
import { ambientSignal } from "../http/abort.js";
import { isHttpError } from "../http/errors.js";
import { hasTimers } from "../util/timers.js";
import { retry } from "../util/retry.js";
import type { AgentCredentials, CredentialStore } from "./credentials.js";
import { CresolverError } from "../util/errors.js";

export interface RetryPolicy {
  /** Overall deadline of the call, retries included. */
  timeoutMs: number;
  /** Pause before the single retry. Default 250 ms. */
  retryDelayMs?: number;
  /** A retry is only started if at least this much time remains after the pause. Default 500 ms. */
  minRetryBudgetMs?: number;
}

/** A reply that arrived but does not match the protocol's schema. */
export class InvalidReplyError extends CresolverError {
  readonly kind: FailureKind = "invalid-response";
  constructor(message: string) {
    super(message.length > 300 ? `${message.slice(0, 300)}…` : message);
    this.name = "InvalidReplyError";
  }
}

export async function callWithRetry<T>(
  callOnce: (remainingMs: number) => Promise<T>,
  policy: RetryPolicy,
): Promise<CallResult<T>> {
  const start = performance.now();
  const deadline = start + policy.timeoutMs;
  const retryDelayMs = policy.retryDelayMs ?? 250;
  const minBudget = policy.minRetryBudgetMs ?? 500;
  let attempts = 0;
  try {
    const value = await retry(
      (attempt) => {
        attempts = attempt;
        return callOnce(Math.max(0, Math.floor(deadline - performance.now())));
      },
      {
        attempts: 2,
        delayMs: () => retryDelayMs,
        // An aborted run (shutdown, job timeout) never retries.
        // A runtime without timers (the CRE WASM runtime) cannot pause, so it never retries.
        retryable: (error) =>
          isHttpError(error) &&
          error.retryable &&
          ambientSignal()?.aborted !== true &&
          hasTimers() &&
          deadline - performance.now() - retryDelayMs >= minBudget,
      },
    );
    return { ok: true, value, latencyMs: Math.round(performance.now() - start), attempts };
  } catch (error) {
    const failure = toFailure(error);
    // The configured deadline, not the time that happened to remain: failure messages are hashed into the bundle.
    if (failure.kind === "timeout") failure.message = `${failure.message} (deadline ${policy.timeoutMs} ms)`;
    return { ok: false, failure, latencyMs: Math.round(performance.now() - start), attempts };
  }
}

export function toFailure(error: unknown): WorkerFailure {
  if (isHttpError(error)) return error.toFailure();
  if (error instanceof InvalidReplyError) return { kind: "invalid-response", message: error.message };
  // A bug on our side must not take the pipeline down either; say so without echoing details.
  return { kind: "network", message: `unexpected error (${error instanceof Error ? error.name : typeof error})` };
}

/** `{endpoint}/<path>`: keeps the endpoint's path (without trailing slashes) and query, drops any fragment. */
export function joinEndpoint(endpoint: string, path: string): string {
  const url = new URL(endpoint);
  url.hash = "";
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
  return url.toString();
}

/** Where to send one call and the secrets bound to that URL, or why the call is refused before any network I/O. */
export type EndpointRoute = { url: string; credentials: AgentCredentials | undefined } | { failure: WorkerFailure };

/** The failure of a registration whose endpoint is not a URL (no call is made). */
export const NOT_A_URL: WorkerFailure = { kind: "registration", message: "endpoint is not a URL" };

/** The endpoint URL (plus `path` when given), its fragment dropped; undefined when it is not a URL. */
export function endpointUrl(endpoint: string, path?: string): string | undefined {
  try {
    if (path !== undefined) return joinEndpoint(endpoint, path);
    const parsed = new URL(endpoint);
    parsed.hash = "";
    return parsed.toString();
  } catch {
    return undefined;
  }
}

/**
 * The one route of every adapter's call: the endpoint URL (plus `path` when given; the fragment dropped) and the
 * credentials the store binds to that URL's origin. A registration whose endpoint is not a URL, or credentials
 * bound to another origin, refuse the call.
 */
export function routeEndpoint(
  credentials: CredentialStore | undefined,
  seat: WorkerSeat,
  endpoint: string,
  path?: string,
): EndpointRoute {
  const url = endpointUrl(endpoint, path);
  if (url === undefined) return { failure: { ...NOT_A_URL } };
  const found = credentials?.forEndpoint(seat.agentId, url) ?? { kind: "none" };
  if (found.kind === "refused") return { failure: found.failure };
  return { url, credentials: found.kind === "ok" ? found.credentials : undefined };
}

/** A route's headers: `base` plus the bearer token its credentials carry, if any (undefined when there are none). */
export function bearerHeaders(
  credentials: AgentCredentials | undefined,
  base?: Record<string, string>,
): Record<string, string> | undefined {
  const token = credentials?.bearerToken;
  return token === undefined ? base : { ...base, authorization: `Bearer ${token}` };
}

/**
 * routeEndpoint for a protocol that never calls without its secret: the URL and the secret `secretOf` picks from
 * the bound credentials, or an `auth` failure naming `what` is missing (the agent is not called).
 */
export function routeWithSecret(
  credentials: CredentialStore | undefined,
  seat: WorkerSeat,
  endpoint: string,
  secretOf: (bound: AgentCredentials) => string | undefined,
  what: string,
): { url: string; secret: string } | { failure: WorkerFailure } {
  const route = routeEndpoint(credentials, seat, endpoint);
  if ("failure" in route) return route;
  const secret = route.credentials === undefined ? undefined : secretOf(route.credentials);
  if (secret === undefined || secret === "")
    return {
      failure: { kind: "auth", message: `no ${what} configured for agent ${seat.agentId.toString()}; not called` },
    };
  return { url: route.url, secret };
}
