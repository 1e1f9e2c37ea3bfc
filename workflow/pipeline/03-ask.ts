/**
 * Stage 3 — ask: every discovered worker at once (latency = the slowest worker, not the sum).
 * The adapter is chosen by the endpoint's protocol; calls go through call-worker.ts (a throwing adapter is
 * the seat's failure, progress is reported).
 */
import type { AdapterRegistry } from "../../protocols/shared/types.js";
import type { AskRequest, DiscoveredWorkerRecord, MarketSnapshot, WorkerAnswer, WorkerRecord } from "../core/types.js";
import { callWorkers, type ProgressListener, type WorkerCallPlan } from "./call-worker.js";

export async function askStage(
  market: MarketSnapshot,
  records: readonly DiscoveredWorkerRecord[],
  adapters: AdapterRegistry,
  onProgress?: ProgressListener,
): Promise<WorkerRecord[]> {
  const request: AskRequest = {
    marketId: market.marketId,
    question: market.question,
    deadline: market.deadline,
    context: market.context,
    workerCount: market.workers.length,
    chainId: market.chainId,
    marketAddress: market.marketAddress,
  };
  return callWorkers(
    "ask",
    records,
    (record): WorkerCallPlan<WorkerAnswer> => {
      if (!("endpoint" in record)) return { skip: { ...record } };
      const { endpoint } = record;
      const adapter = adapters.get(endpoint.protocol);
      if (adapter === undefined) {
        return {
          skip: {
            ...record,
            askFailure: {
              kind: "unsupported-protocol",
              message: `no adapter for protocol "${endpoint.protocol.slice(0, 60)}"`,
            },
          },
        };
      }
      return {
        adapter,
        invoke: () => adapter.ask(endpoint, record.seat, request),
        apply: (result) =>
          result.ok
            ? { ...record, answer: result.value, askLatencyMs: result.latencyMs }
            : { ...record, askFailure: result.failure, askLatencyMs: result.latencyMs },
      };
    },
    onProgress,
  );
}
