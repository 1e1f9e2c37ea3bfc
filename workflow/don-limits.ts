/**
 * Limits of one execution of the resolution on a Chainlink CRE DON (cre/resolution/), and the settings a Node
 * resolver (daemon, `cresolver resolve`) needs to produce the same bundle for the same market.
 *
 * Values: Chainlink's published per-workflow service quotas ("Service Quotas" in the CRE documentation; the copies
 * we could read differ between versions: 5 or 15 HTTP calls and 10 or 15 chain reads per execution, 10 s to connect,
 * 25 KB or 100 KB per consensus observation, 1 KB or 5 KB per report). The defaults are the lowest published
 * values; a workflow owner whose quotas were raised sets higher ones in the workflow config. See docs/CRE.md.
 * Pure data and arithmetic: imported by the CRE workflow and by Node code alike.
 */

export interface DonLimits {
  /** HTTP capability calls per execution (PerWorkflow.HTTPAction.CallLimit). */
  httpCalls: number;
  /** EVM read calls per execution (PerWorkflow.ChainRead.CallLimit). */
  chainReads: number;
  /** Deadline of one worker call (ask or challenge) and of one registration fetch, ms. */
  callTimeoutMs: number;
  /** Largest worker reply body accepted, bytes: it must fit one consensus observation with room to spare. */
  maxReplyBytes: number;
  /** Largest encoded CRE report, bytes (PerWorkflow.ChainWrite.ReportSizeLimit). */
  maxReportBytes: number;
  /** Gas limit of the forwarder transaction carrying the report (PerWorkflow.ChainWrite.EVM.TransactionGasLimit). */
  gasLimit: number;
}

export const DEFAULT_DON_LIMITS: Readonly<DonLimits> = Object.freeze({
  httpCalls: 5,
  chainReads: 10,
  callTimeoutMs: 10_000,
  // 25 KB observation quota minus the observation's own fields and protobuf framing.
  maxReplyBytes: 20 * 1024,
  maxReportBytes: 5_000,
  gasLimit: 5_000_000,
});

/** Chain reads one execution makes: market + seats + identity registry in one multicall, tokenURIs in a second. */
export const DON_CHAIN_READS_PER_MARKET = 2;

/** HTTP calls a panel needs at most: one ask and one challenge per seat, plus each registration file not inline. */
export function httpCallsNeeded(seats: number, registrationFetches: number): number {
  return 2 * seats + registrationFetches;
}

/** The largest panel one execution can resolve when every registration is an inline `data:` URI. */
export function maxDonPanel(limits: Pick<DonLimits, "httpCalls" | "maxReportBytes">): number {
  // Report: 7 head words, the reports array (offset + length + 5 words per seat), the bundle URI (≤ 2 words here).
  const byReport = Math.floor((limits.maxReportBytes - 32 * (7 + 2 + 2)) / (32 * 5));
  return Math.max(0, Math.min(Math.floor(limits.httpCalls / 2), byReport));
}

/**
 * What a Node resolver sets to resolve a market exactly as the DON does (same reply cap, same deadlines), e.g.
 * `createPipelinePorts({ ...setup, http: { ...setup.http, maxResponseBytes: p.maxResponseBytes }, resolveTimeoutMs:
 * p.resolveTimeoutMs, challengeTimeoutMs: p.challengeTimeoutMs })`. Without it the daemon accepts larger and slower
 * replies than a DON can, and the two bundles differ for such workers.
 */
export function donCompatibleHttp(limits: Pick<DonLimits, "maxReplyBytes" | "callTimeoutMs"> = DEFAULT_DON_LIMITS): {
  maxResponseBytes: number;
  resolveTimeoutMs: number;
  challengeTimeoutMs: number;
} {
  return {
    maxResponseBytes: limits.maxReplyBytes,
    resolveTimeoutMs: limits.callTimeoutMs,
    challengeTimeoutMs: limits.callTimeoutMs,
  };
}
