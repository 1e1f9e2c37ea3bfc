/**
 * `cresolver` entry: `npx cresolver …` (bin/cresolver.mjs), `npm run cresolver -- …` or `npx tsx cli/main.ts …`.
 */
import { run } from "./program.js";

const code = await run(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  env: process.env,
  cwd: process.cwd(),
});
// Pooled RPC sockets must not keep the process alive; stdout/stderr are synchronous for files and pipes on Linux.
process.exit(code);
