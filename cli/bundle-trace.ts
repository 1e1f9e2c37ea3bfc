/**
 * The resolution trace of `market show`: the bundle (a local file, or the proposal's http(s) bundle URI through
 * the safe HTTP client) checked against the on-chain bundle hash, reduced to what a reader needs per worker
 * (answer or failure, scores, vote weight, reward weight) and the decision (verdict, reason, posterior).
 */
import { readFileSync } from "node:fs";
import type { Hex } from "viem";
import { bundleHash, canonicalJson } from "../workflow/core/bundle.js";
import { createSafeHttpClient } from "../workflow/http/index.js";

const MAX_BUNDLE_BYTES = 4_000_000;

export interface TraceWorker {
  seat: number;
  agentId: string | null;
  status: string;
  answer: { determination: boolean; confidence: number } | null;
  failure: { stage: string; kind: string; message: string } | null;
  scores: Record<string, number> | null;
  vote: { weight: unknown; accuracy: unknown; history: unknown } | null;
  rewardWeight: unknown;
}

export interface Trace {
  source: string;
  /** The bundle's canonical keccak256 equals the on-chain bundle hash. */
  verified: boolean;
  decision: { verdict: unknown; reason: unknown; posterior: unknown; thresholdBps: unknown } | null;
  quorum: unknown;
  workers: TraceWorker[];
}

type Doc = Record<string, unknown>;
const obj = (v: unknown): Doc | null => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Doc) : null);

function failureOf(w: Doc): TraceWorker["failure"] {
  for (const stage of ["discovery", "ask", "challenge"] as const) {
    const f = obj(w[`${stage}Failure`]);
    if (f) return { stage, kind: String(f.kind ?? "?"), message: String(f.message ?? "") };
  }
  return null;
}

function traceOf(doc: Doc, source: string, verified: boolean): Trace {
  const workers = (Array.isArray(doc.workers) ? doc.workers : []).map((raw, i): TraceWorker => {
    const w = obj(raw) ?? {};
    const answer = obj(w.answer);
    const evaluation = obj(w.evaluation);
    const vote = obj(w.vote);
    return {
      seat: typeof w.seat === "number" ? w.seat : i,
      agentId: w.agentId !== undefined ? String(w.agentId) : null,
      status: String(w.status ?? "?"),
      answer: answer ? { determination: answer.determination === true, confidence: Number(answer.confidence ?? 0) } : null,
      failure: failureOf(w),
      scores: evaluation && obj(evaluation.aggregate) ? (obj(evaluation.aggregate) as Record<string, number>) : null,
      vote: vote ? { weight: vote.weight, accuracy: vote.accuracy, history: vote.history } : null,
      rewardWeight: w.rewardWeight ?? null,
    };
  });
  const d = obj(doc.decision);
  return { source, verified, decision: d ? { verdict: d.verdict, reason: d.reason, posterior: d.posterior, thresholdBps: d.thresholdBps } : null, quorum: doc.quorum ?? null, workers };
}

/** Reads and checks the bundle; never throws (an unreachable or bad bundle is reported as `error`). */
export async function loadTrace(options: { file?: string; uri?: string; expectedHash: Hex; allowLoopback: boolean; allowPrivate: boolean }): Promise<{ trace: Trace | null; error: string | null }> {
  let text: string;
  let source: string;
  try {
    if (options.file !== undefined) {
      source = options.file;
      text = readFileSync(options.file, "utf8");
      if (text.length > MAX_BUNDLE_BYTES) return { trace: null, error: `bundle ${source} is larger than ${MAX_BUNDLE_BYTES} bytes` };
    } else if (options.uri !== undefined && /^https?:\/\//i.test(options.uri)) {
      source = options.uri;
      const http = createSafeHttpClient({ allowLoopback: options.allowLoopback, allowPrivate: options.allowPrivate, maxResponseBytes: MAX_BUNDLE_BYTES, userAgent: "cresolver-market-show" });
      try {
        text = await http.getText(options.uri, { maxBytes: MAX_BUNDLE_BYTES, timeoutMs: 10_000 });
      } finally {
        await http.close();
      }
    } else {
      return { trace: null, error: options.uri ? `bundle URI ${options.uri.slice(0, 80)} is not http(s): pass --bundle <file>` : null };
    }
    const doc = obj(JSON.parse(text));
    if (!doc) return { trace: null, error: `bundle ${source} is not a JSON object` };
    const verified = bundleHash(canonicalJson(doc)) === options.expectedHash.toLowerCase();
    return { trace: traceOf(doc, source, verified), error: null };
  } catch (error) {
    return { trace: null, error: (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "unreadable bundle" };
  }
}

const pct = (v: unknown) => (typeof v === "number" ? `${(v * 100).toFixed(1)}%` : "?");

/** The trace as text lines for `market show`. */
export function traceLines(t: Trace): string[] {
  const lines = [`  trace         ${t.source}: ${t.verified ? "matches the on-chain bundle hash" : "DOES NOT match the on-chain bundle hash"}`];
  if (t.decision) lines.push(`  decision      ${String(t.decision.verdict).toUpperCase()} (${String(t.decision.reason)}), posterior ${pct(t.decision.posterior)}, threshold ${String(t.decision.thresholdBps)} bps`);
  for (const w of t.workers) {
    const what = w.answer ? `${w.answer.determination ? "YES" : "NO"} @ ${pct(w.answer.confidence)}` : w.failure ? `failed at ${w.failure.stage}: ${w.failure.kind}${w.failure.message ? ` (${w.failure.message.slice(0, 120)})` : ""}` : w.status;
    const scores = w.scores ? `; scores ${Object.entries(w.scores).map(([k, v]) => `${k} ${v}`).join(", ")}` : "";
    const vote = w.vote ? `; vote weight ${String(w.vote.weight)}, accuracy ${pct(w.vote.accuracy)} over ${String(w.vote.history)}` : "";
    const reward = w.rewardWeight !== null ? `; reward weight ${String(w.rewardWeight)}` : "";
    lines.push(`    seat ${w.seat} agent ${w.agentId ?? "?"}: ${what}${scores}${vote}${reward}`);
  }
  return lines;
}
