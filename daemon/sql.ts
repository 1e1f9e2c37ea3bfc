/**
 * The typed query layer over node:sqlite: every row read is parsed by a zod schema (a column the code does not
 * expect fails with one line naming the query, instead of flowing on as a wrong type), and every multi-statement
 * change runs in `inTransaction`. Used by the daemon store and the track-record index.
 */
import type { z } from "zod";
import { CresolverError } from "../workflow/util/errors.js";
import type { DatabaseSync, SQLInputValue } from "./sqlite.js";

/** A stored row that does not have the shape its query expects (a foreign or corrupted database file). */
export class StoredRowError extends CresolverError {}

/** Runs `fn` in an IMMEDIATE transaction on `db`: committed when it returns, rolled back when it throws. */
export function inTransaction<T>(db: DatabaseSync, fn: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const out = fn();
    db.exec("COMMIT");
    return out;
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  }
}

function parseRow<S extends z.ZodType>(schema: S, row: unknown, sql: string): z.output<S> {
  const parsed = schema.safeParse(row);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined ? "" : ` (${issue.path.join(".") || "row"}: ${issue.message})`;
    throw new StoredRowError(`stored row does not match its schema${where} in: ${sql.replace(/\s+/g, " ").trim()}`);
  }
  return parsed.data;
}

/** The first row of `sql`, parsed by `schema`, or undefined when the query returns no row. */
export function selectOne<S extends z.ZodType>(
  db: DatabaseSync,
  schema: S,
  sql: string,
  ...params: SQLInputValue[]
): z.output<S> | undefined {
  const row = db.prepare(sql).get(...params);
  return row === undefined ? undefined : parseRow(schema, row, sql);
}

/** Every row of `sql`, each parsed by `schema`. */
export function selectAll<S extends z.ZodType>(
  db: DatabaseSync,
  schema: S,
  sql: string,
  ...params: SQLInputValue[]
): z.output<S>[] {
  return db
    .prepare(sql)
    .all(...params)
    .map((row) => parseRow(schema, row, sql));
}
