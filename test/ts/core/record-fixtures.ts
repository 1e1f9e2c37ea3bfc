/** Synthetic track-record entries (deterministic), for the pure record tests. */
import type { Address } from "../../../workflow/core/types.js";
import { type RecordEntry, STATUS_INVALID, STATUS_RESOLVED } from "../../../workflow/core/track-record.js";

const ZERO = "0x0000000000000000000000000000000000000000" as Address;
export const CREATORS: Address[] = [
  "0x1111111111111111111111111111111111111111",
  "0x2222222222222222222222222222222222222222",
];
export const ARBITER = "0x3333333333333333333333333333333333333333" as Address;

/** A small deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` entries from index `from`: `seats` seats drawn from agents 1..`agents`, some disputed, some invalid. */
export function entries(
  n: number,
  opts: { seed?: number; seats?: number; agents?: number; from?: number } = {},
): RecordEntry[] {
  const r = rng(opts.seed ?? 1);
  const seats = opts.seats ?? 7;
  const agents = opts.agents ?? 12;
  const out: RecordEntry[] = [];
  for (let k = 0; k < n; k++) {
    const index = (opts.from ?? 0) + k;
    const truth = r() < 0.5;
    const invalid = r() < 0.05;
    const disputed = r() < 0.1;
    const first = Math.floor(r() * agents);
    out.push({
      index,
      marketId: BigInt(index * 3 + 1),
      status: invalid ? STATUS_INVALID : STATUS_RESOLVED,
      outcome: !invalid && truth,
      disputed,
      arbiter: disputed ? ARBITER : ZERO,
      creator: CREATORS[index % 2],
      value: 10n ** 17n + BigInt(index),
      seats: Array.from({ length: seats }, (_, s) => {
        const failed = r() < 0.1;
        const right = r() < 0.8;
        return {
          agentId: BigInt(((first + s) % agents) + 1),
          answer: failed ? 0 : (right ? truth : !truth) ? 3 : 2,
          confidenceBps: failed ? 0 : 5000 + Math.floor(r() * 5001),
          signed: r() < 0.5,
        };
      }),
    });
  }
  return out;
}
