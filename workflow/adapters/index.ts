/**
 * Adapter registry: one WorkerProtocolAdapter per protocol name (the `protocol` of the worker's
 * A2A service entry, lower-case). Issue 7 adds factagora, roundtable, agora and ai-olympics here.
 */
import type { WorkerProtocolAdapter } from "../core/types.js";
import type { CredentialStore } from "./credentials.js";
import { createCresolverAdapter, type CresolverAdapterConfig } from "./cresolver.js";
import { createRoundtableAdapter } from "./roundtable.js";

export interface AdapterRegistry {
  /** Supported protocol names, lower-case, in registration order (passed to pickWorkerEndpoint). */
  readonly protocols: readonly string[];
  get(protocol: string): WorkerProtocolAdapter | undefined;
}

export function createAdapterRegistry(adapters: readonly WorkerProtocolAdapter[]): AdapterRegistry {
  const byName = new Map<string, WorkerProtocolAdapter>();
  for (const adapter of adapters) {
    const name = adapter.protocol.toLowerCase();
    if (byName.has(name)) throw new Error(`two adapters for protocol "${name}"`);
    byName.set(name, adapter);
  }
  return {
    protocols: [...byName.keys()],
    get: (protocol) => byName.get(protocol.toLowerCase()),
  };
}

/** Configuration of the default adapters: the CRE adapter's, plus per-agent credentials (by agent id, from configuration). */
export interface DefaultAdaptersConfig extends CresolverAdapterConfig {
  credentials?: CredentialStore;
}

/** The adapters available by default. */
export function defaultAdapters(config: DefaultAdaptersConfig): WorkerProtocolAdapter[] {
  return [
    createCresolverAdapter(config),
    createRoundtableAdapter({ http: config.http, ...(config.credentials !== undefined ? { credentials: config.credentials } : {}) }),
  ];
}

export { createCresolverAdapter, CRESOLVER_PROTOCOL, CRESOLVER_LIMITS, marketIdForWire } from "./cresolver.js";
export type { CresolverAdapterConfig } from "./cresolver.js";
export { callWithRetry, joinEndpoint, InvalidReplyError } from "./call.js";
export type { RetryPolicy } from "./call.js";
