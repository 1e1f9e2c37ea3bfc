/**
 * How a worker's HTTP reply is judged, whatever carried it: the URL rules, the status, the content type, UTF-8 and
 * the JSON parse. Pure (no I/O, no Node built-in), shared by the Node client (client.ts) and the Chainlink CRE
 * workflow's HTTP capability client, so both record the same failure with the same words for the same reply.
 */
import { DestinationRefusedError, HttpError } from "./errors.js";
import { JsonDepthError, sanitizeJson, type SanitizeLimits } from "./json.js";

export function parseUrl(rawUrl: string): URL {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new HttpError("destination-refused", "not an absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new DestinationRefusedError(`scheme ${clipHeader(url.protocol)} refused (http and https only)`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new DestinationRefusedError("URLs with credentials are refused");
  }
  return url;
}

export function statusError(status: number, where: string): HttpError {
  if (status >= 300 && status <= 399) {
    return new HttpError("http-status", `${where} answered ${status} (redirect); redirects are not followed`, {
      status,
    });
  }
  if (status === 401 || status === 403 || status === 407) {
    return new HttpError("auth", `${where} refused authorization (${status})`, { status });
  }
  return new HttpError("http-status", `${where} answered ${status}`, {
    status,
    retryable: status >= 500 && status <= 599,
  });
}

export function tooLarge(where: string, maxBytes: number): HttpError {
  return new HttpError("too-large", `${where} sent more than ${maxBytes} bytes`);
}

export function isJsonContentType(contentType: string): boolean {
  const [mediaType, ...params] = contentType.split(";").map((p) => p.trim().toLowerCase());
  if (mediaType !== "application/json" && !/^application\/[a-z0-9.+-]+\+json$/.test(mediaType ?? "")) return false;
  for (const param of params) {
    const [name, value] = param.split("=").map((s) => s.trim());
    if (
      name === "charset" &&
      value !== undefined &&
      value.replaceAll('"', "") !== "utf-8" &&
      value.replaceAll('"', "") !== "utf8"
    )
      return false;
  }
  return true;
}

export function decodeUtf8(bytes: Uint8Array, where: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new HttpError("invalid-response", `${where} sent bytes that are not UTF-8`);
  }
}

export function clipHeader(text: string): string {
  return (text.length > 60 ? `${text.slice(0, 60)}…` : text).replace(/[\u0000-\u001f\u007f"]/g, "?");
}

export function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/**
 * The headers of one request, the same on Node and in the DON: the caller's (lower-cased, so ours win), then accept,
 * no compression (the size cap counts the bytes that arrive) and our user agent; content-type when there is a body.
 */
export function requestHeaders(
  extra: Record<string, string> | undefined,
  accept: string,
  userAgent: string,
  hasBody: boolean,
): Record<string, string> {
  const headers: Record<string, string> = {
    ...lowerCaseKeys(extra ?? {}),
    accept,
    "accept-encoding": "identity",
    "user-agent": userAgent,
  };
  if (hasBody) headers["content-type"] = "application/json";
  return headers;
}

/** UTF-8 → JSON → sanitized copy (NULs removed, strings capped, depth bounded). Throws HttpError invalid-response. */
export function parseJsonReply(bytes: Uint8Array, where: string, limits: SanitizeLimits): unknown {
  return parseJsonText(decodeUtf8(bytes, where), bytes.length, where, limits);
}

/** parseJsonReply for a body already decoded from `byteLength` bytes of UTF-8. */
export function parseJsonText(text: string, byteLength: number, where: string, limits: SanitizeLimits): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new HttpError("invalid-response", `${where} replied with malformed JSON (${byteLength} bytes)`);
  }
  try {
    return sanitizeJson(parsed, limits);
  } catch (error) {
    if (error instanceof JsonDepthError) throw new HttpError("invalid-response", `${where}: ${error.message}`);
    throw error;
  }
}
