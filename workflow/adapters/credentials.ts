/**
 * Per-agent credentials for protocols that authenticate the platform to the agent (Factagora bearer
 * tokens, AI Olympics HMAC secrets). They come from the resolver's configuration keyed by ERC-8004
 * agent id — never from the chain or a registration file, which anyone can read.
 */
import { z } from "zod";

export interface AgentCredentials {
  /** Sent as `Authorization: Bearer <token>`. */
  bearerToken?: string;
  /** Key for HMAC-SHA256 request signatures. */
  hmacSecret?: string;
}

export interface CredentialStore {
  /** Credentials for an agent, or undefined when none are configured. */
  forAgent(agentId: bigint): AgentCredentials | undefined;
}

const secret = z.string().min(1).max(4_096);
export const agentCredentialsSchema = z.strictObject({ bearerToken: secret.optional(), hmacSecret: secret.optional() });
/** Configuration shape: `{ "<agentId>": { bearerToken?, hmacSecret? } }`, agent ids as decimal strings. */
export const credentialConfigSchema = z.record(z.string().regex(/^(0|[1-9][0-9]{0,77})$/, "agent id must be a decimal integer"), agentCredentialsSchema);

/** Builds a store from validated configuration. Secrets stay in memory only; nothing here logs them. */
export function createCredentialStore(config: unknown = {}): CredentialStore {
  const parsed = credentialConfigSchema.parse(config);
  const byId = new Map<bigint, AgentCredentials>();
  for (const [id, creds] of Object.entries(parsed)) byId.set(BigInt(id), Object.freeze({ ...creds }));
  return { forAgent: (agentId) => byId.get(agentId) };
}
