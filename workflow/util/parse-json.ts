/**
 * JSON text checked against a zod schema, the one parse-then-validate step of every document the client reads
 * (bundles, relay answer documents, model replies). Pure: no Node built-in, so browsers and the CRE runtime can use it.
 */
import type { z } from "zod";

/** Why a text is not a document: not JSON (the parser's message), or the first schema issue and how many follow. */
export type JsonFailure =
  | { kind: "not-json"; message: string }
  | { kind: "schema"; path: string; message: string; more: number };

/** `text` parsed and checked against `schema`; throws what `fail` makes of the reason it is not. */
export function parseJsonWith<T>(schema: z.ZodType<T>, text: string, fail: (why: JsonFailure) => Error): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw fail({ kind: "not-json", message: error instanceof Error ? error.message : String(error) });
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  throw fail({
    kind: "schema",
    path: issue?.path.map(String).join(".") ?? "",
    message: issue?.message ?? "invalid",
    more: parsed.error.issues.length - 1,
  });
}
