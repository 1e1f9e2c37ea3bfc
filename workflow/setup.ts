/**
 * Wiring for a real deployment (or the local demo): one safe HTTP client for every outbound call to
 * agents and registration files, the default protocol adapters, the viem chain ports and the
 * configured evaluator. `close()` releases the HTTP connection pool.
 */
import type { Address, PublicClient, WalletClient } from "viem";
import { createAdapterRegistry, defaultAdapters } from "./adapters/index.js";
import { createChainPorts } from "./chain/viem.js";
import { createEvaluator, type EvaluatorConfig } from "./evaluate/index.js";
import { createSafeHttpClient, type SafeHttpConfig } from "./http/index.js";
import type { PipelinePorts } from "./ports.js";

export interface PipelineSetup {
  publicClient: PublicClient;
  /** Needed to write the resolution; without it runs are dry runs. */
  walletClient?: WalletClient;
  marketAddress: Address;
  /** Default: the market's identityRegistry(). */
  identityRegistry?: Address;
  /** Destination policy and limits. Production: leave allowLoopback/allowPrivate unset. */
  http?: SafeHttpConfig;
  /** Worker call deadlines (defaults 30 s / 15 s, from the spec). */
  resolveTimeoutMs?: number;
  challengeTimeoutMs?: number;
  /** Default: the rubric. */
  evaluator?: EvaluatorConfig;
  /** Gas limit for resolveMarket. */
  gas?: bigint;
  bundleURI?: string;
}

export function createPipelinePorts(setup: PipelineSetup): { ports: PipelinePorts; close(): Promise<void> } {
  const http = createSafeHttpClient(setup.http ?? {});
  const chain = createChainPorts({
    publicClient: setup.publicClient,
    marketAddress: setup.marketAddress,
    ...(setup.identityRegistry !== undefined ? { identityRegistry: setup.identityRegistry } : {}),
    ...(setup.walletClient !== undefined ? { walletClient: setup.walletClient } : {}),
    ...(setup.gas !== undefined ? { gas: setup.gas } : {}),
    ...(setup.bundleURI !== undefined ? { bundleURI: setup.bundleURI } : {}),
  });
  const ports: PipelinePorts = {
    market: chain.market,
    directory: chain.directory,
    reputation: chain.reputation,
    fetcher: http.fetcher,
    adapters: createAdapterRegistry(
      defaultAdapters({
        http,
        ...(setup.resolveTimeoutMs !== undefined ? { resolveTimeoutMs: setup.resolveTimeoutMs } : {}),
        ...(setup.challengeTimeoutMs !== undefined ? { challengeTimeoutMs: setup.challengeTimeoutMs } : {}),
      }),
    ),
    evaluator: createEvaluator(setup.evaluator ?? { kind: "rubric" }),
    ...(chain.writer !== undefined ? { writer: chain.writer } : {}),
  };
  return { ports, close: () => http.close() };
}
