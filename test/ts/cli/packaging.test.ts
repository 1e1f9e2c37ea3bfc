/**
 * The package as users get it: the built bin (dist/, from `npm run build`, which `npm test` runs first) starts as a
 * subprocess, and `npm pack` ships the built CLI and the contract artifacts deploy needs, without tests or sources.
 */
import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { VERSION } from "../../../cli/version.js";
import { CONTRACT_SOURCES } from "../../../workflow/chain/artifacts.js";
import { builtBinProblem, NODE, REPO } from "./helpers/processes.js";

function runBin(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(NODE, ["bin/cresolver.mjs", ...args], {
    cwd: REPO,
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH ?? "" },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((r) => child.on("close", (code) => r({ code, stdout, stderr })));
}

describe("packaging", () => {
  it("the built bin answers --version and --help (subprocess)", async () => {
    expect(builtBinProblem()).toBeNull();
    const version = await runBin(["--version"]);
    expect(version).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
    expect(VERSION).toBe((JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version);
    const help = await runBin(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: cresolver \[options\] \[command\]/);
    expect(help.stdout).toMatch(/^ {2}owed \[options\] \[address\]/m);
  });

  it("npm ci accepts darwin-arm64: a dry run of the lock file for that platform plans EDR's darwin-arm64 binary", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cresolver-npm-ci-"));
    try {
      for (const f of ["package.json", "package-lock.json"]) copyFileSync(join(REPO, f), join(dir, f));
      const child = spawn(
        "npm",
        ["ci", "--dry-run", "--os=darwin", "--cpu=arm64", "--ignore-scripts", "--no-audit", "--no-fund"],
        {
          cwd: dir,
          stdio: ["ignore", "pipe", "pipe"],
          env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? dir },
        },
      );
      let out = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      child.stderr.on("data", (d: Buffer) => (out += d.toString()));
      const code = await new Promise((r) => child.on("close", r));
      expect({ code, badPlatform: /EBADPLATFORM/.test(out) }).toEqual({ code: 0, badPlatform: false });
      expect(out).toMatch(/^add @nomicfoundation\/edr-darwin-arm64 /m);
      expect(out).not.toMatch(/^add @nomicfoundation\/edr-linux-x64-gnu /m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("npm pack ships dist/, the bin and the deployable artifacts, and no tests, sources or build info", async () => {
    const child = spawn("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: REPO,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    expect(await new Promise((r) => child.on("close", r))).toBe(0);
    const [pack] = JSON.parse(stdout) as { files: { path: string }[] }[];
    const files = pack!.files.map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        "package.json",
        "bin/cresolver.mjs",
        "dist/cli/main.js",
        "dist/cli/program.js",
        "dist/workflow/chain/deploy.js",
        "dist/daemon/index.js",
      ]),
    );
    for (const [name, source] of Object.entries(CONTRACT_SOURCES))
      expect(files).toContain(`artifacts/${source}/${name}.json`);
    expect(
      files.filter(
        (f) =>
          /^(test|bench|scripts|contracts|cre|cli|workflow)\//.test(f) ||
          /\.test\.js$|\.ts$|build-info|tsbuildinfo/.test(f),
      ),
    ).toEqual([]);
  });
});
