/**
 * `cresolver daemon --don-mode` flag checks, in-process: every refusal is one line, exit 2, before anything touches
 * the network (no RPC is reachable here), and the help lists both flags.
 */
import { describe, expect, it } from "vitest";
import { run } from "../../../cli/program.js";

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await run(args, {
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
    // Nothing listens there: a check that reached the network would fail differently (exit 1).
    env: { RPC_URL: "http://127.0.0.1:9", PRIVATE_KEY: `0x${"11".repeat(32)}` },
    cwd: "/",
  });
  return { code, stdout, stderr };
}

const MARKET = ["--market", "0x5FbDB2315678afecb367f032d93F642f64180aa3"];

describe("cresolver daemon --don-mode", () => {
  it("--help lists --don-mode and --don-limits", async () => {
    const r = await cli(["daemon", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("--don-mode");
    expect(r.stdout).toContain("--don-limits <json>");
  });

  it.each([
    [["--don-limits", '{"httpCalls":15}'], /--don-limits needs --don-mode/],
    [["--don-mode", "--don-limits", "{httpCalls"], /--don-limits must be a JSON object/],
    [["--don-mode", "--don-limits", '{"httpCalls":0}'], /--don-limits: httpCalls: /],
    [["--don-mode", "--don-limits", '{"httpcalls":15}'], /--don-limits: .*httpcalls|Unrecognized key/],
    [["--don-mode", "--don-limits", '{"consensusCalls":1}'], /--don-limits: consensusCalls: /],
    [["--don-mode", "--evaluator", "llm"], /--don-mode scores with the rubric/],
  ])("refuses %j in one line, exit 2", async (flags, pattern) => {
    const r = await cli([...MARKET, "daemon", ...flags]);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: "" });
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: /);
    expect(lines[0]).toMatch(pattern);
  });
});
