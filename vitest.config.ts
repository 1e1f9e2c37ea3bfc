import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));

/**
 * The bun binary: node_modules/.bin/bun, or the platform package's own binary where bun's postinstall did not run
 * (an install with --ignore-scripts leaves .bin/bun a placeholder that only prints an error).
 */
function bunBinary(): string {
  const linked = `${root}node_modules/.bin/bun`;
  const platform = `${root}node_modules/@oven/bun-${process.platform}-${process.arch}/bin/bun`;
  if (spawnSync(linked, ["--version"], { encoding: "utf8" }).status === 0 || !existsSync(platform)) return linked;
  return platform;
}

/**
 * `virtual:cre-bundle`: the CRE workflow bundled exactly as `cre-compile` step 1 does it (the SDK's compile-to-js,
 * bun, offline), built when a test imports it. The QuickJS tests run this JS.
 */
function creBundle(): Plugin {
  const id = "\0virtual:cre-bundle";
  return {
    name: "cre-bundle",
    resolveId: (source) => (source === "virtual:cre-bundle" ? id : undefined),
    load(loaded) {
      if (loaded !== id) return undefined;
      const out = "build/cre/resolution.js";
      const bun = bunBinary();
      const run = spawnSync(
        bun,
        [
          "node_modules/@chainlink/cre-sdk/scripts/run.ts",
          "compile-to-js",
          "cre/resolution/main.ts",
          out,
          "--skip-type-checks",
        ],
        // The SDK's script runs `bun` again from PATH: the same binary first.
        { cwd: root, encoding: "utf8", env: { ...process.env, PATH: `${dirname(bun)}:${process.env.PATH ?? ""}` } },
      );
      if (run.status !== 0) throw new Error(`bundling the CRE workflow failed:\n${run.stdout}\n${run.stderr}`);
      return `export default ${JSON.stringify(readFileSync(`${root}${out}`, "utf8"))};`;
    },
  };
}

export default defineConfig({
  plugins: [creBundle()],
  // The CRE SDK's test runtime is written for `bun test`: its `bun:test` import is served by vitest (cre/test/).
  resolve: { alias: { "bun:test": fileURLToPath(new URL("./cre/test/bun-test-shim.ts", import.meta.url)) } },
  test: {
    include: ["test/ts/**/*.test.ts", "cre/test/**/*.test.ts"],
    testTimeout: 60_000,
    // Hooks deploy contracts and start chains; on a busy 2-core machine that can exceed vitest's 10 s default.
    hookTimeout: 120_000,
    // The SDK's published dist/ uses extensionless and directory imports that Node's loader refuses: let vite load it.
    server: { deps: { inline: [/@chainlink\/cre-sdk/] } },
  },
});
