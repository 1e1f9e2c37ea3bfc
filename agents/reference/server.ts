/**
 * The reference worker agent: one answer engine behind one wire protocol on a fastify server.
 *
 *   const agent = createReferenceAgent({ persona: "skeptic" });
 *   const url = await agent.start({ port: 0 });   // "http://127.0.0.1:54321"
 *   ...
 *   await agent.close();
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { privateKeyToAccount } from "viem/accounts";
import { createLlmEngine, type LlmEngineOptions } from "./engine/llm.js";
import { createOfflineEngine } from "./engine/offline.js";
import { isPersonaName } from "./engine/personas.js";
import type { AnswerEngine, EngineMode, PersonaName } from "../kit/answer-engine.js";
import { registerAgentCard } from "./card.js";
import { installErrorHandling } from "../kit/http.js";
import { FindingMemory } from "../kit/memory.js";
import { AGENT_HANDLERS } from "../../protocols/index.js";
import type { AgentAuth, AgentInfo } from "../../protocols/shared/agent-types.js";

export const DEFAULT_BODY_LIMIT = 64 * 1024;
export const DEFAULT_HOST = "127.0.0.1";

export interface ReferenceAgentOptions {
  /** Wire protocol to serve (default "cresolver"; the only one so far). */
  protocol?: string;
  /** Name reported by /health (default `cresolver-reference-<persona>`). */
  name?: string | undefined;
  /** Persona (default "analyst"). */
  persona?: PersonaName;
  /** "offline" (default: deterministic, no network) or "llm" (needs `llm`). */
  mode?: EngineMode;
  /** LLM endpoint settings for mode "llm". */
  llm?: Omit<LlmEngineOptions, "persona"> | undefined;
  /** A ready-made engine; overrides `mode`, `llm` and `persona`. */
  engine?: AnswerEngine;
  /** Maximum request body in bytes (default 64 KiB; larger bodies get 413). */
  bodyLimit?: number;
  /** false (default) for silence, true for fastify's pino logger on stdout, or a pino logger instance. */
  logger?: boolean | FastifyBaseLogger;
  /** Markets remembered for challenges (default 1,000). */
  memorySize?: number;
  /** Credentials the agent expects from the platform (bearer token, JWKS URL, HMAC secret), per protocol. */
  auth?: AgentAuth;
  /** The agent's ERC-8004 agent id (decimal), checked against tokens that name it. */
  agentId?: string | undefined;
  /** Agora: base URL (ws:// or wss://) of the platform's event stream; events are streamed when set. */
  agoraStreamUrl?: string | undefined;
  /** The endpoint URL as registered, for the A2A agent card's `url` (default: derived from each request). */
  publicUrl?: string;
  /**
   * Private key the agent signs its cresolver answers with (its ERC-8004 agentWallet or owner; docs/RECORDS.md §2).
   * Never logged; without it answers go unsigned (attested).
   */
  signingKey?: `0x${string}`;
}

export interface StartOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (an ephemeral port). */
  port?: number;
}

export interface ReferenceAgent {
  readonly app: FastifyInstance;
  readonly engine: AnswerEngine;
  readonly info: AgentInfo;
  /** Listens and resolves with the bound base URL, e.g. "http://127.0.0.1:54321". */
  start(options?: StartOptions): Promise<string>;
  /** Stops listening and closes idle connections. Idempotent. */
  close(): Promise<void>;
}

function buildEngine(options: ReferenceAgentOptions): AnswerEngine {
  if (options.engine) return options.engine;
  const persona = options.persona ?? "analyst";
  if (!isPersonaName(persona)) throw new Error(`unknown persona "${String(persona)}"`);
  const mode = options.mode ?? "offline";
  if (mode === "offline") return createOfflineEngine({ persona });
  if (mode === "llm") {
    if (!options.llm)
      throw new Error('mode "llm" needs llm options (model, and baseURL/apiKey as the endpoint requires)');
    return createLlmEngine({ ...options.llm, persona });
  }
  throw new Error(`unknown mode "${String(mode)}"`);
}

export function createReferenceAgent(options: ReferenceAgentOptions = {}): ReferenceAgent {
  const protocolName = options.protocol ?? "cresolver";
  const protocol = AGENT_HANDLERS[protocolName];
  if (!protocol)
    throw new Error(`unknown protocol "${protocolName}" (known: ${Object.keys(AGENT_HANDLERS).join(", ")})`);
  const engine = buildEngine(options);
  const info: AgentInfo = {
    name: options.name ?? `cresolver-reference-${engine.persona}`,
    protocol: protocol.protocol,
    mode: engine.mode,
    persona: engine.persona,
  };
  const memory = new FindingMemory(options.memorySize);

  const logger = options.logger;
  const app: FastifyInstance =
    typeof logger === "object"
      ? Fastify({ bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT, loggerInstance: logger })
      : Fastify({ bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT, logger: logger ?? false });

  // JSON only: without this, fastify would also parse text/plain bodies.
  app.removeContentTypeParser("text/plain");
  installErrorHandling(app);
  app.get("/health", async () => ({
    status: "ok",
    name: info.name,
    protocol: info.protocol,
    mode: info.mode,
    persona: info.persona,
  }));
  registerAgentCard(app, info, protocol.endpointPath ?? "", options.publicUrl);
  app.register(async (scope) => {
    await protocol.register(scope, {
      engine,
      memory,
      info,
      auth: options.auth,
      agentId: options.agentId,
      agoraStreamUrl: options.agoraStreamUrl,
      answerSigner: options.signingKey !== undefined ? privateKeyToAccount(options.signingKey) : undefined,
    });
  });

  let closed: Promise<void> | undefined;
  return {
    app,
    engine,
    info,
    async start(start: StartOptions = {}) {
      return app.listen({ host: start.host ?? DEFAULT_HOST, port: start.port ?? 0 });
    },
    close() {
      closed ??= app.close();
      return closed;
    },
  };
}
