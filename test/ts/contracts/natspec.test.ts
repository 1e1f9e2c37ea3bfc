/**
 * Every custom error and event declared in contracts/ carries NatSpec (issue 24: "NatSpec on every error and
 * event"): the line above its declaration is a `///` comment or closes a `/** … *\/` block.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const CONTRACTS = fileURLToPath(new URL("../../../contracts", import.meta.url));

function solidityFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? solidityFiles(join(dir, e.name)) : e.name.endsWith(".sol") ? [join(dir, e.name)] : [],
  );
}

/** `error X` / `event X` declarations whose previous line is not NatSpec, as "line: declaration". */
function undocumented(source: string): string[] {
  const lines = source.split("\n");
  const out: string[] = [];
  lines.forEach((line, i) => {
    const declared = /^\s*(error|event)\s+\w+/.exec(line);
    if (!declared) return;
    const previous = (lines[i - 1] ?? "").trim();
    if (previous.startsWith("///") || previous.endsWith("*/")) return;
    out.push(`${i + 1}: ${line.trim()}`);
  });
  return out;
}

describe("NatSpec on contract errors and events", () => {
  it("flags a declaration without a comment and accepts /// and /** */ ones", () => {
    const source = [
      "interface I {",
      "    /// @notice Documented.",
      "    error A();",
      "    /** @notice Block. */",
      "    event B(uint256 x);",
      "    // a plain comment is not NatSpec",
      "    error C(uint256 y);",
      "    event D();",
      "}",
    ].join("\n");
    expect(undocumented(source)).toEqual(["7: error C(uint256 y);", "8: event D();"]);
  });

  it("finds none in contracts/", () => {
    const files = solidityFiles(CONTRACTS);
    expect(files.length).toBeGreaterThan(20);
    let declarations = 0;
    const missing: string[] = [];
    for (const file of files) {
      const source = readFileSync(file, "utf8");
      declarations += source.match(/^\s*(error|event)\s+\w+/gm)?.length ?? 0;
      for (const row of undocumented(source)) missing.push(`${file.slice(CONTRACTS.length + 1)}:${row}`);
    }
    expect(declarations).toBeGreaterThan(150);
    expect(missing).toEqual([]);
  });
});
