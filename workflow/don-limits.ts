/**
 * Limits of one execution of the resolution on a Chainlink CRE DON (cre/resolution/), the plan that keeps an
 * execution inside them, and the settings a Node resolver (daemon, `cresolver resolve`) needs to produce the same
 * bundle for the same market (its DON-compatible mode).
 *
 * Values: Chainlink's published per-workflow service quotas ("Service Quotas" in the CRE documentation, and the
 * defaults of chainlink-common's `cresettings`): 5 HTTP calls, 10 KB per request, 100 KB per response, 10 s to
 * connect; 10 EVM reads (15 in code); 25 KB per consensus observation (100 KB in code); 20 consensus calls in code
 * (2,000 on the page); 5 KB per report; 5 M gas per write. The defaults are the lowest published values; a workflow
 * owner whose quotas were raised sets higher ones in the workflow config. See docs/CRE.md.
 *
 * The plan is pure arithmetic over numbers both sides know before any call (seats, registration files to fetch,
 * track-record pages, the question's size), so a DON and a daemon in DON-compatible mode make the same decisions —
 * above all whether the challenge round is affordable — and produce one bundle. Imported by the CRE workflow and by
 * Node code alike.
 */

export interface DonLimits {
  /** HTTP capability calls per execution (PerWorkflow.HTTPAction.CallLimit), every node's call counted. */
  httpCalls: number;
  /** Consensus calls per execution: each `runInNodeMode` and each `report` is one. */
  consensusCalls: number;
  /** EVM read calls per execution (PerWorkflow.ChainRead.CallLimit). */
  chainReads: number;
  /** Deadline of one worker call (ask or challenge) and of one registration fetch, ms. */
  callTimeoutMs: number;
  /** Largest worker reply body accepted, bytes (the daemon's cap in DON-compatible mode too). */
  maxReplyBytes: number;
  /** Largest HTTP response the capability returns, bytes (the track-record document must fit it). */
  maxResponseBytes: number;
  /** Largest HTTP request (URL, headers and body), bytes. */
  maxRequestBytes: number;
  /** Largest consensus observation, bytes. */
  maxObservationBytes: number;
  /** Largest encoded CRE report, bytes (PerWorkflow.ChainWrite.ReportSizeLimit). */
  maxReportBytes: number;
  /** Gas limit of the forwarder transaction carrying the report (PerWorkflow.ChainWrite.EVM.TransactionGasLimit). */
  gasLimit: number;
}

export const DEFAULT_DON_LIMITS: Readonly<DonLimits> = Object.freeze({
  httpCalls: 5,
  consensusCalls: 20,
  chainReads: 10,
  callTimeoutMs: 10_000,
  maxReplyBytes: 20 * 1024,
  maxResponseBytes: 100_000,
  maxRequestBytes: 10_000,
  maxObservationBytes: 25_000,
  maxReportBytes: 5_000,
  gasLimit: 5_000_000,
});

/** Chain reads one execution makes: market + seats + identity registry in one multicall, tokenURIs in a second. */
export const DON_CHAIN_READS_PER_MARKET = 2;

/**
 * What one HTTP call adds to its round's consensus observation, at most: status, size, a 32-byte digest of the
 * body (bodies never enter the observation), failure kind and message. Messages name the URL through
 * `describeUrl` (host + at most 80 characters of path), so 1 KiB bounds them.
 */
export const OBSERVATION_BYTES_PER_CALL = 1024;

/** Room an ask request needs besides the question (URL, headers, market id, deadline, JSON framing). */
export const ASK_REQUEST_OVERHEAD_BYTES = 1024;
/** Room a challenge request needs besides the question: the three generated challenges and the same framing. */
export const CHALLENGE_REQUEST_OVERHEAD_BYTES = 4096;

/** Calls one consensus round can carry (its observation must fit the quota). */
export function callsPerRound(limits: Pick<DonLimits, "maxObservationBytes">): number {
  return Math.max(1, Math.floor(limits.maxObservationBytes / OBSERVATION_BYTES_PER_CALL));
}

/** Consensus calls `calls` HTTP calls made in one stage take. */
export function roundsFor(calls: number, limits: Pick<DonLimits, "maxObservationBytes">): number {
  return calls <= 0 ? 0 : Math.ceil(calls / callsPerRound(limits));
}

