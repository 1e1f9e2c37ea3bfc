/**
 * The resolution as a Chainlink CRE workflow: on `ResolutionRequested` (EVM log trigger) the DON reads the market
 * (cre/resolution/chain.ts), runs the project's own pipeline — the same stages, core, rubric evaluator, vote and
 * bundle as the daemon, imported from workflow/ — behind CRE implementations of its ports, and writes a DON-signed
 * report to CREReceiver, which proposes the verdict on the market with a bond (workflow/chain/cre-report.ts is the
 * report format).
 *
 * Limits (workflow/don-limits.ts, docs/CRE.md): the execution is planned against the quotas before any call (HTTP
 * calls, consensus calls, observation, request and report sizes); a market that does not fit is not resolved here
 * (the result says why; a daemon resolver can take it), and the challenge round runs only where it fits (the
 * pipeline's DON-compatible mode). On a DON: protocol `cresolver` only (no secrets, plain JSON over HTTP), the rubric
 * evaluator only (the LLM evaluator needs an API key and a Node HTTP stack, and is not deterministic across nodes),
 * and the track record as the served window document verified against the market's cut-off (cre/resolution/record.ts).
 * With `answerRelay` configured the whole panel's answers come from one relayed document of agent-signed replies
 * (workflow/relay/), each checked against the agent's wallet or owner read on-chain (workflow/relay/known-signers.ts).
 */
import {
  cre,
  getNetwork,
  hexToBase64,
  prepareReportRequest,
  TxStatus,
  type EVMClient,
  type EVMLog,
  type Runtime,
} from "@chainlink/cre-sdk";
import { bytesToHex, hexToBigInt, size, type Hex } from "viem";
import { createCresolverAdapter, CRESOLVER_PROTOCOL } from "../../protocols/cresolver/adapter.js";
import { createAdapterRegistry } from "../../protocols/adapter-registry.js";
import { encodeCreReport } from "../../workflow/chain/cre-report.js";
import type { MarketSnapshot } from "../../workflow/core/types.js";
import {
  callsPerRound,
  isInlineUri,
  planDonExecution,
  questionBytes,
  type DonPlan,
} from "../../workflow/don-limits.js";
import { createRubricEvaluator } from "../../workflow/evaluate/rubric.js";
import { runResolution, type ResolutionRunResult } from "../../workflow/pipeline/run.js";
import type { PipelinePorts } from "../../workflow/ports.js";
import { VERDICT_CODE } from "../../workflow/core/codes.js";
import { encodeReport, reportProblem } from "../../workflow/settle/reports.js";
import { RESOLUTION_REQUESTED_TOPIC } from "./abi.js";
import { createBudget, type Budget } from "./budget.js";
import { donAllowList, readContractSignatures, readMarket } from "./chain.js";
import type { WorkflowConfig } from "./config.js";
import { createCreHttpClient } from "./http.js";
import { createDonTrackRecord } from "./record.js";
import {
  contractSignatureChecks,
  createKnownSignerVerifier,
  type AgentSigners,
  type ContractSignatureCheck,
} from "../../workflow/relay/known-signers.js";
import type { ParsedRelayDocument } from "../../workflow/relay/answer-document.js";
import { createRelayAdapter, fetchRelayDocument, relayUrl } from "../../workflow/relay/relay-adapter.js";
import type { RecordCutoff } from "../../workflow/core/record-document.js";
import type { ArbiterAllowList } from "../../workflow/allowed-rulings.js";

/** No allow-list to read: only the configured trusted arbiters' rulings are truth. */
const NOTHING_ALLOWED: ArbiterAllowList = { allowed: async () => new Set<string>() };

/** What one execution returns (the DON's execution result; shown by `cre workflow simulate`). */
export interface ExecutionSummary {
  marketId: string;
  status: "proposed" | "skipped";
  reason?: string;
  verdict?: string;
  bundleHash?: Hex;
  txHash?: Hex;
  httpCalls: number;
  chainReads: number;
  /** Consensus calls made: one per HTTP round, one for the report. */
  consensusCalls: number;
  /** The execution's plan against the quotas (absent when it stopped before planning). */
  plan?: DonPlan;
  /** The canonical bundle, when it fits the execution result (the DON does not publish it anywhere else). */
  bundle?: string;
}

/** Room left for the bundle in the 100 KB execution result. */
const MAX_BUNDLE_IN_RESULT = 90_000;

