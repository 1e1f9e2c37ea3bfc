/**
 * Every worker's share of the resolution bundle is capped while the run is in progress, so the bundle of any market
 * (at most 100 seats) stays under MAX_BUNDLE_BYTES and is always stored exactly as it was hashed and proposed. A
 * stored bundle that had to be dropped after the proposal would leave a proposal whose evidence nobody can fetch.
 *
 * Over the cap, a record loses its protocol extras first, then its long strings are clipped (evidence, challenge
 * replies, sources, review text, failure messages) to a halving limit until it fits. Deterministic: the same record
 * is always clipped the same way. Applied after ask (peers then see the capped text), challenge and review.
 */
import { canonicalJson, MAX_BUNDLE_BYTES } from "../core/bundle.js";
import type { AnsweredWorkerRecord, FailedWorkerRecord, WorkerFailure, WorkerRecord } from "../core/types.js";

export { MAX_BUNDLE_BYTES };
/** Per-worker share: 100 seats × 64 KiB = 6.25 MiB, leaving room for the evaluation and the vote. */
export const WORKER_SHARE_BYTES = 64 * 1024;
const MAX_SOURCES = 32;
const CLIPPED = "…[clipped]";

export function recordBytes(record: WorkerRecord): number {
  return Buffer.byteLength(canonicalJson(record), "utf8");
}

const clip = (s: string, max: number) => (s.length > max ? s.slice(0, max) + CLIPPED : s);
const clipFailure = (f: WorkerFailure | undefined, max: number) =>
  f === undefined ? undefined : { ...f, message: clip(f.message, max) };

function clipStrings(r: WorkerRecord, max: number): WorkerRecord {
  const failureMax = Math.min(max, 1000);
  if (r.answer === undefined) {
    const out: FailedWorkerRecord = { ...r };
    for (const k of ["discoveryFailure", "askFailure"] as const) {
      const f = clipFailure(r[k], failureMax);
      if (f !== undefined) out[k] = f;
    }
    return out;
  }
  const { extras: _extras, ...answer } = r.answer;
  const out: AnsweredWorkerRecord = {
    ...r,
    answer: {
      ...answer,
      evidence: clip(answer.evidence, max),
      sources: answer.sources.slice(0, MAX_SOURCES).map((s) => clip(s, Math.min(max, 2048))),
    },
  };
  if (r.challengeReplies !== undefined) out.challengeReplies = r.challengeReplies.map((s) => clip(s, max));
  if (r.review !== undefined) {
    const { extras: _extras, ...review } = r.review;
    out.review = {
      ...review,
      conditions: review.conditions.slice(0, MAX_SOURCES).map((c) => clip(c, max)),
      ...(review.dissentReason !== undefined ? { dissentReason: clip(review.dissentReason, max) } : {}),
    };
  }
  for (const k of ["challengeFailure", "reviewFailure"] as const) {
    const f = clipFailure(r[k], failureMax);
    if (f !== undefined) out[k] = f;
  }
  return out;
}

/** `record` unchanged when its canonical JSON fits `maxBytes`, else a clipped copy that does. */
export function capWorkerShare(record: WorkerRecord, maxBytes: number = WORKER_SHARE_BYTES): WorkerRecord {
  if (recordBytes(record) <= maxBytes) return record;
  let max = 50_000;
  let out = clipStrings(record, max);
  while (recordBytes(out) > maxBytes && max > 16) {
    max = Math.floor(max / 2);
    out = clipStrings(record, max);
  }
  return out;
}

export function capWorkerShares(
  records: readonly WorkerRecord[],
  maxBytes: number = WORKER_SHARE_BYTES,
): WorkerRecord[] {
  return records.map((r) => capWorkerShare(r, maxBytes));
}
