/**
 * Anonymised view of the panel for challenges: a worker sees what the others found, never who found it.
 * Pure and deterministic: findings are ordered by their canonical JSON, not by seat, so the order
 * reveals nothing about who joined when.
 */
import { canonicalJson } from "./bundle.js";
import { type Address, isAnswered, type PeerFinding, type WorkerRecord } from "./types.js";

/** Every answering worker's finding except `self`'s, stripped of identity and extras, in canonical order. */
export function peerFindings(records: readonly WorkerRecord[], self: Address): PeerFinding[] {
  const me = self.toLowerCase();
  return anonymousFindings(records.filter((r) => r.seat.address.toLowerCase() !== me));
}

/** Every answering worker's finding, stripped of identity and extras, in canonical order (not seat order). */
export function anonymousFindings(records: readonly WorkerRecord[]): PeerFinding[] {
  return records
    .filter(isAnswered)
    .map((r): PeerFinding => {
      const a = r.answer;
      return {
        determination: a.determination,
        confidence: a.confidence,
        evidence: a.evidence,
        sources: [...a.sources],
      };
    })
    .map((finding) => ({ finding, key: canonicalJson(finding) }))
    .sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0))
    .map((x) => x.finding);
}
