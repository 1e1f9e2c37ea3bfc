/**
 * Agent credentials for `agent serve` and `agent check`, and the check's Agora token signer.
 *
 * Secrets (bearer tokens, HMAC secrets) are read from environment variables only: a flag names the
 * variable (`--bearer-token-env MY_TOKEN`), never carries the value, so a secret never appears in `ps`
 * output or shell history. Without the flag the default variables are read. Error messages name the
 * variable, never the value.
 */
import { createServer, type Server } from "node:http";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK, type KeyObject } from "jose";
import { createJoseSigner, type AgoraSigningAlg, type AgoraTokenSigner } from "../../protocols/agora/jwt.js";
import type { AgentAuth } from "../../protocols/shared/agent-types.js";
import { AGENT_ENV } from "./env.js";
import { CliError } from "./errors.js";

export { parsePortFlag } from "./inputs.js";

export { AGENT_ENV, agentSecretsInEnv } from "./env.js";

/** The flag that supplies each AgentAuth part (for error messages). */
export const AUTH_FLAG: Record<keyof AgentAuth, string> = {
  bearerToken: `--bearer-token-env <VAR> (default ${AGENT_ENV.bearerToken})`,
  hmacSecret: `--hmac-secret-env <VAR> (default ${AGENT_ENV.hmacSecret})`,
  jwksUrl: "--jwks-url <url>",
};

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const MAX_SECRET = 4_096;

export interface SecretFlags {
  bearerTokenEnv?: string;
  hmacSecretEnv?: string;
  signingKeyEnv?: string;
}

function readSecret(
  env: Record<string, string | undefined>,
  flagName: string,
  named: string | undefined,
  fallback: string,
): string | undefined {
  if (named !== undefined) {
    if (!ENV_NAME.test(named))
      throw new CliError(
        `${flagName} takes the NAME of an environment variable (letters, digits, _), not the secret itself`,
      );
    const value = env[named];
    if (value === undefined || value === "")
      throw new CliError(`${flagName}: environment variable ${named} is not set or empty`);
    if (value.length > MAX_SECRET)
      throw new CliError(`${flagName}: environment variable ${named} is longer than ${MAX_SECRET} characters`);
    return value;
  }
  const value = env[fallback];
  if (value === undefined || value === "") return undefined;
  if (value.length > MAX_SECRET) throw new CliError(`${fallback} is longer than ${MAX_SECRET} characters`);
  return value;
}

/** Bearer token and HMAC secret from the named (or default) environment variables. */
export function readAgentSecrets(
  env: Record<string, string | undefined>,
  flags: SecretFlags,
): { bearerToken?: string; hmacSecret?: string } {
  const bearerToken = readSecret(env, "--bearer-token-env", flags.bearerTokenEnv, AGENT_ENV.bearerToken);
  const hmacSecret = readSecret(env, "--hmac-secret-env", flags.hmacSecretEnv, AGENT_ENV.hmacSecret);
  return { ...(bearerToken !== undefined ? { bearerToken } : {}), ...(hmacSecret !== undefined ? { hmacSecret } : {}) };
}

/** The answer-signing key (`--signing-key-env`, default CRESOLVER_AGENT_SIGNING_KEY), or undefined: answers unsigned. */
export function readSigningKey(env: Record<string, string | undefined>, flags: SecretFlags): `0x${string}` | undefined {
  const key = readSecret(env, "--signing-key-env", flags.signingKeyEnv, AGENT_ENV.signingKey);
  if (key === undefined) return undefined;
  const hex = key.startsWith("0x") ? key : `0x${key}`;
  if (!/^0x[0-9a-fA-F]{64}$/.test(hex))
    throw new CliError(
      `${flags.signingKeyEnv ?? AGENT_ENV.signingKey} must hold a 32-byte private key (64 hex digits, 0x optional)`,
    );
  return hex as `0x${string}`;
}

export function parseAgentIdFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^(0|[1-9][0-9]{0,77})$/.test(value))
    throw new CliError(`--agent-id must be a decimal ERC-8004 agent id, got "${value.slice(0, 40)}"`);
  return value;
}

