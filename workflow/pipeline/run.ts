/**
 * runResolution: read → discover → ask → quorum → challenge → evaluate → resolve → review → bundle.
 *
 * The run decides and never writes: it returns a verdict (yes | no with every seat's report, or invalid with a
 * reason and the reports) and the bundle; workflow/settle/ turns that into the bonded on-chain proposal, for the
 * CLI, the daemon and the CRE workflow alike.
 *
 * Worker misbehaviour (unreachable, slow, malformed, hostile) is recorded per worker and never stops the run.
 * A run only throws a PipelineError for infrastructure failures (the market or the track record cannot be read,
 * the evaluator and its fallback both throw), and a RunAbortedError when its `signal` fires: in-flight agent calls
 * are aborted at once (the signal reaches the HTTP client through workflow/http/abort.ts).
 * Each worker's share of the bundle is capped (cap.ts) so that the stored bundle is always the proposed one.
 * Timings are reported per stage (wall clock) and are never part of the bundle.
 */
import type { Bundle } from "../core/bundle.js";
import type { QuorumStatus } from "../core/quorum.js";
import type {
  EvaluationResult,
  FailureKind,
  Hex,
  MarketSnapshot,
  ResolutionOutcome,
  VerdictProposal,
  WorkerRecord,
} from "../core/types.js";
import type { VerdictDecision } from "../core/vote.js";
import { withAbortSignal } from "../http/abort.js";
import type { PipelinePorts, ResolutionConfig } from "../ports.js";
import { readStage } from "./01-read.js";
import { discoverStage } from "./02-discover.js";
import { askStage } from "./03-ask.js";
import { quorumStage } from "./04-quorum.js";
import { challengeStage } from "./05-challenge.js";
import { evaluateStage } from "./06-evaluate.js";
import { resolveStage } from "./07-resolve.js";
import { reviewStage } from "./08-review.js";
import { bundleStage } from "./09-bundle.js";
import { capWorkerShares } from "./cap.js";
import { donModeRun, withSkippedChallenges } from "./don-mode.js";
import { checkSignatures } from "./signatures.js";
import { RunAbortedError, type StageName } from "./errors.js";
import { emit, stageFailures, type ProgressListener } from "./call-worker.js";

export interface StageTimings {
  read: number;
  discover: number;
  ask: number;
  quorum: number;
  challenge: number;
  evaluate: number;
  resolve: number;
  review: number;
  bundle: number;
  total: number;
}

/** A seat that produced no answer, and why (for the operator: a fixable cause must not end in a refund). */
export interface FailedWorker {
  seat: number;
  agentId: bigint;
  address: `0x${string}`;
  kind: FailureKind;
  message: string;
}

export interface ResolutionRunResult {
  marketId: bigint;
  /** The verdict and the reports to propose (bundleHash = this run's bundle). */
  proposal: VerdictProposal;
  /** Why the verdict is invalid (no-quorum, tie, below-threshold, …); absent for yes/no. */
  invalidReason?: string;
  /** Seats without an answer (abstentions excluded), in seat order. */
  failedWorkers: FailedWorker[];
  /** Legacy view: resolved / no-quorum / no-margin. */
  outcome: ResolutionOutcome;
  market: MarketSnapshot;
  /** One per seat, in on-chain order. */
  records: WorkerRecord[];
  quorum: QuorumStatus;
  /** Absent without quorum. */
  evaluation?: EvaluationResult;
  decision: VerdictDecision;
  bundle: Bundle;
  bundleHash: Hex;
  /** Milliseconds per stage (performance.now()); 0 for skipped stages. */
  timings: StageTimings;
}

export interface RunOptions {
  /** Aborts the run and its in-flight agent calls (daemon shutdown, job timeout). */
  signal?: AbortSignal;
  /** Progress of the worker calls: whom a stage waits on and until when, then each answer or failure. */
  onProgress?: ProgressListener;
}

