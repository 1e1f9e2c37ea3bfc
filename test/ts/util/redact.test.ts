import { describe, expect, it } from "vitest";
import {
  LOG_REDACT_PATHS,
  REDACTED,
  redactObject,
  redactSecrets,
  redactText,
  redactUrl,
} from "../../../workflow/util/redact.js";

const KEY = `0x${"ab12".repeat(16)}`;

describe("redactSecrets", () => {
  it.each([
    ["a configured value", "key is hunter2-secret here", ["hunter2-secret"], `key is ${REDACTED} here`],
    ["every occurrence", "x tok1 y tok1", ["tok1"], `x ${REDACTED} y ${REDACTED}`],
    ["a 0x key as given", `pk ${KEY}`, [KEY], `pk ${REDACTED}`],
    ["a 0x key printed without its prefix", `pk ${KEY.slice(2)}`, [KEY], `pk ${REDACTED}`],
    ["a hex key in upper case", `pk ${KEY.slice(2).toUpperCase()}`, [KEY], `pk ${REDACTED}`],
    ["an un-prefixed hex key of 16 digits", "id 0123456789abcdef.", ["0123456789ABCDEF"], `id ${REDACTED}.`],
    ["values shorter than 4 characters are left (too common)", "abc abc", ["abc"], "abc abc"],
    ["empty secrets are ignored", "text", ["", "text-not-here"], "text"],
    ["regex characters are literal", "a.b*c a1b*c", ["a.b*c"], `${REDACTED} a1b*c`],
  ])("%s", (_name, text, secrets, expected) => {
    expect(redactSecrets(text, secrets)).toBe(expected);
  });
});

describe("redactSecrets minChars (the CLI filters all of its output)", () => {
  it("leaves values shorter than the floor (0x not counted) and still redacts longer ones", () => {
    expect(redactSecrets("key test here", ["test"], { minChars: 16 })).toBe("key test here");
    expect(redactSecrets("0x0123456789abcde", ["0x0123456789abcde"], { minChars: 16 })).toBe("0x0123456789abcde");
    expect(redactSecrets(`pk ${KEY.slice(2)}`, [KEY], { minChars: 16 })).toBe(`pk ${REDACTED}`);
    expect(redactSecrets("x sk-live-0123456789abcdef y", ["sk-live-0123456789abcdef"], { minChars: 16 })).toBe(
      `x ${REDACTED} y`,
    );
  });
});

describe("redactText", () => {
  it.each([
    [
      "URL credentials and path",
      "GET https://user:pw@rpc.example/v2/ALCHEMY?x=1 failed",
      "GET https://rpc.example failed",
    ],
    ["a query token", "see http://127.0.0.1:8545/?token=abc", "see http://127.0.0.1:8545"],
    ["a bearer header", "Authorization: Bearer tok123", `Authorization: Bearer ${REDACTED}`],
    ["an Authorization value without a scheme", "authorization=raw-token-value", `authorization=${REDACTED}`],
    ["a JWT", "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "jwt [jwt]"],
    [
      "secret-named pairs",
      'api_key: zzz token=abc "password":"pw" secret=s private_key=k',
      `api_key: ${REDACTED} token=${REDACTED} "password":"${REDACTED}" secret=${REDACTED} private_key=${REDACTED}`,
    ],
    ["ordinary text is kept", "worker 3 timed out after 30000 ms", "worker 3 timed out after 30000 ms"],
  ])("%s", (_name, text, expected) => {
    expect(redactText(text)).toBe(expected);
  });

  it("applies the known values first", () => {
    expect(redactText(`boom ${KEY.slice(2)}`, [KEY])).toBe(`boom ${REDACTED}`);
  });
});

describe("redactUrl", () => {
  it.each([
    ["https://eth-sepolia.g.alchemy.com/v2/SECRET", "https://eth-sepolia.g.alchemy.com/…"],
    ["http://127.0.0.1:8545", "http://127.0.0.1:8545"],
    ["http://u:p@host:1/", "http://host:1/…"],
    ["https://rpc.example/?key=1", "https://rpc.example/…"],
    ["not a url", "(invalid URL)"],
  ])("%s → %s", (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });
});

describe("redactObject", () => {
  it("replaces secret-named keys at any depth and redacts strings", () => {
    const input = {
      rpcUrl: "https://x.example/v2/KEY",
      nested: {
        apiKey: "sk-1",
        headers: { Authorization: "Bearer t", accept: "json" },
        list: [{ password: "p" }, "token=abc"],
      },
      jwk: { kty: "OKP", d: "PRIVATE" },
      count: 3,
    };
    expect(redactObject(input)).toEqual({
      rpcUrl: "https://x.example",
      nested: {
        apiKey: REDACTED,
        headers: { Authorization: REDACTED, accept: "json" },
        list: [{ password: REDACTED }, `token=${REDACTED}`],
      },
      jwk: { kty: "OKP", d: REDACTED },
      count: 3,
    });
    expect(input.nested.apiKey).toBe("sk-1");
  });

  it("caps the depth", () => {
    expect(redactObject({ a: { b: { c: 1 } } }, [], 2)).toEqual({ a: { b: REDACTED } });
  });
});

describe("LOG_REDACT_PATHS", () => {
  it("covers the keys the loggers have always redacted", () => {
    for (const path of [
      "privateKey",
      "*.apiKey",
      "*.d",
      "req.headers.authorization",
      'req.headers["x-ai-olympics-signature"]',
      "config.rpcUrl",
    ]) {
      expect(LOG_REDACT_PATHS).toContain(path);
    }
  });
});
