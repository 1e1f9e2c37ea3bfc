/**
 * Stage 5 — challenge: three challenges per answering worker (core/challenges.ts, derived from the
 * disagreement structure without revealing who said what), sent to all of them at once. Short or
 * missing replies are recorded as they are (they lower Collaboration); failures never throw.
 */
import type { AdapterRegistry } from "../../protocols/shared/types.js";
import { generateChallenges } from "../core/challenges.js";
import { peerFindings } from "../core/peers.js";
import { type AskRequest, isAnswered, type MarketSnapshot, type WorkerRecord } from "../core/types.js";
import { callWorkers, type ProgressListener, type WorkerCallPlan } from "./call-worker.js";

export async function challengeStage(
  market: MarketSnapshot,
  records: readonly WorkerRecord[],
  adapters: AdapterRegistry,
  onProgress?: ProgressListener,
): Promise<WorkerRecord[]> {
  const byAddress = generateChallenges(
    market,
    records.filter((r) => r.answer !== undefined),
  );
  const ask: AskRequest = {
    marketId: market.marketId,
    question: market.question,
    deadline: market.deadline,
    context: market.context,
    workerCount: market.workers.length,
  };
  return callWorkers(
    "challenge",
    records,
    (record): WorkerCallPlan<string[]> => {
      const challenges = isAnswered(record) ? byAddress.get(record.seat.address) : undefined;
      if (challenges === undefined || !isAnswered(record)) return { skip: { ...record } };
      const { endpoint, answer } = record;
      const adapter = adapters.get(endpoint.protocol);
      if (adapter === undefined)
        return {
          skip: { ...record, challenges, challengeFailure: { kind: "unsupported-protocol", message: "no adapter" } },
        };
      return {
        adapter,
        invoke: () =>
          adapter.challenge(endpoint, record.seat, {
            ask,
            challenges,
            own: answer,
            peers: peerFindings(records, record.seat.address),
          }),
        apply: (result) =>
          result.ok
            ? { ...record, challenges, challengeReplies: result.value, challengeLatencyMs: result.latencyMs }
            : { ...record, challenges, challengeFailure: result.failure, challengeLatencyMs: result.latencyMs },
      };
    },
    onProgress,
  );
}
