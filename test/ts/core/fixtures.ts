import type {
  Address,
  MarketSnapshot,
  WorkerAnswer,
  WorkerEndpoint,
  WorkerRecord,
  HistoryMarket,
} from "../../../workflow/core/types.js";
import { protocolOf } from "../../../workflow/evaluate/view.js";

export const addr = (i: number): Address => `0x${(0xa0 + i).toString(16).padStart(2, "0").repeat(20)}` as Address;

export function market(n: number, overrides: Partial<MarketSnapshot> = {}): MarketSnapshot {
  return {
    chainId: 31337,
    marketAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    marketId: 42n,
    question: "Will bitcoin close above 100,000 USD on 31 December 2026?",
    deadline: Date.UTC(2026, 11, 31) / 1000,
    context: "Use the daily close on major spot exchanges.",
    workers: Array.from({ length: n }, (_, i) => ({ address: addr(i), agentId: BigInt(100 + i), stake: 10n ** 16n })),
    ...overrides,
  };
}

export function answer(determination: boolean, confidence = 0.8, extra: Partial<WorkerAnswer> = {}): WorkerAnswer {
  return {
    determination,
    confidence,
    evidence:
      "According to exchange data published in November 2026, the price traded near 104,000 USD. " +
      "However, volatility remains high and a drop of 5% could change the outcome.\n\n" +
      "Therefore the balance of evidence suggests the close will likely stay above the threshold.",
    sources: ["https://www.coindesk.com/markets/2026/11/20/btc", "https://www.reuters.com/markets/2026-11-19/"],
    ...extra,
  };
}

/** An answered seat's endpoint: the protocol its extras name (as `protocolOf` reads them), so scoring is as without one. */
export const endpointFor = (i: number, a: WorkerAnswer): WorkerEndpoint => ({
  url: `https://agent${i}.example/`,
  protocol: protocolOf({ answer: a }),
});

export function records(m: MarketSnapshot, answers: Array<WorkerAnswer | undefined>): WorkerRecord[] {
  return m.workers.map((seat, i): WorkerRecord => {
    const a = answers[i];
    return a
      ? { seat, endpoint: endpointFor(i, a), answer: a }
      : { seat, askFailure: { kind: "timeout", message: "no answer within 30000 ms" } };
  });
}

/** A seeded uniform [0, 1) stream (32-bit LCG): the core tests' reproducible randomness. */
export function bits(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** A yes/no answer from a boolean. */
export const side = (b: boolean): "yes" | "no" => (b ? "yes" : "no");

/**
 * The correlated crowd of bench:integrity: `ids[0..2]` copy one .6-accurate source with 10 % noise each, `ids[3]`
 * is a .90 expert, `ids[4..6]` honest .65/.70/.75 (fewer ids: a prefix of that panel). Undisputed, unresolved.
 */
export function crowdRecord(ids: readonly bigint[], markets: number, seed: number): HistoryMarket[] {
  const kinds: (number | "copier")[] = ["copier", "copier", "copier", 0.9, 0.65, 0.7, 0.75];
  return panelRecord(ids, kinds, markets, seed);
}

/** A record of `markets` undisputed markets where each agent is honest at its accuracy or copies a .6 source. */
export function panelRecord(
  ids: readonly bigint[],
  kinds: readonly (number | "copier")[],
  markets: number,
  seed: number,
): HistoryMarket[] {
  const r = bits(seed);
  return Array.from({ length: markets }, (_, m) => {
    const truth = r() < 0.5;
    const source = r() < 0.6 ? truth : !truth;
    return {
      key: `31337:0xabc:${m}`,
      final: "invalid",
      disputed: false,
      answers: ids.map((agentId, i) => {
        const a = kinds[i] ?? 0.5;
        return {
          agentId,
          answer: side(a === "copier" ? (r() < 0.9 ? source : !source) : r() < a ? truth : !truth),
          confidenceBps: 8_000,
          signed: true,
        };
      }),
    };
  });
}