/** Encoded size of a CRE report for `seats` seats (workflow/chain/cre-report.ts): 7 head words, the reports array
 * (offset + length + 5 words per seat), the bundle URI (≤ 2 words). */
export function reportBytes(seats: number): number {
  return 32 * (7 + 2 + 2) + 32 * 5 * seats;
}

/** What one execution has to do, known before its first HTTP call. */
export interface DonWorkload {
  seats: number;
  /** Registration files to fetch over HTTP (every tokenURI that is not an inline `data:` URI). */
  registrationFetches: number;
  /** HTTP calls the track record takes (0: no record fetched). Each is its own consensus round. */
  recordCalls: number;
  /** UTF-8 size of the market's question and context. */
  questionBytes: number;
  /**
   * The answers come from a relay's signed-answers document (workflow/relay/): the ask stage is ONE HTTP call and
   * one consensus round whatever the panel, instead of one call per seat.
   */
  relayed?: boolean;
}

/** HTTP calls the ask stage takes: one per seat, or the one relay fetch. */
export function askCalls(w: Pick<DonWorkload, "seats" | "relayed">): number {
  return w.relayed === true ? Math.min(1, w.seats) : w.seats;
}

export interface DonPlan {
  /** HTTP calls reserved per stage; `challenge` is the most the challenge round may take (0: skipped). */
  httpCalls: { registration: number; ask: number; record: number; challenge: number; total: number };
  /** Consensus calls reserved per stage (the report is one). */
  consensusCalls: {
    registration: number;
    ask: number;
    record: number;
    challenge: number;
    report: number;
    total: number;
  };
  /** Why the challenge round will not run whatever the answers, or undefined when it may. */
  challengesSkipped?: string;
}

function base(limits: DonLimits, w: DonWorkload) {
  const asks = askCalls(w);
  const http = w.registrationFetches + asks + w.recordCalls;
  const consensus = roundsFor(w.registrationFetches, limits) + roundsFor(asks, limits) + w.recordCalls + 1;
  return { http, consensus };
}

/** Why the challenge round cannot run for `answered` answers, or undefined when it fits every quota. */
export function challengeShortfall(limits: DonLimits, w: DonWorkload, answered: number): string | undefined {
  const used = base(limits, w);
  const httpLeft = limits.httpCalls - used.http;
  if (answered > httpLeft)
    return `${answered} challenge calls needed, ${Math.max(0, httpLeft)} of the ${limits.httpCalls} HTTP calls left`;
  const consensusLeft = limits.consensusCalls - used.consensus;
  if (roundsFor(answered, limits) > consensusLeft)
    return `${roundsFor(answered, limits)} consensus calls needed, ${Math.max(0, consensusLeft)} left`;
  if (w.questionBytes + CHALLENGE_REQUEST_OVERHEAD_BYTES > limits.maxRequestBytes)
    return `a challenge request would exceed the ${limits.maxRequestBytes}-byte request quota`;
  return undefined;
}

/** Why `w` does not fit one execution (asks, registrations, record, report, request size), or undefined. */
function refusal(limits: DonLimits, w: DonWorkload): string | undefined {
  const used = base(limits, w);
  if (used.http > limits.httpCalls)
    return `${w.relayed === true ? "1 relay fetch" : `${w.seats} asks`} + ${w.registrationFetches} registration fetches + ${w.recordCalls} track-record calls = ${used.http} HTTP calls; this DON execution allows ${limits.httpCalls}`;
  if (used.consensus > limits.consensusCalls)
    return `${used.consensus} consensus calls needed; this DON execution allows ${limits.consensusCalls}`;
  if (reportBytes(w.seats) > limits.maxReportBytes)
    return `a report of ${reportBytes(w.seats)} bytes exceeds the ${limits.maxReportBytes}-byte quota`;
  if (w.questionBytes + ASK_REQUEST_OVERHEAD_BYTES > limits.maxRequestBytes)
    return `the question makes an ask request larger than the ${limits.maxRequestBytes}-byte quota`;
  return undefined;
}

/**
 * The plan of one execution, or why the market cannot be resolved within the quotas (then nothing is called: the
 * market is left to a daemon). Asks are never dropped: a panel resolves with every seat asked or not at all.
 */
