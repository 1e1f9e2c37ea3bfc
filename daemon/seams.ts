/**
 * The daemon's real seams: `run` is the resolution workflow (workflow/pipeline/run.ts, no write), `propose` is
 * the one settlement module (workflow/settle), `finalize` / `publishFeedback` are the permissionless market
 * calls, `read` is a fresh chain read (daemon/chain.ts). Every write re-reads the market first, so a market
 * moved on by another daemon (or before a restart) is never written twice.
 */
import { getAddress, TransactionNotFoundError, zeroAddress, type Address, type Hex, type PublicClient } from "viem";
import type { AgoraRegistryConfig } from "../protocols/agora/adapter.js";
import type { CredentialStore } from "../workflow/adapters/credentials.js";
import type { ChainContext } from "../workflow/chain/clients.js";
import { ChainError } from "../workflow/chain/errors.js";
import {
  finalize as finalizeMarket,
  getMarketConfig,
  publishFeedback as publishMarketFeedback,
  readWriter,
} from "../workflow/chain/lifecycle.js";
import { currencyBalance, disputeAssertion, getAssertion, type UmaStack } from "../workflow/chain/uma.js";
import type { WorkerRecord, WorkerReport } from "../workflow/core/types.js";
import type { EvaluatorConfig } from "../workflow/evaluate/index.js";
import type { SafeHttpConfig } from "../workflow/http/index.js";
import { runResolution } from "../workflow/pipeline/run.js";
import type { ResolutionConfig } from "../workflow/ports.js";
import { createSettler, SettleError, type MarketGuardOptions } from "../workflow/settle/index.js";
import { createPipelinePorts } from "../workflow/pipeline/setup.js";
import { resolutionMarketAbi, umaArbiterAbi } from "../workflow/chain/abis.js";
import { readView, viewCall } from "../workflow/chain/reads.js";
import { readMarketOnChain } from "./chain.js";
import { payloadReports } from "./proposals.js";
import { indexTrackRecord, type RecordIndex } from "./record-index.js";
import type { MarketSeams, RunOutcome } from "./config.js";
import { DEFAULT_DON_LIMITS, type DonLimits } from "../workflow/don-limits.js";
import { gatherSignedAnswers, type GatheredAnswers } from "../workflow/relay/gather.js";
import { CRESOLVER_PROTOCOL } from "../protocols/cresolver/adapter.js";
import { createAdapterRegistry } from "../protocols/adapter-registry.js";
import { createRubricEvaluator } from "../workflow/evaluate/rubric.js";
import { parseRelayDocument } from "../workflow/relay/answer-document.js";
import { createRelayAdapter } from "../workflow/relay/relay-adapter.js";
import type { PipelinePorts } from "../workflow/ports.js";

/** Seats published per publishFeedback transaction (the contract writes the first 10 inline at finalize). */
export const FEEDBACK_BATCH = 10;

export interface PipelineSeamsConfig {
  /** Chain context carrying the resolver's key. */
  ctx: ChainContext;
  market: Address;
  identityRegistry?: Address;
  http?: SafeHttpConfig;
  credentials?: CredentialStore | undefined;
  agora?: AgoraRegistryConfig["agora"];
  evaluator?: EvaluatorConfig;
  resolveTimeoutMs?: number;
  challengeTimeoutMs?: number;
  resolution?: ResolutionConfig;
  /** What the settler refuses (a bond over its cap, an arbiter the deployment does not allow). */
  settlerGuard?: MarketGuardOptions | undefined;
  /** The daemon's agent-call metrics hook. */
  recordAgentCall?: (protocol: string, latencyMs: number, ok: boolean) => void;
  /** The track-record index (daemon/record-index.ts): verdicts read the window before the cut-off from it. */
  recordIndex?: RecordIndex;
  /** The market contract's deployment block (where the cut-off's request log is looked for). */
  recordFromBlock?: bigint;
  /** What escalating a dispute of our proposal takes. Default `escalateDispute` (UMA: counter the assertion; else nothing). */
  escalate?: (marketId: bigint) => Promise<{ action: string; txHash?: Hex }>;
  /**
   * DON-compatible relay mode (`cresolver daemon --don-mode`, docs/CRE.md): each run reads the panel's answers from
   * the daemon's own relay document (`relayDocument`, the bytes `GET /answers` serves) through the relay adapter,
   * `cresolver` protocol and rubric only, in the pipeline's DON mode with these limits and one record call — what a
   * DON configured with this daemon's `/answers` and `/track-record` does, so both produce one bundle.
   */
  donMode?: { limits: DonLimits; relayDocument(marketId: bigint): Promise<string> };
}

export interface PipelineSeams extends MarketSeams {
  /** The market's agent-signed answers as a relay document (GET /answers, daemon/answer-relay.ts). */
  gatherAnswers(marketId: bigint): Promise<GatheredAnswers>;
  /** Releases the HTTP connection pool. */
  close(): Promise<void>;
}

