/**
 * Real HTTP servers on loopback for the workflow tests (node:http, port 0). No function mocks:
 * every worker, registration host, IPFS gateway and LLM in these tests is one of these.
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { Socket } from "node:net";

export interface TestServer {
  /** http://127.0.0.1:<port> (no trailing slash). */
  url: string;
  port: number;
  /** Requests seen, in arrival order. */
  requests: { method: string; path: string; body: string; headers: IncomingMessage["headers"] }[];
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage & { bodyText: string }, res: ServerResponse) => unknown;

/** Test-only certificate for localhost / 127.0.0.1 (see fixtures/README.md). */
export const TEST_TLS = {
  cert: readFileSync(new URL("../fixtures/loopback-test.cert.pem", import.meta.url), "utf8"),
  key: readFileSync(new URL("../fixtures/loopback-test.key.pem", import.meta.url), "utf8"),
};

export async function startServer(handler: Handler, options: { tls?: boolean } = {}): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const requests: TestServer["requests"] = [];
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const bodyText = Buffer.concat(chunks).toString("utf8");
      requests.push({ method: req.method ?? "", path: req.url ?? "", body: bodyText, headers: req.headers });
      Promise.resolve(handler(Object.assign(req, { bodyText }), res)).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
  };
  const server: Server =
    options.tls === true
      ? createTlsServer({ cert: TEST_TLS.cert, key: TEST_TLS.key }, listener)
      : createServer(listener);
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return {
    url: `${options.tls === true ? "https" : "http"}://127.0.0.1:${address.port}`,
    port: address.port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, contentType = "application/json"): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(text) });
  res.end(text);
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface WorkerBehaviour {
  /** Reply to /a2a/resolve (object is sent as JSON; a function gets the parsed request). */
  resolve?: unknown;
  /** Reply to /a2a/challenge; default: one on-topic paragraph per challenge. */
  challenge?: unknown;
  /** Delay before answering, ms. */
  delayMs?: number;
  /** Raw handler overrides. */
  rawResolve?: Handler;
  rawChallenge?: Handler;
}

/** A CRE-protocol worker on loopback. */
export async function startWorker(b: WorkerBehaviour, options: { tls?: boolean } = {}): Promise<TestServer> {
  return startServer(async (req, res) => {
    if (b.delayMs !== undefined) await sleep(b.delayMs);
    const path = (req.url ?? "").split("?")[0];
    if (req.method === "POST" && path.endsWith("/a2a/resolve")) {
      if (b.rawResolve) return b.rawResolve(req, res);
      const reqBody = JSON.parse(req.bodyText) as Record<string, unknown>;
      const reply = typeof b.resolve === "function" ? (b.resolve as (r: unknown) => unknown)(reqBody) : b.resolve;
      return sendJson(res, 200, reply);
    }
    if (req.method === "POST" && path.endsWith("/a2a/challenge")) {
      if (b.rawChallenge) return b.rawChallenge(req, res);
      const reqBody = JSON.parse(req.bodyText) as { challenges: string[] };
      const reply =
        b.challenge === undefined
          ? {
              responses: reqBody.challenges.map(
                (c, i) =>
                  `Answer ${i + 1}: on "${c.slice(0, 40)}", the cited official statistics and the two independent reports still support my determination; the remaining uncertainty is a data revision.`,
              ),
            }
          : typeof b.challenge === "function"
            ? (b.challenge as (r: unknown) => unknown)(reqBody)
            : b.challenge;
      return sendJson(res, 200, reply);
    }
    return sendJson(res, 404, { error: "not found" });
  }, options);
}

export function honestAnswer(determination: boolean, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    determination,
    confidence: 0.8,
    evidence: `The official statistics published this month show the figure ${determination ? "exceeded" : "did not reach"} the threshold. Several independent outlets confirm it; the main uncertainty is a possible revision of the preliminary data.`,
    sources: ["https://stats.example.org/report-2026", "https://news.example.com/article"],
    ...extra,
  };
}
