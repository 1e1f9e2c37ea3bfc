/**
 * Shared by the CLI tests: paths (the repository, Node 22 from node_modules), a free loopback port, a raw JSON-RPC
 * call, the result shape of one CLI run, and the check that the built bin (dist/) is not older than the sources —
 * the subprocess tests run the built JavaScript, as users do (`npm test` builds it first).
 */
import { readdirSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";

export const REPO = resolve(import.meta.dirname, "../../../..");
/** Node 22 from node_modules (plain `node` may be older). */
export const NODE = resolve(REPO, "node_modules/.bin/node");

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => res(port));
    });
  });
}

export async function rpc<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/** A chain at a loopback JSON-RPC URL. */
export interface HardhatNode {
  url: string;
  stop(): Promise<void>;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as one JSON object (undefined when stdout is empty). */
  json?: Record<string, unknown>;
}

function newest(dir: string, suffix: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(path, suffix));
    else if (entry.name.endsWith(suffix)) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

/** Why the built bin cannot stand for the sources (missing or older than a source file), or null. */
export function builtBinProblem(): string | null {
  try {
    statSync(join(REPO, "dist/cli/main.js"));
  } catch {
    return "dist/ is missing: run `npm run build`";
  }
  // The incremental build rewrites only what changed: compare the newest source with the newest emitted file.
  const source = Math.max(...["cli", "workflow", "daemon", "agents"].map((d) => newest(join(REPO, d), ".ts")));
  return source > newest(join(REPO, "dist"), ".js") ? "dist/ is older than the sources: run `npm run build:cli`" : null;
}
