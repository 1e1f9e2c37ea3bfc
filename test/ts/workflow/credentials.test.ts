import { describe, expect, it } from "vitest";
import { createCredentialStore } from "../../../workflow/adapters/credentials.js";

describe("credential store", () => {
  it("returns credentials by agent id, including ids beyond 2^53", () => {
    const big = (2n ** 200n).toString();
    const store = createCredentialStore({ "7": { bearerToken: "t7" }, [big]: { hmacSecret: "s" } });
    expect(store.forAgent(7n)).toEqual({ bearerToken: "t7" });
    expect(store.forAgent(2n ** 200n)).toEqual({ hmacSecret: "s" });
    expect(store.forAgent(8n)).toBeUndefined();
  });

  it("refuses malformed configuration with a clear error", () => {
    expect(() => createCredentialStore({ "0x7": { bearerToken: "t" } })).toThrow(/decimal integer/);
    expect(() => createCredentialStore({ "7": { bearerToken: "" } })).toThrow();
    expect(() => createCredentialStore({ "7": { password: "x" } })).toThrow();
  });
});
