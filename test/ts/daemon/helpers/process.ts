/** Runs helpers/child.ts in a separate Node process and follows its stdout lines. */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface ChildDaemon {
  proc: ChildProcess;
  lines: string[];
  stderr: () => string;
  waitForLine(prefix: string, timeoutMs?: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnChildDaemon(config: Record<string, unknown>): ChildDaemon {
  const script = fileURLToPath(new URL("./child.ts", import.meta.url));
  // process.execPath is the Node 22 that runs vitest (node:sqlite); tsx compiles the TypeScript.
  const proc = spawn(process.execPath, ["--no-warnings", "--import", "tsx", script], {
    env: { ...process.env, CHILD_CONFIG: JSON.stringify(config) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  let err = "";
  let buf = "";
  const waiters: (() => void)[] = [];
  proc.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    buf += chunk;
    for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
      lines.push(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
    for (const w of waiters.splice(0)) w();
  });
  proc.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    err = (err + chunk).slice(-20_000);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.on("exit", (code, signal) => {
      for (const w of waiters.splice(0)) w();
      resolve({ code, signal });
    });
  });
  const waitForLine = async (prefix: string, timeoutMs = 60_000): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = lines.find((l) => l.startsWith(prefix));
      if (hit) return hit;
      if (proc.exitCode !== null || proc.signalCode !== null)
        throw new Error(`child exited before "${prefix}": ${err.slice(-2_000)}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for "${prefix}"; stderr: ${err.slice(-2_000)}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 100);
      });
    }
  };
  return { proc, lines, stderr: () => err, waitForLine, exited };
}
