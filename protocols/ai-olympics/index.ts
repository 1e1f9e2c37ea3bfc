/** The AI Olympics protocol (README.md): signed turn-by-turn webhook sessions with browser-style actions. */
import type { ProtocolModule } from "../shared/module.js";
import type { AdapterDefaults } from "../shared/types.js";
import { AI_OLYMPICS_PROTOCOL, createAiOlympicsAdapter, type AiOlympicsDefaults } from "./adapter.js";
import { aiOlympicsProtocol } from "./agent.js";
import { checkAiOlympics } from "./conformance.js";

export const aiOlympicsModule: ProtocolModule<AdapterDefaults & AiOlympicsDefaults> = {
  name: AI_OLYMPICS_PROTOCOL,
  createAdapter: ({ aiOlympics, http, credentials }) => createAiOlympicsAdapter({ ...aiOlympics, http, credentials }),
  agentHandler: aiOlympicsProtocol,
  checkConformance: checkAiOlympics,
};
