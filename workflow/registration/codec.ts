/**
 * Building, encoding and decoding ERC-8004 registration files.
 *
 * decodeAgentUri takes an agent's tokenURI (attacker-controlled: anyone can register an agent)
 * and returns a validated RegistrationFile or throws a RegistrationError; it never does network
 * I/O itself. https:, http: and ipfs: go through an injected UriFetcher, which owns the
 * destination guard (private addresses etc.) and the streaming size/time limits.
 */
import { checkHttpEndpoint, DEFAULT_WORKER_PROTOCOL } from "./endpoint.js";
import { describeUrlText } from "../http/errors.js";
import { RegistrationError, truncate } from "./errors.js";
import { startTimer } from "../util/timers.js";
import {
  REGISTRATION_V1_TYPE,
  registrationFileSchema,
  summarizeIssues,
  type RegistrationEntry,
  type RegistrationFile,
  type RegistrationService,
} from "./schema.js";

/**
 * Loads `url` and returns the body as text. Implementations must refuse bodies over
 * `limits.maxBytes` without buffering them whole and give up after `limits.timeoutMs`.
 * A thrown RegistrationError is passed through; an error whose `code` or `kind` is "too-large"
 * becomes a too-large RegistrationError; anything else becomes fetch-failed.
 */
export type UriFetcher = (url: string, limits: { maxBytes: number; timeoutMs: number }) => Promise<string>;

export interface DecodeAgentUriOptions {
  /** Needed for https:, http: and ipfs:; without one those URIs fail with fetch-failed. */
  fetcher?: UriFetcher;
  /** Path-style gateway; the CID and path are appended. Default https://ipfs.io/ipfs/. */
  ipfsGateway?: string;
  /** Cap on the document's bytes (after base64/percent decoding for data: URIs). */
  maxBytes?: number;
  timeoutMs?: number;
}

export const DEFAULT_IPFS_GATEWAY = "https://ipfs.io/ipfs/";
export const DEFAULT_MAX_BYTES = 1_000_000;
export const DEFAULT_TIMEOUT_MS = 10_000;

/** Longest non-data URI we accept; real https/ipfs URIs are far shorter. */
const MAX_URL_LENGTH = 8_192;
/** Longest "data:<mediatype>;params" header before the comma. */
const MAX_DATA_HEADER = 256;
/** Backstop over the fetcher's own timeout, in case an injected fetcher ignores it. */
const TIMEOUT_GRACE_MS = 1_000;

export interface BuildRegistrationInput {
  name: string;
  description?: string;
  image?: string;
  /** The worker's base URL (absolute http or https). */
  endpoint: string;
  /** Default "cresolver". */
  protocol?: string;
  version?: string;
  /** Appended after the A2A entry (e.g. a wallet or MCP entry). */
  extraServices?: readonly RegistrationService[];
  /** Default true. */
  active?: boolean;
  registrations?: readonly RegistrationEntry[];
  supportedTrust?: readonly string[];
}

/** Validates unknown data as a registration file, or throws invalid-schema. */
export function validateRegistrationFile(value: unknown): RegistrationFile {
  let result;
  try {
    result = registrationFileSchema.safeParse(value);
  } catch (cause) {
    // zod does not throw on bad data, but a pathological value must still not escape untyped.
    throw new RegistrationError("invalid-schema", "registration file could not be validated", { cause });
  }
  if (!result.success) {
    throw new RegistrationError("invalid-schema", `invalid registration file: ${summarizeIssues(result.error)}`);
  }
  return result.data;
}

/** Makes a valid registration-v1 file whose first service is the worker's A2A entry. */
export function buildRegistrationFile(input: BuildRegistrationInput): RegistrationFile {
  const check = checkHttpEndpoint(input.endpoint);
  if (!check.ok) {
    throw new RegistrationError("invalid-schema", `A2A endpoint ${check.reason}: "${describeUrlText(input.endpoint)}"`);
  }
  const a2a: RegistrationService = {
    name: "A2A",
    endpoint: input.endpoint,
    // Written out even when it is the default, so other readers need not know our default.
    protocol: input.protocol ?? DEFAULT_WORKER_PROTOCOL,
    ...(input.version !== undefined ? { version: input.version } : {}),
  };
  // Absent optional keys are omitted rather than set to undefined, so a decoded copy is deep-equal.
  const file = {
    type: REGISTRATION_V1_TYPE,
    name: input.name,
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.image !== undefined ? { image: input.image } : {}),
    services: [a2a, ...(input.extraServices ?? [])],
    active: input.active ?? true,
    ...(input.registrations !== undefined ? { registrations: [...input.registrations] } : {}),
    ...(input.supportedTrust !== undefined ? { supportedTrust: [...input.supportedTrust] } : {}),
  };
  return validateRegistrationFile(file);
}

