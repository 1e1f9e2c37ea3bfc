/**
 * The fetch under every JSON-RPC request: transient failures retried with bounded exponential backoff, never a
 * revert; one deadline for a request and its retries, past which the error names the endpoint and the method it
 * waited on. Free of viem at load, so the light read path of the CLI (cli/shared/json-rpc.ts) uses it too.
 *
 * Retried: connection refused/reset/closed, timeouts, HTTP 408/429/502/503/504, and JSON-RPC rate-limit errors
 * (-32005, 429, -32007). A revert arrives as an ordinary JSON-RPC error and is passed through untouched.
 *
 * A raw transaction whose first attempt failed ambiguously (the node may have received it) is made idempotent: if
 * a retry is answered "already known" / "nonce too low", the transaction is looked up by its hash and, when the
 * node has it, the hash is returned as if the send succeeded.
 */
import type { Hex } from "viem";
import { ChainError } from "./chain-error.js";
import { isRangeLimit } from "./range-limit.js";
import { backoffDelay, retry } from "../util/retry.js";
import { redactUrl } from "../util/redact.js";
import { CresolverError } from "../util/errors.js";

export interface RetryOptions {
  /** Extra attempts after the first (default 4). */
  retries?: number;
  /** First backoff in ms, doubled each retry (default 200). */
  baseDelayMs?: number;
  /** Backoff cap in ms (default 3000). */
  maxDelayMs?: number;
  /** Per-attempt timeout in ms (default 30000). */
  timeoutMs?: number;
  /**
   * Time one request may take in all, retries and pauses included (default: none). Past it the request fails with
   * a ChainError naming the endpoint and the JSON-RPC method it waited on.
   */
  deadlineMs?: number;
  /** Observer for each retry (tests, logs). Never given request bodies. */
  onRetry?: (info: { attempt: number; reason: string; delayMs: number }) => void;
}

const RETRY_STATUS = new Set([408, 429, 502, 503, 504]);
const RETRY_RPC_CODES = new Set([-32005, 429, -32007]);
const DUPLICATE_TX =
  /already known|known transaction|already imported|nonce too low|replacement transaction underpriced/i;

type FetchFn = typeof fetch;

interface JsonRpcBody {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: unknown[];
}

function parseBody(init: RequestInit | undefined): JsonRpcBody | JsonRpcBody[] | undefined {
  if (typeof init?.body !== "string") return undefined;
  try {
    return JSON.parse(init.body) as JsonRpcBody | JsonRpcBody[];
  } catch {
    return undefined;
  }
}

/** A failure worth another attempt; `reason` names it without request bodies. */
export class TransientRpcFailure extends CresolverError {
  constructor(
    readonly reason: string,
    /** The request may have reached the node (anything but a refused connection). */
    readonly ambiguous = false,
  ) {
    super(reason);
  }
}

/** The transient failure for a request that threw before any answer (refused, reset, timed out). */
export function transportFailure(error: unknown): TransientRpcFailure {
  // fetch puts the socket error in `cause`; node:http throws it as is.
  const own = error as { cause?: { code?: unknown; message?: unknown }; code?: unknown; message?: unknown };
  const cause = own.cause ?? (typeof own.code === "string" ? own : undefined);
  const code = cause?.code;
  const message = cause?.message;
  return new TransientRpcFailure(
    typeof code === "string"
      ? code
      : typeof message === "string"
        ? message.slice(0, 80)
        : error instanceof Error
          ? `${error.name}: ${error.message.slice(0, 80)}`
          : "network error",
    // Refused connections never reached the node; anything else might have.
    code !== "ECONNREFUSED",
  );
}

/** Whether an HTTP status is worth another attempt. */
export function isTransientStatus(status: number): boolean {
  return RETRY_STATUS.has(status);
}

/** The JSON-RPC error of a (non-batch) reply when it is worth another attempt: a rate limit, not a range limit. */
export function transientRpcError(parsed: unknown): string | undefined {
  const err =
    typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as { error?: { code?: unknown; message?: unknown } }).error
      : undefined;
  // A getLogs range or result cap (also sent as -32005) is answered at once: logs.ts splits the range.
  const rangeLimit = typeof err?.message === "string" && isRangeLimit(err.message);
  return err && typeof err.code === "number" && RETRY_RPC_CODES.has(err.code) && !rangeLimit
    ? `JSON-RPC ${err.code}`
    : undefined;
}

/** The error for a request past its deadline: the endpoint and the method it waited on. */
export function overdueRequest(url: string, method: string | undefined, deadlineMs: number): ChainError {
  return new ChainError(
    "rpc",
    `no answer from the RPC endpoint ${redactUrl(url)} to ${method ?? "a batch request"} within ${Math.round(deadlineMs / 100) / 10} s (--rpc-timeout)`,
  );
}

