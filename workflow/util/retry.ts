/**
 * The one retry policy of the project: how many attempts, how long to wait between them, which failures are
 * worth another attempt, and an abort signal that stops the waiting. Used by the chain transport, the settler,
 * the LLM evaluator, the protocol adapters and (for its delay curve) the daemon's job scheduler.
 *
 * Pure: no `node:*` imports and no global timer names (the CRE workflow bundles this for QuickJS); pauses go
 * through workflow/util/timers.ts unless the caller passes its own `sleep`.
 */
import { sleep as hostSleep, startTimer } from "./timers.js";

/** Exponential delay curve: base · factor^(attempt−1), capped at max. `attempt` is 1-based (the one that failed). */
export interface BackoffCurve {
  baseMs: number;
  /** Cap on one delay (default: no cap). */
  maxMs?: number;
  /** Growth per attempt (default 2). */
  factor?: number;
}

/** The delay after failed attempt `attempt` (1-based) under `curve`. */
export function backoffDelay(attempt: number, curve: BackoffCurve): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  const raw = curve.baseMs * (curve.factor ?? 2) ** exponent;
  return curve.maxMs === undefined ? raw : Math.min(raw, curve.maxMs);
}

export interface RetryInfo {
  /** The attempt that failed (1-based). */
  attempt: number;
  error: unknown;
  /** The pause before the next attempt. */
  delayMs: number;
}

export interface RetryOptions {
  /** Attempts in all, the first included (≥ 1). */
  attempts: number;
  /** Pause after failed attempt `attempt`: a function, or an exponential curve. Default: no pause. */
  delayMs?: ((attempt: number) => number) | BackoffCurve;
  /** Whether failure `error` of attempt `attempt` is worth another attempt. Default: every failure is. */
  retryable?: (error: unknown, attempt: number) => boolean;
  /** Stops the retrying: no attempt starts and no pause continues once it is aborted. */
  signal?: AbortSignal;
  /** Called before each pause (logs, tests). */
  onRetry?: (info: RetryInfo) => void;
  /** Pause (tests with a fake clock). Default: workflow/util/timers.ts, cut short by `signal`. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** The error `retry` throws when its signal aborted: the signal's reason if it is an Error, else an AbortError. */
function abortError(signal: AbortSignal): unknown {
  if (signal.reason instanceof Error) return signal.reason;
  const error = new Error("the operation was aborted");
  error.name = "AbortError";
  return error;
}

/** The two AbortSignal methods used here (the CRE type-check's lib does not declare them on AbortSignal). */
interface AbortListenable {
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** A signal with the listener methods (every host with timers has them; the type-check of cre/ does not know). */
function isListenable(signal: object): signal is AbortListenable {
  return (
    typeof Reflect.get(signal, "addEventListener") === "function" &&
    typeof Reflect.get(signal, "removeEventListener") === "function"
  );
}

/** `ms` of pause that ends early (rejecting) when `signal` aborts; the timer is cleared then. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal === undefined) return hostSleep(ms);
  if (signal.aborted) return Promise.reject(abortError(signal));
  const events = signal;
  if (!isListenable(events)) return hostSleep(ms);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      cancel?.();
      reject(abortError(signal));
    };
    const cancel = startTimer(() => {
      events.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    if (cancel === undefined) {
      reject(new Error("this runtime has no timers"));
      return;
    }
    events.addEventListener("abort", onAbort, { once: true });
  });
}

function delayFor(attempt: number, delay: RetryOptions["delayMs"]): number {
  if (delay === undefined) return 0;
  return typeof delay === "function" ? delay(attempt) : backoffDelay(attempt, delay);
}

/**
 * Runs `fn(attempt)` (1-based) until it resolves, its failure is not retryable, or `attempts` are used up; the
 * last failure is rethrown unchanged. An aborted `signal` throws its reason before the next attempt.
 */
export async function retry<T>(fn: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const attempts = Math.max(1, Math.floor(options.attempts));
  const pause = options.sleep ?? abortableSleep;
  for (let attempt = 1; ; attempt++) {
    if (options.signal?.aborted) throw abortError(options.signal);
    try {
      return await fn(attempt);
    } catch (error) {
      if (attempt >= attempts || options.signal?.aborted) throw error;
      if (options.retryable !== undefined && !options.retryable(error, attempt)) throw error;
      const delayMs = delayFor(attempt, options.delayMs);
      options.onRetry?.({ attempt, error, delayMs });
      if (delayMs > 0) await pause(delayMs, options.signal);
    }
  }
}
