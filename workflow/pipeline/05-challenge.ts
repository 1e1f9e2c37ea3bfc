/**
 * Stage 5 — challenge: three challenges per answering worker (core/challenges.ts, derived from the
 * disagreement structure without revealing who said what), sent to all of them at once. Short or
 * missing replies are recorded as they are (they lower Collaboration); failures never throw.
 */
import type { AdapterRegistry } from "../adapters/registry.js";
import { generateChallenges } from "../core/challenges.js";
import { peerFindings } from "../core/peers.js";
import type { AskRequest, CallResult, MarketSnapshot, WorkerRecord } from "../core/types.js";
import { errorName } from "./errors.js";

export async function challengeStage(market: MarketSnapshot, records: readonly WorkerRecord[], adapters: AdapterRegistry): Promise<WorkerRecord[]> {
  const byAddress = generateChallenges(market, records.filter((r) => r.answer !== undefined));
  const ask: AskRequest = { marketId: market.marketId, question: market.question, deadline: market.deadline, context: market.context, workerCount: market.workers.length };
  return Promise.all(
    records.map(async (record): Promise<WorkerRecord> => {
      const challenges = record.answer !== undefined ? byAddress.get(record.seat.address) : undefined;
      if (challenges === undefined || record.answer === undefined) return { ...record };
      const adapter = adapters.get(record.endpoint.protocol);
      if (adapter === undefined) {
        return { ...record, challenges, challengeFailure: { kind: "unsupported-protocol", message: "no adapter" } };
      }
      let result: CallResult<string[]>;
      try {
        const request = { ask, challenges, own: record.answer, peers: peerFindings(records, record.seat.address) };
        result = await adapter.challenge(record.endpoint, record.seat, request);
      } catch (error) {
        result = { ok: false, failure: { kind: "network", message: `adapter ${adapter.protocol} failed (${errorName(error)})` }, latencyMs: 0, attempts: 0 };
      }
      return result.ok
        ? { ...record, challenges, challengeReplies: result.value, challengeLatencyMs: result.latencyMs }
        : { ...record, challenges, challengeFailure: result.failure, challengeLatencyMs: result.latencyMs };
    }),
  );
}
