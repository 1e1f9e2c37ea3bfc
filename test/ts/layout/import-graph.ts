/**
 * The import graph of the production TypeScript (relative imports and re-exports, type-only ones included) and
 * its strongly connected components: every component with more than one member is a cycle.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

export const SOURCE_ROOTS = ["agents", "cli", "daemon", "explorer", "protocols", "workflow"] as const;

function sourceFiles(root: string, dir: string, out: string[]): string[] {
  for (const entry of readdirSync(join(root, dir))) {
    const path = join(dir, entry);
    if (statSync(join(root, path)).isDirectory()) {
      if (entry !== "node_modules" && entry !== "client") sourceFiles(root, path, out);
    } else if (path.endsWith(".ts") && !path.endsWith(".test.ts") && !path.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

const SPECIFIER =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

/** File → files it imports, for every production .ts file below the source roots. */
export function fileGraph(root: string): Map<string, Set<string>> {
  const files = SOURCE_ROOTS.flatMap((dir) => sourceFiles(root, dir, []));
  const known = new Set(files);
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const edges = new Set<string>();
    const text = readFileSync(join(root, file), "utf8");
    for (const match of text.matchAll(SPECIFIER)) {
      const spec = match[1] ?? match[2];
      if (spec === undefined) continue;
      const target = normalize(join(dirname(file), spec.replace(/\.js$/, ".ts")));
      if (known.has(target) && target !== file) edges.add(target);
    }
    graph.set(file, edges);
  }
  return graph;
}

/** A file's folder for the folder graph: at most two levels (workflow/chain, protocols/agora, cli). */
export function folderOf(file: string): string {
  return dirname(file).split("/").slice(0, 2).join("/");
}

export function folderGraph(files: Map<string, Set<string>>): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const [file, targets] of files) {
    const from = folderOf(file);
    const edges = graph.get(from) ?? new Set<string>();
    for (const target of targets) if (folderOf(target) !== from) edges.add(folderOf(target));
    graph.set(from, edges);
  }
  return graph;
}

/** The cycles of a graph: its strongly connected components with two or more members, each sorted, sorted. */
export function cycles(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found.sort((a, b) => (a.join() < b.join() ? -1 : 1));
}
