/**
 * AI Olympics actions: turning an agent's `navigate` / `api_call` arguments into a GET or a JSON POST,
 * running it through the action client (a safe HTTP client whose destination guard refuses private,
 * loopback and link-local addresses unless its operator allows them), and reducing what comes back to
 * page text for the next turn's page state; plus the text capping the turn loop shares. Separate from
 * the adapter (ai-olympics.ts) so the code that reaches agent-chosen URLs sits in one small place.
 */
import { createSafeHttpClient, type SafeHttpClient } from "../../workflow/http/client.js";
import { AI_OLYMPICS_LIMITS, apiCallArgsSchema, navigateArgsSchema } from "./wire.js";
import { describeIssues } from "../shared/wire-fields.js";

// ---------------------------------------------------------------------------------------------
// Action requests
// ---------------------------------------------------------------------------------------------

/** The default action client: no allowLoopback/allowPrivate, so the destination guard stays strict. */
export function createStrictActionClient(maxResponseBytes: number): SafeHttpClient {
  return createSafeHttpClient({ maxResponseBytes });
}

/** Runs one action request through `client`: the response text (a POST's JSON reply re-serialised). */
export async function fetchAction(
  client: SafeHttpClient,
  request: ActionRequest,
  limits: { maxBytes: number; timeoutMs: number },
): Promise<string> {
  return request.method === "GET"
    ? await client.getText(request.url, { maxBytes: limits.maxBytes, timeoutMs: limits.timeoutMs })
    : JSON.stringify(
        (await client.postJson(request.url, request.json, { timeoutMs: limits.timeoutMs, maxBytes: limits.maxBytes }))
          .body,
      );
}

export interface ActionRequest {
  method: "GET" | "POST";
  url: string;
  /** POST body (parsed JSON). */
  json?: unknown;
}

export function navigateRequest(
  args: Record<string, unknown>,
): { ok: true; value: ActionRequest } | { ok: false; message: string } {
  const parsed = navigateArgsSchema.safeParse(args);
  if (!parsed.success) return { ok: false, message: describeIssues("navigate args", parsed.error) };
  return { ok: true, value: { method: "GET", url: parsed.data.url } };
}

export function apiCallRequest(
  args: Record<string, unknown>,
): { ok: true; value: ActionRequest } | { ok: false; message: string } {
  const parsed = apiCallArgsSchema.safeParse(args);
  if (!parsed.success) return { ok: false, message: describeIssues("api_call args", parsed.error) };
  const { method, url, body } = parsed.data;
  if (method === "GET") return { ok: true, value: { method, url } };
  let json: unknown = body ?? {};
  if (typeof body === "string") {
    try {
      json = JSON.parse(body) as unknown;
    } catch {
      return { ok: false, message: "api_call POST body must be JSON (the resolver only sends application/json)" };
    }
  }
  return { ok: true, value: { method, url, json } };
}

export function previousArguments(tool: string, request: ActionRequest): Record<string, unknown> {
  return tool === "navigate"
    ? { url: cap(request.url, AI_OLYMPICS_LIMITS.maxUrlLength) }
    : { method: request.method, url: cap(request.url, AI_OLYMPICS_LIMITS.maxUrlLength) };
}

export function toolOf(raw: unknown): string {
  if (raw !== null && typeof raw === "object" && typeof (raw as { tool?: unknown }).tool === "string")
    return (raw as { tool: string }).tool;
  return "(invalid)";
}

// ---------------------------------------------------------------------------------------------
// Page text
// ---------------------------------------------------------------------------------------------

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", "#39": "'" };

/** Title and readable text of a fetched document (HTML reduced to text; anything else as is). */
export function pageText(raw: string): { title: string; text: string } {
  const looksHtml = /<(!doctype html|html|head|body|title)[\s>]/i.test(raw.slice(0, 2_000));
  if (!looksHtml) return { title: "", text: collapse(raw) };
  const titleMatch = /<title[^>]*>([\s\S]{0,2000}?)<\/title>/i.exec(raw);
  const decode = (s: string) => s.replace(/&(amp|lt|gt|quot|apos|nbsp|#39);/g, (_m, e: string) => ENTITIES[e] ?? "");
  const text = raw
    .replace(/<(script|style|noscript|template)[^>]*>[\s\S]*?<\/\1>/gi, " ")
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<(br|p|div|li|h[1-6]|tr|section|article)[^>]*>/gi, "\n")
    .replace(/<[^>]*>/g, " ");
  return { title: collapse(decode(titleMatch?.[1] ?? "")).slice(0, 300), text: collapse(decode(text)) };
}

export function collapse(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, " ")
    .replace(/[ \t]+/g, " ")
    .replace(/\s*\n\s*/g, "\n")
    .trim();
}

export function cap(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** URL for records: no credentials, no fragment, capped. */
export function recordUrl(raw: string): string {
  try {
    const u = new URL(raw);
    u.username = "";
    u.password = "";
    u.hash = "";
    return cap(u.toString(), 500);
  } catch {
    return cap(raw, 200);
  }
}

/** One line (whitespace runs collapsed), capped. */
export const clip = (s: string, max = 300) => cap(s.replace(/\s+/g, " "), max);