/** The pipeline's ports on a DON, for a market already read. Exported for the parity tests. */
export function crePorts(
  runtime: Runtime<unknown>,
  config: WorkflowConfig,
  snapshot: MarketSnapshot,
  tokenURIs: readonly (string | undefined)[],
  calls: Budget,
  rounds: Budget,
  cutoff?: RecordCutoff,
  allowList?: ArbiterAllowList,
  signers?: readonly AgentSigners[],
  relayed?: ParsedRelayDocument,
  approved?: readonly ContractSignatureCheck[],
): PipelinePorts {
  const client = (maxReplyBytes: number) =>
    createCreHttpClient({
      runtime,
      calls,
      rounds,
      callsPerRound: callsPerRound(config.limits),
      maxReplyBytes,
      cacheMaxAgeSeconds: config.httpCacheMaxAgeSeconds,
    });
  const http = client(config.limits.maxReplyBytes);
  const trackRecord =
    cutoff !== undefined
      ? createDonTrackRecord(client(config.limits.maxResponseBytes), config, cutoff, allowList ?? NOTHING_ALLOWED)
      : undefined;
  const byAgent = new Map(snapshot.workers.map((w, i) => [w.agentId, tokenURIs[i]]));
  const direct = createCresolverAdapter({
    http,
    resolveTimeoutMs: config.limits.callTimeoutMs,
    challengeTimeoutMs: config.limits.callTimeoutMs,
  });
  const signatures = signers !== undefined ? createKnownSignerVerifier(signers, approved) : undefined;
  const adapter =
    relayed !== undefined
      ? createRelayAdapter({
          direct,
          document: relayed,
          market: { chainId: config.chainId, market: config.marketAddress, marketId: snapshot.marketId },
          verifier: signatures,
        })
      : direct;
  return {
    market: { readMarket: async () => snapshot },
    directory: { agentURI: async (agentId) => byAgent.get(agentId) },
    fetcher: http.fetcher,
    adapters: createAdapterRegistry([adapter]),
    evaluator: createRubricEvaluator(),
    ...(trackRecord !== undefined ? { trackRecord } : {}),
    ...(signatures !== undefined ? { signatures } : {}),
  };
}

/** Registration files the discover stage will fetch over HTTP (everything but inline `data:` URIs). */
export function registrationFetches(tokenURIs: readonly (string | undefined)[]): number {
  return tokenURIs.filter((u) => u !== undefined && !isInlineUri(u)).length;
}

/** The CRE report of a run (workflow/chain/cre-report.ts format). Throws if the market would refuse it. */
export function reportOf(config: WorkflowConfig, run: ResolutionRunResult): Hex {
  const p = run.proposal;
  const problem = reportProblem(p.verdict, p.reports, run.market.workers.length);
  if (problem !== undefined) throw new Error(`refusing to report: ${problem}`);
  return encodeCreReport({
    chainId: config.chainId,
    market: config.marketAddress,
    marketId: p.marketId,
    verdict: VERDICT_CODE[p.verdict],
    reports: p.reports.map(encodeReport),
    bundleHash: p.bundleHash,
    bundleURI: config.bundleUriTemplate.replaceAll("{hash}", p.bundleHash),
  });
}