/** `data:application/json;base64,<base64 of the UTF-8 JSON>`, the form used as an on-chain tokenURI. */
export function encodeRegistrationDataUri(file: RegistrationFile): string {
  const valid = validateRegistrationFile(file);
  return `data:application/json;base64,${Buffer.from(JSON.stringify(valid), "utf8").toString("base64")}`;
}

/** Parses JSON text as a registration file: not-json or invalid-schema on failure. */
export function parseRegistrationJson(text: string): RegistrationFile {
  // A leading BOM is legal in UTF-8 files but not in JSON.parse.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (cause) {
    const detail = cause instanceof Error ? truncate(cause.message, 120) : "parse error";
    throw new RegistrationError("not-json", `registration file is not JSON (${detail})`, { cause });
  }
  return validateRegistrationFile(value);
}

/**
 * Resolves an agent URI (tokenURI) to its validated registration file.
 * data: is decoded locally; https:, http: and ipfs: (via a path gateway) go through `fetcher`.
 */
export async function decodeAgentUri(uri: string, options: DecodeAgentUriOptions = {}): Promise<RegistrationFile> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Options are configuration, not untrusted input: a bad value is a programming error.
  if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) throw new RangeError(`maxBytes must be a positive integer`);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new RangeError(`timeoutMs must be positive`);

  if (typeof uri !== "string") throw new RegistrationError("bad-uri", "agent URI is not a string");
  const trimmed = trimAsciiWhitespace(uri);
  if (trimmed === "") throw new RegistrationError("bad-uri", "agent URI is empty");

  const schemeText = /^([A-Za-z][A-Za-z0-9+.-]{0,31}):/.exec(trimmed.slice(0, 40))?.[1];
  if (schemeText === undefined)
    throw new RegistrationError("bad-uri", `agent URI has no scheme: "${describeUrlText(trimmed)}"`);
  const scheme = schemeText.toLowerCase();

  if (scheme === "data") {
    const text = decodeDataUri(trimmed, maxBytes);
    return parseRegistrationJson(text);
  }
  if (scheme !== "https" && scheme !== "http" && scheme !== "ipfs") {
    throw new RegistrationError("unsupported-scheme", `unsupported agent URI scheme "${truncate(scheme, 32)}:"`);
  }
  if (trimmed.length > MAX_URL_LENGTH) {
    throw new RegistrationError("bad-uri", `agent URI is too long (${trimmed.length} chars)`);
  }
  const url =
    scheme === "ipfs" ? ipfsToGatewayUrl(trimmed, options.ipfsGateway ?? DEFAULT_IPFS_GATEWAY) : httpUrl(trimmed);
  const body = await fetchText(url, options.fetcher, { maxBytes, timeoutMs });
  return parseRegistrationJson(body);
}

/**
 * Index loops, not a /…+$/ regex: an end-anchored regex retries at every position of a long
 * internal whitespace run, which is quadratic on hostile input. (String.prototype.trim would also
 * strip non-ASCII spaces, which URL parsing does not.)
 */
