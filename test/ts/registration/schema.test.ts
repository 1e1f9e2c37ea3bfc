import { describe, expect, it } from "vitest";
import {
  REGISTRATION_ERROR_CODES,
  REGISTRATION_LIMITS,
  REGISTRATION_V1_TYPE,
  RegistrationError,
  registrationFileSchema,
  summarizeIssues,
  truncate,
} from "../../../workflow/registration/index.js";
import { specExample } from "./fixtures.js";

const parse = (extra: Record<string, unknown>) => registrationFileSchema.safeParse({ ...specExample(), ...extra });

describe("registrationFileSchema", () => {
  it("accepts the spec example and the EIP's optional fields", () => {
    const result = parse({
      description: "d",
      image: "data:image/svg+xml;base64,PHN2Zy8+",
      active: true,
      registrations: [{ agentId: 22, agentRegistry: "eip155:1:0x8004A169FB4a3325136EB29fA0ceB6D2e539a432" }],
      supportedTrust: ["reputation", "crypto-economic", "tee-attestation"],
      x402Support: false,
    });
    expect(result.success).toBe(true);
  });

  it("requires the exact registration-v1 type", () => {
    expect(parse({ type: REGISTRATION_V1_TYPE.toUpperCase() }).success).toBe(false);
    expect(parse({ type: `${REGISTRATION_V1_TYPE} ` }).success).toBe(false);
    expect(parse({ type: 1 }).success).toBe(false);
  });

  it("requires a non-blank name", () => {
    expect(parse({ name: "" }).success).toBe(false);
    expect(parse({ name: "   " }).success).toBe(false);
    expect(parse({ name: undefined }).success).toBe(false);
  });

  it("caps strings and arrays", () => {
    const max = REGISTRATION_LIMITS.maxShortString;
    expect(parse({ name: "n".repeat(max) }).success).toBe(true);
    expect(parse({ name: "n".repeat(max + 1) }).success).toBe(false);
    expect(parse({ description: "d".repeat(REGISTRATION_LIMITS.maxDescription) }).success).toBe(true);
    expect(parse({ description: "d".repeat(REGISTRATION_LIMITS.maxDescription + 1) }).success).toBe(false);
    const svc = { name: "x", endpoint: "y" };
    expect(parse({ services: Array.from({ length: REGISTRATION_LIMITS.maxServices }, () => svc) }).success).toBe(true);
    expect(parse({ services: Array.from({ length: REGISTRATION_LIMITS.maxServices + 1 }, () => svc) }).success).toBe(
      false,
    );
    expect(parse({ supportedTrust: Array.from({ length: 65 }, () => "reputation") }).success).toBe(false);
    expect(parse({ registrations: Array.from({ length: 65 }, () => ({ agentRegistry: "r" })) }).success).toBe(false);
  });

  it("refuses control characters in single-line fields but allows newlines in descriptions", () => {
    expect(parse({ name: "a\nb" }).success).toBe(false);
    expect(parse({ description: "line 1\nline 2\ttab" }).success).toBe(true);
    expect(parse({ description: "nul\u0000" }).success).toBe(false);
    expect(parse({ services: [{ name: "A2A", endpoint: "https://a.example\r\nX-Injected: 1" }] }).success).toBe(false);
  });

  it("checks service entry types and tolerates their unknown keys", () => {
    expect(parse({ services: [{ name: "A2A" }] }).success).toBe(false);
    expect(parse({ services: [{ endpoint: "https://a.example" }] }).success).toBe(false);
    expect(parse({ services: [{ name: "A2A", endpoint: "https://a.example", protocol: 1 }] }).success).toBe(false);
    expect(parse({ services: [{ name: "A2A", endpoint: "https://a.example", protocol: "" }] }).success).toBe(false);
    expect(parse({ services: ["A2A"] }).success).toBe(false);
    const ok = parse({ services: [{ name: "A2A", endpoint: "https://a.example", skills: [{ id: 1 }] }] });
    expect(ok.success && ok.data.services[0].skills).toEqual([{ id: 1 }]);
  });

  it("checks active and supportedTrust types", () => {
    expect(parse({ active: "false" }).success).toBe(false);
    expect(parse({ supportedTrust: "reputation" }).success).toBe(false);
    expect(parse({ supportedTrust: [1] }).success).toBe(false);
  });

  it("summarizes issues on one bounded line", () => {
    const result = registrationFileSchema.safeParse({ services: [] });
    expect(result.success).toBe(false);
    if (!result.success) {
      const summary = summarizeIssues(result.error);
      expect(summary).toMatch(/^type: .*; name: .*; services: /);
      expect(summary).not.toContain("\n");
    }
  });
});

describe("RegistrationError", () => {
  it("carries its code, a name, and a truncated message", () => {
    const err = new RegistrationError("bad-uri", `x${"y".repeat(10_000)}`);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe("RegistrationError");
    expect(err.code).toBe("bad-uri");
    expect(err.message.length).toBeLessThan(600);
    expect(REGISTRATION_ERROR_CODES).toHaveLength(8);
  });

  it("truncate() bounds length and flattens control characters", () => {
    expect(truncate("short")).toBe("short");
    expect(truncate("a\nb\u0000c")).toBe("a?b?c");
    expect(truncate("z".repeat(200), 10)).toBe("zzzzzzzzzz… (200 chars)");
  });
});
