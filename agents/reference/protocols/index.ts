/** Registry of the wire protocols the reference agent can serve. Issue 7 adds the other four here. */
import { cresolverProtocol } from "./cresolver.js";
import { roundtableProtocol } from "./roundtable.js";
import type { ProtocolModule } from "./types.js";

export const PROTOCOLS: Readonly<Record<string, ProtocolModule>> = {
  cresolver: cresolverProtocol,
  roundtable: roundtableProtocol,
};

export type { ProtocolModule, ProtocolContext, AgentInfo } from "./types.js";
