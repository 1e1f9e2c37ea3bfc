/**
 * The CLI process's warning output: Node prints every process warning through the 'warning' listener it installs
 * at start-up. Node 22 warns once that node:sqlite (the daemon's store) is experimental, which would put a stray
 * line on stderr of every command. The entry point (cli/main.ts), which owns this process's stderr, wraps Node's own
 * printers so that this one notice is skipped and every other warning is printed unchanged. Library code
 * (daemon/sqlite.ts) stays free of process-wide patches; a library user sees Node's usual notice.
 */

/** True for Node's "SQLite is an experimental feature" notice. */
export function isSqliteNotice(warning: Error): boolean {
  return warning.name === "ExperimentalWarning" && warning.message.startsWith("SQLite is an experimental feature");
}

/** Wraps the 'warning' listeners present now (Node's printer, unless --no-warnings) to skip the SQLite notice. */
export function skipSqliteNotice(proc: NodeJS.Process = process): void {
  for (const listener of proc.listeners("warning")) {
    proc.removeListener("warning", listener);
    proc.on("warning", (warning) => {
      if (!isSqliteNotice(warning)) listener(warning);
    });
  }
}
