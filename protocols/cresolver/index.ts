/** The cresolver protocol (README.md): the resolver's own JSON-over-HTTPS worker protocol. */
import type { ProtocolModule } from "../shared/module.js";
import type { AdapterDefaults } from "../shared/types.js";
import { createCresolverAdapter, CRESOLVER_PROTOCOL, type CresolverAdapterConfig } from "./adapter.js";
import { cresolverProtocol } from "./agent.js";
import { checkCresolver } from "./conformance.js";

export const cresolverModule: ProtocolModule<AdapterDefaults & CresolverAdapterConfig> = {
  name: CRESOLVER_PROTOCOL,
  createAdapter: (config) => createCresolverAdapter(config),
  agentHandler: cresolverProtocol,
  checkConformance: checkCresolver,
};
