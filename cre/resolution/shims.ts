/**
 * The globals the CRE runtime (Javy/QuickJS in WASM) lacks and the shared pipeline needs, installed only where
 * missing. Imported FIRST by main.ts: the SDK's bundled `node:url` shim copies `globalThis.URL` when its module
 * evaluates, so the WHATWG URL must exist before the SDK does.
 *
 * - `URL`, `URLSearchParams`: whatwg-url, the reference implementation of the URL Standard (the one Node follows),
 *   so endpoints are joined and described byte-for-byte as in Node (those strings end up in the bundle).
 * - `performance.now()`: the pipeline times its stages (timings never enter the bundle); Date.now() is enough.
 * Javy already provides TextEncoder/TextDecoder; the SDK itself provides Buffer, atob and btoa.
 */
import { URL as WhatwgURL, URLSearchParams as WhatwgURLSearchParams } from "whatwg-url";

// Through Reflect: the SDK's types retype Node's globals as `never`.
const missing = (name: string, type: "function" | "object"): boolean => {
  const value: unknown = Reflect.get(globalThis, name);
  return typeof value !== type || value === null;
};
if (missing("URL", "function")) Reflect.set(globalThis, "URL", WhatwgURL);
if (missing("URLSearchParams", "function")) Reflect.set(globalThis, "URLSearchParams", WhatwgURLSearchParams);
if (missing("performance", "object")) Reflect.set(globalThis, "performance", { now: () => Date.now() });
