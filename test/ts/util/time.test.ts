/** isoSeconds (workflow/util/time.ts): chain timestamps are untrusted; none may throw. */
import { describe, expect, it } from "vitest";
import { isoSeconds } from "../../../workflow/util/time.js";
import { iso as explorerIso } from "../../../explorer/html.js";

describe("isoSeconds", () => {
  it("formats unix seconds, bigint or number, as ISO-8601 UTC", () => {
    expect(isoSeconds(1_800_000_000n)).toBe("2027-01-15T08:00:00.000Z");
    expect(isoSeconds(0)).toBe("1970-01-01T00:00:00.000Z");
  });

  it("a timestamp no Date can hold reads as its raw seconds instead of throwing", () => {
    const huge = 2n ** 64n - 1n;
    expect(() => new Date(Number(huge) * 1000).toISOString()).toThrow(RangeError); // what it replaced
    expect(isoSeconds(huge)).toBe(`${huge} s`);
    expect(explorerIso(huge)).toBe(`${huge} s`);
    expect(explorerIso(0n)).toBe("—");
  });
});
