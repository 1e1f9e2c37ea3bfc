/**
 * The pipeline's SafeHttpClient (workflow/http/types.ts) over the CRE HTTP capability, so the project's own protocol
 * adapters and registration loader run unchanged on a DON.
 *
 * Every call runs in node mode and reaches consensus on an identical observation. The request asks the DON's HTTP
 * cache to store the reply, so one node's call is served to the others: a worker that would answer each node
 * differently (an LLM) is still observed identically. Each node judges the reply itself (status, content type,
 * size, UTF-8) with the same rules and words as the Node client (workflow/http/reply.ts), so the observation is
 * either a small failure or a body within `maxReplyBytes` (it must fit the consensus observation quota).
 *
 * Differences from the Node client, by nature of the platform: no retry (a DON execution cannot pause; every error
 * is final), no destination guard (which addresses a node may reach is its operator's egress policy; http/https
 * only, no credentials in URLs, as in Node), and a per-execution call budget.
 */
import { consensusIdenticalAggregation, cre, type NodeRuntime, type Runtime } from "@chainlink/cre-sdk";
import type { FailureKind } from "../../workflow/core/types.js";
import { describeUrl, HttpError, isHttpError } from "../../workflow/http/errors.js";
import { DEFAULT_SANITIZE_LIMITS, stringifyJson } from "../../workflow/http/json.js";
import {
  clipHeader,
  decodeUtf8,
  isJsonContentType,
  lowerCaseKeys,
  parseJsonText,
  parseUrl,
  statusError,
  tooLarge,
} from "../../workflow/http/reply.js";
import type { SafeHttpClient } from "../../workflow/http/types.js";
import type { Budget } from "./budget.js";

export interface CreHttpConfig {
  runtime: Runtime<unknown>;
  /** HTTP calls left in this execution. */
  calls: Budget;
  /** Largest reply body, bytes (also caps registration files). */
  maxReplyBytes: number;
  /** How long the DON's HTTP cache may serve a reply to the other nodes, seconds (0: no cache). */
  cacheMaxAgeSeconds: number;
  userAgent?: string;
}

/** What one node saw. Plain fields only, always all present, so every honest node's value is byte-identical. */
export interface HttpObservation {
  ok: boolean;
  status: number;
  /** The reply body as UTF-8 text (ok only). */
  body: string;
  /** Its size in bytes. */
  bytes: number;
  kind: string;
  message: string;
}

function header(headers: Record<string, string>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

/** The Node client's checks on a complete reply (client.ts `send`), in the same order. Throws HttpError. */
export function judgeReply(
  status: number,
  headers: Record<string, string>,
  body: Uint8Array,
  where: string,
  maxBytes: number,
  expectJson: boolean,
): HttpObservation {
  if (status < 200 || status > 299) throw statusError(status, where);
  const contentType = header(headers, "content-type") ?? "";
  if (expectJson && !isJsonContentType(contentType)) {
    throw new HttpError(
      "invalid-response",
      `${where} replied with content-type "${clipHeader(contentType)}", not JSON`,
    );
  }
  const encoding = header(headers, "content-encoding");
  if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity") {
    throw new HttpError("invalid-response", `${where} sent a compressed body (${clipHeader(encoding)}); refused`);
  }
  if (body.length > maxBytes) throw tooLarge(where, maxBytes);
  return { ok: true, status, body: decodeUtf8(body, where), bytes: body.length, kind: "", message: "" };
}

/** A capability error in our own words (its text may carry the URL's query or the node's internals). */
function capabilityFailure(error: unknown, where: string): HttpObservation {
  if (isHttpError(error))
    return { ok: false, status: error.status ?? 0, body: "", bytes: 0, kind: error.kind, message: error.message };
  const text = error instanceof Error ? error.message.toLowerCase() : "";
  if (/time(d)?[ -]?out|deadline/.test(text))
    return {
      ok: false,
      status: 0,
      body: "",
      bytes: 0,
      kind: "timeout",
      message: `${where} gave no complete response before the deadline`,
    };
  if (/too large|exceed|limit/.test(text))
    return {
      ok: false,
      status: 0,
      body: "",
      bytes: 0,
      kind: "too-large",
      message: `${where} sent too large a response`,
    };
  return { ok: false, status: 0, body: "", bytes: 0, kind: "network", message: `request to ${where} failed` };
}

