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

const g = globalThis as unknown as Record<string, unknown>;
if (typeof g.URL !== "function") g.URL = WhatwgURL;
if (typeof g.URLSearchParams !== "function") g.URLSearchParams = WhatwgURLSearchParams;
if (typeof g.performance !== "object" || g.performance === null) g.performance = { now: () => Date.now() };
