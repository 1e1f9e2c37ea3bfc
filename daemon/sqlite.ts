/**
 * The one import of node:sqlite. Node 22 prints a one-time "SQLite is an experimental feature" warning when it
 * loads; the CLI entry skips that notice in its own warning output (cli/warnings.ts), so this module patches nothing.
 */
export { DatabaseSync, type SQLInputValue } from "node:sqlite";
