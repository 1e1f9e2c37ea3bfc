/**
 * Adapter registry: one WorkerProtocolAdapter per protocol name (the `protocol` of the worker's
 * A2A service entry, lower-case): cresolver, factagora, roundtable, agora (with a signer) and ai-olympics.
 */
import type { WorkerProtocolAdapter } from "../core/types.js";
import { createCresolverAdapter, type CresolverAdapterConfig } from "../../protocols/cresolver/adapter.js";
import { agoraAdapters, type AgoraRegistryConfig } from "../../protocols/agora/adapter.js";
import { createCredentialStore, type CredentialStore } from "./credentials.js";
import { createFactagoraAdapter } from "../../protocols/factagora/adapter.js";
import { createAiOlympicsAdapter, type AiOlympicsDefaults } from "../../protocols/ai-olympics/adapter.js";
import { createRoundtableAdapter } from "../../protocols/roundtable/adapter.js";

export { createAdapterRegistry } from "./registry.js";
export type { AdapterRegistry } from "./registry.js";

/** Configuration of the default adapters: the CRE adapter's, plus per-agent credentials (by agent id, from configuration). */
export interface DefaultAdaptersConfig extends CresolverAdapterConfig, AgoraRegistryConfig, AiOlympicsDefaults {
  credentials?: CredentialStore;
}

/**
 * The adapters available by default. `credentials`: per-agent secrets from configuration (none by
 * default); Agora is added only with a signer; AI Olympics takes its action client from `aiOlympics`.
 */
export function defaultAdapters(config: DefaultAdaptersConfig): WorkerProtocolAdapter[] {
  const credentials = config.credentials ?? createCredentialStore();
  return [
    createCresolverAdapter(config),
    createFactagoraAdapter({ http: config.http, credentials }),
    createRoundtableAdapter({ http: config.http, credentials }),
    ...agoraAdapters(config),
    createAiOlympicsAdapter({ ...config.aiOlympics, http: config.http, credentials }),
  ];
}

export { createCresolverAdapter, CRESOLVER_PROTOCOL, CRESOLVER_LIMITS, marketIdForWire } from "../../protocols/cresolver/adapter.js";
export type { CresolverAdapterConfig } from "../../protocols/cresolver/adapter.js";
export { createAiOlympicsAdapter, AI_OLYMPICS_PROTOCOL } from "../../protocols/ai-olympics/adapter.js";
export type { AiOlympicsAdapterConfig, AiOlympicsDefaults } from "../../protocols/ai-olympics/adapter.js";
export { callWithRetry, joinEndpoint, InvalidReplyError } from "./call.js";
export type { RetryPolicy } from "./call.js";
