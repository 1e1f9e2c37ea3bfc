/**
 * Subprocess checks of the packaging: `npx cresolver --help` through the package bin, and
 * `cresolver agent serve` answering /health and exiting 0 on SIGTERM.
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { NODE, REPO } from "./helpers/processes.js";

describe("packaging", () => {
  it("`npx cresolver --help` runs the bin shim", async () => {
    const child = spawn("npx", ["--no-install", "cresolver", "--help"], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    const code = await new Promise<number | null>((r) => child.on("close", r));
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: cresolver \[options\] \[command\]/);
    expect(stdout).toMatch(/market\s+Resolution markets/);
  });

  it("`agent serve --json` prints one JSON line with the URL, serves /health, exits 0 on SIGTERM", async () => {
    const child = spawn(NODE, ["bin/cresolver.mjs", "--json", "agent", "serve", "--persona", "skeptic", "--port", "0", "--log-level", "warn"], {
      cwd: REPO,
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "", RPC_URL: "not even a url" },
    });
    const exited = new Promise<number | null>((r) => child.on("close", r));
    let stdout = "";
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        stdout += d.toString();
        if (stdout.includes("\n")) resolve(stdout.split("\n")[0]);
      });
      child.on("close", () => reject(new Error(`exited before printing: ${stdout}`)));
    });
    const info = JSON.parse(line) as { url: string; persona: string; protocol: string };
    expect(info).toMatchObject({ persona: "skeptic", protocol: "cresolver" });
    const health = (await (await fetch(`${info.url}/health`)).json()) as { status: string; persona: string };
    expect(health).toMatchObject({ status: "ok", persona: "skeptic" });
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(stdout.trimEnd().split("\n")).toHaveLength(1);
  });
});
