/**
 * The shared pipeline code also runs in the CRE runtime (Javy/QuickJS): the workflow's import graph reaches no Node
 * built-in and no Node-only library, the helpers that used Node facilities keep their behaviour without them.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { callWithRetry } from "../../../workflow/adapters/call.js";
import { HttpError } from "../../../workflow/http/errors.js";
import { stringifyJson } from "../../../workflow/http/json.js";
import { installTimers, sleep, startTimer, type HostTimers } from "../../../workflow/util/timers.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** Every file reachable from `entry` through relative imports (type-only ones included), and every bare specifier. */
function importGraph(entry: string): { files: Set<string>; bare: Set<string> } {
  const files = new Set<string>();
  const bare = new Set<string>();
  const todo = [entry];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(
      /(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g,
    )) {
      const spec = m[1] ?? m[2] ?? m[3]!;
      if (spec.startsWith(".")) todo.push(resolve(dirname(file), spec.replace(/\.js$/, ".ts")));
      else bare.add(spec);
    }
  }
  return { files, bare };
}

describe("the CRE workflow's import graph", () => {
  const { files, bare } = importGraph(resolve(root, "cre/resolution/main.ts"));

  it("uses the pipeline itself (one implementation) and no Node-only module", () => {
    const rel = [...files].map((f) => f.slice(root.length + 1));
    for (const shared of [
      "workflow/pipeline/run.ts",
      "workflow/core/vote.ts",
      "workflow/core/bundle.ts",
      "workflow/evaluate/rubric.ts",
      "protocols/cresolver/adapter.ts",
    ])
      expect(rel).toContain(shared);
    expect(
      rel.filter((f) =>
        /^workflow\/(http\/client|http\/guard|evaluate\/llm|chain\/(clients|snapshot|ports))\.ts$/.test(f),
      ),
    ).toEqual([]);
    // Only the cresolver adapter and the runtime-neutral registry/types from protocols/: not the registry that pulls
    // every protocol's agent side (Fastify) and Node-only adapters.
    expect(rel.filter((f) => f.startsWith("protocols/")).sort()).toEqual([
      "protocols/adapter-registry.ts",
      "protocols/cresolver/adapter.ts",
      "protocols/cresolver/wire.ts",
      "protocols/shared/types.ts",
      "protocols/shared/wire-fields.ts",
    ]);
    expect(
      [...bare].filter(
        (s) => s.startsWith("node:") || ["undici", "openai", "jose", "ws", "fastify", "pino"].includes(s),
      ),
    ).toEqual([]);
    expect([...bare].sort()).toEqual(["@chainlink/cre-sdk", "viem", "whatwg-url", "zod"]);
  });

  it("names no timer global in the shared files it reaches", () => {
    for (const f of files) {
      if (f.endsWith("workflow/util/timers.ts")) continue;
      expect(readFileSync(f, "utf8"), f).not.toMatch(/\b(setTimeout|setInterval|clearTimeout)\s*\(/);
    }
  });
});

describe("runtime-neutral helpers", () => {
  let previous: HostTimers | undefined;
  afterEach(() => {
    if (previous !== undefined) installTimers(previous);
  });

  it("stringifyJson writes bigints exactly and never touches a string that looks like its marker", () => {
    expect(stringifyJson({ id: 2n ** 200n, n: 1 })).toBe(`{"id":${(2n ** 200n).toString()},"n":1}`);
    const tricky = { a: "__bigint_0_5", b: "__bigint_1_7", id: 12n };
    expect(JSON.parse(stringifyJson({ ...tricky, id: "x" }))).toEqual({ ...tricky, id: "x" });
    expect(stringifyJson(tricky)).toBe('{"a":"__bigint_0_5","b":"__bigint_1_7","id":12}');
    expect(stringifyJson({ s: "no bigints" })).toBe(JSON.stringify({ s: "no bigints" }));
  });

  it("without host timers: no retry pause (one attempt), sleep rejects, no backstop timer", async () => {
    previous = installTimers(undefined);
    let attempts = 0;
    const r = await callWithRetry(
      async () => {
        attempts++;
        throw new HttpError("http-status", "x answered 503", { status: 503, retryable: true });
      },
      { timeoutMs: 5_000, retryDelayMs: 1 },
    );
    expect(attempts).toBe(1);
    expect(r.ok).toBe(false);
    await expect(sleep(1)).rejects.toThrow(/no timers/);
    expect(startTimer(() => undefined, 1)).toBeUndefined();
  });

  it("with host timers (Node): the one retry still happens", async () => {
    let attempts = 0;
    const r = await callWithRetry(
      async () => {
        attempts++;
        if (attempts === 1) throw new HttpError("http-status", "x answered 503", { status: 503, retryable: true });
        return "ok";
      },
      { timeoutMs: 5_000, retryDelayMs: 1, minRetryBudgetMs: 1 },
    );
    expect(r).toMatchObject({ ok: true, value: "ok", attempts: 2 });
  });
});
