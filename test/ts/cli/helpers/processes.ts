/**
 * Subprocess helpers: a `hardhat node` on 127.0.0.1 (own process group, killed as a group) and the
 * `cresolver` CLI run through its bin shim with --json.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { resolve } from "node:path";

export const REPO = resolve(import.meta.dirname, "../../../..");
/** Node 22 from node_modules (plain `node` may be older). */
export const NODE = resolve(REPO, "node_modules/.bin/node");
const HARDHAT = resolve(REPO, "node_modules/.bin/hardhat");
const CLI = resolve(REPO, "bin/cresolver.mjs");

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
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export interface HardhatNode {
  url: string;
  stop(): Promise<void>;
}

export async function startHardhatNode(): Promise<HardhatNode> {
  const port = await freePort();
  const child: ChildProcess = spawn(NODE, [HARDHAT, "node", "--hostname", "127.0.0.1", "--port", String(port)], {
    cwd: REPO,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout?.on("data", (d: Buffer) => (log += d.toString()).length > 100_000 && (log = log.slice(-50_000)));
  child.stderr?.on("data", (d: Buffer) => (log += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.pid === undefined) return;
    const exited = new Promise<void>((r) => child.once("exit", () => r()));
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      /* gone */
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        /* gone */
      }
    }, 5_000);
    await exited;
    clearTimeout(timer);
  };
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`hardhat node exited: ${log.slice(-2000)}`);
    try {
      await rpc(url, "eth_chainId");
      return { url, stop };
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  await stop();
  throw new Error(`hardhat node did not start: ${log.slice(-2000)}`);
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as one JSON object (undefined when stdout is empty). */
  json?: Record<string, unknown>;
}

/** Runs `cresolver --json <args>` in `cwd` with `env` added to a minimal environment. */
export async function cli(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  const child = spawn(NODE, [CLI, "--json", ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number>((r) => child.on("close", (c) => r(c ?? -1)));
  let json: Record<string, unknown> | undefined;
  if (stdout.trim() !== "") {
    const lines = stdout.trimEnd().split("\n");
    if (lines.length !== 1) throw new Error(`expected one line of JSON on stdout, got ${lines.length}: ${stdout.slice(0, 500)}`);
    json = JSON.parse(lines[0]) as Record<string, unknown>;
  }
  return { code, stdout, stderr, ...(json ? { json } : {}) };
}

/** Runs the CLI and expects success: returns the JSON object. */
export async function ok(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<Record<string, unknown>> {
  const r = await cli(args, options);
  if (r.code !== 0 || !r.json) throw new Error(`cresolver ${args.join(" ")} failed (${r.code}): ${r.stderr.slice(0, 1000)}`);
  return r.json;
}