export function planDonExecution(limits: DonLimits, w: DonWorkload): { plan: DonPlan } | { refused: string } {
  const refused = refusal(limits, w);
  if (refused !== undefined)
    return {
      refused: `panel of ${w.seats}: ${refused} (max panel ${maxDonPanel(limits, w)}); leave it to a daemon resolver`,
    };
  const used = base(limits, w);
  // Worst case: every seat answers. Fewer answers may still be challenged (decided after the ask round).
  const skipped = challengeShortfall(limits, w, w.seats);
  const challenge = skipped === undefined ? w.seats : 0;
  const challengeRounds = roundsFor(challenge, limits);
  return {
    plan: {
      httpCalls: {
        registration: w.registrationFetches,
        ask: askCalls(w),
        record: w.recordCalls,
        challenge,
        total: used.http + challenge,
      },
      consensusCalls: {
        registration: roundsFor(w.registrationFetches, limits),
        ask: roundsFor(askCalls(w), limits),
        record: w.recordCalls,
        challenge: challengeRounds,
        report: 1,
        total: used.consensus + challengeRounds,
      },
      ...(skipped !== undefined ? { challengesSkipped: skipped } : {}),
    },
  };
}

/** The largest panel one execution resolves (every seat asked; challenges only where they fit). */
export function maxDonPanel(
  limits: DonLimits,
  w: Pick<DonWorkload, "recordCalls"> & Partial<Pick<DonWorkload, "registrationFetches" | "relayed">> = {
    recordCalls: 0,
  },
): number {
  let best = 0;
  for (let n = 1; n <= 1_000; n++) {
    const workload = {
      seats: n,
      registrationFetches: w.registrationFetches ?? 0,
      recordCalls: w.recordCalls,
      questionBytes: 0,
      relayed: w.relayed === true,
    };
    if (refusal(limits, workload) !== undefined) break;
    best = n;
  }
  return best;
}

/** The largest panel one execution resolves with its challenge round. */
export function maxChallengedDonPanel(limits: DonLimits, recordCalls = 0, relayed = false): number {
  let best = 0;
  for (let n = 1; n <= 1_000; n++) {
    const out = planDonExecution(limits, { seats: n, registrationFetches: 0, recordCalls, questionBytes: 0, relayed });
    if ("refused" in out) break;
    if (out.plan.challengesSkipped === undefined) best = n;
  }
  return best;
}

/**
 * The pipeline's DON-compatible mode (ResolutionConfig.don): the quotas and the track-record calls the execution
 * reserves. The pipeline counts the registration files it fetches and decides the challenge round with
 * `challengeShortfall`, exactly as the DON does.
 */
export interface DonRunMode {
  limits: DonLimits;
  recordCalls: number;
  /** The answers come from a relay's document (one HTTP call for the whole panel). */
  relayed?: boolean;
}

/** The bundle's note when the DON-compatible run skipped the challenge round (what the evaluation lacks). */
export function challengesSkippedNote(reason: string): Record<string, unknown> {
  return {
    don: {
      challenges: "skipped",
      reason,
      lacks:
        "challenge replies: the evaluation scores (collaboration) are from the answers alone; the vote reads only answers and confidences",
    },
  };
}

/**
 * What a Node resolver sets to resolve a market exactly as the DON does (same reply cap, same deadlines), e.g.
 * `createPipelinePorts({ ...setup, http: { ...setup.http, maxResponseBytes: p.maxResponseBytes }, resolveTimeoutMs:
 * p.resolveTimeoutMs, challengeTimeoutMs: p.challengeTimeoutMs })`, plus `runResolution(..., { don: { limits,
 * recordCalls } })`. Without it the daemon accepts larger and slower replies than a DON can, and the two bundles
 * differ for such workers.
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

/** True for a tokenURI the discover stage decodes without an HTTP call. */
export function isInlineUri(uri: string): boolean {
  return uri.trim().toLowerCase().startsWith("data:");
}

/** UTF-8 bytes of the market text every request carries. */
export function questionBytes(question: string, context: string): number {
  return new TextEncoder().encode(question).length + new TextEncoder().encode(context).length;
}
