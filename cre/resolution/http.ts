/**
 * The pipeline's SafeHttpClient (workflow/http/types.ts) over the CRE HTTP capability, so the project's own protocol
 * adapters and registration loader run unchanged on a DON.
 *
 * Calls are gathered into rounds: the pipeline starts every call of a stage at once (asks, challenges, registration
 * files), each call joins a queue, and once no new call has joined for a few microtask hops the queue is sent as ONE
 * `runInNodeMode` — every node issues all the round's requests in parallel and the DON reaches consensus once, on
 * the list of what each call returned (at most `callsPerRound` calls per consensus call, so the observation fits
 * its quota). The observation carries each reply's keccak256 digest, never the body: after consensus each node goes
 * on with its own copy of a body only if it hashes to the agreed digest (a node that saw something else stops; the
 * DON's report needs a quorum of nodes anyway). The request asks the DON's HTTP cache to store the reply, so one
 * node's call is served to the others: a worker that would answer each node differently (an LLM) is still observed
 * identically. Each node judges the reply itself (status, content type, size, UTF-8) with the same rules and words
 * as the Node client (workflow/http/reply.ts).
 *
 * Differences from the Node client, by nature of the platform: no retry (a DON execution cannot pause; every error
 * is final), no destination guard (which addresses a node may reach is its operator's egress policy; http/https
 * only, no credentials in URLs, as in Node), and per-execution budgets of HTTP and consensus calls.
 */
import { consensusIdenticalAggregation, cre, type NodeRuntime, type Runtime } from "@chainlink/cre-sdk";
import { keccak256 } from "viem";
import type { FailureKind } from "../../workflow/core/types.js";
import { describeUrl, HttpError, isHttpError } from "../../workflow/http/errors.js";
import { DEFAULT_SANITIZE_LIMITS, stringifyJson } from "../../workflow/http/json.js";
import {
  clipHeader,
  decodeUtf8,
  isJsonContentType,
  parseJsonText,
  parseUrl,
  requestHeaders,
  statusError,
  tooLarge,
} from "../../workflow/http/reply.js";
import type { SafeHttpClient } from "../../workflow/http/types.js";
import type { Budget } from "./budget.js";

export interface CreHttpConfig {
  runtime: Runtime<unknown>;
  /** HTTP calls left in this execution. */
  calls: Budget;
  /** Consensus calls this client may make (the report's own is not in it). */
  rounds: Budget;
  /** Calls one consensus round carries at most (workflow/don-limits.ts callsPerRound). */
  callsPerRound: number;
  /** Largest reply body, bytes (also caps registration files unless a call asks for less). */
  maxReplyBytes: number;
  /** How long the DON's HTTP cache may serve a reply to the other nodes, seconds (0: no cache). */
  cacheMaxAgeSeconds: number;
  userAgent?: string;
}

/** What one node saw for one call. Plain fields only, always all present, so every honest node's is byte-identical. */
export interface HttpObservation {
  ok: boolean;
  status: number;
  /** keccak256 of the reply body (ok only; "" otherwise). */
  digest: string;
  /** Its size in bytes. */
  bytes: number;
  kind: string;
  message: string;
}

/** One round's observation: one entry per call, in the order the calls joined. */
export interface RoundObservation {
  calls: HttpObservation[];
}

/** A judged reply: the observation and the node's own copy of the body. */
interface Judged {
  observation: HttpObservation;
  body: string;
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
): Judged {
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
  const text = decodeUtf8(body, where);
  return {
    observation: { ok: true, status, digest: keccak256(body), bytes: body.length, kind: "", message: "" },
    body: text,
  };
}

/** A capability error in our own words (its text may carry the URL's query or the node's internals). */
function capabilityFailure(error: unknown, where: string): HttpObservation {
  if (isHttpError(error))
    return { ok: false, status: error.status ?? 0, digest: "", bytes: 0, kind: error.kind, message: error.message };
  const text = error instanceof Error ? error.message.toLowerCase() : "";
  if (/time(d)?[ -]?out|deadline/.test(text))
    return {
      ok: false,
      status: 0,
      digest: "",
      bytes: 0,
      kind: "timeout",
      message: `${where} gave no complete response before the deadline`,
    };
  if (/too large|exceed|limit/.test(text))
    return {
      ok: false,
      status: 0,
      digest: "",
      bytes: 0,
      kind: "too-large",
      message: `${where} sent too large a response`,
    };
  return { ok: false, status: 0, digest: "", bytes: 0, kind: "network", message: `request to ${where} failed` };
}

const base64 = (text: string): string => Buffer.from(text, "utf8").toString("base64");

/** Microtask hops without a new call before a round is sent: every call a stage starts joins the same round. */
const QUIET_HOPS = 16;

/** The capability request (RequestJson: base64 body, duration strings). */
interface HttpRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  timeout: string;
  cacheSettings?: { store: boolean; maxAge: string };
}

