/**
 * No import cycles between production files or folders (issue 24, layout). None is allowed.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cycles, fileGraph, folderGraph } from "./import-graph.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

const KNOWN_FILE_CYCLES: string[][] = [];
const KNOWN_FOLDER_CYCLES: string[][] = [];

describe("import graph of agents, cli, daemon, explorer, protocols and workflow", () => {
  const graph = fileGraph(ROOT);

  it("reads the production files and their imports", () => {
    expect(graph.size).toBeGreaterThan(150);
    expect(graph.get("daemon/chain.ts")).toContain("workflow/core/codes.ts");
  });

  it("finds a cycle when there is one (the walk can fail)", () => {
    const looped = new Map([
      ["a.ts", new Set(["b.ts"])],
      ["b.ts", new Set(["c.ts"])],
      ["c.ts", new Set(["a.ts"])],
      ["d.ts", new Set(["a.ts"])],
    ]);
    expect(cycles(looped)).toEqual([["a.ts", "b.ts", "c.ts"]]);
  });

  it("has no file cycle beyond the listed ones", () => {
    expect(cycles(graph)).toEqual(KNOWN_FILE_CYCLES);
  });

  it("has no folder cycle beyond the listed ones", () => {
    expect(cycles(folderGraph(graph))).toEqual(KNOWN_FOLDER_CYCLES);
  });
});
