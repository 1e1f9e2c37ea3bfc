import { describe, expect, it } from "vitest";
import { causes, findCause } from "../../../workflow/util/cause.js";

function chain(...messages: string[]): Error {
  let inner: Error | undefined;
  for (const m of messages.reverse()) inner = new Error(m, inner === undefined ? undefined : { cause: inner });
  return inner as Error;
}

describe("causes", () => {
  it("yields the error then its causes, outermost first", () => {
    expect(
      [...causes(chain("fetch failed", "connect ECONNREFUSED", "socket"))].map((e) => (e as Error).message),
    ).toEqual(["fetch failed", "connect ECONNREFUSED", "socket"]);
  });

  it("stops at maxDepth", () => {
    expect([...causes(chain("1", "2", "3", "4", "5"), 2)]).toHaveLength(2);
  });

  it("survives a cycle and non-Error causes", () => {
    const a = new Error("a") as Error & { cause?: unknown };
    const b = new Error("b", { cause: a });
    a.cause = b;
    expect([...causes(a)]).toEqual([a, b]);
    expect([...causes(new Error("x", { cause: { code: "ECONNRESET" } }))]).toHaveLength(2);
    expect([...causes("just a string")]).toEqual(["just a string"]);
    expect([...causes(undefined)]).toEqual([]);
    expect([...causes(null)]).toEqual([]);
  });
});

describe("findCause", () => {
  class Marker extends Error {}
  it("finds the first match at any depth, or undefined", () => {
    const marker = new Marker("deep");
    const outer = new Error("outer", { cause: new Error("middle", { cause: marker }) });
    expect(findCause(outer, (e): e is Marker => e instanceof Marker)).toBe(marker);
    expect(findCause(new Error("none"), (e): e is Marker => e instanceof Marker)).toBeUndefined();
    expect(findCause(outer, (e) => (e as Error).message === "middle")).toBe(outer.cause);
  });
  it("does not look past maxDepth", () => {
    const outer = new Error("outer", { cause: new Error("middle", { cause: new Marker("deep") }) });
    expect(findCause(outer, (e) => e instanceof Marker, 2)).toBeUndefined();
  });
});