interface Queued {
  method: string;
  where: string;
  request: HttpRequest;
  maxBytes: number;
  expectJson: boolean;
  reject(error: unknown): void;
  /** Resolves or rejects with what the DON agreed on and this node's own copy of the body. */
  settle(seen: HttpObservation | undefined, own: Judged | undefined): void;
}

export function createCreHttpClient(config: CreHttpConfig): SafeHttpClient {
  const http = new cre.capabilities.HTTPClient();
  const userAgent = config.userAgent ?? "cresolver-workflow";
  const queue: Queued[] = [];
  let waiting = false;

  /** One consensus round: every node sends the calls in parallel, then judges each reply. */
  function runRound(batch: Queued[]): void {
    const fail = (error: unknown) => {
      for (const q of batch) q.reject(error);
    };
    if (config.rounds.used >= config.rounds.limit) {
      fail(new HttpError("network", `not called: the consensus calls of this DON execution are used up`));
      return;
    }
    config.rounds.take("consensus round (HTTP)");
    const bodies: Judged[] = [];
    const observe = (node: NodeRuntime<unknown>): RoundObservation => {
      const pending = batch.map((q) => http.sendRequest(node, q.request));
      return {
        calls: pending.map((p, i) => {
          const q = batch[i] as Queued;
          try {
            const res = p.result();
            const judged = judgeReply(res.statusCode, res.headers, res.body, q.where, q.maxBytes, q.expectJson);
            bodies[i] = judged;
            return judged.observation;
          } catch (error) {
            // For the workflow owner's logs only (never in the bundle): the platform's own error text.
            if (!isHttpError(error))
              node.log(
                `HTTP ${q.method} ${q.where}: ${String(error instanceof Error ? error.message : error).slice(0, 300)}`,
              );
            return capabilityFailure(error, q.where);
          }
        }),
      };
    };
    let agreed: RoundObservation;
    try {
      agreed = config.runtime.runInNodeMode(observe, consensusIdenticalAggregation<RoundObservation>())().result();
    } catch (error) {
      fail(error);
      return;
    }
    for (const [i, q] of batch.entries()) q.settle(agreed.calls[i], bodies[i]);
  }

  async function sendWhenQuiet(): Promise<void> {
    let size = -1;
    for (let quiet = 0; quiet < QUIET_HOPS; ) {
      await Promise.resolve();
      if (queue.length === size) quiet++;
      else {
        size = queue.length;
        quiet = 0;
      }
    }
    waiting = false;
    const all = queue.splice(0);
    const per = Math.max(1, config.callsPerRound);
    for (let i = 0; i < all.length; i += per) runRound(all.slice(i, i + per));
  }

  function send(
    method: "GET" | "POST",
    rawUrl: string,
    payload: string | undefined,
    extra: Record<string, string> | undefined,
    accept: string,
    timeoutMs: number,
    maxBytes: number,
    expectJson: boolean,
  ): Promise<{ status: number; body: string; bytes: number; where: string }> {
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
    const headers = requestHeaders(extra, accept, userAgent, payload !== undefined);
    const request: HttpRequest = {
      url: url.href,
      method,
      headers,
      body: payload === undefined ? "" : base64(payload),
      timeout: `${(timeoutMs / 1000).toFixed(3)}s`,
      ...(config.cacheMaxAgeSeconds > 0
        ? { cacheSettings: { store: true, maxAge: `${config.cacheMaxAgeSeconds}s` } }
        : {}),
    };
    return new Promise((resolve, reject) => {
      const settle = (seen: HttpObservation | undefined, own: Judged | undefined): void => {
        if (seen === undefined) reject(new Error(`consensus returned no observation for ${where}`));
        else if (!seen.ok)
          reject(
            new HttpError(seen.kind as FailureKind, seen.message, seen.status !== 0 ? { status: seen.status } : {}),
          );
        // This node's copy must be the body the DON agreed on; a node that saw another one cannot go on.
        else if (own === undefined || own.observation.digest !== seen.digest)
          reject(new Error(`this node's reply from ${where} differs from the DON's consensus`));
        else resolve({ status: seen.status, body: own.body, bytes: seen.bytes, where });
      };
      queue.push({ method, where, request, maxBytes, expectJson, reject, settle });
      if (!waiting) {
        waiting = true;
        void sendWhenQuiet();
      }
    });
  }

  const client: SafeHttpClient = {
    async postJson(url, body, options) {
      const payload = stringifyJson(body);
      const res = await send(
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
      const res = await send(
        "GET",
        url,
        undefined,
        options.headers,
        accept,
        options.timeoutMs,
        Math.min(options.maxBytes, config.maxReplyBytes),
        false,
      );
      return res.body;
    },
    fetcher: (url, options) => client.getText(url, options),
    close: async () => undefined,
  };
  return client;
}