const base64 = (text: string): string => Buffer.from(text, "utf8").toString("base64");

export function createCreHttpClient(config: CreHttpConfig): SafeHttpClient {
  const http = new cre.capabilities.HTTPClient();
  const userAgent = config.userAgent ?? "cresolver-workflow";

  function send(
    method: "GET" | "POST",
    rawUrl: string,
    payload: string | undefined,
    extra: Record<string, string> | undefined,
    accept: string,
    timeoutMs: number,
    maxBytes: number,
    expectJson: boolean,
  ): HttpObservation & { where: string } {
    const url = parseUrl(rawUrl);
    const where = describeUrl(url);
    if (!(timeoutMs > 0)) throw new HttpError("timeout", `no time left for ${where}`);
    if (config.calls.used >= config.calls.limit) {
      throw new HttpError(
        "network",
        `${where} not called: the ${config.calls.limit} HTTP calls of this DON execution are used up`,
      );
    }
    config.calls.take(`HTTP ${method} ${where}`);
    const headers: Record<string, string> = {
      ...lowerCaseKeys(extra ?? {}),
      accept,
      "accept-encoding": "identity",
      "user-agent": userAgent,
    };
    if (payload !== undefined) headers["content-type"] = "application/json";
    const request = {
      url: url.href,
      method,
      headers,
      body: payload === undefined ? "" : base64(payload),
      timeout: `${(timeoutMs / 1000).toFixed(3)}s`,
      ...(config.cacheMaxAgeSeconds > 0
        ? { cacheSettings: { store: true, maxAge: `${config.cacheMaxAgeSeconds}s` } }
        : {}),
    };
    const observe = (node: NodeRuntime<unknown>): HttpObservation => {
      try {
        const res = http.sendRequest(node, request).result();
        return judgeReply(res.statusCode, res.headers, res.body, where, maxBytes, expectJson);
      } catch (error) {
        // For the workflow owner's logs only (never in the bundle): the platform's own error text.
        if (!isHttpError(error))
          node.log(`HTTP ${method} ${where}: ${String(error instanceof Error ? error.message : error).slice(0, 300)}`);
        return capabilityFailure(error, where);
      }
    };
    const seen = config.runtime.runInNodeMode(observe, consensusIdenticalAggregation<HttpObservation>())().result();
    if (!seen.ok)
      throw new HttpError(seen.kind as FailureKind, seen.message, seen.status !== 0 ? { status: seen.status } : {});
    return { ...seen, where };
  }

  const client: SafeHttpClient = {
    async postJson(url, body, options) {
      const payload = stringifyJson(body);
      const res = send(
        "POST",
        url,
        payload,
        options.headers,
        "application/json",
        options.timeoutMs,
        Math.min(options.maxBytes ?? config.maxReplyBytes, config.maxReplyBytes),
        true,
      );
      return {
        status: res.status,
        body: parseJsonText(res.body, res.bytes, res.where, DEFAULT_SANITIZE_LIMITS),
        bytes: res.bytes,
      };
    },
    async getText(url, options) {
      const accept = "application/json, text/plain;q=0.9, */*;q=0.5";
      return send(
        "GET",
        url,
        undefined,
        options.headers,
        accept,
        options.timeoutMs,
        Math.min(options.maxBytes, config.maxReplyBytes),
        false,
      ).body;
    },
    fetcher: (url, options) => client.getText(url, options),
    close: async () => undefined,
  };
  return client;
}
