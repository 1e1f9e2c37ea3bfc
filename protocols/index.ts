/**
 * The protocol registry: every worker protocol the resolver speaks, one folder each (README.md there). Adding a
 * protocol = adding its folder and one line to PROTOCOLS (docs/ARCHITECTURE.md, "How to add a protocol"). The
 * workflow's default adapters, `cresolver agent check` and the reference agent all read this list.
 */
import { createCredentialStore } from "../workflow/adapters/credentials.js";
import type { AgoraTokenSigner } from "./agora/jwt.js";
import { agoraModule } from "./agora/index.js";
import type { AgoraRegistryConfig } from "./agora/adapter.js";
import { aiOlympicsModule } from "./ai-olympics/index.js";
import type { AiOlympicsDefaults } from "./ai-olympics/adapter.js";
import type { CresolverAdapterConfig } from "./cresolver/adapter.js";
import { cresolverModule } from "./cresolver/index.js";
import { factagoraModule } from "./factagora/index.js";
import { roundtableModule } from "./roundtable/index.js";
import type { AgentProtocolHandler } from "./shared/agent-types.js";
import type { ProtocolModule } from "./shared/module.js";
import type {
  AdapterDefaults,
  ConformanceChecker,
  ConformanceCheckOptions,
  WorkerProtocolAdapter,
} from "./shared/types.js";

/** Configuration of the default adapters: what each protocol's factory reads; credentials default to none. */
export interface DefaultAdaptersConfig extends CresolverAdapterConfig, AgoraRegistryConfig, AiOlympicsDefaults {}

type AdapterFactoryConfig = DefaultAdaptersConfig & AdapterDefaults;

/** Every protocol, in adapter registration order (the order pickWorkerEndpoint prefers). */
export const PROTOCOLS: readonly ProtocolModule<AdapterFactoryConfig>[] = [
  cresolverModule,
  factagoraModule,
  roundtableModule,
  agoraModule,
  aiOlympicsModule,
];

export const PROTOCOL_NAMES: readonly string[] = PROTOCOLS.map((p) => p.name);

export function protocolModule(name: string): ProtocolModule<AdapterFactoryConfig> | undefined {
  return PROTOCOLS.find((p) => p.name === name.toLowerCase());
}

/**
 * The adapters available by default. `credentials`: per-agent secrets from configuration (none by default);
 * Agora is added only with a signer; AI Olympics takes its action client from `aiOlympics`.
 */
export function defaultAdapters(config: DefaultAdaptersConfig): WorkerProtocolAdapter[] {
  const full: AdapterFactoryConfig = { ...config, credentials: config.credentials ?? createCredentialStore() };
  return PROTOCOLS.flatMap((p) => p.createAdapter(full) ?? []);
}

/** The reference agent's handlers, by protocol name. */
export const AGENT_HANDLERS: Readonly<Record<string, AgentProtocolHandler>> = Object.fromEntries(
  PROTOCOLS.map((p) => [p.name, p.agentHandler]),
);

/** The conformance checkers, by protocol name (`cresolver agent check --protocol <name>`). */
export const CONFORMANCE_CHECKERS: Readonly<Record<string, ConformanceChecker>> = Object.fromEntries(
  PROTOCOLS.map((p) => [p.name, p.checkConformance]),
);

/** Optional extras some checkers read (unknown to the others, which ignore them); the CLI always passes them. */
export interface ConformanceExtras {
  /** Signs platform tokens with a key the agent trusts (agora). */
  signer?: AgoraTokenSigner;
  /** The agent's ERC-8004 id, put in tokens that name it (agora). */
  agentId?: string;
}

export type ConformanceRunOptions = ConformanceCheckOptions & ConformanceExtras;

export { createAdapterRegistry } from "./adapter-registry.js";
export type * from "./shared/types.js";
export type * from "./shared/agent-types.js";
export type * from "./shared/module.js";
