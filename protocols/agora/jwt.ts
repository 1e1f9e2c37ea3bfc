/**
 * Agora Arena AAP match tokens (protocols/agora/README.md, "Match token (JWT)"): every request the platform (here:
 * the resolver daemon) sends to an agent carries `Authorization: Bearer <JWT>` signed by the platform,
 * with claims `agent_id`, `match_id`, `expires_at`. Agents verify it with the platform's public keys,
 * published as a JWKS at `/.well-known/jwks.json`.
 *
 * Token we issue (jose, compact JWS):
 *   header  {alg: "ES256" | "EdDSA", kid, typ: "JWT"}
 *   payload {agent_id: "<ERC-8004 agent id, decimal>", match_id: "<market id, decimal>",
 *            expires_at: <unix s>, exp: <same>, iat: <unix s>, iss?: <issuer>}
 * `expires_at` is the spec's claim; `exp` carries the same instant for standard JWT libraries.
 *
 * Verification (`verifyAgoraToken`): signature against the JWKS (remote URL, cached per URL, or any
 * jose key getter), algorithm restricted to ES256/EdDSA (never `none`/HMAC), `exp` and `expires_at`
 * both checked when present and at least one required, `agent_id`/`match_id` must be strings and equal
 * the expected values when given, `iss` checked when an issuer is given.
 */
import {
  createRemoteJWKSet,
  errors as joseErrors,
  jwtVerify,
  SignJWT,
  type CryptoKey,
  type JWTVerifyGetKey,
  type KeyObject,
} from "jose";
import { CresolverError } from "../../workflow/util/errors.js";

export type AgoraSigningAlg = "ES256" | "EdDSA";
export const AGORA_ALGORITHMS: readonly AgoraSigningAlg[] = ["ES256", "EdDSA"];

export interface AgoraClaims {
  /** The ERC-8004 agent id the token is issued to (decimal string). */
  agent_id: string;
  /** The match: the market id (decimal string). */
  match_id: string;
}

export interface VerifiedAgoraClaims extends AgoraClaims {
  /** Unix seconds. */
  expires_at: number;
  iss?: string;
}

/** Port through which the adapter obtains match tokens. The daemon implements it with its signing key. */
export interface AgoraTokenSigner {
  sign(claims: AgoraClaims): Promise<string>;
}

/** Default lifetime of a match token: long enough for the ask and the challenge of one run. */
export const DEFAULT_AGORA_TOKEN_TTL_SECONDS = 300;

/**
 * A signer over a jose private key. `now` (unix seconds) is for tests and reproducible tooling; the
 * default is the system clock.
 */
export function createJoseSigner(
  privateKey: CryptoKey | KeyObject,
  kid: string,
  alg: AgoraSigningAlg,
  issuer?: string,
  ttlSeconds: number = DEFAULT_AGORA_TOKEN_TTL_SECONDS,
  now: () => number = () => Math.floor(Date.now() / 1000),
): AgoraTokenSigner {
  if (!AGORA_ALGORITHMS.includes(alg)) throw new Error(`unsupported Agora token algorithm "${String(alg)}"`);
  if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0) throw new Error("ttlSeconds must be a positive integer");
  if (typeof kid !== "string" || kid.length === 0) throw new Error("kid must be a non-empty string");
  return {
    async sign(claims) {
      const agentId = String(claims.agent_id);
      const matchId = String(claims.match_id);
      const iat = Math.floor(now());
      const exp = iat + ttlSeconds;
      let jwt = new SignJWT({ agent_id: agentId, match_id: matchId, expires_at: exp })
        .setProtectedHeader({ alg, kid, typ: "JWT" })
        .setIssuedAt(iat)
        .setExpirationTime(exp);
      if (issuer !== undefined) jwt = jwt.setIssuer(issuer);
      return jwt.sign(privateKey);
    },
  };
}

/** Why a token was refused; `message` is ours (never echoes the token). */
export class AgoraTokenError extends CresolverError {
  constructor(
    readonly reason:
      | "malformed"
      | "signature"
      | "expired"
      | "claims"
      | "agent-mismatch"
      | "match-mismatch"
      | "keys-unavailable",
    message: string,
  ) {
    super(message);
    this.name = "AgoraTokenError";
  }
}

export interface AgoraExpectations {
  agent_id?: string;
  match_id?: string;
  issuer?: string;
}

export interface AgoraVerifyOptions {
  /** Seconds of clock skew tolerated on expiry. Default 5. */
  clockToleranceSeconds?: number;
  /** Current time (unix seconds), for tests. */
  now?: () => number;
}

/** Remote key sets are cached per URL (jose caches the fetched keys inside each set). Bounded. */
const remoteSets = new Map<string, JWTVerifyGetKey>();
const MAX_REMOTE_SETS = 32;

