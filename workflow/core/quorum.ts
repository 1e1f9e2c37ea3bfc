/**
 * BFT quorum of the CRE agent protocol: at least ⌈2n/3⌉ valid answers, where n is the market's
 * frozen worker count (never the number of workers that happened to answer). Pure.
 */

/** ⌈2n/3⌉ in exact integer arithmetic. n must be a non-negative safe integer. */
export function requiredQuorum(n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`worker count must be a non-negative integer, got ${n}`);
  return Math.floor((2 * n + 2) / 3);
}

export interface QuorumStatus {
  /** Frozen worker count of the market. */
  n: number;
  required: number;
  answered: number;
  /** False when n is 0: an empty panel never reaches quorum. */
  reached: boolean;
}

export function quorumStatus(n: number, answered: number): QuorumStatus {
  const required = requiredQuorum(n);
  return { n, required, answered, reached: n > 0 && answered >= required };
}