export function parseUrlFlag(value: string, flag: string, schemes: string[]): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`${flag} is not a URL: "${value.slice(0, 60)}"`);
  }
  if (!schemes.includes(url.protocol) || url.hostname === "")
    throw new CliError(
      `${flag} must be a ${schemes.map((s) => s.replace(":", "")).join(" or ")} URL, got "${value.slice(0, 60)}"`,
    );
  if (url.username !== "" || url.password !== "") throw new CliError(`${flag} must not contain credentials`);
  return url;
}

// ---------------------------------------------------------------------------------------------------
// Agora: a token signer whose public key the agent under test can fetch
// ---------------------------------------------------------------------------------------------------

export interface CheckSigner {
  signer: AgoraTokenSigner;
  /** Where the public key is published (loopback), e.g. http://127.0.0.1:9555/.well-known/jwks.json. */
  jwksUrl: string;
  close(): Promise<void>;
}

interface KeyPair {
  privateJwk: JWK;
  alg: AgoraSigningAlg;
  kid: string;
}

async function newKeyPair(): Promise<KeyPair> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const kid = `cresolver-check-${randomUUID()}`;
  return { privateJwk: { ...(await exportJWK(privateKey)), kid, alg: "ES256", use: "sig" }, alg: "ES256", kid };
}

/** Loads a private JWK (ES256 P-256 or EdDSA Ed25519) from `file`, or creates one there (mode 0600). */
async function keyFromFile(file: string): Promise<KeyPair> {
  if (!existsSync(file)) {
    const pair = await newKeyPair();
    writeFileSync(file, `${JSON.stringify(pair.privateJwk)}\n`, { mode: 0o600, flag: "wx" });
    chmodSync(file, 0o600);
    return pair;
  }
  let jwk: JWK;
  try {
    jwk = JSON.parse(readFileSync(file, "utf8")) as JWK;
  } catch {
    throw new CliError(`--signing-key-file ${file} is not a JSON private JWK`);
  }
  const alg: AgoraSigningAlg | undefined =
    jwk.kty === "EC" && jwk.crv === "P-256"
      ? "ES256"
      : jwk.kty === "OKP" && jwk.crv === "Ed25519"
        ? "EdDSA"
        : undefined;
  if (alg === undefined || typeof jwk.d !== "string")
    throw new CliError(`--signing-key-file ${file} must hold a private EC P-256 or OKP Ed25519 JWK`);
  const kid = typeof jwk.kid === "string" && jwk.kid !== "" ? jwk.kid : `cresolver-check-${alg.toLowerCase()}`;
  return { privateJwk: { ...jwk, kid, alg }, alg, kid };
}

function publicJwk(jwk: JWK): JWK {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, key_ops: _ops, ...pub } = jwk;
  return pub;
}

/**
 * A signer for the check plus a loopback HTTP server publishing its public key at
 * `/.well-known/jwks.json` (nothing else is served). The key is ephemeral unless `keyFile` is given.
 */
export async function startCheckSigner(options: {
  host?: string;
  port: number;
  keyFile?: string;
}): Promise<CheckSigner> {
  const pair = options.keyFile !== undefined ? await keyFromFile(options.keyFile) : await newKeyPair();
  let privateKey;
  try {
    privateKey = await importJWK(pair.privateJwk, pair.alg);
  } catch {
    throw new CliError("--signing-key-file holds a key jose cannot import");
  }
  const body = JSON.stringify({ keys: [publicJwk(pair.privateJwk)] });
  const server: Server = createServer((req, res) => {
    if (req.method === "GET" && (req.url ?? "").split("?")[0] === "/.well-known/jwks.json") {
      res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" }).end(body);
    } else res.writeHead(404).end();
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolveListen, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(new CliError(`cannot serve the JWKS on ${host}:${options.port}: ${error.code ?? error.message}`, 1)),
    );
    server.listen(options.port, host, () => resolveListen());
  });
  const { port } = server.address() as { port: number };
  return {
    signer: createJoseSigner(privateKey as CryptoKey | KeyObject, pair.kid, pair.alg),
    jwksUrl: `http://${host}:${port}/.well-known/jwks.json`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
