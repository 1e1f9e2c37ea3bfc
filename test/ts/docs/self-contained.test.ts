/**
 * The repository is self-contained: no tracked source or doc cites a path outside it (the protocol specs live in
 * protocols/<name>/README.md, written in the project's own words), and every relative link in the Markdown docs resolves to
 * a tracked file (and, for links into Markdown, to an existing heading).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = normalize(join(dirname(new URL(import.meta.url).pathname), "../../.."));
/** Tracked files (git ls-files); outside a git checkout, every file but build output and dependencies. */
function listFiles(): string[] {
  try {
    return execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" })
      .split("\0")
      .filter((f) => f !== "" && existsSync(join(ROOT, f)));
  } catch {
    const skip = new Set(["node_modules", ".git", "artifacts", "cache", "coverage", "deployments"]);
    const out: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        const rel = dir === "" ? e.name : `${dir}/${e.name}`;
        if (e.isDirectory()) {
          if (!skip.has(e.name)) walk(rel);
        } else out.push(rel);
      }
    };
    walk("");
    return out;
  }
}
const tracked = listFiles();
const TEXT = /\.(ts|mts|mjs|js|sol|md|json|yml|yaml|toml|txt)$|(^|\/)\.ci\/run$|(^|\/)\.gitignore$/;
const SELF = relative(ROOT, new URL(import.meta.url).pathname);

// Built from pieces so this file does not match itself. `../shared` counts in Markdown only: source files import
// the repository's own cli/shared and protocols/shared folders by that relative path.
const OUTSIDE = [["shared", "specs"].join("/"), ["shared", "notes"].join("/")];
const OUTSIDE_IN_DOCS = [["..", "shared"].join("/")];

describe("self-contained repository", () => {
  it("no tracked source or doc cites a path outside the repository", () => {
    const hits: string[] = [];
    for (const file of tracked.filter((f) => TEXT.test(f) && f !== SELF && f !== "package-lock.json")) {
      const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
      lines.forEach((line, i) => {
        const patterns = file.endsWith(".md") ? [...OUTSIDE, ...OUTSIDE_IN_DOCS] : OUTSIDE;
        if (patterns.some((p) => line.includes(p))) hits.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(hits).toEqual([]);
  });

  it("every protocol the resolver speaks has its own doc with an upstream link and the version it follows", () => {
    for (const p of ["cresolver", "factagora", "roundtable", "agora", "ai-olympics"]) {
      const file = join(ROOT, "protocols", p, "README.md");
      expect(existsSync(file), file).toBe(true);
      const head = readFileSync(file, "utf8").split("\n").slice(0, 15).join("\n");
      expect(head, p).toMatch(/Upstream:/);
      expect(head, p).toMatch(/\]\(https:\/\/[^)]+\)/);
      expect(head, p).toMatch(/version|commit/i);
    }
  });
});

/** GitHub's heading anchor: lower case, punctuation dropped (except - and _), spaces to "-". */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (m === null) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

describe("docs links", () => {
  const docs = tracked.filter((f) => f.endsWith(".md"));

  it("every relative link in a tracked Markdown file points at a tracked file and an existing heading", () => {
    const broken: string[] = [];
    const trackedSet = new Set(tracked);
    for (const doc of docs) {
      const text = readFileSync(join(ROOT, doc), "utf8").replace(/```[\s\S]*?```/g, "");
      for (const m of text.matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = m[1];
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http(s), mailto, …
        const [path, anchor] = target.split("#", 2);
        const resolved =
          path === "" ? doc : normalize(join(dirname(doc), decodeURIComponent(path))).replace(/\/+$/, "");
        const isDir = tracked.some((f) => f.startsWith(`${resolved}/`));
        if (!trackedSet.has(resolved) && !isDir) {
          broken.push(`${doc}: ${target} (no such tracked file)`);
          continue;
        }
        if (
          anchor !== undefined &&
          anchor !== "" &&
          resolved.endsWith(".md") &&
          !anchorsOf(readFileSync(join(ROOT, resolved), "utf8")).has(anchor)
        ) {
          broken.push(`${doc}: ${target} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
