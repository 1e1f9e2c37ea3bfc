/**
 * The one HTTP client for every outbound call to agents and their registration files.
 *
 * - Only http/https; literal IPs in the URL are checked by the destination guard, host names are
 *   resolved (all addresses) inside the socket's own `lookup`, every address is checked and the
 *   socket connects to exactly those checked addresses: a DNS answer cannot change between the
 *   check and the connection (no rebinding window).
 * - No redirects: any 3xx is a failure (undici's `request` never follows them; we do not add the
 *   redirect interceptor).
 * - Deadlines: connect timeout, headers timeout, body (idle) timeout and one overall deadline
 *   (AbortSignal) covering connect + headers + the whole body.
 * - Size: Content-Length above the cap is refused before reading; the body is streamed and the
 *   request aborted as soon as the cap is passed. Compressed bodies are refused (we ask for
 *   identity), so there is no decompression bomb.
 * - postJson: the reply must be `application/json` (or `+json`), UTF-8, parseable, nested at most
 *   64 deep; every string (keys too) loses NUL characters and is cut to 50,000 chars.
 * - Errors are HttpError with a FailureKind; messages never contain headers, bodies or query strings.
 */
import { lookup as dnsLookup, Resolver, type LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { rootCertificates } from "node:tls";
import { Agent, request } from "undici";
import { HttpError, describeUrl, isHttpError } from "./errors.js";
import { assertAddressAllowed, checkUrlHost, type DestinationPolicy } from "./guard.js";
import { DEFAULT_SANITIZE_LIMITS, stringifyJson } from "./json.js";
import {
  clipHeader,
  decodeUtf8,
  isJsonContentType,
  parseJsonReply,
  parseUrl,
  requestHeaders,
  statusError,
  tooLarge,
} from "./reply.js";
import { joinAmbient } from "./abort.js";
import type { SafeHttpClient } from "./types.js";
import { causes, findCause } from "../util/cause.js";

export interface SafeHttpConfig extends DestinationPolicy {
  /** Response size cap in bytes for postJson (getText takes its own). Default 5 MB. */
  maxResponseBytes?: number;
  /** Per-string cap applied to parsed JSON. Default 50,000. */
  maxStringLength?: number;
  /** Deepest JSON nesting accepted. Default 64. */
  maxJsonDepth?: number;
  /** TCP (+TLS) connect timeout. Default 5,000 ms (never more than the call's own timeout). */
  connectTimeoutMs?: number;
  /** Time to response headers. Default: none below the call's overall deadline. */
  headersTimeoutMs?: number;
  /** Longest gap between body chunks. Default: none below the call's overall deadline. */
  bodyTimeoutMs?: number;
  /** Sent as User-Agent. */
  userAgent?: string;
  /**
   * DNS servers ("ip" or "ip:port") to resolve host names with (A and AAAA, via c-ares), instead of
   * the system resolver (getaddrinfo, which also reads /etc/hosts). Either way every address is checked
   * and the socket connects only to the checked ones.
   */
  dnsServers?: string[];
  /** Extra trusted CA certificates (PEM) for https, e.g. a local demo's own CA. Default: Node's bundle. */
  ca?: string | string[];
}

export type { GetTextOptions, JsonResponse, PostJsonOptions, SafeHttpClient, TextFetcher } from "./types.js";

export const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

export function createSafeHttpClient(config: SafeHttpConfig = {}): SafeHttpClient {
  const policy: DestinationPolicy = {
    allowLoopback: config.allowLoopback === true,
    allowPrivate: config.allowPrivate === true,
  };
  const maxResponseBytes = config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const limits = {
    maxStringLength: config.maxStringLength ?? DEFAULT_SANITIZE_LIMITS.maxStringLength,
    maxDepth: config.maxJsonDepth ?? DEFAULT_SANITIZE_LIMITS.maxDepth,
  };
  const agent = new Agent({
    connect: {
      timeout: config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      lookup: guardedLookup(policy, config.dnsServers),
      // Node's bundle plus the extra ones (a bare `ca` would replace the bundle).
      ...(config.ca !== undefined ? { ca: [...rootCertificates, ...[config.ca].flat()] } : {}),
    },
    // Keep-alive sockets were connected to checked addresses; bound how long they live anyway.
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 10_000,
  });
  const userAgent = config.userAgent ?? "cresolver-workflow";

  async function send(
    method: "GET" | "POST",
    rawUrl: string,
    payload: string | undefined,
    extraHeaders: Record<string, string> | undefined,
    accept: string,
    timeoutMs: number,
    maxBytes: number,
    ownSignal: AbortSignal | undefined,
    expectJson: boolean,
  ): Promise<{ status: number; bytes: Buffer; url: URL }> {
    // The run's ambient signal (workflow/http/abort.ts): a stopping daemon aborts this call too.
    const callerSignal = joinAmbient(ownSignal);
    const url = parseUrl(rawUrl);
    const where = describeUrl(url);
    checkUrlHost(url, policy);
    if (!(timeoutMs > 0)) throw new HttpError("timeout", `no time left for ${where}`);
    if (callerSignal?.aborted === true) throw new HttpError("timeout", `request to ${where} cancelled`);

    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    const signal = callerSignal === undefined ? deadline.signal : AbortSignal.any([deadline.signal, callerSignal]);
    const headers = requestHeaders(extraHeaders, accept, userAgent, payload !== undefined);
    try {
      const response = await request(url, {
        method,
        dispatcher: agent,
        headers,
        body: payload ?? null,
        signal,
        // Unless configured shorter, undici's own (coarse-grained) timers are only a backstop behind
        // the deadline, so a hanging server always fails the same way (reproducible bundle text).
        headersTimeout:
          config.headersTimeoutMs !== undefined ? Math.min(config.headersTimeoutMs, timeoutMs) : timeoutMs + 1_000,
        bodyTimeout: config.bodyTimeoutMs !== undefined ? Math.min(config.bodyTimeoutMs, timeoutMs) : timeoutMs + 1_000,
      });
      const status = response.statusCode;
      const body = response.body;
      // We may destroy the body early (status, size); its abort error is expected, not uncaught.
      body.on("error", () => undefined);
      if (status < 200 || status > 299) {
        body.destroy();
        throw statusError(status, where);
      }
      const contentType = headerValue(response.headers["content-type"]) ?? "";
      if (expectJson && !isJsonContentType(contentType)) {
        body.destroy(); // decided on the headers: the body is never read
        throw new HttpError(
          "invalid-response",
          `${where} replied with content-type "${clipHeader(contentType)}", not JSON`,
        );
      }
      const encoding = headerValue(response.headers["content-encoding"]);
      if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity") {
        body.destroy();
        throw new HttpError("invalid-response", `${where} sent a compressed body (${clipHeader(encoding)}); refused`);
      }
      const declared = headerValue(response.headers["content-length"]);
      if (declared !== undefined && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) {
        body.destroy();
        throw tooLarge(where, maxBytes);
      }
      const chunks: Buffer[] = [];
      let total = 0;
      for await (const chunk of body as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (total > maxBytes) {
          deadline.abort(); // leaving the loop destroys the stream; aborting also drops the socket
          throw tooLarge(where, maxBytes);
        }
        chunks.push(chunk);
      }
      return { status, bytes: Buffer.concat(chunks, total), url };
    } catch (error) {
      throw classify(error, where, deadline.signal, callerSignal);
    } finally {
      clearTimeout(timer);
    }
  }

  const client: SafeHttpClient = {
    async postJson(url, body, options) {
      const payload = stringifyJson(body);
      const maxBytes = options.maxBytes ?? maxResponseBytes;
      const res = await send(
        "POST",
        url,
        payload,
        options.headers,
        "application/json",
        options.timeoutMs,
        maxBytes,
        options.signal,
        true,
      );
      return {
        status: res.status,
        body: parseJsonReply(res.bytes, describeUrl(res.url), limits),
        bytes: res.bytes.length,
      };
    },
    async getText(url, options) {
      const res = await send(
        "GET",
        url,
        undefined,
        options.headers,
        "application/json, text/plain;q=0.9, */*;q=0.5",
        options.timeoutMs,
        options.maxBytes,
        options.signal,
        false,
      );
      return decodeUtf8(res.bytes, describeUrl(res.url));
    },
    fetcher: (url, options) => client.getText(url, options),
    close: () => agent.close(),
  };
  return client;
}

