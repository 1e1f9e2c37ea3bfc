/**
 * What a host of the resolver (the daemon) wires for Agora, with its own signing key: the match-token signer
 * and the inbound event stream, which verifies the presented match token against that same key. The host keeps
 * only the wiring (where the key lives, which app to mount on).
 */
import { createLocalJWKSet, type JWK, type JWTPayload } from "jose";
import type { FastifyInstance } from "fastify";
import { agoraStreamPlugin, type AgoraEventStore, type AgoraStreamOptions } from "./event-stream.js";
import { DEFAULT_AGORA_TOKEN_TTL_SECONDS, verifyAgoraToken, type AgoraTokenSigner } from "./jwt.js";

/** The host's signing key, as far as Agora needs it (daemon/keys.ts's SigningKey fits). */
export interface AgoraHostKey {
  publicJwk: JWK;
  signJwt(payload: JWTPayload): Promise<string>;
}

/** AgoraTokenSigner over the host's key: claims agent_id, match_id, expires_at = exp (and iss when given). */
export function agoraHostSigner(
  key: AgoraHostKey,
  ttlSeconds: number = DEFAULT_AGORA_TOKEN_TTL_SECONDS,
  issuer?: string,
): AgoraTokenSigner {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0)
    throw new Error("agora tokenTtlSeconds must be a positive integer");
  return {
    async sign(claims) {
      const exp = Math.floor(Date.now() / 1000) + ttlSeconds;
      const payload: Record<string, unknown> = {
        agent_id: String(claims.agent_id),
        match_id: String(claims.match_id),
        expires_at: exp,
        exp,
      };
      if (issuer !== undefined) payload.iss = issuer;
      return key.signJwt(payload);
    },
  };
}

/** Mounts the event stream (event-stream.ts) on `app`, accepting match tokens signed by `key` (and `issuer`, if set). */
export async function mountAgoraEventStream(
  app: FastifyInstance,
  key: AgoraHostKey,
  store: AgoraEventStore,
  issuer?: string,
): Promise<void> {
  const localKeys = createLocalJWKSet({ keys: [{ ...key.publicJwk }] });
  const options: AgoraStreamOptions = {
    store,
    verify: (token) => verifyAgoraToken(token, localKeys, issuer !== undefined ? { issuer } : {}),
  };
  await app.register(agoraStreamPlugin, options);
}
