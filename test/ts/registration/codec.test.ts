import { describe, expect, it } from "vitest";
import {
  buildRegistrationFile,
  decodeAgentUri,
  encodeRegistrationDataUri,
  parseRegistrationJson,
  REGISTRATION_V1_TYPE,
  type RegistrationFile,
} from "../../../workflow/registration/index.js";
import { base64DataUri, expectCode, specExample } from "./fixtures.js";

const full = () =>
  buildRegistrationFile({
    name: "Resolver Worker 7 — ünïcødé 🛰️",
    description: 'Investigates markets.\nSecond line, "quotes" and ,commas,;semicolons%25',
    image: "https://img.example/7.png",
    endpoint: "https://worker7.example:8443/base",
    protocol: "cresolver",
    version: "1.2.0",
    extraServices: [
      { name: "wallet", endpoint: "eip155:1:0x0000000000000000000000000000000000000007" },
      { name: "MCP", endpoint: "https://mcp.worker7.example/", version: "2025-06-18", category: "tools", tags: ["a"] },
    ],
    active: false,
    registrations: [
      { agentId: 7, agentRegistry: "eip155:31337:0x8004A169FB4a3325136EB29fA0ceB6D2e539a432" },
      {
        agentId: "115792089237316195423570985008687907853269984665640564039457584007913129639935",
        agentRegistry: "eip155:1:0x1",
      },
    ],
    supportedTrust: ["reputation", "crypto-economic"],
  });

describe("buildRegistrationFile", () => {
  it("makes a minimal valid file with an A2A entry and the defaults written out", () => {
    expect(buildRegistrationFile({ name: "W", endpoint: "http://127.0.0.1:9000" })).toStrictEqual({
      type: REGISTRATION_V1_TYPE,
      name: "W",
      services: [{ name: "A2A", endpoint: "http://127.0.0.1:9000", protocol: "cresolver" }],
      active: true,
    });
  });

  it("puts the A2A entry first, then the extra services", () => {
    const file = full();
    expect(file.services.map((s) => s.name)).toEqual(["A2A", "wallet", "MCP"]);
    expect(file.services[0]).toStrictEqual({
      name: "A2A",
      endpoint: "https://worker7.example:8443/base",
      protocol: "cresolver",
      version: "1.2.0",
    });
    expect(file.active).toBe(false);
  });

  it("refuses a non-http(s) endpoint and invalid fields with invalid-schema", async () => {
    await expectCode(() => buildRegistrationFile({ name: "W", endpoint: "ftp://x.example" }), "invalid-schema");
    await expectCode(() => buildRegistrationFile({ name: "W", endpoint: "not a url" }), "invalid-schema");
    await expectCode(() => buildRegistrationFile({ name: "", endpoint: "https://x.example" }), "invalid-schema");
    await expectCode(
      () => buildRegistrationFile({ name: "W", endpoint: "https://x.example", description: "d".repeat(10_001) }),
      "invalid-schema",
    );
  });
});

describe("encode → decode round trips", () => {
  it("round-trips a full file through a base64 data: URI", async () => {
    const file = full();
    const uri = encodeRegistrationDataUri(file);
    expect(uri.startsWith("data:application/json;base64,")).toBe(true);
    expect(uri).toMatch(/^data:application\/json;base64,[A-Za-z0-9+/]+={0,2}$/);
    expect(await decodeAgentUri(uri)).toStrictEqual(file);
  });

  it("round-trips a minimal file", async () => {
    const file = buildRegistrationFile({ name: "W", endpoint: "https://w.example" });
    expect(await decodeAgentUri(encodeRegistrationDataUri(file))).toStrictEqual(file);
  });

  it("decodes the spec's example and keeps unknown keys (category, tags, x402Support)", async () => {
    const raw = { ...specExample(), x402Support: false };
    const decoded = await decodeAgentUri(base64DataUri(JSON.stringify(raw)));
    expect(decoded).toStrictEqual(raw);
  });

  it("refuses to encode an invalid file", async () => {
    const bad = { ...full(), services: [] } as RegistrationFile;
    await expectCode(() => encodeRegistrationDataUri(bad), "invalid-schema");
  });
});

