/**
 * The daemon's signing key: an ES256 key pair generated with jose on first start and kept in the SQLite
 * database (created 0600). Only the public JWK is ever served or logged.
 */
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  SignJWT,
  type JWTPayload,
} from "jose";
import type { Store } from "./store.js";

export const SIGNING_ALG = "ES256";

export interface PublicSigningJwk {
  kty: string;
  crv?: string;
  x?: string;
  y?: string;
  kid: string;
  alg: string;
  use: "sig";
}

export interface SigningKey {
  kid: string;
  alg: string;
  publicJwk: PublicSigningJwk;
  /** Signs a compact JWS/JWT with the private key (for the Agora adapter). */
  signJwt(payload: JWTPayload, opts?: { expiresIn?: string; audience?: string }): Promise<string>;
}

/** Public members only: whatever the key type, private parameters never leave this function. */
function publicPart(jwk: JWK, kid: string, alg: string): PublicSigningJwk {
  if (jwk.kty === undefined) throw new Error("signing key has no kty");
  const out: PublicSigningJwk = { kty: jwk.kty, kid, alg, use: "sig" };
  if (jwk.crv) out.crv = jwk.crv;
  if (jwk.x) out.x = jwk.x;
  if (jwk.y) out.y = jwk.y;
  return out;
}

export async function loadOrCreateSigningKey(store: Store): Promise<SigningKey> {
  let row = store.getKey();
  if (!row) {
    const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
    const pub = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(pub, "sha256");
    const priv = await exportJWK(privateKey);
    row = store.putKeyIfAbsent({
      kid,
      alg: SIGNING_ALG,
      privateJwk: JSON.stringify(priv),
      publicJwk: JSON.stringify(publicPart(pub, kid, SIGNING_ALG)),
    });
  }
  const { kid, alg } = row;
  const privateKey = await importJWK(JSON.parse(row.privateJwk) as JWK, alg);
  const publicJwk = publicPart(JSON.parse(row.publicJwk) as JWK, kid, alg);
  return {
    kid,
    alg,
    publicJwk,
    async signJwt(payload, opts = {}) {
      let jwt = new SignJWT(payload).setProtectedHeader({ alg, kid, typ: "JWT" }).setIssuedAt();
      if (opts.expiresIn) jwt = jwt.setExpirationTime(opts.expiresIn);
      if (opts.audience) jwt = jwt.setAudience(opts.audience);
      return jwt.sign(privateKey);
    },
  };
}

/** JWKS document of every stored key (public members only). */
export function jwks(store: Store): { keys: PublicSigningJwk[] } {
  return {
    keys: store.allPublicKeys().map((s) => {
      const jwk = JSON.parse(s) as JWK & { kid: string; alg: string };
      return publicPart(jwk, jwk.kid, jwk.alg);
    }),
  };
}
