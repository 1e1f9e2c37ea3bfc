/**
 * runResolution: read → discover → ask → quorum → challenge → evaluate → resolve → write.
 *
 * Worker misbehaviour (unreachable, slow, malformed, hostile) is recorded per worker and never
 * stops the run. A run only throws a PipelineError for infrastructure failures: the market cannot be
 * read, the evaluator and its fallback both throw, or past reputation cannot be read. Without
 * quorum the run skips challenge/evaluate/vote and returns a no-quorum outcome with its bundle.
 * Timings are reported per stage (wall clock) and are never part of the bundle.
 */
import type { Bundle } from "../core/bundle.js";
import type { QuorumStatus } from "../core/quorum.js";
import type { EvaluationResult, Hex, MarketSnapshot, ResolutionOutcome, SettlementPlan, WorkerRecord } from "../core/types.js";
import type { ResolutionDecision } from "../core/vote.js";
import type { PipelinePorts, ResolutionConfig } from "../ports.js";
import { readStage } from "./01-read.js";
import { discoverStage } from "./02-discover.js";
import { askStage } from "./03-ask.js";
import { quorumStage } from "./04-quorum.js";
import { challengeStage } from "./05-challenge.js";
import { evaluateStage } from "./06-evaluate.js";
import { resolveStage } from "./07-resolve.js";
import { writeStage, type WriteOutcome } from "./08-write.js";

export interface StageTimings {
  read: number;
  discover: number;
  ask: number;
  quorum: number;
  challenge: number;
  evaluate: number;
  resolve: number;
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
  decision?: ResolutionDecision;
  bundle: Bundle;
  bundleHash: Hex;
  /** Present when resolved. */
  plan?: SettlementPlan;
  write: WriteOutcome;
  /** Milliseconds per stage (performance.now()); 0 for skipped stages. */
  timings: StageTimings;
}

export async function runResolution(marketId: bigint, ports: PipelinePorts, config: ResolutionConfig = {}): Promise<ResolutionRunResult> {
  const timings: StageTimings = { read: 0, discover: 0, ask: 0, quorum: 0, challenge: 0, evaluate: 0, resolve: 0, write: 0, total: 0 };
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
  const resolved = await timed("resolve", () => resolveStage(market, records, quorum, evaluation, ports.reputation, config));
  const write = await timed("write", () => writeStage(resolved.plan, ports.writer));
  timings.total = performance.now() - start;

  const outcome: ResolutionOutcome = resolved.decision?.outcome ?? { kind: "no-quorum", answered: quorum.answered, required: quorum.required };
  return {
    marketId,
    outcome,
    market,
    records,
    quorum,
    ...(evaluation !== undefined ? { evaluation } : {}),
    ...(resolved.decision !== undefined ? { decision: resolved.decision } : {}),
    bundle: resolved.bundle,
    bundleHash: resolved.bundle.hash,
    ...(resolved.plan !== undefined ? { plan: resolved.plan } : {}),
    write,
    timings,
  };
}
