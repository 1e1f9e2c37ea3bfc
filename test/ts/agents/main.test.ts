/** The runnable entry: prints the bound URL, serves, exits 0 on SIGTERM; bad flags exit 2. */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { get, post } from "../../helpers/agents.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const TSX = fileURLToPath(new URL("../../../node_modules/tsx/dist/cli.mjs", import.meta.url));

function run(args: string[]) {
  const env = { ...process.env };
  delete env.CRESOLVER_AGENT_MODEL;
  return spawn(process.execPath, [TSX, "agents/reference/main.ts", ...args], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

describe("agents/reference/main.ts", () => {
  it("prints the bound URL, serves the protocol, and shuts down gracefully on SIGTERM", async () => {
    const child = run(["--port", "0", "--persona", "contrarian"]);
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const exited = once(child, "exit");
    try {
      const lines = createInterface({ input: child.stdout });
      const [url] = (await once(lines, "line")) as [string];
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const health = await get(url, "/health");
      expect(health.json).toMatchObject({
        status: "ok",
        protocol: "cresolver",
        mode: "offline",
        persona: "contrarian",
      });
      expect(
        (await post(url, "/a2a/resolve", { market_id: 1, question: "Will it rain in Paris in 2026?" })).status,
      ).toBe(200);
    } finally {
      child.kill("SIGTERM");
    }
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
    expect(stderr).toMatch(/shutting down/);
  });

  it("rejects a bad flag with exit code 2 and a one-line reason", async () => {
    const child = run(["--persona", "pundit"]);
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toMatch(/^error: --persona must be one of analyst, skeptic, contrarian, optimist/);
  });

  it("refuses LLM mode without a model", async () => {
    const child = run(["--mode", "llm"]);
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toMatch(/CRESOLVER_AGENT_MODEL/);
  });
});