export function failedWorkers(records: readonly WorkerRecord[]): FailedWorker[] {
  const out: FailedWorker[] = [];
  records.forEach((r, seat) => {
    if (r.answer !== undefined) return;
    const f = r.discoveryFailure ?? r.askFailure;
    if (f === undefined || f.kind === "abstained") return;
    out.push({ seat, agentId: r.seat.agentId, address: r.seat.address, kind: f.kind, message: f.message });
  });
  return out;
}

export async function runResolution(
  marketId: bigint,
  ports: PipelinePorts,
  config: ResolutionConfig = {},
  options: RunOptions = {},
): Promise<ResolutionRunResult> {
  const { signal, onProgress } = options;
  const timings: StageTimings = {
    read: 0,
    discover: 0,
    ask: 0,
    quorum: 0,
    challenge: 0,
    evaluate: 0,
    resolve: 0,
    review: 0,
    bundle: 0,
    total: 0,
  };
  const start = performance.now();
  const timed = async <T>(stage: Exclude<keyof StageTimings, "total">, fn: () => Promise<T> | T): Promise<T> => {
    if (signal?.aborted) throw new RunAbortedError(stage as StageName, signal.reason);
    const t0 = performance.now();
    let result: T;
    try {
      result = await withAbortSignal(signal, async () => fn());
    } catch (error) {
      // An aborted stage's error (or its partial results below) is reported as the abort.
      if (signal?.aborted) throw new RunAbortedError(stage as StageName, signal.reason);
      throw error;
    } finally {
      timings[stage] = performance.now() - t0;
    }
    if (signal?.aborted) throw new RunAbortedError(stage as StageName, signal.reason);
    return result;
  };

  const market = await timed("read", () => readStage(ports.market, marketId));
  const don = config.don !== undefined ? donModeRun(config.don, market, ports.directory) : undefined;
  const discovered = await timed("discover", () =>
    discoverStage(market, don !== undefined ? { ...ports, directory: don.directory } : ports, config),
  );
  let records = capWorkerShares(
    await timed("ask", async () =>
      checkSignatures(market, await askStage(market, discovered, ports.adapters, onProgress), ports.signatures),
    ),
  );
  const quorum = await timed("quorum", () => quorumStage(market, records));

  let evaluation: EvaluationResult | undefined;
  let challengesSkipped: string | undefined;
  if (quorum.reached) {
    challengesSkipped = don?.challengeShortfall(quorum.answered);
    if (challengesSkipped === undefined)
      records = capWorkerShares(
        await timed("challenge", () => challengeStage(market, records, ports.adapters, onProgress)),
      );
    evaluation = await timed("evaluate", () =>
      evaluateStage(market, records, ports.evaluator, ports.fallbackEvaluator),
    );
  }
  const decision = await timed("resolve", () =>
    resolveStage(market, records, quorum, evaluation, ports.trackRecord, config),
  );
  records = capWorkerShares(
    await timed("review", () => reviewStage(market, records, decision, ports.adapters, onProgress)),
  );
  emit(onProgress, { type: "summary", failed: stageFailures(records) });
  const sealed = await timed("bundle", () =>
    bundleStage(market, records, quorum, evaluation, decision, withSkippedChallenges(config, challengesSkipped)),
  );
  timings.total = performance.now() - start;
  const proposal: VerdictProposal = sealed.proposal ?? {
    marketId,
    verdict: decision.verdict,
    reports: decision.reports,
    bundleHash: sealed.bundle.hash,
  };

  return {
    marketId,
    proposal,
    ...(decision.reason !== undefined ? { invalidReason: decision.reason } : {}),
    failedWorkers: failedWorkers(records),
    outcome: decision.outcome,
    market,
    records,
    quorum,
    ...(evaluation !== undefined ? { evaluation } : {}),
    decision,
    bundle: sealed.bundle,
    bundleHash: sealed.bundle.hash,
    timings,
  };
}
