/**
 * A credential store that ignores the endpoint origin, for tests whose agents listen on ephemeral loopback
 * ports and are not about the origin binding (that is tested in test/ts/workflow/credentials.test.ts).
 * Production stores come from createCredentialStore / credentialStoreOver and always check the origin.
 */
import type { AgentCredentials, CredentialStore } from "../../../../workflow/adapters/credentials.js";

export function anyOriginStore(config: Record<string, AgentCredentials>): CredentialStore {
  return {
    forEndpoint(agentId) {
      const found = config[agentId.toString()];
      return found === undefined ? { kind: "none" } : { kind: "ok", credentials: { ...found } };
    },
  };
}
