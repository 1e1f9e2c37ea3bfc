/**
 * The shape of the one HTTP client the adapters and the registration loader use. The Node implementation is
 * client.ts (undici, destination guard, pinned DNS); the Chainlink CRE workflow implements the same interface over
 * its HTTP capability. Types only: importing this pulls in no runtime.
 */

export interface PostJsonOptions {
  /** Overall deadline of the call, connect to last body byte. */
  timeoutMs: number;
  /** Extra request headers (e.g. auth). Never logged or put in error messages. */
  headers?: Record<string, string>;
  /** Caller's cancellation; treated like the deadline passing. */
  signal?: AbortSignal;
  /** Overrides the client's response cap for this call. */
  maxBytes?: number;
}

export interface GetTextOptions {
  maxBytes: number;
  timeoutMs: number;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface JsonResponse {
  status: number;
  /** Parsed and sanitized JSON. */
  body: unknown;
  bytes: number;
}

/** Same shape as the registration module's UriFetcher (declared here to keep http/ free of it). */
export type TextFetcher = (url: string, options: { maxBytes: number; timeoutMs: number }) => Promise<string>;

export interface SafeHttpClient {
  /** POSTs `body` as JSON (bigints written as exact integers). Throws HttpError. */
  postJson(url: string, body: unknown, options: PostJsonOptions): Promise<JsonResponse>;
  /** GETs a UTF-8 text document (any content type). Throws HttpError. */
  getText(url: string, options: GetTextOptions): Promise<string>;
  /** getText as a registration-file fetcher. */
  readonly fetcher: TextFetcher;
  close(): Promise<void>;
}
