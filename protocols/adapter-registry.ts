/**
 * The adapter registry: one WorkerProtocolAdapter per protocol name. Separate from protocols/index.ts (which lists
 * every protocol module, agent and Node-only code included) so the CRE workflow can build one from the cresolver
 * adapter alone.
 */
import type { AdapterRegistry, WorkerProtocolAdapter } from "./shared/types.js";

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
