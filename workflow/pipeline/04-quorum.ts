/**
 * Stage 4 — quorum: ⌈2n/3⌉ valid answers, n = the market's frozen worker count (not the number of
 * responders). Pure; the arithmetic lives in core/quorum.ts.
 */
import { quorumStatus, type QuorumStatus } from "../core/quorum.js";
import type { MarketSnapshot, WorkerRecord } from "../core/types.js";

export function quorumStage(market: MarketSnapshot, records: readonly WorkerRecord[]): QuorumStatus {
  return quorumStatus(market.workers.length, records.filter((r) => r.answer !== undefined).length);
}