/** Reports every outbound worker call (ask and challenge) to the metrics hook. */
function recordCalls(
  records: readonly WorkerRecord[],
  record: NonNullable<PipelineSeamsConfig["recordAgentCall"]>,
): void {
  for (const r of records) {
    const protocol = r.endpoint?.protocol;
    if (protocol === undefined) continue;
    if (r.askLatencyMs !== undefined) record(protocol, r.askLatencyMs, r.answer !== undefined);
    if (r.answer !== undefined && r.challengeLatencyMs !== undefined)
      record(protocol, r.challengeLatencyMs, r.challengeFailure === undefined);
  }
}

/** Settles when `p` does, rejects as soon as `signal` aborts (the run aborts its in-flight calls on the same signal). */
function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * Escalating a dispute of our proposal, by the market's arbiter: a UmaArbiter asserted the disputer's claim on
 * UMA's Optimistic Oracle V3, so the proposer counters that assertion (OOv3 `disputeAssertion`, paying UMA's bond
 * in the arbiter's currency from the resolver's account), which sends it to UMA's DVM. Any other arbiter (a
 * committee) decides on its own: nothing to send.
 */
export async function escalateDispute(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
): Promise<{ action: string }> {
  const { arbiter } = await getMarketConfig(ctx, market, marketId);
  const assertionId = await readView(
    ctx,
    viewCall(arbiter, umaArbiterAbi, "assertionIdOf", [market, marketId]),
    "UmaArbiter.assertionIdOf",
  ).catch(() => undefined); // undefined: not a UmaArbiter
  if (assertionId === undefined || /^0x0+$/.test(assertionId)) return { action: "escalated" };
  const [optimisticOracle, currency] = await Promise.all([
    ctx.publicClient.readContract({ address: arbiter, abi: umaArbiterAbi, functionName: "oracle" }),
    ctx.publicClient.readContract({ address: arbiter, abi: umaArbiterAbi, functionName: "currency" }),
  ]);
  const uma = { optimisticOracle, currency } as UmaStack;
  const assertion = await getAssertion(ctx, uma, assertionId);
  if (assertion.disputer !== zeroAddress) return { action: "escalated-uma" }; // countered already (by us before a restart, or anyone)
  // Nothing is sent (not even the approval) while the resolver cannot pay UMA's bond: the watch retries later.
  const account = ctx.account?.address;
  if (account === undefined) throw new ChainError("precondition", "escalating needs the resolver's key");
  const balance = await currencyBalance(ctx, uma, account);
  if (balance < assertion.bond)
    throw new ChainError(
      "precondition",
      `escalating market ${marketId} to UMA needs ${assertion.bond} of currency ${currency} for OOv3's bond; ${account} holds ${balance}`,
    );
  await disputeAssertion(ctx, uma, assertionId);
  return { action: "escalated-uma" };
}

/**
 * Waits for a transaction this daemon broadcast before a restart: its receipt status, or undefined when the node
 * no longer knows it (dropped from the pool, or a chain reset).
 */
async function awaitSent(
  client: PublicClient,
  hash: Hex,
  signal: AbortSignal,
): Promise<"success" | "reverted" | undefined> {
  const known = await client.getTransaction({ hash }).catch((err: unknown) => {
    if (err instanceof TransactionNotFoundError) return undefined;
    throw err;
  });
  if (known === undefined) return undefined;
  const receipt = await abortable(client.waitForTransactionReceipt({ hash }), signal);
  return receipt.status;
}

/**
 * The ports of one DON-compatible run: the relay adapter over the daemon's own document (the direct `cresolver`
 * adapter still takes the challenges), no other protocol, the rubric — as on a DON. The signatures are checked by
 * the chain verifier (wallet, then owner; EOA or ERC-1271), as the DON checks them.
 */
async function donModePorts(
  ports: PipelinePorts,
  at: { chainId: number; market: Address; marketId: bigint },
  don: NonNullable<PipelineSeamsConfig["donMode"]>,
): Promise<PipelinePorts> {
  const direct = ports.adapters.get(CRESOLVER_PROTOCOL);
  if (direct === undefined) throw new Error("DON mode needs the cresolver adapter");
  const document = parseRelayDocument(await don.relayDocument(at.marketId), at);
  const { fallbackEvaluator: _unused, ...rest } = ports;
  return {
    ...rest,
    adapters: createAdapterRegistry([createRelayAdapter({ direct, document, market: at, verifier: ports.signatures })]),
    evaluator: createRubricEvaluator(),
  };
}