/**
 * A key getter for a JWKS URL. jose fetches it over the network (5 s timeout, 30 s cooldown, keys cached
 * 10 min): the URL is configuration chosen by whoever runs the agent, never taken from a request.
 */
export function remoteAgoraKeys(jwksUrl: string | URL): JWTVerifyGetKey {
  const key = String(jwksUrl);
  let set = remoteSets.get(key);
  if (set === undefined) {
    set = createRemoteJWKSet(new URL(key), { timeoutDuration: 5_000 });
    if (remoteSets.size >= MAX_REMOTE_SETS) remoteSets.delete(remoteSets.keys().next().value as string);
    remoteSets.set(key, set);
  }
  return set;
}

/** Verifies a match token; resolves with its claims or rejects with an AgoraTokenError. */
export async function verifyAgoraToken(
  token: string,
  keys: string | URL | JWTVerifyGetKey,
  expected: AgoraExpectations = {},
  options: AgoraVerifyOptions = {},
): Promise<VerifiedAgoraClaims> {
  if (
    typeof token !== "string" ||
    token.length === 0 ||
    token.length > 8_192 ||
    !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token)
  ) {
    throw new AgoraTokenError("malformed", "token is not a compact JWS");
  }
  const getKey = typeof keys === "function" ? keys : remoteAgoraKeys(keys);
  const tolerance = options.clockToleranceSeconds ?? 5;
  const nowSeconds = options.now !== undefined ? Math.floor(options.now()) : Math.floor(Date.now() / 1000);
  let payload: Record<string, unknown>;
  try {
    const result = await jwtVerify(token, getKey, {
      algorithms: [...AGORA_ALGORITHMS],
      clockTolerance: tolerance,
      currentDate: new Date(nowSeconds * 1000),
      ...(expected.issuer !== undefined ? { issuer: expected.issuer } : {}),
    });
    payload = result.payload as Record<string, unknown>;
  } catch (error) {
    throw mapJoseError(error);
  }
  const agentId = payload.agent_id;
  const matchId = payload.match_id;
  if (typeof agentId !== "string" || agentId.length === 0 || agentId.length > 200)
    throw new AgoraTokenError("claims", "agent_id claim missing or not a string");
  if (typeof matchId !== "string" || matchId.length === 0 || matchId.length > 200)
    throw new AgoraTokenError("claims", "match_id claim missing or not a string");
  const expiresAt = payload.expires_at;
  const exp = payload.exp;
  if (expiresAt !== undefined && (typeof expiresAt !== "number" || !Number.isFinite(expiresAt)))
    throw new AgoraTokenError("claims", "expires_at claim is not a number");
  if (expiresAt === undefined && exp === undefined)
    throw new AgoraTokenError("claims", "token has no expires_at or exp claim");
  const effective =
    typeof expiresAt === "number" ? (typeof exp === "number" ? Math.min(expiresAt, exp) : expiresAt) : (exp as number);
  if (nowSeconds - tolerance >= effective) throw new AgoraTokenError("expired", "token has expired");
  if (expected.agent_id !== undefined && agentId !== expected.agent_id)
    throw new AgoraTokenError("agent-mismatch", "token was issued to another agent");
  if (expected.match_id !== undefined && matchId !== expected.match_id)
    throw new AgoraTokenError("match-mismatch", "token was issued for another match");
  const claims: VerifiedAgoraClaims = { agent_id: agentId, match_id: matchId, expires_at: effective };
  if (typeof payload.iss === "string") claims.iss = payload.iss;
  return claims;
}

function mapJoseError(error: unknown): AgoraTokenError {
  if (error instanceof AgoraTokenError) return error;
  if (error instanceof joseErrors.JWTExpired) return new AgoraTokenError("expired", "token has expired");
  if (error instanceof joseErrors.JWTClaimValidationFailed)
    return new AgoraTokenError("claims", `claim check failed (${error.claim})`);
  if (error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid)
    return new AgoraTokenError("keys-unavailable", "platform keys could not be fetched");
  if (
    error instanceof joseErrors.JWKSNoMatchingKey ||
    error instanceof joseErrors.JWSSignatureVerificationFailed ||
    error instanceof joseErrors.JOSEAlgNotAllowed
  ) {
    return new AgoraTokenError("signature", "token signature is not valid for the platform keys");
  }
  if (
    error instanceof joseErrors.JWTInvalid ||
    error instanceof joseErrors.JWSInvalid ||
    error instanceof joseErrors.JOSENotSupported
  ) {
    return new AgoraTokenError("malformed", "token is malformed");
  }
  // Network failures fetching the JWKS and anything else: refuse, without echoing library text.
  return new AgoraTokenError("keys-unavailable", "token could not be verified");
}
