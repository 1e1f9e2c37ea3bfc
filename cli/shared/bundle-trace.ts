/**
 * The resolution trace of `market show`: the bundle (a local file, or the proposal's http(s) bundle URI through
 * the safe HTTP client) checked against the on-chain bundle hash, reduced to what a reader needs per worker
 * (answer or failure, scores, vote weight, reward weight) and the decision (verdict, reason, posterior). The bundle
 * is read with `parseStoredBundle`: one that does not match the schema is reported as a one-line error.
 */
import { readFileSync } from "node:fs";
import type { Hex } from "viem";
import { bundleHash, canonicalJson, MAX_BUNDLE_BYTES } from "../../workflow/core/bundle.js";
import {
  type BundleDocument,
  type BundleWorker,
  parseStoredBundle,
  type StoredBundleDocument,
} from "../../workflow/core/bundle-schema.js";
import { formatReason, percent, percentOfBps } from "../../workflow/core/explain.js";
import { primaryReason } from "../../workflow/core/explain-reason.js";
import { createSafeHttpClient } from "../../workflow/http/index.js";

type Decision = NonNullable<BundleDocument["decision"]>;

export interface TraceWorker {
  seat: number;
  agentId: string;
  status: BundleWorker["status"];
  answer: { determination: boolean; confidence: number } | null;
  /** The confidence posted on chain for this seat (bps), when the bundle carries its report. */
  onChainConfidenceBps: number | null;
  failure: { stage: "discovery" | "ask" | "challenge"; kind: string; message: string } | null;
  scores: Record<string, number> | null;
  vote: { weight: number; accuracy: number; history: number } | null;
  rewardWeight: string | null;
}

export interface Trace {
  source: string;
  /** The bundle's canonical keccak256 equals the on-chain bundle hash. */
  verified: boolean;
  /** Null posterior and threshold for the daemon's invalid document (an invalid proposal without a run). */
  decision: {
    verdict: Decision["verdict"];
    reason: string | undefined;
    /** The reason as one sentence (workflow/core/explain-reason.ts). */
    explanation: string;
    posterior: number | null;
    thresholdBps: number | null;
  } | null;
  quorum: BundleDocument["quorum"] | null;
  workers: TraceWorker[];
  /** The parsed document (for the market summary). */
  document: StoredBundleDocument;
}

function failureOf(w: BundleWorker): TraceWorker["failure"] {
  const stages = [
    ["discovery", w.discoveryFailure],
    ["ask", w.askFailure],
    ["challenge", w.challengeFailure],
  ] as const;
  for (const [stage, f] of stages) if (f !== undefined) return { stage, kind: f.kind, message: f.message };
  return null;
}

function workerOf(w: BundleWorker): TraceWorker {
  return {
    seat: w.seat,
    agentId: w.agentId,
    status: w.status,
    answer: w.answer ? { determination: w.answer.determination, confidence: w.answer.confidence } : null,
    onChainConfidenceBps: w.report?.confidenceBps ?? null,
    failure: failureOf(w),
    scores: w.evaluation ? { ...w.evaluation.aggregate } : null,
    vote: w.vote ? { weight: w.vote.weight, accuracy: w.vote.accuracy, history: w.vote.history } : null,
    rewardWeight: w.rewardWeight ?? null,
  };
}

function traceOf(doc: BundleDocument, source: string, verified: boolean): Trace {
  const d = doc.decision;
  return {
    source,
    verified,
    decision: d
      ? {
          verdict: d.verdict,
          reason: d.reason,
          explanation: formatReason(primaryReason(doc)),
          posterior: d.posterior,
          thresholdBps: d.thresholdBps,
        }
      : null,
    quorum: doc.quorum,
    workers: doc.workers.map(workerOf),
    document: doc,
  };
}