export function createPipelineSeams(config: PipelineSeamsConfig): PipelineSeams {
  // Checksummed: the address goes into the bundle, which must be byte-identical to other resolvers' (the CRE workflow's).
  const market = getAddress(config.market);
  const { ports, close } = createPipelinePorts({
    ctx: config.ctx,
    marketAddress: market,
    identityRegistry: config.identityRegistry,
    http: config.http,
    credentials: config.credentials,
    agora: config.agora,
    evaluator: config.evaluator,
    resolveTimeoutMs: config.resolveTimeoutMs,
    challengeTimeoutMs: config.challengeTimeoutMs,
  });
  const { ctx } = config;
  // The index instead of re-reading every log from block 0 on each resolution.
  if (config.recordIndex !== undefined)
    ports.trackRecord = indexTrackRecord(config.recordIndex, ctx, market, {
      ...(config.recordFromBlock !== undefined ? { fromBlock: config.recordFromBlock } : {}),
    });
  if (ctx.account === undefined) throw new Error("the daemon needs the resolver's key to propose");
  const account = ctx.account.address;
  const client: PublicClient = ctx.publicClient;
  // One attempt per call: the daemon's runner owns retries and backoff (and survives restarts).
  const settler = createSettler(ctx, market, { attempts: 1, ...config.settlerGuard });

  return {
    account,
    read: (marketId) => readMarketOnChain(client, market, marketId),

    gatherAnswers: (marketId) =>
      gatherSignedAnswers(marketId, ports, {
        maxBytes: (config.donMode?.limits ?? DEFAULT_DON_LIMITS).maxResponseBytes,
        ...(config.resolution !== undefined ? { config: config.resolution } : {}),
      }),

    async run(marketId, _attempt, signal, onProgress): Promise<RunOutcome> {
      const don = config.donMode;
      const runPorts =
        don === undefined ? ports : await donModePorts(ports, { chainId: ctx.chainId, market, marketId }, don);
      const resolution =
        don === undefined
          ? (config.resolution ?? {})
          : { ...config.resolution, don: { limits: don.limits, recordCalls: 1, relayed: true } };
      // The signal aborts the pipeline's in-flight agent calls (shutdown, job timeout); the daemon stops waiting at once.
      const run = await abortable(
        runResolution(marketId, runPorts, resolution, {
          signal,
          ...(onProgress !== undefined ? { onProgress } : {}),
        }),
        signal,
      );
      if (config.recordAgentCall !== undefined) recordCalls(run.records, config.recordAgentCall);
      const { verdict, reports } = run.proposal;
      return {
        verdict,
        ...(run.invalidReason !== undefined ? { reason: run.invalidReason } : {}),
        // Invalid while seats failed: a fixable cause (a worker down for a minute) — run again before proposing it.
        retry: verdict === "invalid" && run.failedWorkers.length > 0,
        bundle: run.bundle.json,
        bundleHash: run.bundleHash,
        payload: { reports },
      };
    },

    async propose(marketId, input, hooks) {
      const { workerCount } = await client.readContract({
        address: market,
        abi: resolutionMarketAbi,
        functionName: "getMarket",
        args: [marketId],
      });
      const reports =
        payloadReports(input.payload) ??
        Array.from(
          { length: Number(workerCount) },
          (): WorkerReport => ({ answer: "failed", confidenceBps: 0, resQuality: 0, srcQuality: 0, analysisDepth: 0 }),
        );
      if (input.sentTx !== undefined) {
        const landed = await awaitSent(client, input.sentTx, hooks.signal);
        // Mined and the market moved on: our proposal (or another) is there; the runner reads which. Reverted,
        // dropped, or an earlier round's transaction while the market awaits a proposal again: send a new one.
        if (landed && (await readMarketOnChain(client, market, marketId)).status !== "requested")
          return landed === "success" ? { txHash: input.sentTx } : { kind: "not-requested" };
      }
      try {
        const res = await settler.propose({
          marketId,
          verdict: input.verdict,
          reports,
          bundleHash: input.bundleHash,
          bundleURI: input.bundleURI,
          onSent: hooks.onSent,
        });
        if (res.status === "already-settled") return { kind: "not-requested" };
        return { txHash: res.txHash };
      } catch (err) {
        throw err instanceof SettleError && err.cause instanceof Error ? err.cause : err;
      }
    },

    async finalize(marketId) {
      try {
        return { txHash: (await finalizeMarket(ctx, market, marketId)).txHash };
      } catch (err) {
        // Someone finalized first (not Proposed any more), or the window is still open by the next block's clock.
        if (err instanceof ChainError && (err.kind === "precondition" || err.errorName === "WrongStatus"))
          return { kind: "not-needed" };
        throw err;
      }
    },

    async publishFeedback(marketId) {
      const [, before] = await readWriter(ctx, market, "feedbackStatus", [marketId]);
      if (before === 0n) return { published: 0, pending: 0 };
      const r = await publishMarketFeedback(ctx, market, marketId, FEEDBACK_BATCH);
      // Progress as the chain counts it (a simulation's return value can differ from what the mined batch did).
      return { published: Number(before - r.pending), pending: Number(r.pending), txHash: r.txHash };
    },

    escalate: config.escalate ?? ((marketId) => escalateDispute(ctx, market, marketId)),
    close,
  };
}
