/**
 * runResolution: read → discover → ask → quorum → challenge → evaluate → resolve → review → bundle → write.
 *
 * Worker misbehaviour (unreachable, slow, malformed, hostile) is recorded per worker and never
 * stops the run. A run only throws a PipelineError for infrastructure failures: the market cannot be
 * read, the evaluator and its fallback both throw, or past reputation cannot be read. Without
 * quorum the run skips challenge/evaluate/vote/review and returns a no-quorum outcome with its bundle.
 * The review stage is advisory: verdicts go into the bundle and never change the outcome.
 * Timings are reported per stage (wall clock) and are never part of the bundle.
 */
import type { Bundle } from "../core/bundle.js";
import type { QuorumStatus } from "../core/quorum.js";
import type { EvaluationResult, Hex, MarketSnapshot, ResolutionOutcome, SettlementPlan, WorkerRecord } from "../core/types.js";
import type { VerdictDecision } from "../core/vote.js";
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
import { writeStage, type WriteOutcome } from "./10-write.js";

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
  write: number;
  total: number;
}

export interface ResolutionRunResult {
  marketId: bigint;
  outcome: ResolutionOutcome;
  market: MarketSnapshot;
  /** One per seat, in on-chain order. */
  records: WorkerRecord[];
  quorum: QuorumStatus;
  /** Absent without quorum. */
  evaluation?: EvaluationResult;
  /** Absent without quorum. */
  decision?: VerdictDecision;
  bundle: Bundle;
  bundleHash: Hex;
  /** Present when resolved. */
  plan?: SettlementPlan;
  write: WriteOutcome;
  /** Milliseconds per stage (performance.now()); 0 for skipped stages. */
  timings: StageTimings;
}

export async function runResolution(marketId: bigint, ports: PipelinePorts, config: ResolutionConfig = {}): Promise<ResolutionRunResult> {
  const timings: StageTimings = { read: 0, discover: 0, ask: 0, quorum: 0, challenge: 0, evaluate: 0, resolve: 0, review: 0, bundle: 0, write: 0, total: 0 };
  const start = performance.now();
  const timed = async <T>(stage: Exclude<keyof StageTimings, "total">, fn: () => Promise<T> | T): Promise<T> => {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      timings[stage] = performance.now() - t0;
    }
  };

  const market = await timed("read", () => readStage(ports.market, marketId));
  let records = await timed("discover", () => discoverStage(market, ports, config));
  records = await timed("ask", () => askStage(market, records, ports.adapters));
  const quorum = await timed("quorum", () => quorumStage(market, records));

  let evaluation: EvaluationResult | undefined;
  if (quorum.reached) {
    records = await timed("challenge", () => challengeStage(market, records, ports.adapters));
    evaluation = await timed("evaluate", () => evaluateStage(market, records, ports.evaluator, ports.fallbackEvaluator));
  }
  const decision = await timed("resolve", () => resolveStage(market, records, quorum, evaluation, ports.trackRecord, config));
  records = await timed("review", () => reviewStage(market, records, decision, ports.adapters));
  const sealed = await timed("bundle", () => bundleStage(market, records, quorum, evaluation, decision, config));
  const write = await timed("write", () => writeStage(sealed.plan, ports.writer));
  timings.total = performance.now() - start;

  const outcome: ResolutionOutcome = decision?.outcome ?? { kind: "no-quorum", answered: quorum.answered, required: quorum.required };
  return {
    marketId,
    outcome,
    market,
    records,
    quorum,
    ...(evaluation !== undefined ? { evaluation } : {}),
    ...(decision !== undefined ? { decision } : {}),
    bundle: sealed.bundle,
    bundleHash: sealed.bundle.hash,
    ...(sealed.plan !== undefined ? { plan: sealed.plan } : {}),
    write,
    timings,
  };
}
