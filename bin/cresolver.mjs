#!/usr/bin/env node
// The `cresolver` bin runs the built JavaScript (dist/, from `npm run build`). In a source checkout that was never
// built it falls back to tsx (slow start); an installed package without dist/ prints how to build it.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const built = new URL("../dist/cli/main.js", import.meta.url);
if (existsSync(fileURLToPath(built))) {
  await import(built.href);
} else {
  let register;
  try {
    ({ register } = await import("tsx/esm/api"));
  } catch {
    process.stderr.write("error: cresolver is not built: run `npm run build` in the package folder\n");
    process.exit(1);
  }
  register();
  await import("../cli/main.ts");
}