/** Reads and checks the bundle; never throws (an unreachable or bad bundle is reported as `error`). */
export async function loadTrace(options: {
  file?: string;
  uri?: string;
  expectedHash: Hex;
  allowLoopback: boolean;
  allowPrivate: boolean;
}): Promise<{ trace: Trace | null; error: string | null }> {
  let text: string;
  let source: string;
  try {
    if (options.file !== undefined) {
      source = options.file;
      text = readFileSync(options.file, "utf8");
      if (text.length > MAX_BUNDLE_BYTES)
        return { trace: null, error: `bundle ${source} is larger than ${MAX_BUNDLE_BYTES} bytes` };
    } else if (options.uri !== undefined && /^https?:\/\//i.test(options.uri)) {
      source = options.uri;
      const http = createSafeHttpClient({
        allowLoopback: options.allowLoopback,
        allowPrivate: options.allowPrivate,
        maxResponseBytes: MAX_BUNDLE_BYTES,
        userAgent: "cresolver-market-show",
      });
      try {
        text = await http.getText(options.uri, { maxBytes: MAX_BUNDLE_BYTES, timeoutMs: 10_000 });
      } finally {
        await http.close();
      }
    } else {
      return {
        trace: null,
        error: options.uri ? `bundle URI ${options.uri.slice(0, 80)} is not http(s): pass --bundle <file>` : null,
      };
    }
    const doc = parseStoredBundle(text, MAX_BUNDLE_BYTES);
    const verified = bundleHash(canonicalJson(doc)) === options.expectedHash.toLowerCase();
    if ("workers" in doc) return { trace: traceOf(doc, source, verified), error: null };
    const invalid: Trace["decision"] = {
      verdict: "invalid",
      reason: doc.reason,
      explanation: formatReason({ code: "resolver-invalid", detail: doc.reason }),
      posterior: null,
      thresholdBps: null,
    };
    return { trace: { source, verified, decision: invalid, quorum: null, workers: [], document: doc }, error: null };
  } catch (error) {
    return {
      trace: null,
      error: (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "unreadable bundle",
    };
  }
}

const pct = (v: number | null) => (v === null ? "?" : percent(v));

/** The trace as text lines for `market show`. */
export function traceLines(t: Trace): string[] {
  const lines = [
    `  trace         ${t.source}: ${t.verified ? "matches the on-chain bundle hash" : "DOES NOT match the on-chain bundle hash"}`,
  ];
  const d = t.decision;
  if (d)
    lines.push(
      `  decision      ${d.verdict.toUpperCase()}, posterior ${pct(d.posterior)}, threshold ${d.thresholdBps === null ? "?" : percentOfBps(d.thresholdBps)}: ${d.explanation}`,
    );
  for (const w of t.workers) {
    const stated =
      w.answer && w.onChainConfidenceBps !== null && Math.round(w.answer.confidence * 10_000) !== w.onChainConfidenceBps
        ? ` (agent's figure ${pct(w.answer.confidence)})`
        : "";
    const confidence =
      w.onChainConfidenceBps !== null ? percentOfBps(w.onChainConfidenceBps) : pct(w.answer?.confidence ?? null);
    const what = w.answer
      ? `${w.answer.determination ? "YES" : "NO"} at ${confidence}${stated}`
      : w.failure
        ? `failed at ${w.failure.stage}: ${w.failure.kind}${w.failure.message ? ` (${w.failure.message.slice(0, 120)})` : ""}`
        : w.status;
    const scores = w.scores
      ? `; scores ${Object.entries(w.scores)
          .map(([k, v]) => `${k} ${v}`)
          .join(", ")}`
      : "";
    const vote = w.vote
      ? `; vote weight ${w.vote.weight.toFixed(2)} (log-odds), accuracy ${pct(w.vote.accuracy)} over ${w.vote.history}`
      : "";
    const reward = w.rewardWeight !== null ? `; reward weight ${w.rewardWeight}` : "";
    lines.push(`    seat ${w.seat} agent ${w.agentId}: ${what}${scores}${vote}${reward}`);
  }
  return lines;
}
