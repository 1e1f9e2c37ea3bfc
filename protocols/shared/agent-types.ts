/** The reference agent's side of a protocol (each folder's agent.ts): what it serves and what it is given. */
import type { FastifyInstance } from "fastify";
import type { AnswerEngine, EngineMode, PersonaName } from "../../agents/kit/answer-engine.js";
import type { FindingMemory } from "../../agents/kit/memory.js";
import type { AnswerSigner } from "../../workflow/core/answer-signature.js";

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
  /** Auth configured on the agent (optional; protocols that require auth refuse to start without it). */
  auth?: AgentAuth | undefined;
  /** The agent's own ERC-8004 agent id (decimal), for protocols whose auth names it. */
  agentId?: string | undefined;
  /** Agora: base URL (ws:// or wss://) of the platform's event stream; events are streamed when set. */
  agoraStreamUrl?: string | undefined;
  /** cresolver: signs answers (docs/RECORDS.md §2) when the request names the chain, market and agent. */
  answerSigner?: AnswerSigner | undefined;
}

/** A wire protocol served by the reference agent (each folder's agent.ts). */
export interface AgentProtocolHandler {
  /** The registration file's service `protocol` value, e.g. "cresolver". */
  readonly protocol: string;
  /**
   * Path of the endpoint to register, relative to the agent's base URL: "" (the base URL itself, the
   * default) or e.g. "/webhook". `cresolver agent serve` prints base + endpointPath.
   */
  readonly endpointPath?: string;
  /**
   * The credential the protocol's spec makes mandatory, if any. `cresolver agent serve` refuses to start
   * without it (the module itself may still accept its absence, e.g. for development).
   */
  readonly requiredAuth?: keyof AgentAuth;
  /** Adds the protocol's routes (and any auth hooks, inside its own encapsulated plugin). */
  register(app: FastifyInstance, ctx: ProtocolContext): Promise<void> | void;
}
