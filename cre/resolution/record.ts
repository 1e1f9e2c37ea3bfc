/**
 * The track record on a DON: the served window document for the market's cut-off (docs/TRACK-RECORD.md), fetched
 * in one HTTP call (its own consensus round: the nodes agree on the document's digest, then each runs on its own
 * identical copy) and verified against the cut-off head read in the execution's multicall. The estimator and the
 * window are the project's own (workflow/core/track-record.ts, core/vote.ts), unchanged: the same entries give the
 * daemon, `cresolver resolve` and the DON the same history, posterior and verdict. A server can withhold the
 * document (the execution then proposes nothing), never alter it: every entry is proven by the on-chain head.
 */
import { type ArbiterAllowList, withAllowedRulings } from "../../workflow/allowed-rulings.js";
import { type RecordCutoff, verifyWindowDocument } from "../../workflow/core/record-document.js";
import { windowHistory } from "../../workflow/core/track-record.js";
import type { SafeHttpClient } from "../../workflow/http/types.js";
import type { TrackRecordSource } from "../../workflow/ports.js";
import type { WorkflowConfig } from "./config.js";

/** The document URL for a market: the configured template with its placeholders filled in. */
export function recordUrl(template: string, config: WorkflowConfig, marketId: bigint, cutoff: RecordCutoff): string {
  return template
    .replaceAll("{chainId}", String(config.chainId))
    .replaceAll("{market}", config.marketAddress.toLowerCase())
    .replaceAll("{marketId}", marketId.toString())
    .replaceAll("{count}", String(cutoff.count));
}

export function createDonTrackRecord(
  http: SafeHttpClient,
  config: WorkflowConfig,
  cutoff: RecordCutoff,
  allowList: ArbiterAllowList,
): TrackRecordSource | undefined {
  const served = config.trackRecord;
  if (served === undefined) return undefined;
  const ctx = { chainId: config.chainId, market: config.marketAddress, trustedArbiters: served.trustedArbiters };
  // Rulings by arbiters the deployment allows are truth, marked as the daemon marks them (allowed-rulings.ts).
  return withAllowedRulings(
    {
      async history(market) {
        // An empty record needs no document (the plan's reserved call is simply not used).
        if (cutoff.count === 0) return [];
        const text = await http.getText(recordUrl(served.url, config, market.marketId, cutoff), {
          timeoutMs: config.limits.callTimeoutMs,
          maxBytes: config.limits.maxResponseBytes,
        });
        const { entries } = verifyWindowDocument(text, cutoff, ctx);
        return windowHistory(
          entries,
          market.workers.map((w) => w.agentId),
          ctx,
        );
      },
    },
    allowList,
  );
}
