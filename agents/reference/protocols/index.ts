/** Registry of the wire protocols the reference agent can serve. One module per protocol file. */
import { agoraProtocol } from "../../../protocols/agora/agent.js";
import { cresolverProtocol } from "../../../protocols/cresolver/agent.js";
import { factagoraProtocol } from "../../../protocols/factagora/agent.js";
import { aiOlympicsProtocol } from "../../../protocols/ai-olympics/agent.js";
import { roundtableProtocol } from "../../../protocols/roundtable/agent.js";
import type { ProtocolModule } from "./types.js";

export const PROTOCOLS: Readonly<Record<string, ProtocolModule>> = {
  cresolver: cresolverProtocol,
  factagora: factagoraProtocol,
  agora: agoraProtocol,
  "ai-olympics": aiOlympicsProtocol,
  roundtable: roundtableProtocol,
};

export type { ProtocolModule, ProtocolContext, AgentInfo } from "./types.js";
