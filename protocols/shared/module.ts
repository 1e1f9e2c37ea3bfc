/** The descriptor protocols/index.ts lists once per protocol folder (types only). */
import type { AgentProtocolHandler } from "./agent-types.js";
import type { AdapterDefaults, ConformanceChecker, WorkerProtocolAdapter } from "./types.js";

/**
 * One protocol, as the registry lists it. `Config` is what its adapter factory reads from the resolver's
 * configuration (at least AdapterDefaults; the registry passes the whole configuration).
 */
export interface ProtocolModule<Config extends AdapterDefaults = AdapterDefaults> {
  /** The registration file's service `protocol` value, lower-case, e.g. "cresolver"; also the folder's name. */
  readonly name: string;
  /** The platform-side adapter, or undefined when the configuration does not enable it (agora without a signer). */
  createAdapter(config: Config): WorkerProtocolAdapter | undefined;
  /** The reference agent's side. */
  readonly agentHandler: AgentProtocolHandler;
  /** `cresolver agent check`: the protocol's conformance checker. */
  readonly checkConformance: ConformanceChecker;
}
