/**
 * Stage 3 — ask: every discovered worker at once (latency = the slowest worker, not the sum).
 * The adapter is chosen by the endpoint's protocol. Adapters return failures; a throwing adapter is
 * caught here too, so one broken worker or adapter can never stop the run.
 */
import type { AdapterRegistry } from "../adapters/registry.js";
import type { AskRequest, CallResult, DiscoveredWorkerRecord, MarketSnapshot, WorkerAnswer, WorkerRecord } from "../core/types.js";
import { errorName } from "./errors.js";

export async function askStage(market: MarketSnapshot, records: readonly DiscoveredWorkerRecord[], adapters: AdapterRegistry): Promise<WorkerRecord[]> {
  const request: AskRequest = { marketId: market.marketId, question: market.question, deadline: market.deadline, context: market.context, workerCount: market.workers.length };
  return Promise.all(
    records.map(async (record): Promise<WorkerRecord> => {
      if (!("endpoint" in record)) return { ...record };
      const adapter = adapters.get(record.endpoint.protocol);
      if (adapter === undefined) {
        return { ...record, askFailure: { kind: "unsupported-protocol", message: `no adapter for protocol "${record.endpoint.protocol.slice(0, 60)}"` } };
      }
      let result: CallResult<WorkerAnswer>;
      try {
        result = await adapter.ask(record.endpoint, record.seat, request);
      } catch (error) {
        result = { ok: false, failure: { kind: "network", message: `adapter ${adapter.protocol} failed (${errorName(error)})` }, latencyMs: 0, attempts: 0 };
      }
      return result.ok
        ? { ...record, answer: result.value, askLatencyMs: result.latencyMs }
        : { ...record, askFailure: result.failure, askLatencyMs: result.latencyMs };
    }),
  );
}
