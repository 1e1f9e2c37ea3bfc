/**
 * Typed failures of outbound HTTP. Every error carries the FailureKind it maps onto (types.ts) and
 * whether one retry is worth it. Messages are built from our own classification only: never from
 * headers, bodies or raw library messages, so no secret or attacker text is echoed.
 */
import type { FailureKind, WorkerFailure } from "../core/types.js";
import { CresolverError } from "../util/errors.js";

/** Longest message kept; anything derived from input is shortened before it gets here. */
const MAX_MESSAGE = 300;

export class HttpError extends CresolverError {
  readonly kind: FailureKind;
  /** True for 5xx and connection-level failures (refused, reset, connect timeout). */
  readonly retryable: boolean;
  readonly status?: number;

  constructor(
    kind: FailureKind,
    message: string,
    options: { retryable?: boolean; status?: number; cause?: unknown } = {},
  ) {
    super(clip(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "HttpError";
    this.kind = kind;
    this.retryable = options.retryable ?? false;
    if (options.status !== undefined) this.status = options.status;
  }

  toFailure(): WorkerFailure {
    return { kind: this.kind, message: this.message };
  }
}

/** Thrown by the destination guard (also from inside the socket's DNS lookup). */
export class DestinationRefusedError extends HttpError {
  constructor(message: string) {
    super("destination-refused", message);
    this.name = "DestinationRefusedError";
  }
}

export function isHttpError(value: unknown): value is HttpError {
  return value instanceof HttpError;
}

function clip(text: string): string {
  const clean = (text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text).replace(
    /[\u0000-\u001f\u007f]/g,
    "?",
  );
  return clean;
}

/** Origin + path of a URL for messages: no credentials, query or fragment (they may hold tokens). */
export function describeUrl(url: URL): string {
  const path = url.pathname.length > 80 ? `${url.pathname.slice(0, 80)}…` : url.pathname;
  return `${url.protocol}//${url.host}${path}`;
}

/**
 * `describeUrl` for untrusted text that may not parse (endpoints and tokenURIs from registration files): the same
 * origin + path when it parses; otherwise the text cut at the first "?" or "#", with anything up to an "@" after
 * the scheme dropped, shortened and without control characters. Never returns userinfo, a query or a fragment.
 */
export function describeUrlText(text: string): string {
  const head = text.length > 2_048 ? text.slice(0, 2_048) : text;
  try {
    const url = new URL(head);
    if (url.host !== "") return clip(describeUrl(url)).slice(0, 160);
  } catch {
    // falls through to the textual form
  }
  let rest = head.split(/[?#]/, 1)[0] ?? "";
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/*/.exec(rest)?.[0] ?? "";
  const afterScheme = rest.slice(scheme.length);
  const at = afterScheme.lastIndexOf("@");
  rest = scheme + (at >= 0 ? afterScheme.slice(at + 1) : afterScheme);
  const short = rest.length > 120 ? `${rest.slice(0, 120)}…` : rest;
  return short.replace(/[\u0000-\u001f\u007f]/g, "?");
}
