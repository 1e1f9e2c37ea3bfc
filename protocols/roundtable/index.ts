/** The round-table protocol (README.md): analyze, challenge and vote endpoints. */
import type { ProtocolModule } from "../shared/module.js";
import { createRoundtableAdapter } from "./adapter.js";
import { roundtableProtocol } from "./agent.js";
import { checkRoundtable } from "./conformance.js";
import { ROUNDTABLE_PROTOCOL } from "./wire.js";

export const roundtableModule: ProtocolModule = {
  name: ROUNDTABLE_PROTOCOL,
  createAdapter: ({ http, credentials }) => createRoundtableAdapter({ http, credentials }),
  agentHandler: roundtableProtocol,
  checkConformance: checkRoundtable,
};
