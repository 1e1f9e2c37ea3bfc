/**
 * Stage 7 — resolve: the public track record of the panel's agents (TrackRecordSource port) and the verdict
 * (core/vote.ts decideVerdict: accuracy-weighted, text quality never enters). Always decides — without quorum
 * the verdict is invalid "no-quorum" (a proposal too). The bundle is built after the review stage (09-bundle.ts),
 * so that the reviews are part of the hashed document.
 */
import { reportFromRecord } from "../core/correctness.js";
import type { QuorumStatus } from "../core/quorum.js";
import type {
  EvaluationResult,
  HistoryMarket,
  MarketSnapshot,
  WorkerEvaluation,
  WorkerRecord,
  WorkerReport,
} from "../core/types.js";
import { decideVerdict, type VerdictDecision } from "../core/vote.js";
import type { ResolutionConfig, TrackRecordSource } from "../ports.js";
import { PipelineError } from "./errors.js";
import { signedReportFields } from "./signatures.js";

/** The key HistoryMarket uses for `market`. */
export function marketKey(market: Pick<MarketSnapshot, "chainId" | "marketAddress" | "marketId">): string {
  return `${market.chainId}:${market.marketAddress.toLowerCase()}:${market.marketId}`;
}

/** The track record for `market` (empty without a source), the market itself left out. */
export async function readTrackRecord(
  market: MarketSnapshot,
  source: TrackRecordSource | undefined,
): Promise<HistoryMarket[]> {
  if (source === undefined) return [];
  let history: HistoryMarket[];
  try {
    history = await source.history(market);
  } catch (error) {
    // The record decides the weights: voting without it would not be the configured decision.
    throw new PipelineError("resolve", "the track record could not be read", error);
  }
  const own = marketKey(market);
  return history.filter((m) => m.key.toLowerCase() !== own);
}

/**
 * One WorkerReport per seat (seat order), scores from the evaluation matched by address, the reply hash and the
 * signature only when the signature check verified it (pipeline/signatures.ts).
 */
export function reportsOf(records: readonly WorkerRecord[], evaluation: EvaluationResult | undefined): WorkerReport[] {
  const byAddr = new Map<string, WorkerEvaluation>();
  for (const e of evaluation?.evaluations ?? [])
    if (!byAddr.has(e.address.toLowerCase())) byAddr.set(e.address.toLowerCase(), e);
  return records.map((r) => ({
    ...reportFromRecord(r, byAddr.get(r.seat.address.toLowerCase())),
    ...signedReportFields(r),
  }));
}

export async function resolveStage(
  market: MarketSnapshot,
  records: readonly WorkerRecord[],
  quorum: QuorumStatus,
  evaluation: EvaluationResult | undefined,
  trackRecord: TrackRecordSource | undefined,
  config: ResolutionConfig = {},
): Promise<VerdictDecision> {
  // Without quorum the verdict is invalid whatever the record says: do not read it.
  const history = quorum.reached ? await readTrackRecord(market, trackRecord) : [];
  return decideVerdict(
    {
      agentIds: records.map((r) => r.seat.agentId),
      reports: reportsOf(records, evaluation),
      history,
      ...(config.admission !== undefined ? { admission: config.admission } : {}),
    },
    config.vote,
  );
}