export async function onResolutionRequested(
  runtime: Runtime<WorkflowConfig>,
  log: EVMLog,
  evm: EVMClient,
): Promise<string> {
  const config = runtime.config;
  const reads = createBudget(config.limits.chainReads);
  const calls = createBudget(config.limits.httpCalls);
  // The report's consensus call is reserved; the HTTP rounds get the rest.
  const rounds = createBudget(config.limits.consensusCalls - 1);
  let reports = 0;
  const emitter = bytesToHex(log.address);
  if (emitter.toLowerCase() !== config.marketAddress.toLowerCase())
    throw new Error(`log from ${emitter}, not the configured market`);
  const [topic0, topic1] = log.topics;
  if (topic0 === undefined || topic1 === undefined || bytesToHex(topic0) !== RESOLUTION_REQUESTED_TOPIC)
    throw new Error("not a ResolutionRequested log");
  const marketId = hexToBigInt(bytesToHex(topic1));
  const summary = (s: Omit<ExecutionSummary, "marketId" | "httpCalls" | "chainReads" | "consensusCalls">): string =>
    JSON.stringify({
      marketId: marketId.toString(),
      ...s,
      httpCalls: calls.used,
      chainReads: reads.used,
      consensusCalls: rounds.used + reports,
    } satisfies ExecutionSummary);

  const read = readMarket(runtime, evm, config, reads, marketId);
  if (read.kind === "skip") {
    runtime.log(`market ${marketId}: ${read.reason}`);
    return summary({ status: "skipped", reason: read.reason });
  }
  const { recordCalls, relayed } = config;
  if (config.trackRecord !== undefined && read.cutoff === undefined) throw new Error("the record cut-off was not read");
  const planned = planDonExecution(config.limits, {
    seats: read.snapshot.workers.length,
    registrationFetches: registrationFetches(read.tokenURIs),
    recordCalls,
    questionBytes: questionBytes(read.snapshot.question, read.snapshot.context),
    relayed,
  });
  if ("refused" in planned) {
    runtime.log(`market ${marketId}: ${planned.refused}`);
    return summary({ status: "skipped", reason: planned.refused });
  }
  const { plan } = planned;

  // The relay's document first (one HTTP call, one round): a relay that is down or serves something else stops the
  // execution (nothing proposed), as a withheld record does; answers it leaves out are seats that did not answer.
  let document: ParsedRelayDocument | undefined;
  if (config.answerRelay !== undefined) {
    const at = { chainId: config.chainId, market: config.marketAddress, marketId };
    const http = createCreHttpClient({
      runtime,
      calls,
      rounds,
      callsPerRound: callsPerRound(config.limits),
      maxReplyBytes: config.limits.maxResponseBytes,
      cacheMaxAgeSeconds: config.httpCacheMaxAgeSeconds,
    });
    try {
      document = await fetchRelayDocument(http, relayUrl(config.answerRelay.url, at), at, {
        timeoutMs: config.limits.callTimeoutMs,
        maxBytes: config.limits.maxResponseBytes,
      });
    } catch (error) {
      throw new Error(`answer relay: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  // Contract (ERC-1271) wallets and owners: one more read, only for answers their recovered signer does not settle.
  const approved =
    document !== undefined && read.signers !== undefined
      ? readContractSignatures(
          runtime,
          evm,
          config,
          reads,
          await contractSignatureChecks(
            document,
            { chainId: config.chainId, market: config.marketAddress, marketId },
            read.signers,
          ),
        )
      : [];

  const run = await runResolution(
    marketId,
    crePorts(
      runtime,
      config,
      read.snapshot,
      read.tokenURIs,
      calls,
      rounds,
      read.cutoff,
      donAllowList(runtime, evm, config, reads, read.governance),
      read.signers,
      document,
      approved,
    ),
    {
      don: { limits: config.limits, recordCalls, relayed },
    },
  );
  const reportHex = reportOf(config, run);
  if (size(reportHex) > config.limits.maxReportBytes)
    throw new Error(`report of ${size(reportHex)} bytes exceeds ${config.limits.maxReportBytes}`);
  reports++;
  const signed = runtime.report(prepareReportRequest(reportHex)).result();
  const reply = evm
    .writeReport(runtime, {
      receiver: config.receiverAddress,
      report: signed,
      gasConfig: { gasLimit: String(config.limits.gasLimit) },
    })
    .result();
  const txHash = reply.txHash !== undefined && reply.txHash.length > 0 ? bytesToHex(reply.txHash) : undefined;
  if (reply.txStatus !== TxStatus.SUCCESS) {
    throw new Error(
      `writeReport failed: status ${TxStatus[reply.txStatus]}${reply.errorMessage ? ` (${reply.errorMessage.slice(0, 200)})` : ""}`,
    );
  }
  runtime.log(`market ${marketId}: proposed ${run.proposal.verdict}, bundle ${run.bundleHash}`);
  return summary({
    status: "proposed",
    plan,
    verdict: run.proposal.verdict,
    ...(run.invalidReason !== undefined ? { reason: run.invalidReason } : {}),
    bundleHash: run.bundleHash,
    ...(txHash !== undefined ? { txHash } : {}),
    ...(run.bundle.json.length <= MAX_BUNDLE_IN_RESULT ? { bundle: run.bundle.json } : {}),
  });
}

/** The workflow: one EVM log trigger on the market's ResolutionRequested. */
export function initWorkflow(config: WorkflowConfig) {
  const network = getNetwork({ chainFamily: "evm", chainSelectorName: config.chainSelectorName });
  if (network === undefined) throw new Error(`unknown chain selector name "${config.chainSelectorName}"`);
  const evm = new cre.capabilities.EVMClient(network.chainSelector.selector);
  const trigger = evm.logTrigger({
    addresses: [hexToBase64(config.marketAddress)],
    topics: [{ values: [hexToBase64(RESOLUTION_REQUESTED_TOPIC)] }],
    confidence: config.confidence,
  });
  return [
    cre.handler(trigger, (runtime: Runtime<WorkflowConfig>, log: EVMLog) => onResolutionRequested(runtime, log, evm)),
  ];
}

export { CRESOLVER_PROTOCOL };
