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

/** How the agent authenticates the platform's requests (each protocol uses the part it needs). */
export interface AgentAuth {
  /** Expected `Authorization: Bearer <token>` (compared in constant time). */
  bearerToken?: string;
  /** JWKS URL to verify platform JWTs against. */
  jwksUrl?: string;
  /** Shared secret for HMAC-signed requests. */
  hmacSecret?: string;
}

export interface ProtocolContext {
  engine: AnswerEngine;
  memory: FindingMemory;
  info: AgentInfo;
  /** Auth configured on the agent (optional; protocols that require auth refuse to start without it). */
  auth?: AgentAuth;
}

export interface ProtocolModule {
  /** The registration file's service `protocol` value, e.g. "cresolver". */
  readonly protocol: string;
  /** Adds the protocol's routes (and any auth hooks, inside its own encapsulated plugin). */
  register(app: FastifyInstance, ctx: ProtocolContext): Promise<void> | void;
}
