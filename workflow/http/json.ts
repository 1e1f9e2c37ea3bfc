/**
 * JSON helpers for untrusted replies and for requests that carry uint256 values.
 */
import { MAX_STRING_CHARS, sanitizeString } from "../core/text.js";
import { CresolverError } from "../util/errors.js";

export interface SanitizeLimits {
  /** Longest string (values and keys) kept, in UTF-16 code units; longer ones are cut. Default 50,000. */
  maxStringLength: number;
  /** Deepest nesting accepted; deeper documents are rejected (guards the recursion). Default 64. */
  maxDepth: number;
}

export const DEFAULT_SANITIZE_LIMITS: SanitizeLimits = { maxStringLength: MAX_STRING_CHARS, maxDepth: 64 };

export class JsonDepthError extends CresolverError {
  constructor(maxDepth: number) {
    super(`JSON nested deeper than ${maxDepth} levels`);
    this.name = "JsonDepthError";
  }
}

/**
 * Returns a copy of parsed JSON with every string (keys included) made safe by the one `sanitizeString`
 * (workflow/core/text.ts: control characters but \t \n \r removed, lone surrogates replaced, cut to
 * `maxStringLength` without splitting a pair). Objects are rebuilt with
 * own data properties only, so a `"__proto__"` key stays a plain key and cannot touch a prototype.
 */
export function sanitizeJson(value: unknown, limits: SanitizeLimits = DEFAULT_SANITIZE_LIMITS, depth = 0): unknown {
  if (typeof value === "string") return sanitizeString(value, limits.maxStringLength);
  if (value === null || typeof value !== "object") return value;
  if (depth >= limits.maxDepth) throw new JsonDepthError(limits.maxDepth);
  if (Array.isArray(value)) return value.map((item) => sanitizeJson(item, limits, depth + 1));
  const entries: [string, unknown][] = [];
  for (const [key, item] of Object.entries(value)) {
    entries.push([sanitizeString(key, limits.maxStringLength), sanitizeJson(item, limits, depth + 1)]);
  }
  return Object.fromEntries(entries);
}

/**
 * JSON.stringify that writes bigint values as exact integer literals (JSON numbers have no
 * precision limit; only JavaScript's Number does). Used so a uint256 market id is never rounded.
 */
export function stringifyJson(value: unknown): string {
  let bigints = false;
  const plain = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== "bigint") return v;
    bigints = true;
    return v.toString();
  });
  if (plain === undefined) throw new TypeError("value is not JSON-serialisable");
  if (!bigints) return plain;
  // A marker that occurs nowhere in the document, so only our own placeholders can match it (deterministic, and
  // needs no random source: the CRE runtime has none).
  let n = 0;
  while (plain.includes(`__bigint_${n}_`)) n++;
  const tag = `__bigint_${n}_`;
  // Same value as `plain` with tagged bigints, so it serialises too.
  const text = JSON.stringify(value, (_key, v: unknown) =>
    typeof v === "bigint" ? `${tag}${v.toString()}` : v,
  ) as string;
  return text.replace(new RegExp(`"${tag}(-?\\d+)"`, "g"), "$1");
}
