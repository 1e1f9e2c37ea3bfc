/**
 * `cresolver` entry: `npx cresolver …` (bin/cresolver.mjs), `npm run cresolver -- …` or `npx tsx cli/main.ts …`.
 */
import { VERSION } from "./version.js";
import { skipSqliteNotice } from "./warnings.js";

const argv = process.argv.slice(2);
// `--version` alone answers before viem, commander and the commands load (well under a second).
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  process.stdout.write(`${VERSION}\n`);
  process.exit(0);
}
skipSqliteNotice();
const { run } = await import("./program.js");
const code = await run(argv, {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  env: process.env,
  cwd: process.cwd(),
});
// Pooled RPC sockets must not keep the process alive; stdout/stderr are synchronous for files and pipes on Linux.
process.exit(code);
