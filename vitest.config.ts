import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  // The CRE SDK's test runtime is written for `bun test`: its `bun:test` import is served by vitest (cre/test/).
  resolve: { alias: { "bun:test": fileURLToPath(new URL("./cre/test/bun-test-shim.ts", import.meta.url)) } },
  test: {
    include: ["test/ts/**/*.test.ts", "cre/test/**/*.test.ts"],
    testTimeout: 60_000,
    // The SDK's published dist/ uses extensionless and directory imports that Node's loader refuses: let vite load it.
    server: { deps: { inline: [/@chainlink\/cre-sdk/] } },
  },
});
