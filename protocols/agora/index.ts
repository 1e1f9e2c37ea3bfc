/** The Agora protocol (README.md): JWT-authenticated A2A calls, with an inbound event stream. */
import type { ProtocolModule } from "../shared/module.js";
import type { AdapterDefaults } from "../shared/types.js";
import { agoraAdapters, type AgoraRegistryConfig } from "./adapter.js";
import { AGORA_PROTOCOL } from "./wire.js";
import { agoraProtocol } from "./agent.js";
import { agoraConformanceChecker } from "./conformance.js";

export const agoraModule: ProtocolModule<AdapterDefaults & AgoraRegistryConfig> = {
  name: AGORA_PROTOCOL,
  // Only with a signer (the platform's JWT key); otherwise the resolver does not speak Agora.
  createAdapter: (config) => agoraAdapters(config)[0],
  agentHandler: agoraProtocol,
  checkConformance: agoraConformanceChecker,
};
