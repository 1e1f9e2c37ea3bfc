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

/** Credentials the agent expects from the platform; each protocol module checks the ones its spec uses. */
export interface AgentAuth {
  /** `Authorization: Bearer <token>` (round-table, Factagora). */
  bearerToken?: string;
  /** JWKS URL to verify JWTs against (Agora). */
  jwksUrl?: string;
  /** HMAC-SHA256 secret for signed requests (AI Olympics). */
  hmacSecret?: string;
}

export interface ProtocolContext {
  engine: AnswerEngine;
  memory: FindingMemory;
  info: AgentInfo;
  /** Absent: the agent accepts unauthenticated requests. */
  auth?: AgentAuth;
}

export interface ProtocolModule {
  /** The registration file's service `protocol` value, e.g. "cresolver". */
  readonly protocol: string;
  /** Adds the protocol's routes (and any auth hooks, inside its own encapsulated plugin). */
  register(app: FastifyInstance, ctx: ProtocolContext): Promise<void> | void;
}
