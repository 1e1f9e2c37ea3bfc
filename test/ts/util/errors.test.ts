/** workflow/util/errors.ts: the one error base class (name from the subclass, cause walk through cause.ts). */
import { describe, expect, it } from "vitest";
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
});