describe("data: URI forms", () => {
  const file = full();
  const json = JSON.stringify(file);

  it.each([
    ["percent-encoded, application/json", `data:application/json,${encodeURIComponent(json)}`],
    ["percent-encoded, no media type", `data:,${encodeURIComponent(json)}`],
    ["percent-encoded, text/plain with charset", `data:text/plain;charset=UTF-8,${encodeURIComponent(json)}`],
    ["base64, no media type", `data:;base64,${Buffer.from(json).toString("base64")}`],
    ["base64, upper-case scheme and params", `DATA:Application/JSON;BASE64,${Buffer.from(json).toString("base64")}`],
    ["base64, +json media type", base64DataUri(json, "application/ld+json")],
    [
      "base64 without padding",
      `data:application/json;base64,${Buffer.from(json).toString("base64").replace(/=+$/, "")}`,
    ],
    ["surrounding whitespace", `  \n${base64DataUri(json)}\t `],
    ["leading UTF-8 BOM", base64DataUri(`\ufeff${json}`)],
  ])("decodes %s", async (_label, uri) => {
    expect(await decodeAgentUri(uri)).toStrictEqual(file);
  });

  it("decodes plain JSON left unencoded, percent-decoding it as RFC 2397 says", async () => {
    const raw = JSON.stringify(specExample());
    expect(await decodeAgentUri(`data:application/json,${raw}`)).toStrictEqual(specExample());
    // So a literal "%41" in unencoded JSON means "A", and a stray "%" is malformed.
    const withEscape = JSON.stringify({ ...specExample(), description: "100%41" });
    expect((await decodeAgentUri(`data:application/json,${withEscape}`)).description).toBe("100A");
    const stray = JSON.stringify({ ...specExample(), description: "100% sure" });
    await expectCode(decodeAgentUri(`data:application/json,${stray}`), "bad-uri");
  });

  it.each([
    ["a non-JSON media type", `data:image/png;base64,${Buffer.from(json).toString("base64")}`],
    ["a non-UTF-8 charset", `data:application/json;charset=iso-8859-1,${encodeURIComponent(json)}`],
    ["no comma", "data:application/json;base64"],
    ["malformed percent-encoding", "data:,%7B%zz%7D"],
    ["percent-encoded invalid UTF-8", "data:,%FF%FE"],
  ])("refuses %s with bad-uri", async (_label, uri) => {
    await expectCode(decodeAgentUri(uri), "bad-uri");
  });
});

