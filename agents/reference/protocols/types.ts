/** A wire protocol served by the reference agent: one module per file in this folder. */
import type { FastifyInstance } from "fastify";
import type { AnswerEngine, EngineMode, PersonaName } from "../engine/types.js";
import type { FindingMemory } from "../memory.js";

export interface AgentInfo {
  name: string;
  protocol: string;
  mode: EngineMode;
  persona: PersonaName;
}

/** How the agent authenticates the platform's requests (per protocol: bearer, JWT via JWKS, HMAC). */
export interface AgentAuth {
  bearerToken?: string;
  jwksUrl?: string;
  hmacSecret?: string;
}

export interface ProtocolContext {
  engine: AnswerEngine;
  memory: FindingMemory;
  info: AgentInfo;
  auth?: AgentAuth;
}

export interface ProtocolModule {
  /** The registration file's service `protocol` value, e.g. "cresolver". */
  readonly protocol: string;
  /** Adds the protocol's routes (and any auth hooks, inside its own encapsulated plugin). */
  register(app: FastifyInstance, ctx: ProtocolContext): Promise<void> | void;
}
