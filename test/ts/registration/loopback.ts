/**
 * Test support: loopback HTTP servers and a small streaming UriFetcher over node:http.
 * The production fetcher (destination guard, limits) comes from the HTTP-client stream; this one
 * only enforces maxBytes by streaming and timeoutMs, which is what decodeAgentUri relies on.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { UriFetcher } from "../../../workflow/registration/index.js";

export interface LoopbackServer {
  /** e.g. "http://127.0.0.1:43121" (no trailing slash). */
  origin: string;
  /** Request paths seen, in order. */
  paths: string[];
  close(): Promise<void>;
}

export async function startServer(handler: http.RequestListener): Promise<LoopbackServer> {
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    paths.push(req.url ?? "");
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Serves fixed bodies by path; anything else is a 404. */
export function staticRoutes(routes: Record<string, string>): http.RequestListener {
  return (req, res) => {
    const body = routes[req.url ?? ""];
    if (body === undefined) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(body);
  };
}

/** What a streamed-body route did, to check that a refused download stopped early. */
export interface StreamStats {
  bytesWritten: number;
  finished: boolean;
  closedEarly: boolean;
}

/**
 * Streams `totalBytes` of a JSON-looking document in 64 KiB chunks, honouring backpressure.
 * With `contentLength` the size is announced up front; without it the response is chunked.
 */
export function hugeRoute(totalBytes: number, contentLength: boolean, stats: StreamStats): http.RequestListener {
  return (_req, res) => {
    const chunk = Buffer.alloc(64 * 1024, 0x20); // spaces: valid JSON whitespace
    const headers: http.OutgoingHttpHeaders = { "content-type": "application/json" };
    if (contentLength) headers["content-length"] = String(totalBytes);
    res.writeHead(200, headers);
    res.on("close", () => {
      if (!stats.finished) stats.closedEarly = true;
    });
    const pump = () => {
      while (stats.bytesWritten < totalBytes && !res.destroyed) {
        const n = Math.min(chunk.length, totalBytes - stats.bytesWritten);
        stats.bytesWritten += n;
        if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
          res.once("drain", pump);
          return;
        }
      }
      if (!res.destroyed) {
        stats.finished = true;
        res.end();
      }
    };
    pump();
  };
}

export interface LoopbackFetcher {
  fetcher: UriFetcher;
  /** URLs the decoder asked for (before any rewrite). */
  requested: string[];
  /** Limits passed by the decoder on the last call. */
  lastLimits?: { maxBytes: number; timeoutMs: number };
  /** Body bytes read on the last call. */
  bytesRead: number;
}

/**
 * A streaming fetcher over node:http. `rewrite` maps the requested URL to the one actually
 * dialled (e.g. https://agent.example/... -> the loopback server), like a test resolver would.
 * Oversized bodies are refused with an Error tagged `kind: "too-large"`, as the real client is
 * expected to; nothing beyond maxBytes (+ one chunk in flight) is ever held.
 */
export function loopbackFetcher(rewrite: (url: URL) => URL = (u) => u): LoopbackFetcher {
  const state: LoopbackFetcher = {
    requested: [],
    bytesRead: 0,
    fetcher: (url, limits) => {
      state.requested.push(url);
      state.lastLimits = limits;
      state.bytesRead = 0;
      const target = rewrite(new URL(url));
      if (target.protocol !== "http:") return Promise.reject(new Error(`test fetcher dials http only: ${target.href}`));
      return new Promise<string>((resolve, reject) => {
        const tooLarge = (detail: string) =>
          Object.assign(new Error(`body too large: ${detail}`), { kind: "too-large" });
        const req = http.get(target, { timeout: limits.timeoutMs }, (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            reject(new Error(`HTTP ${res.statusCode}`));
            return;
          }
          const declared = Number(res.headers["content-length"] ?? "NaN");
          if (declared > limits.maxBytes) {
            req.destroy();
            reject(tooLarge(`content-length ${declared}`));
            return;
          }
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => {
            state.bytesRead += chunk.length;
            if (state.bytesRead > limits.maxBytes) {
              req.destroy();
              reject(tooLarge(`over ${limits.maxBytes} bytes`));
              return;
            }
            chunks.push(chunk);
          });
          res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
          res.on("error", reject);
        });
        req.on("timeout", () => req.destroy(new Error(`timed out after ${limits.timeoutMs} ms`)));
        req.on("error", reject);
      });
    },
  };
  return state;
}
