/**
 * The daemon's real seams: a resolve job that runs the resolution workflow (workflow/pipeline/run.ts)
 * and writes through the chain layer, and the on-chain no-quorum settlement. Both re-read the
 * market first, so a market settled by another daemon (or before a restart) is never written twice.
 */
import type { Address, Hex } from "viem";
import type { AgoraRegistryConfig } from "../workflow/adapters/agora.js";
import type { CredentialStore } from "../workflow/adapters/credentials.js";
import type { ChainContext } from "../workflow/chain/clients.js";
import { isTerminalStatus, readMarketStatus } from "../workflow/chain/snapshot.js";
import type { ResolutionWriterOptions } from "../workflow/chain/writer.js";
import type { WorkerRecord } from "../workflow/core/types.js";
import type { EvaluatorConfig } from "../workflow/evaluate/index.js";
import type { SafeHttpConfig } from "../workflow/http/index.js";
import { runResolution } from "../workflow/pipeline/run.js";
import type { ResolutionConfig } from "../workflow/ports.js";
import { createPipelinePorts } from "../workflow/setup.js";
import type { MarketSeams } from "./config.js";

export interface PipelineSeamsConfig {
  /** Chain context carrying the resolver's key. */
  ctx: ChainContext;
  market: Address;
  identityRegistry?: Address;
  http?: SafeHttpConfig;
  credentials?: CredentialStore;
  agora?: AgoraRegistryConfig["agora"];
  evaluator?: EvaluatorConfig;
  resolveTimeoutMs?: number;
  challengeTimeoutMs?: number;
  writer?: ResolutionWriterOptions;
  resolution?: ResolutionConfig;
  /** The daemon's agent-call metrics hook. */
  recordAgentCall?: (protocol: string, latencyMs: number, ok: boolean) => void;
}

export interface PipelineSeams extends MarketSeams {
  /** Releases the HTTP connection pool. */
  close(): Promise<void>;
}

/** Reports every outbound worker call (ask and challenge) to the metrics hook. */
function recordCalls(records: readonly WorkerRecord[], record: NonNullable<PipelineSeamsConfig["recordAgentCall"]>): void {
  for (const r of records) {
    const protocol = r.endpoint?.protocol;
    if (protocol === undefined) continue;
    if (r.askLatencyMs !== undefined) record(protocol, r.askLatencyMs, r.answer !== undefined);
    if (r.challengeLatencyMs !== undefined) record(protocol, r.challengeLatencyMs, r.challengeFailure === undefined);
  }
}

export function createPipelineSeams(config: PipelineSeamsConfig): PipelineSeams {
  const { ports, chain, close } = createPipelinePorts({
    ctx: config.ctx,
    marketAddress: config.market,
    ...(config.identityRegistry !== undefined ? { identityRegistry: config.identityRegistry } : {}),
    ...(config.http !== undefined ? { http: config.http } : {}),
    ...(config.credentials !== undefined ? { credentials: config.credentials } : {}),
    ...(config.agora !== undefined ? { agora: config.agora } : {}),
    ...(config.evaluator !== undefined ? { evaluator: config.evaluator } : {}),
    ...(config.resolveTimeoutMs !== undefined ? { resolveTimeoutMs: config.resolveTimeoutMs } : {}),
    ...(config.challengeTimeoutMs !== undefined ? { challengeTimeoutMs: config.challengeTimeoutMs } : {}),
    ...(config.writer !== undefined ? { writer: config.writer } : {}),
  });
  const writer = chain.writer;
  if (writer === undefined) throw new Error("the daemon needs the resolver's key to write resolutions");

  return {
    async resolveJob(marketId) {
      const state = await readMarketStatus(config.ctx, config.market, marketId);
      if (isTerminalStatus(state.status)) return { kind: "already-settled", bundleHash: state.bundleHash };
      const run = await runResolution(marketId, ports, config.resolution ?? {});
      if (config.recordAgentCall !== undefined) recordCalls(run.records, config.recordAgentCall);
      const bundle = run.bundle.json;
      const bundleHash: Hex = run.bundleHash;
      switch (run.write.status) {
        case "written":
          if (run.write.receipt.txHash === undefined) throw new Error("the writer reported a write without a transaction hash");
          return { kind: "written", txHash: run.write.receipt.txHash, bundle, bundleHash };
        case "already-settled":
          return { kind: "already-settled", bundleHash };
        case "failed":
          // Infrastructure (RPC, nonce, gas): the daemon retries with backoff.
          throw run.write.cause instanceof Error ? run.write.cause : new Error(run.write.error);
        case "skipped":
          return run.outcome.kind === "no-margin" ? { kind: "no-margin", bundle, bundleHash } : { kind: "no-quorum", bundle, bundleHash };
      }
    },
    async settleInvalid(marketId, bundleHash) {
      const receipt = await writer.settleInvalid(marketId, bundleHash);
      if (receipt.alreadySettled !== undefined || receipt.txHash === undefined) return { kind: "already-settled" };
      return { txHash: receipt.txHash };
    },
    close,
  };
}
