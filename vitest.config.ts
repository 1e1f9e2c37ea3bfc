import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));

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
      const run = spawnSync(
        `${root}node_modules/.bin/bun`,
        [
          "node_modules/@chainlink/cre-sdk/scripts/run.ts",
          "compile-to-js",
          "cre/resolution/main.ts",
          out,
          "--skip-type-checks",
        ],
        { cwd: root, encoding: "utf8" },
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
