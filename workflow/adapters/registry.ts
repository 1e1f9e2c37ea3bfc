/**
 * The adapter registry: one WorkerProtocolAdapter per protocol name. Separate from index.ts (which builds the
 * default adapters, some of them Node-only) so the pipeline's types pull in no adapter implementation.
 */
import type { WorkerProtocolAdapter } from "../core/types.js";

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
