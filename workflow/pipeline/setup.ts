/**
 * Wiring for a real deployment (or the local demo): one safe HTTP client for every outbound call to
 * agents and registration files, the default protocol adapters, the chain ports and the configured
 * evaluator. `close()` releases the HTTP connection pool.
 */
import type { Address } from "viem";
import type { CredentialStore } from "../adapters/credentials.js";
import { createAdapterRegistry, defaultAdapters } from "../../protocols/index.js";
import type { AgoraRegistryConfig } from "../../protocols/agora/adapter.js";
import type { ChainContext } from "../chain/clients.js";
import { createChainPorts, type ChainPorts } from "../chain/ports.js";
import type { TrackRecordOptions } from "../chain/track-record.js";
import { createEvaluator, type EvaluatorConfig } from "../evaluate/index.js";
import { createSafeHttpClient, type SafeHttpConfig } from "../http/index.js";
import type { PipelinePorts } from "../ports.js";

export interface PipelineSetup {
  /** Chain clients (read-only is enough: the run decides, workflow/settle/ proposes). */
  ctx: ChainContext;
  marketAddress: Address;
  /** Default: the market's identityRegistry(). */
  identityRegistry?: Address | undefined;
  /** Destination policy and limits. Production: leave allowLoopback/allowPrivate unset. */
  http?: SafeHttpConfig | undefined;
  /** Worker call deadlines (defaults 30 s / 15 s, from the spec). */
  resolveTimeoutMs?: number | undefined;
  challengeTimeoutMs?: number | undefined;
  /** Per-agent bearer tokens / HMAC secrets (from configuration, never from the chain). */
  credentials?: CredentialStore | undefined;
  /** Agora Arena: the resolver's JWT signer (and event store); without it Agora workers are not asked. */
  agora?: AgoraRegistryConfig["agora"] | undefined;
  /** Default: the rubric. */
  evaluator?: EvaluatorConfig | undefined;
  /** Where the track record's log scan starts (the market's deployment block) and its chunk size. */
  trackRecord?: TrackRecordOptions | undefined;
}

export interface PipelineWiring {
  ports: PipelinePorts;
  /** The chain ports. */
  chain: ChainPorts;
  close(): Promise<void>;
}

export function createPipelinePorts(setup: PipelineSetup): PipelineWiring {
  const http = createSafeHttpClient(setup.http ?? {});
  const chain = createChainPorts({
    ctx: setup.ctx,
    marketAddress: setup.marketAddress,
    ...(setup.identityRegistry !== undefined ? { identityRegistry: setup.identityRegistry } : {}),
    ...(setup.trackRecord !== undefined ? { trackRecord: setup.trackRecord } : {}),
  });
  const ports: PipelinePorts = {
    market: chain.market,
    directory: chain.directory,
    trackRecord: chain.trackRecord,
    signatures: chain.signatures,
    fetcher: http.fetcher,
    adapters: createAdapterRegistry(
      defaultAdapters({
        http,
        ...(setup.credentials !== undefined ? { credentials: setup.credentials } : {}),
        ...(setup.agora !== undefined ? { agora: setup.agora } : {}),
        ...(setup.resolveTimeoutMs !== undefined ? { resolveTimeoutMs: setup.resolveTimeoutMs } : {}),
        ...(setup.challengeTimeoutMs !== undefined ? { challengeTimeoutMs: setup.challengeTimeoutMs } : {}),
      }),
    ),
    evaluator: createEvaluator(setup.evaluator ?? { kind: "rubric" }),
  };
  return { ports, chain, close: () => http.close() };
}