/**
 * `lookup` for the socket: resolves every address of the name, refuses the connection if any of
 * them is not allowed (a name that mixes public and internal answers is treated as hostile), and
 * hands the socket exactly the checked addresses. Check and connection use the same answer, so a
 * DNS server that changes its answer between two queries (rebinding) gains nothing.
 */
export function guardedLookup(policy: DestinationPolicy, dnsServers?: string[]): LookupFunction {
  const resolve = dnsServers !== undefined && dnsServers.length > 0 ? resolverLookup(dnsServers) : systemLookup;
  return (hostname, options, callback) => {
    resolve(hostname, options.family).then(
      (addresses) => {
        const [first] = addresses;
        try {
          if (first === undefined) throw new HttpError("network", `${clipHeader(hostname)} has no addresses`);
          for (const entry of addresses) assertAddressAllowed(entry.address, policy, hostname);
        } catch (refused) {
          return callback(refused as NodeJS.ErrnoException, "", 0);
        }
        if (options.all === true) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 0),
    );
  };
}

type Resolve = (hostname: string, family: number | string | undefined) => Promise<LookupAddress[]>;

const systemLookup: Resolve = (hostname, family) =>
  new Promise((resolve, reject) => {
    const fam = family === 4 || family === "IPv4" ? 4 : family === 6 || family === "IPv6" ? 6 : 0;
    dnsLookup(hostname, { all: true, family: fam }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });

function resolverLookup(servers: string[]): Resolve {
  const resolver = new Resolver({ timeout: 2_000, tries: 2 });
  resolver.setServers(servers);
  const query = (hostname: string, v: 4 | 6): Promise<LookupAddress[]> =>
    new Promise((resolve, reject) => {
      const done = (error: NodeJS.ErrnoException | null, addresses: string[]) => {
        if (error) return error.code === "ENODATA" || error.code === "ENOTFOUND" ? resolve([]) : reject(error);
        resolve(addresses.map((address) => ({ address, family: v })));
      };
      if (v === 4) resolver.resolve4(hostname, done);
      else resolver.resolve6(hostname, done);
    });
  return async (hostname, family) => {
    const want4 = family !== 6 && family !== "IPv6";
    const want6 = family !== 4 && family !== "IPv4";
    const [a, aaaa] = await Promise.all([want4 ? query(hostname, 4) : [], want6 ? query(hostname, 6) : []]);
    const all = [...a, ...aaaa];
    if (all.length === 0) throw Object.assign(new Error("name not found"), { code: "ENOTFOUND" });
    return all;
  };
}

const RETRYABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
]);

