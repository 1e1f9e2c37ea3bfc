/**
 * The CLI entry skips Node's one-time node:sqlite notice and prints every other warning (cli/warnings.ts), without
 * patching process.emitWarning. Runs a real Node process: the notice is printed by Node's own listener.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { NODE, REPO } from "./helpers/processes.js";

const script = `
import { skipSqliteNotice } from "./cli/warnings.ts";
const emit = process.emitWarning;
skipSqliteNotice();
if (process.emitWarning !== emit) throw new Error("emitWarning was replaced");
await import("node:sqlite");
process.emitWarning("another warning stays visible");
`;

function run(withSkip: boolean): string {
  const body = withSkip ? script : script.replace("skipSqliteNotice();", "");
  const result = spawnSync(NODE, ["--import", "tsx", "--input-type=module", "-e", body], {
    cwd: REPO,
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(result.status).toBe(0);
  return result.stderr;
}

describe("cli/warnings: the SQLite notice", () => {
  it("is skipped while other warnings print unchanged", () => {
    const stderr = run(true);
    expect(stderr).not.toContain("SQLite is an experimental feature");
    expect(stderr).toContain("Warning: another warning stays visible");
  });

  it("prints without the skip (the test can fail)", () => {
    expect(run(false)).toContain("SQLite is an experimental feature");
  });
});
