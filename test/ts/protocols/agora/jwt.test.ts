import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgoraTokenError, createJoseSigner, verifyAgoraToken } from "../../../../protocols/agora/jwt.js";
import { startJwksServer, testKey, type TestKey } from "./helpers.js";

const T0 = 1_800_000_000;

async function reason(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "accepted";
  } catch (error) {
    return error instanceof AgoraTokenError ? error.reason : `other: ${String(error)}`;
  }
}

describe("agora match tokens", () => {
  let key: TestKey;
  let jwks: Awaited<ReturnType<typeof startJwksServer>>;
  beforeAll(async () => {
    key = await testKey("ES256");
    jwks = await startJwksServer(key.jwks);
  });
  afterAll(() => jwks.close());

  it("issues agent_id, match_id, expires_at = exp, iat and a kid header, verifiable through a JWKS URL", async () => {
    const token = await key
      .signer({ now: () => T0, ttlSeconds: 120, issuer: "cresolver-daemon" })
      .sign({ agent_id: "7", match_id: "42" });
    expect(decodeProtectedHeader(token)).toEqual({ alg: "ES256", kid: key.kid, typ: "JWT" });
    expect(decodeJwt(token)).toEqual({
      agent_id: "7",
      match_id: "42",
      expires_at: T0 + 120,
      exp: T0 + 120,
      iat: T0,
      iss: "cresolver-daemon",
    });
    const claims = await verifyAgoraToken(
      token,
      jwks.jwksUrl,
      { agent_id: "7", match_id: "42", issuer: "cresolver-daemon" },
      { now: () => T0 + 60 },
    );
    expect(claims).toEqual({ agent_id: "7", match_id: "42", expires_at: T0 + 120, iss: "cresolver-daemon" });
    expect(jwks.requests.some((r) => r.path === "/.well-known/jwks.json")).toBe(true);
  });

  it("supports EdDSA keys", async () => {
    const ed = await testKey("EdDSA");
    const token = await ed.signer().sign({ agent_id: "1", match_id: "2" });
    expect(decodeProtectedHeader(token).alg).toBe("EdDSA");
    await expect(verifyAgoraToken(token, createLocalJWKSet(ed.jwks), { match_id: "2" })).resolves.toMatchObject({
      agent_id: "1",
    });
  });

  it("refuses expired tokens, another agent, another match, another issuer", async () => {
    const keys = createLocalJWKSet(key.jwks);
    const token = await key.signer({ now: () => T0, ttlSeconds: 60 }).sign({ agent_id: "7", match_id: "42" });
    expect(await reason(verifyAgoraToken(token, keys, {}, { now: () => T0 + 61 + 5 }))).toBe("expired");
    expect(await reason(verifyAgoraToken(token, keys, {}, { now: () => T0 + 30 }))).toBe("accepted");
    expect(await reason(verifyAgoraToken(token, keys, { agent_id: "8" }, { now: () => T0 }))).toBe("agent-mismatch");
    expect(await reason(verifyAgoraToken(token, keys, { match_id: "43" }, { now: () => T0 }))).toBe("match-mismatch");
    expect(await reason(verifyAgoraToken(token, keys, { issuer: "someone" }, { now: () => T0 }))).toBe("claims");
  });

  it("refuses an expired expires_at even when exp is later", async () => {
    const token = await new SignJWT({ agent_id: "7", match_id: "42", expires_at: T0 + 10 })
      .setProtectedHeader({ alg: "ES256", kid: key.kid })
      .setExpirationTime(T0 + 1_000)
      .sign(key.privateKey);
    expect(await reason(verifyAgoraToken(token, createLocalJWKSet(key.jwks), {}, { now: () => T0 + 100 }))).toBe(
      "expired",
    );
  });

  it("refuses tokens from unknown keys, HMAC and unsigned tokens, garbage and tokens without the claims", async () => {
    const keys = createLocalJWKSet(key.jwks);
    const stranger = await testKey("ES256");
    expect(await reason(verifyAgoraToken(await stranger.signer().sign({ agent_id: "7", match_id: "42" }), keys))).toBe(
      "signature",
    );
    // Same kid, other key: the signature check fails.
    const sameKid = createJoseSigner(stranger.privateKey, key.kid, "ES256");
    expect(await reason(verifyAgoraToken(await sameKid.sign({ agent_id: "7", match_id: "42" }), keys))).toBe(
      "signature",
    );
    const hs = await new SignJWT({ agent_id: "7", match_id: "42", expires_at: T0 * 2 })
      .setProtectedHeader({ alg: "HS256", kid: key.kid })
      .sign(new TextEncoder().encode("x".repeat(32)));
    expect(await reason(verifyAgoraToken(hs, keys))).toBe("signature");
    const header = Buffer.from(JSON.stringify({ alg: "none", kid: key.kid })).toString("base64url");
    const payload = Buffer.from(JSON.stringify({ agent_id: "7", match_id: "42", expires_at: T0 * 2 })).toString(
      "base64url",
    );
    expect(await reason(verifyAgoraToken(`${header}.${payload}.`, keys))).not.toBe("accepted");
    expect(await reason(verifyAgoraToken("not a token", keys))).toBe("malformed");
    expect(await reason(verifyAgoraToken("", keys))).toBe("malformed");
    const noClaims = await new SignJWT({ match_id: "42" })
      .setProtectedHeader({ alg: "ES256", kid: key.kid })
      .setExpirationTime("5m")
      .sign(key.privateKey);
    expect(await reason(verifyAgoraToken(noClaims, keys))).toBe("claims");
    const noExpiry = await new SignJWT({ agent_id: "7", match_id: "42" })
      .setProtectedHeader({ alg: "ES256", kid: key.kid })
      .sign(key.privateKey);
    expect(await reason(verifyAgoraToken(noExpiry, keys))).toBe("claims");
  });

  it("fails closed when the JWKS cannot be fetched", async () => {
    const token = await key.signer().sign({ agent_id: "7", match_id: "42" });
    expect(await reason(verifyAgoraToken(token, `${jwks.url}/missing.json`))).toBe("keys-unavailable");
  });
});
