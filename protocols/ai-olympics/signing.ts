/**
 * AI Olympics webhook request signing (protocols/ai-olympics/README.md, "Signing"), the
 * platform side, which the resolver plays:
 *
 *   X-AI-Olympics-Signature: sha256=<lower-case hex HMAC-SHA256(secret, exact JSON body bytes)>
 *   X-AI-Olympics-Timestamp: <Unix ms when the request was created>  (also the body's `timestamp`)
 *   X-AI-Olympics-Agent-Id:  <the agent's id>                         (also the body's `agentId`)
 *
 * The signing string is the request body and nothing else (the spec's verify_signature). The timestamp
 * header is therefore not covered by the signature; we always send the same value in the body's
 * `timestamp` field, which is covered, so an agent can (and our reference agent does) require the two to
 * be equal and check the 5-minute window against the signed value.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "x-ai-olympics-signature";
export const TIMESTAMP_HEADER = "x-ai-olympics-timestamp";
export const AGENT_ID_HEADER = "x-ai-olympics-agent-id";
/** Replay window of the spec: requests more than 5 minutes old (or ahead) are rejected. */
export const REPLAY_WINDOW_MS = 5 * 60 * 1000;

/** `sha256=<hex>` over the exact body text (UTF-8). */
export function signBody(secret: string, body: string | Uint8Array): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** Headers for one signed request. `body` must be the exact text that is sent. */
export function signedHeaders(
  secret: string,
  body: string,
  timestampMs: number,
  agentId: string,
): Record<string, string> {
  return {
    [SIGNATURE_HEADER]: signBody(secret, body),
    [TIMESTAMP_HEADER]: String(timestampMs),
    [AGENT_ID_HEADER]: agentId,
  };
}

/** Constant-time check of a `sha256=<hex>` header against the body (any other form is false). */
export function verifyBodySignature(secret: string, body: string | Uint8Array, header: string | undefined): boolean {
  if (header === undefined || !/^sha256=[0-9a-fA-F]{64}$/.test(header)) return false;
  const expected = Buffer.from(signBody(secret, body).slice(7), "hex");
  const given = Buffer.from(header.slice(7), "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
