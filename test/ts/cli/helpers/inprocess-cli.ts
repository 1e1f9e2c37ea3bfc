/**
 * The subprocess helpers' interface (processes.ts: `startHardhatNode`, `cli`, `ok`) in-process: Hardhat's
 * in-process chain behind a loopback RPC bridge, and `run(argv, io)` instead of a spawned bin. Tests written
 * against the subprocess helpers switch by import; nothing waits on process start-up, so a busy machine
 * slows them down but does not time them out.
 */
import { network } from "hardhat";
import { run } from "../../../../cli/program.js";
import type { CliResult, HardhatNode } from "./processes.js";
import { startRpcBridge } from "./rpc-bridge.js";

type Provider = { request(args: { method: string; params?: unknown[] }): Promise<unknown> };

/** A fresh in-process Hardhat chain (chain id 31337, like `hardhat node`) at a loopback URL. */
export async function startInProcessChain(): Promise<HardhatNode> {
  const provider = (await network.create()).provider as unknown as Provider;
  const bridge = await startRpcBridge(provider);
  return { url: bridge.url, stop: () => bridge.close() };
}

/** `cresolver --json <args>` in-process, with only `env` as its environment. */
export async function cli(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const code = await run(["--json", ...args], {
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
    env: { ...options.env },
    cwd: options.cwd,
  });
  let json: Record<string, unknown> | undefined;
  if (stdout.trim() !== "") {
    const lines = stdout.trimEnd().split("\n");
    if (lines.length !== 1)
      throw new Error(`expected one line of JSON on stdout, got ${lines.length}: ${stdout.slice(0, 500)}`);
    json = JSON.parse(lines[0] as string) as Record<string, unknown>;
  }
  return { code, stdout, stderr, ...(json ? { json } : {}) };
}

/** Runs the CLI and expects success: returns the JSON object. */
export async function ok(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<Record<string, unknown>> {
  const r = await cli(args, options);
  if (r.code !== 0 || !r.json)
    throw new Error(`cresolver ${args.join(" ")} failed (${r.code}): ${r.stderr.slice(0, 1000)}`);
  return r.json;
}
