// Lets `npm test` build only when needed, so CI builds once (`npm ci` with scripts, or `npm test` after
// `npm ci --ignore-scripts`). `write` stamps a finished `npm run build`; `check` exits 0 when the stamp is newer
// than every input of the build (contracts, the TypeScript it compiles, the explorer's assets, the configs and the
// lock file), 1 otherwise (no stamp, no dist/ or artifacts/, or a newer input).
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(fileURLToPath(new URL(".", import.meta.url)), "..");
const stamp = join(root, "dist/.build-stamp");
const inputDirs = ["contracts", "cli", "protocols", "workflow", "daemon", "agents", "explorer"];
const inputFiles = ["hardhat.config.ts", "tsconfig.json", "tsconfig.build.json", "package-lock.json"];

/** Newest modification time (ms) of a file or of the files below a folder. */
function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) {
    if (entry === "node_modules") continue;
    latest = Math.max(latest, newest(join(path, entry)));
  }
  return latest;
}

const command = process.argv[2];
if (command === "write") {
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
} else if (command === "check") {
  const built = statSync(stamp, { throwIfNoEntry: false });
  const current =
    built !== undefined &&
    existsSync(join(root, "artifacts/contracts")) &&
    [...inputDirs, ...inputFiles].every((input) => newest(join(root, input)) < built.mtimeMs);
  if (!current) process.stdout.write("build inputs changed since the last build: building\n");
  process.exit(current ? 0 : 1);
} else {
  process.stderr.write("usage: node scripts/build-stamp.mjs write|check\n");
  process.exit(2);
}
