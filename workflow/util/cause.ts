/**
 * The one walk down an error's `cause` chain (fetch failures wrap the socket error, viem wraps the RPC error…).
 * Bounded, and safe against cycles: hostile or buggy code can build `a.cause = a`.
 */

/** `error` itself, then its causes, outermost first; at most `maxDepth` values, each at most once. */
export function* causes(error: unknown, maxDepth = 8): Iterable<unknown> {
  const seen = new Set<unknown>();
  let current: unknown = error;
  for (let depth = 0; depth < maxDepth && current !== undefined && current !== null && !seen.has(current); depth++) {
    seen.add(current);
    yield current;
    current = typeof current === "object" ? (current as { cause?: unknown }).cause : undefined;
  }
}

/** The first of `error` and its causes that matches `predicate`, or undefined. */
export function findCause<T>(
  error: unknown,
  predicate: (value: unknown) => value is T,
  maxDepth?: number,
): T | undefined;
export function findCause(error: unknown, predicate: (value: unknown) => boolean, maxDepth?: number): unknown;
export function findCause(error: unknown, predicate: (value: unknown) => boolean, maxDepth = 8): unknown {
  for (const value of causes(error, maxDepth)) if (predicate(value)) return value;
  return undefined;
}