function trimAsciiWhitespace(s: string): string {
  const isWs = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
  let start = 0;
  let end = s.length;
  while (start < end && isWs(s.charCodeAt(start))) start++;
  while (end > start && isWs(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/** Media types a registration data: URI may declare (none means text/plain per RFC 2397). */
function isAcceptedMediaType(mediaType: string): boolean {
  return (
    mediaType === "" ||
    mediaType === "application/json" ||
    mediaType === "text/plain" ||
    /^application\/[a-z0-9.-]+\+json$/.test(mediaType)
  );
}

/** Decodes `data:[<mediatype>][;param=value]*[;base64],<payload>` to text, enforcing maxBytes. */
function decodeDataUri(uri: string, maxBytes: number): string {
  const afterScheme = uri.slice("data:".length);
  const comma = afterScheme.slice(0, MAX_DATA_HEADER + 1).indexOf(",");
  if (comma < 0) throw new RegistrationError("bad-uri", "data: URI has no comma after its header");
  const params = afterScheme
    .slice(0, comma)
    .split(";")
    .map((p) => p.trim().toLowerCase());
  const isBase64 = params.length > 1 && params.at(-1) === "base64";
  const mediaType = params[0] ?? "";
  if (!isAcceptedMediaType(mediaType)) {
    throw new RegistrationError("bad-uri", `data: URI media type "${truncate(mediaType, 64)}" is not JSON`);
  }
  for (const param of params.slice(1, isBase64 ? -1 : undefined)) {
    const [key, value] = param.split("=", 2);
    if (key === "charset" && value !== undefined && !["utf-8", "utf8", "us-ascii"].includes(value.replace(/"/g, ""))) {
      throw new RegistrationError("bad-uri", `data: URI charset "${truncate(value, 32)}" is not UTF-8`);
    }
  }
  const payload = afterScheme.slice(comma + 1);
  return isBase64 ? decodeBase64Payload(payload, maxBytes) : decodePercentPayload(payload, maxBytes);
}

function decodeBase64Payload(payload: string, maxBytes: number): string {
  // Every 4 characters carry at most 3 bytes, and anything longer than this bound decodes (if it
  // decodes at all) to more than maxBytes: refuse before scanning or allocating.
  const maxEncoded = Math.ceil(maxBytes / 3) * 4;
  if (payload.length > maxEncoded) {
    throw new RegistrationError(
      "too-large",
      `data: URI payload of ${payload.length} base64 chars exceeds the ${maxBytes}-byte limit`,
    );
  }
  // Strict: standard alphabet only, no whitespace, no base64url, padding only at the end.
  // Node's decoder silently skips bad characters, so it cannot be the check.
  const padded = payload.endsWith("=");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(payload) || (padded ? payload.length % 4 !== 0 : payload.length % 4 === 1)) {
    const bad = payload.search(/[^A-Za-z0-9+/=]/);
    const where = bad >= 0 ? `invalid character at offset ${bad}` : "bad length or padding";
    throw new RegistrationError("bad-base64", `data: URI payload is not valid base64 (${where})`);
  }
  const bytes = Buffer.from(payload, "base64");
  if (bytes.length > maxBytes) {
    throw new RegistrationError("too-large", `data: URI document of ${bytes.length} bytes exceeds ${maxBytes}`);
  }
  return utf8(bytes);
}

function decodePercentPayload(payload: string, maxBytes: number): string {
  // One character decodes to at least a third of a byte ("%xx" -> 1 byte), so this length
  // already proves the document too large.
  if (payload.length > maxBytes * 3) {
    throw new RegistrationError("too-large", `data: URI payload of ${payload.length} chars exceeds ${maxBytes} bytes`);
  }
  let text: string;
  try {
    // Not "+"-as-space: data: URIs use plain percent-encoding (RFC 2397 / WHATWG fetch).
    text = decodeURIComponent(payload);
  } catch (cause) {
    throw new RegistrationError("bad-uri", "data: URI payload has malformed percent-encoding or invalid UTF-8", {
      cause,
    });
  }
  const size = Buffer.byteLength(text, "utf8");
  if (size > maxBytes) {
    throw new RegistrationError("too-large", `data: URI document of ${size} bytes exceeds ${maxBytes}`);
  }
  return text;
}

function utf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (cause) {
    throw new RegistrationError("not-json", "registration file is not valid UTF-8", { cause });
  }
}

function httpUrl(uri: string): string {
  const check = checkHttpEndpoint(uri);
  if (!check.ok) throw new RegistrationError("bad-uri", `agent URI ${check.reason}: "${describeUrlText(uri)}"`);
  return check.url.href;
}

/**
 * ipfs://CID[/path] -> <gateway>CID[/path]. Also accepts the legacy ipfs://ipfs/CID form.
 * CID and path are restricted to characters that cannot escape the gateway's path.
 */
function ipfsToGatewayUrl(uri: string, gateway: string): string {
  let rest = uri.slice("ipfs://".length);
  if (!/^ipfs:\/\//i.test(uri)) throw new RegistrationError("bad-uri", `ipfs URI must start with ipfs://`);
  if (rest.startsWith("ipfs/")) rest = rest.slice("ipfs/".length);
  const slash = rest.indexOf("/");
  const cid = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? "" : rest.slice(slash);
  if (!/^[A-Za-z0-9]{2,256}$/.test(cid)) {
    throw new RegistrationError("bad-uri", `ipfs URI has an invalid CID: "${truncate(cid)}"`);
  }
  const segments = path === "" ? [] : path.slice(1).split("/");
  for (const segment of segments) {
    if (!/^[A-Za-z0-9._~!$&'()*+,;=:@%-]*$/.test(segment) || isDotOrSlashSegment(segment)) {
      throw new RegistrationError("bad-uri", `ipfs URI has an invalid path: "${truncate(path)}"`);
    }
  }
  const base = checkHttpEndpoint(gateway);
  if (!base.ok || base.url.search !== "" || base.url.hash !== "") {
    throw new RegistrationError("bad-uri", `ipfs gateway is not a plain http(s) URL: "${describeUrlText(gateway)}"`);
  }
  const prefix = base.url.href.endsWith("/") ? base.url.href : `${base.url.href}/`;
  const joined = `${prefix}${cid}${path}`;
  // Belt and braces: after the URL parser's own normalisation the path must still be under <gateway>/<cid>.
  const root = new URL(`${prefix}${cid}`).pathname;
  const final = new URL(joined);
  if (final.origin !== base.url.origin || (final.pathname !== root && !final.pathname.startsWith(`${root}/`))) {
    throw new RegistrationError("bad-uri", `ipfs URI path leaves the gateway's /${cid} folder: "${truncate(path)}"`);
  }
  return joined;
}

/**
 * A segment that is "." or ".." once percent-decoded (the WHATWG URL parser and gateways treat %2e as "."), or
 * that decodes to something holding a slash or backslash (a gateway decoding %2F would see extra segments).
 * Malformed escapes count as bad.
 */
function isDotOrSlashSegment(segment: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return true;
  }
  return decoded === "." || decoded === ".." || /[/\\]/.test(decoded) || /[\u0000-\u001f\u007f]/.test(decoded);
}

async function fetchText(
  url: string,
  fetcher: UriFetcher | undefined,
  limits: { maxBytes: number; timeoutMs: number },
): Promise<string> {
  // No built-in network client on purpose: fetching without the destination guard would let a
  // registration file point the resolver at internal services.
  if (!fetcher) throw new RegistrationError("fetch-failed", `no fetcher configured to load "${describeUrlText(url)}"`);
  let cancel: (() => void) | undefined;
  // Without host timers (the CRE runtime) there is no backstop: the HTTP capability enforces its own deadline.
  const backstop = new Promise<never>((_, reject) => {
    cancel = startTimer(
      () => reject(new RegistrationError("fetch-failed", `fetching "${describeUrlText(url)}" timed out`)),
      limits.timeoutMs + TIMEOUT_GRACE_MS,
    );
  });
  let body: unknown;
  try {
    body = await Promise.race([fetcher(url, { ...limits }), backstop]);
  } catch (error) {
    throw toFetchError(error, url);
  } finally {
    cancel?.();
  }
  if (typeof body !== "string") {
    throw new RegistrationError("fetch-failed", `fetcher returned no text for "${describeUrlText(url)}"`);
  }
  // Re-checked here so a fetcher that forgot the limit still cannot hand us an oversized file.
  const size = Buffer.byteLength(body, "utf8");
  if (size > limits.maxBytes) {
    throw new RegistrationError(
      "too-large",
      `document at "${describeUrlText(url)}" is ${size} bytes, over ${limits.maxBytes}`,
    );
  }
  return body;
}

function toFetchError(error: unknown, url: string): RegistrationError {
  if (error instanceof RegistrationError) return error;
  const tag = typeof error === "object" && error !== null ? errorTag(error) : undefined;
  const detail = describe(error);
  if (tag === "too-large") {
    return new RegistrationError("too-large", `document at "${describeUrlText(url)}" is too large: ${detail}`, {
      cause: error,
    });
  }
  return new RegistrationError("fetch-failed", `fetching "${describeUrlText(url)}" failed: ${detail}`, {
    cause: error,
  });
}

function describe(error: unknown): string {
  try {
    return truncate(error instanceof Error ? String(error.message) : String(error), 160);
  } catch {
    // A hostile or odd rejection value (e.g. a throwing toString) must not escape untyped.
    return "unprintable error";
  }
}

function errorTag(error: object): unknown {
  try {
    if ("code" in error && error.code === "too-large") return "too-large";
    if ("kind" in error && error.kind === "too-large") return "too-large";
  } catch {
    // Throwing getters: treat as untagged.
  }
  return undefined;
}