describe("hostile and malformed input", () => {
  const good = Buffer.from(JSON.stringify(specExample())).toString("base64");

  it.each([
    ["an invalid character", `${good.slice(0, 8)}!${good.slice(9)}`],
    ["embedded whitespace", `${good.slice(0, 8)} ${good.slice(8)}`],
    ["base64url characters", good.replace(/.{4}$/, "-_AA")],
    ["an impossible length", `${good.replace(/=+$/, "")}AAAAA`.slice(0, 4 * 10 + 1)],
    ["padding in the middle", `AB==${good}`],
    ["a percent escape", `%2B${good}`],
    ["a NUL byte", `${good.slice(0, 8)}\u0000${good.slice(9)}`],
  ])("refuses base64 with %s as bad-base64", async (_label, payload) => {
    await expectCode(decodeAgentUri(`data:application/json;base64,${payload}`), "bad-base64");
  });

  it("refuses non-JSON, and invalid UTF-8 behind base64, as not-json", async () => {
    await expectCode(decodeAgentUri("data:,hello"), "not-json");
    await expectCode(decodeAgentUri(base64DataUri('{"type": ')), "not-json");
    await expectCode(
      decodeAgentUri(`data:;base64,${Buffer.from([0x7b, 0xff, 0xfe, 0x7d]).toString("base64")}`),
      "not-json",
    );
    await expectCode(decodeAgentUri("data:,"), "not-json");
  });

  it.each([
    ["an array", "[1,2,3]"],
    ["a number", "42"],
    ["null", "null"],
    ["a string", '"registration"'],
    ["an empty object", "{}"],
  ])("refuses JSON that is %s as invalid-schema", async (_label, json) => {
    await expectCode(decodeAgentUri(base64DataUri(json)), "invalid-schema");
  });

  it("refuses a wrong or missing type", async () => {
    const wrong = { ...specExample(), type: "https://eips.ethereum.org/EIPS/eip-8004#registration-v2" };
    const err = await expectCode(decodeAgentUri(base64DataUri(JSON.stringify(wrong))), "invalid-schema");
    expect(err.message).toContain("type");
    const { type: _omit, ...missing } = specExample();
    await expectCode(decodeAgentUri(base64DataUri(JSON.stringify(missing))), "invalid-schema");
  });

  it("refuses missing, empty and non-array services", async () => {
    const { services: _omit, ...missing } = specExample();
    const err = await expectCode(decodeAgentUri(base64DataUri(JSON.stringify(missing))), "invalid-schema");
    expect(err.message).toContain("services");
    for (const services of [[], {}, "A2A", null]) {
      await expectCode(decodeAgentUri(base64DataUri(JSON.stringify({ ...specExample(), services }))), "invalid-schema");
    }
  });

  it("refuses raw NUL bytes in the JSON (not-json) and escaped NULs in fields (invalid-schema)", async () => {
    await expectCode(decodeAgentUri(`data:,${encodeURIComponent('{"a":"\u0000"}')}`), "not-json");
    await expectCode(decodeAgentUri(`data:,\u0000`), "not-json");
    const nulName = JSON.stringify({ ...specExample(), name: "evil\u0000name" });
    expect(nulName).toContain("\\u0000");
    await expectCode(decodeAgentUri(base64DataUri(nulName)), "invalid-schema");
    const nulEndpoint = specExample();
    (nulEndpoint.services as Array<Record<string, unknown>>)[1].endpoint = "https://a.example\u0000.evil";
    await expectCode(decodeAgentUri(base64DataUri(JSON.stringify(nulEndpoint))), "invalid-schema");
  });

  it("refuses a 10 MB base64 data: URI as too-large from its length alone", async () => {
    const payload = "A".repeat(10 * 1024 * 1024);
    const started = performance.now();
    const err = await expectCode(decodeAgentUri(`data:application/json;base64,${payload}`), "too-large");
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(err.message).not.toContain("AAAAAAAAAAAAAAAAAAAA");
    // The length check comes before any scan of the payload: even garbage is "too-large".
    await expectCode(decodeAgentUri(`data:application/json;base64,${"!".repeat(10 * 1024 * 1024)}`), "too-large");
    await expectCode(decodeAgentUri(`data:,${"%".repeat(10 * 1024 * 1024)}`), "too-large");
  });

  it("refuses a 10 MB plain data: URI as too-large", async () => {
    const doc = JSON.stringify({ ...specExample(), description: "x".repeat(10 * 1024 * 1024) });
    await expectCode(decodeAgentUri(`data:application/json,${doc}`), "too-large");
    await expectCode(decodeAgentUri(base64DataUri(doc)), "too-large");
  });

  it("applies maxBytes to the decoded bytes exactly", async () => {
    const json = JSON.stringify(specExample());
    const size = Buffer.byteLength(json);
    expect(await decodeAgentUri(base64DataUri(json), { maxBytes: size })).toStrictEqual(specExample());
    await expectCode(decodeAgentUri(base64DataUri(json), { maxBytes: size - 1 }), "too-large");
    // Percent-encoded: 3 chars per byte, so the length alone does not prove it too large.
    const encoded = `data:,${encodeURIComponent(json)}`;
    expect(await decodeAgentUri(encoded, { maxBytes: size })).toStrictEqual(specExample());
    await expectCode(decodeAgentUri(encoded, { maxBytes: size - 1 }), "too-large");
  });

  it("refuses huge strings inside a document under the byte cap as invalid-schema, without echoing them", async () => {
    const huge = "N".repeat(3_000_000);
    const doc = JSON.stringify({ ...specExample(), name: huge });
    const err = await expectCode(decodeAgentUri(base64DataUri(doc), { maxBytes: 5_000_000 }), "invalid-schema");
    expect(err.message).toContain("name");
    expect(err.message).not.toContain("NNNNNNNNNNNNNNNNNNNN");
    const many = { ...specExample(), services: Array.from({ length: 65 }, () => ({ name: "x", endpoint: "y" })) };
    await expectCode(decodeAgentUri(base64DataUri(JSON.stringify(many))), "invalid-schema");
    const longEndpoint = specExample();
    (longEndpoint.services as Array<Record<string, unknown>>)[1].endpoint = `https://a.example/${"p".repeat(2_048)}`;
    await expectCode(decodeAgentUri(base64DataUri(JSON.stringify(longEndpoint))), "invalid-schema");
  });

  it("handles long whitespace runs in linear time", async () => {
    const doc = `${JSON.stringify(specExample()).slice(0, -1)}${" ".repeat(900_000)}}`;
    const started = performance.now();
    expect((await decodeAgentUri(`data:,${doc}`)).name).toBe("CREsolver AgentName");
    await expectCode(decodeAgentUri(`data:,{${" ".repeat(900_000)}`), "not-json");
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("does not let __proto__ keys pollute prototypes", async () => {
    const doc = `{"__proto__":{"polluted":true},${JSON.stringify(specExample()).slice(1)}`;
    const decoded = await decodeAgentUri(base64DataUri(doc));
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect((decoded as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("survives deeply nested unknown keys", async () => {
    const depth = 100_000;
    const doc = `${JSON.stringify(specExample()).slice(0, -1)},"deep":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    const decoded = await decodeAgentUri(`data:,${doc}`, { maxBytes: 1_000_000 });
    expect(decoded.name).toBe("CREsolver AgentName");
  });

  it("checks registrations entries", async () => {
    const withRegs = (registrations: unknown) =>
      decodeAgentUri(base64DataUri(JSON.stringify({ ...specExample(), registrations })));
    const ok = await withRegs([{ agentId: null, agentRegistry: "eip155:1:0x1" }, { agentRegistry: "eip155:1:0x2" }]);
    expect(ok.registrations).toHaveLength(2);
    await expectCode(withRegs([{ agentId: -1, agentRegistry: "eip155:1:0x1" }]), "invalid-schema");
    await expectCode(withRegs([{ agentId: 1.5, agentRegistry: "eip155:1:0x1" }]), "invalid-schema");
    await expectCode(withRegs([{ agentId: 1 }]), "invalid-schema");
    await expectCode(withRegs("eip155:1:0x1"), "invalid-schema");
  });

  it.each([
    ["javascript:", "javascript:alert(1)"],
    ["file:", "file:///etc/passwd"],
    ["ftp:", "ftp://example.com/reg.json"],
    ["ar:", "ar://abc"],
    ["a long odd scheme", "x-very-odd.scheme+v1:whatever"],
  ])("refuses %s as unsupported-scheme", async (_label, uri) => {
    const err = await expectCode(decodeAgentUri(uri), "unsupported-scheme");
    expect(err.message).toMatch(/scheme/);
  });

  it.each([
    ["an empty string", ""],
    ["whitespace only", " \n\t "],
    ["a bare CID", "QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG"],
    ["a relative path", "/agents/7.json"],
    ["a 1 MB scheme-less string", "x".repeat(1_000_000)],
  ])("refuses %s as bad-uri", async (_label, uri) => {
    await expectCode(decodeAgentUri(uri), "bad-uri");
  });

  it("refuses a non-string URI as bad-uri (untyped callers)", async () => {
    await expectCode(decodeAgentUri(42 as unknown as string), "bad-uri");
  });

  it("rejects nonsensical options with a RangeError (configuration bug, not input)", async () => {
    await expect(decodeAgentUri("data:,{}", { maxBytes: 0 })).rejects.toBeInstanceOf(RangeError);
    await expect(decodeAgentUri("data:,{}", { timeoutMs: Number.NaN })).rejects.toBeInstanceOf(RangeError);
  });
});

describe("parseRegistrationJson", () => {
  it("parses text and reports not-json / invalid-schema", async () => {
    expect(parseRegistrationJson(JSON.stringify(specExample()))).toStrictEqual(specExample());
    await expectCode(() => parseRegistrationJson("{"), "not-json");
    await expectCode(() => parseRegistrationJson("[]"), "invalid-schema");
  });
});
