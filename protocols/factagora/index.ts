/** The Factagora protocol (README.md): one prediction webhook, called once per round. */
import type { ProtocolModule } from "../shared/module.js";
import { createFactagoraAdapter } from "./adapter.js";
import { factagoraProtocol } from "./agent.js";
import { checkFactagora } from "./conformance.js";
import { FACTAGORA_PROTOCOL } from "./wire.js";

export const factagoraModule: ProtocolModule = {
  name: FACTAGORA_PROTOCOL,
  createAdapter: ({ http, credentials }) => createFactagoraAdapter({ http, credentials }),
  agentHandler: factagoraProtocol,
  checkConformance: checkFactagora,
};
