/**
 * `cresolver` entry: `npx cresolver …` (bin/cresolver.mjs), `npm run cresolver -- …` or `npx tsx cli/main.ts …`.
 */
import * as nodeModule from "node:module";
import { VERSION } from "./version.js";
import { skipSqliteNotice } from "./warnings.js";

// Node keeps the compiled code of the modules a command loads (in its cache folder under the OS temp dir, or
// NODE_COMPILE_CACHE), so every later start skips most of the parsing; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
if (typeof nodeModule.enableCompileCache === "function") nodeModule.enableCompileCache();

const argv = process.argv.slice(2);
// `--version` alone answers before viem, commander and the commands load (well under a second).
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  process.stdout.write(`${VERSION}\n`);
  process.exit(0);
}
skipSqliteNotice();
const { run } = await import("./program.js");
// The first Ctrl-C interrupts (the command says what it sent, exit 130); daemon, explorer and agent serve stop
// gracefully on it instead. A second Ctrl-C leaves at once.
const interrupt = new AbortController();
process.once("SIGINT", () => {
  interrupt.abort();
  process.once("SIGINT", () => process.exit(130));
});
const code = await run(argv, {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  env: process.env,
  cwd: process.cwd(),
  signal: interrupt.signal,
});
// Pooled RPC sockets must not keep the process alive; stdout/stderr are synchronous for files and pipes on Linux.
process.exit(code);