/** Maps whatever undici/net threw onto an HttpError, using our own words only. */
function classify(error: unknown, where: string, deadline: AbortSignal, caller: AbortSignal | undefined): HttpError {
  const known = findCause(error, isHttpError);
  if (known !== undefined) return known;
  // No measured or remaining time in the text: messages end up in the bundle and must be reproducible.
  if (deadline.aborted) return new HttpError("timeout", `${where} gave no complete response before the deadline`);
  if (caller?.aborted === true) return new HttpError("timeout", `request to ${where} cancelled`);
  const code = errorCode(error);
  switch (code) {
    case "UND_ERR_CONNECT_TIMEOUT":
      return new HttpError("timeout", `connecting to ${where} timed out`, { retryable: true });
    case "UND_ERR_HEADERS_TIMEOUT":
      return new HttpError("timeout", `${where} sent no response headers in time`);
    case "UND_ERR_BODY_TIMEOUT":
      return new HttpError("timeout", `${where} stalled while sending the body`);
    case "UND_ERR_RES_EXCEEDED_MAX_SIZE":
      return new HttpError("too-large", `${where} sent too large a response`);
    case "ENOTFOUND":
      return new HttpError("network", `host of ${where} not found`);
    default:
      if (code !== undefined && RETRYABLE_CODES.has(code)) {
        return new HttpError("network", `connection to ${where} failed (${code})`, { retryable: true });
      }
      return new HttpError("network", `request to ${where} failed${code === undefined ? "" : ` (${code})`}`);
  }
}

function errorCode(error: unknown): string | undefined {
  for (const e of causes(error)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[A-Z0-9_]{1,40}$/.test(code)) return code;
  }
  return undefined;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
