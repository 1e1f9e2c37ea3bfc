/** Loopback fixtures for the Agora tests: a jose key pair with its JWKS served over HTTP, the event stream plugin on fastify. */
import Fastify, { type FastifyInstance } from "fastify";
import { calculateJwkThumbprint, createLocalJWKSet, exportJWK, generateKeyPair, type CryptoKey, type JWK } from "jose";
import { WebSocket } from "ws";
import {
  createJoseSigner,
  verifyAgoraToken,
  type AgoraSigningAlg,
  type AgoraTokenSigner,
} from "../../../../protocols/agora/jwt.js";
import {
  AgoraEventStore,
  agoraStreamPlugin,
  type AgoraStreamOptions,
} from "../../../../protocols/agora/event-stream.js";
import { sendJson, startServer, type TestServer } from "../../workflow/helpers/servers.js";

export interface TestKey {
  kid: string;
  alg: AgoraSigningAlg;
  privateKey: CryptoKey;
  publicJwk: JWK;
  jwks: { keys: JWK[] };
  /** Signer with the given clock (unix seconds) and ttl. */
  signer(options?: { now?: () => number; ttlSeconds?: number; issuer?: string }): AgoraTokenSigner;
}

export async function testKey(alg: AgoraSigningAlg = "ES256"): Promise<TestKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, alg === "EdDSA" ? { crv: "Ed25519" } : {});
  const pub = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(pub, "sha256");
  const publicJwk: JWK = { ...pub, kid, alg, use: "sig" };
  return {
    kid,
    alg,
    privateKey,
    publicJwk,
    jwks: { keys: [publicJwk] },
    signer: (o = {}) => createJoseSigner(privateKey, kid, alg, o.issuer, o.ttlSeconds ?? 300, o.now),
  };
}

/** Serves `{keys}` at /.well-known/jwks.json on loopback (like the daemon). */
export async function startJwksServer(jwks: { keys: JWK[] }): Promise<TestServer & { jwksUrl: string }> {
  const server = await startServer((req, res) => {
    if (req.method === "GET" && req.url === "/.well-known/jwks.json")
      return sendJson(res, 200, jwks, "application/jwk-set+json");
    sendJson(res, 404, { error: "not found" });
  });
  return Object.assign(server, { jwksUrl: `${server.url}/.well-known/jwks.json` });
}

export interface StreamServer {
  app: FastifyInstance;
  store: AgoraEventStore;
  /** ws://127.0.0.1:<port> */
  wsUrl: string;
  close(): Promise<void>;
}

/** The stream plugin on its own fastify instance on loopback, verifying tokens with the key's JWKS. */
export async function startStreamServer(
  key: TestKey,
  options: Partial<AgoraStreamOptions> = {},
): Promise<StreamServer> {
  const store = options.store ?? new AgoraEventStore();
  const app = Fastify({ logger: false });
  const keys = createLocalJWKSet(key.jwks);
  await app.register(agoraStreamPlugin, { verify: (t) => verifyAgoraToken(t, keys), ...options, store });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return { app, store, wsUrl: url.replace(/^http/, "ws"), close: () => app.close() };
}

export interface WsOutcome {
  /** HTTP status when the upgrade was refused. */
  refusedStatus?: number | undefined;
  messages: unknown[];
  closeCode?: number;
}

/**
 * Opens a socket, sends all `frames`, and resolves once the server has sent `expectAnswers` messages
 * (then closes), closed the socket, or refused the upgrade (0: wait for the server to close).
 */
export function wsExchange(
  url: string,
  token: string | undefined,
  frames: Array<string | Buffer>,
  expectAnswers = frames.length,
): Promise<WsOutcome> {
  return new Promise((resolve) => {
    const outcome: WsOutcome = { messages: [] };
    const ws = new WebSocket(url, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      if (ws.readyState === ws.OPEN) {
        ws.once("close", () => resolve(outcome));
        ws.close(1000);
      } else resolve(outcome);
    };
    ws.on("unexpected-response", (_req, res) => {
      outcome.refusedStatus = res.statusCode;
      res.resume();
      finished = true;
      resolve(outcome);
    });
    ws.on("error", () => finish());
    ws.on("close", (code) => {
      outcome.closeCode = code;
      finish();
    });
    ws.on("open", () => {
      for (const f of frames) ws.send(f, { binary: Buffer.isBuffer(f) });
    });
    ws.on("message", (data) => {
      outcome.messages.push(JSON.parse(String(data)));
      if (outcome.messages.length >= expectAnswers) finish();
    });
  });
}