/** `once` until it answers, with the backoff and the deadline of `options`; the errors as the module comment says. */
export async function retryRpc<T>(
  once: () => Promise<T>,
  options: RetryOptions & { deadline?: AbortSignal; overdue: () => ChainError },
): Promise<T> {
  const retries = options.retries ?? 4;
  try {
    return await retry(once, {
      attempts: retries + 1,
      delayMs: { baseMs: options.baseDelayMs ?? 200, maxMs: options.maxDelayMs ?? 3_000 },
      retryable: (error) => error instanceof TransientRpcFailure,
      ...(options.deadline ? { signal: options.deadline } : {}),
      onRetry: ({ attempt, error, delayMs }) =>
        options.onRetry?.({ attempt, reason: (error as TransientRpcFailure).reason, delayMs }),
    });
  } catch (error) {
    if (options.deadline?.aborted && !(error instanceof ChainError)) throw options.overdue();
    if (error instanceof TransientRpcFailure)
      throw new ChainError("rpc", `RPC request failed after ${retries + 1} attempts (${error.reason})`);
    throw error;
  }
}

/** A fetch that retries transient failures (see the module comment). */
export function createRetryingFetch(options: RetryOptions = {}, inner: FetchFn = fetch): FetchFn {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadlineMs = options.deadlineMs;

  return async (input, init) => {
    const body = parseBody(init);
    const single = Array.isArray(body) ? undefined : body;
    const deadline = deadlineMs !== undefined ? AbortSignal.timeout(deadlineMs) : undefined;
    const overdue = () =>
      overdueRequest(String(input instanceof Request ? input.url : input), single?.method, deadlineMs ?? 0);
    const rawTx =
      single?.method === "eth_sendRawTransaction" && typeof single.params?.[0] === "string"
        ? (single.params[0] as Hex)
        : undefined;
    let ambiguous = false;

    /** One attempt: a Response to hand to viem, or a TransientRpcFailure. */
    async function once(): Promise<Response> {
      let response: Response;
      try {
        const signals = [AbortSignal.timeout(timeoutMs), ...(deadline ? [deadline] : [])];
        if (init?.signal) signals.push(init.signal);
        response = await inner(input, { ...init, signal: AbortSignal.any(signals) });
      } catch (error) {
        if (init?.signal?.aborted) throw error;
        if (deadline?.aborted) throw overdue();
        const failure = transportFailure(error);
        if (failure.ambiguous) ambiguous = true;
        throw failure;
      }
      if (isTransientStatus(response.status)) {
        await response.body?.cancel().catch(() => undefined);
        throw new TransientRpcFailure(`HTTP ${response.status}`);
      }
      if (!response.ok) return response;
      const text = await response.text();
      let parsed: { error?: { code?: unknown; message?: unknown } } | undefined;
      try {
        parsed = JSON.parse(text) as typeof parsed;
      } catch {
        parsed = undefined;
      }
      const err = parsed && !Array.isArray(parsed) ? parsed.error : undefined;
      const transient = transientRpcError(parsed);
      if (transient !== undefined) throw new TransientRpcFailure(transient);
      if (
        err &&
        rawTx !== undefined &&
        ambiguous &&
        typeof err.message === "string" &&
        DUPLICATE_TX.test(err.message)
      ) {
        // An earlier attempt may have reached the node: if it has our transaction, that attempt succeeded.
        // Rare (a retried send answered "already known"): viem is loaded only here, so plain reads stay light.
        const { keccak256 } = await import("viem");
        const hash = keccak256(rawTx);
        const lookup = await inner(input, {
          ...init,
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: single?.id ?? 1,
            method: "eth_getTransactionByHash",
            params: [hash],
          }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        const found = (await lookup.json()) as { result?: unknown };
        if (found.result) {
          return new Response(JSON.stringify({ jsonrpc: "2.0", id: single?.id ?? 1, result: hash }), {
            status: 200,
            headers: { "content-type": "application/json" },
          });
        }
      }
      return new Response(text, { status: response.status, headers: response.headers });
    }

    return retryRpc(once, { ...options, ...(deadline ? { deadline } : {}), overdue });
  };
}

/** Worst-case time of one request with all its retries: viem's own timeout must not cut the retries short. */
export function retryBudgetMs(options: RetryOptions = {}): number {
  const retries = options.retries ?? 4;
  const base = options.baseDelayMs ?? 200;
  const cap = options.maxDelayMs ?? 3_000;
  let total = (options.timeoutMs ?? 30_000) * (retries + 1);
  for (let attempt = 1; attempt <= retries; attempt++) total += backoffDelay(attempt, { baseMs: base, maxMs: cap });
  return total + 1_000;
}

/**
 * The error for an endpoint that did not answer the first request: `detail` says why (a deadline message names the
 * endpoint itself, so it is not repeated).
 */
export function unreachableEndpoint(rpcUrl: string, detail: string, cause: unknown): ChainError {
  const where = redactUrl(rpcUrl);
  const head = detail.includes(where) ? "cannot reach the RPC endpoint" : `cannot reach the RPC endpoint ${where}`;
  return new ChainError("rpc", `${head}: ${detail}`, { cause });
}
