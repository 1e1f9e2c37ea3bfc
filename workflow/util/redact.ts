/**
 * The one set of redaction rules for text that leaves the process (logs, CLI output, error messages stored in
 * bundles or served by the daemon). Pure: no `node:*` imports (the CRE workflow bundles workflow/ code).
 *
 * - `redactSecrets`: known secret values (configured keys, tokens). A value of 4+ characters is replaced
 *   literally; a hex value (0x-prefixed or not) of 16+ digits is also replaced without its prefix and in any
 *   letter case, since keys are printed both ways.
 * - `redactText`: `redactSecrets` plus what looks secret without being known: URLs reduced to scheme://host
 *   (credentials, paths and queries often carry provider keys), `Bearer …` / `Authorization: …`, JWT-like
 *   strings, and `name=value` / `name: value` pairs named like a secret.
 * - `redactUrl`: one URL reduced to scheme://host, with `/…` marking a dropped path or query.
 * - `redactObject`: a copy with values under keys named like a secret replaced and strings run through
 *   `redactText`.
 * - `LOG_REDACT_PATHS`: the same key names in pino's `redact.paths` syntax, for every pino logger.
 */

export const REDACTED = "[redacted]";

/** Secret values shorter than this are not replaced (too likely to hit ordinary text). */
const MIN_SECRET_CHARS = 4;
/** Hex secrets of at least this many digits are also matched without their 0x and in any case. */
const MIN_HEX_DIGITS = 16;

/** Key names whose values are secrets (objects, `name=value` text). */
export const SECRET_KEY =
  /secret|token|passw(or)?d|authori[sz]ation|api[_-]?key|private[_-]?(key|jwk)|^key$|^d$|cookie|signature/i;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * `text` with every value of `secrets` replaced by [redacted] (see the module comment for the rules). `minChars`
 * raises the length below which a value is left alone (a caller filtering all of its output, like the CLI).
 */
export function redactSecrets(text: string, secrets: readonly string[], options: { minChars?: number } = {}): string {
  const minChars = Math.max(MIN_SECRET_CHARS, options.minChars ?? MIN_SECRET_CHARS);
  let out = text;
  for (const secret of secrets) {
    if (typeof secret !== "string" || secret.replace(/^0x/i, "").length < minChars) continue;
    out = out.split(secret).join(REDACTED);
    const hex = secret.replace(/^0x/i, "");
    if (hex.length >= MIN_HEX_DIGITS && /^[0-9a-f]+$/i.test(hex))
      out = out.replace(new RegExp(escapeRegExp(hex), "gi"), REDACTED);
  }
  return out;
}

/** `redactSecrets` plus the pattern rules (URLs, bearer and Authorization values, JWTs, secret-named pairs). */
export function redactText(text: string, secrets: readonly string[] = []): string {
  return redactSecrets(text, secrets)
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)(?:[^\s/@]*@)?([^\s/?#]+)[^\s"')]*/gi, "$1$2")
    .replace(/\bbearer\s+(?!\[redacted\])[^\s"',]+/gi, `Bearer ${REDACTED}`)
    .replace(/\b(authorization)(["']?\s*[:=]\s*["']?)(?!bearer\b)(?!\[redacted\])[^\s"',}]+/gi, `$1$2${REDACTED}`)
    .replace(/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, "[jwt]")
    .replace(
      /(private[_ ]?key|api[_-]?key|secret|token|password)(["']?\s*[:=]\s*["']?)[^\s"',}]+/gi,
      `$1$2${REDACTED}`,
    );
}

/** An RPC or endpoint URL without credentials, path or query (providers put API keys there). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    const keyed = u.pathname.length > 1 || u.search !== "" || u.username !== "" || u.password !== "";
    return `${u.protocol}//${u.host}${keyed ? "/…" : ""}`;
  } catch {
    return "(invalid URL)";
  }
}

/** A copy of `value` (JSON-like data) with secret-named keys replaced and strings redacted; depth-capped. */
export function redactObject(value: unknown, secrets: readonly string[] = [], depth = 8): unknown {
  if (typeof value === "string") return redactText(value, secrets);
  if (value === null || typeof value !== "object") return value;
  if (depth <= 0) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactObject(item, secrets, depth - 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value))
    out[key] = SECRET_KEY.test(key) ? REDACTED : redactObject(item, secrets, depth - 1);
  return out;
}

const SECRET_LOG_KEYS = [
  "apiToken",
  "rpcUrl",
  "privateKey",
  "private_jwk",
  "privateJwk",
  "apiKey",
  "api_key",
  "token",
  "secret",
  "password",
  "authorization",
  "Authorization",
  "key",
  "d",
];

/** pino `redact.paths`: secret-named keys at the top level and one level down, and request headers. */
export const LOG_REDACT_PATHS: readonly string[] = [
  ...SECRET_LOG_KEYS,
  ...SECRET_LOG_KEYS.map((k) => `*.${k}`),
  "headers.authorization",
  "headers.cookie",
  "req.headers.authorization",
  "req.headers.cookie",
  'req.headers["x-ai-olympics-signature"]',
  "request.headers.authorization",
  "config.apiToken",
  "config.rpcUrl",
];
