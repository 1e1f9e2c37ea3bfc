/** workflow/util/errors.ts: the one error base class (name from the subclass, cause walk through cause.ts). */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { StoredRowError } from "../../../daemon/sql.js";
import { StoreMismatch } from "../../../daemon/store.js";
import { StoredProposalError } from "../../../daemon/proposals.js";
import { TrackRecordError } from "../../../workflow/core/track-record.js";
import { SettleError } from "../../../workflow/settle/index.js";
import { ChainError } from "../../../workflow/chain/errors.js";
import { HttpError } from "../../../workflow/http/errors.js";
import { CresolverError } from "../../../workflow/util/errors.js";

class OuterError extends CresolverError {}

describe("CresolverError", () => {
  it("names the subclass and walks the cause chain, bounded on a cycle", () => {
    const inner = new RangeError("inner");
    const outer = new OuterError("outer", { cause: inner });
    expect(outer.name).toBe("OuterError");
    expect(outer.causeChain()).toEqual([outer, inner]);
    expect(outer.findCause((v): v is RangeError => v instanceof RangeError)).toBe(inner);
    const looped = new OuterError("looped");
    (looped as { cause?: unknown }).cause = looped;
    expect(looped.causeChain()).toEqual([looped]);
  });

  it("is the base of the project's errors", () => {
    expect(new ChainError("precondition", "x")).toBeInstanceOf(CresolverError);
    expect(HttpError.prototype).toBeInstanceOf(CresolverError);
  });

  it("is the base of the daemon's, the settler's and the track record's errors", () => {
    for (const error of [
      new StoreMismatch("x"),
      new StoredRowError("x"),
      new StoredProposalError("x"),
      new TrackRecordError("x"),
      new SettleError("x", { retryable: false, attempts: 1 }),
    ]) {
      expect(error).toBeInstanceOf(CresolverError);
      expect(error.name).toBe(error.constructor.name);
    }
  });

  it("is the only error class of production code that extends a built-in error", () => {
    const root = fileURLToPath(new URL("../../..", import.meta.url));
    const builtIn = /\bclass\s+(\w+)\s+extends\s+(Error|TypeError|RangeError|SyntaxError)\b/g;
    const found: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== "node_modules" && entry.name !== "test") walk(path);
        } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) {
          for (const m of readFileSync(path, "utf8").matchAll(builtIn)) found.push(`${relative(root, path)}: ${m[1]}`);
        }
      }
    };
    for (const dir of ["agents", "cli", "cre", "daemon", "explorer", "protocols", "workflow"]) walk(join(root, dir));
    expect(found).toEqual(["workflow/util/errors.ts: CresolverError"]);
  });
});
