/**
 * Per-agent credentials for protocols that authenticate the platform to the agent (Factagora and
 * round-table bearer tokens, AI Olympics HMAC secrets). They come from the resolver's configuration keyed
 * by ERC-8004 agent id — never from the chain or a registration file, which anyone can read.
 *
 * Each credential is bound to the endpoint origin (scheme://host[:port]) it was issued for. An agent's
 * tokenURI can be changed by its owner (or whoever takes the agent over) at any time; without the binding
 * the resolver would send the secret to whatever endpoint the current registration names.
 */
import { z } from "zod";
import type { WorkerFailure } from "../core/types.js";

export interface AgentCredentials {
  /** Sent as `Authorization: Bearer <token>`. */
  bearerToken?: string | undefined;
  /** Key for HMAC-SHA256 request signatures. */
  hmacSecret?: string | undefined;
}

/** Credentials plus the only origin they may be sent to, e.g. "https://agent.example:8443". */
export interface BoundAgentCredentials extends AgentCredentials {
  origin: string;
}

/** What a store answers for one agent and the endpoint about to be called. */
export type CredentialLookup =
  /** Nothing configured for this agent. */
  | { kind: "none" }
  | { kind: "ok"; credentials: AgentCredentials }
  /** Configured, but for another origin: the caller must not call the agent with or without them. */
  | { kind: "refused"; failure: WorkerFailure };

export interface CredentialStore {
  /** The secrets an agent's endpoint may receive. */
  forEndpoint(agentId: bigint, endpointUrl: string): CredentialLookup;
}

/**
 * The origin of an http(s) URL ("scheme://host[:port]", default port dropped, host lower-cased), or
 * undefined when `text` is not an http(s) URL.
 */
export function endpointOrigin(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.protocol === "https:" || url.protocol === "http:" ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** A configured origin: an http(s) URL with nothing but scheme, host and port (a trailing "/" is allowed). */
const originSchema = z
  .string()
  .max(2_048)
  .refine((text) => {
    try {
      const url = new URL(text);
      const bare =
        url.pathname === "/" && url.search === "" && url.hash === "" && url.username === "" && url.password === "";
      return bare && (url.protocol === "https:" || url.protocol === "http:") && !/[?#]/.test(text);
    } catch {
      return false;
    }
  }, 'origin must be "http(s)://host[:port]" (no path, query, fragment or credentials)')
  .transform((text) => new URL(text).origin);

const secret = z.string().min(1).max(4_096);
export const agentCredentialsSchema = z.strictObject({
  origin: originSchema,
  bearerToken: secret.optional(),
  hmacSecret: secret.optional(),
});
/** Configuration shape: `{ "<agentId>": { origin, bearerToken?, hmacSecret? } }`, agent ids as decimal strings. */
export const credentialConfigSchema = z.record(
  z.string().regex(/^(0|[1-9][0-9]{0,77})$/, "agent id must be a decimal integer"),
  agentCredentialsSchema,
);
export type CredentialConfig = z.infer<typeof credentialConfigSchema>;

/** The failure for a credential bound to another origin. Names origins only (never paths, queries or secrets). */
function wrongOrigin(agentId: bigint, bound: string, endpointUrl: string): WorkerFailure {
  const actual = endpointOrigin(endpointUrl);
  const id = agentId.toString();
  return {
    kind: "auth",
    message:
      actual === undefined
        ? `credentials of agent ${id} are bound to ${bound}, but its endpoint is not an http(s) URL: secrets not sent, agent not called`
        : `credentials of agent ${id} are bound to ${bound}, but its registration now names ${actual}: secrets not sent, agent not called (if the agent really moved, update "origin" in the credentials file)`,
  };
}

/**
 * A store over a map the caller may keep filling (the demo learns agent ids as agents register). Origins in
 * the map must already be normalised (`endpointOrigin`); `createCredentialStore` does that for configuration.
 */
export function credentialStoreOver(entries: ReadonlyMap<bigint, BoundAgentCredentials>): CredentialStore {
  return {
    forEndpoint(agentId, endpointUrl) {
      const found = entries.get(agentId);
      if (found === undefined) return { kind: "none" };
      if (endpointOrigin(endpointUrl) !== found.origin)
        return { kind: "refused", failure: wrongOrigin(agentId, found.origin, endpointUrl) };
      const { origin: _origin, ...credentials } = found;
      return { kind: "ok", credentials };
    },
  };
}

/** Builds a store from validated configuration. Secrets stay in memory only; nothing here logs them. */
export function createCredentialStore(config: unknown = {}): CredentialStore {
  const parsed = credentialConfigSchema.parse(config);
  const byId = new Map<bigint, BoundAgentCredentials>();
  for (const [id, creds] of Object.entries(parsed)) byId.set(BigInt(id), Object.freeze({ ...creds }));
  return credentialStoreOver(byId);
}
