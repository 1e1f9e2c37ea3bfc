/**
 * node:sqlite without its one-time "SQLite is an experimental feature" warning: Node 22 prints it on
 * first import, which would put a stray line on stderr of every CLI command that touches the daemon.
 * Any other warning goes through unchanged.
 */
const emitWarning = process.emitWarning;
process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  const text = typeof warning === "string" ? warning : warning.message;
  if (text.includes("SQLite is an experimental feature")) return;
  return (emitWarning as (w: string | Error, ...r: unknown[]) => void).call(process, warning, ...rest);
}) as typeof process.emitWarning;
let sqlite: typeof import("node:sqlite");
try {
  sqlite = await import("node:sqlite");
} finally {
  process.emitWarning = emitWarning;
}
export const DatabaseSync = sqlite.DatabaseSync;
export type DatabaseSync = import("node:sqlite").DatabaseSync;
export type { SQLInputValue } from "node:sqlite";
