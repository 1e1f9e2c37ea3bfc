/**
 * A finalized track record for the CRE tests and the replay bench: RecordEntry lists, the market's cut-off, the
 * served window document (docs/TRACK-RECORD.md) as a test "agent" (a pure function of the request, so it stands
 * behind the CRE HTTP mock and behind a real loopback server alike), and the daemon's index path (recordWindow over
 * the entries it holds) as a TrackRecordSource. No SDK and no Node imports: both type-check programs use this file.
 */
import { encodeWindowDocument, type RecordCutoff } from "../../workflow/core/record-document.js";
import {
  chainStep,
  type RecordEntry,
  recordWindow,
  STATUS_RESOLVED,
  windowHistory,
  ZERO_HEAD,
} from "../../workflow/core/track-record.js";
import type { Address, Hex } from "../../workflow/core/types.js";
import type { TrackRecordSource } from "../../workflow/ports.js";
import type { Agent } from "./agents.js";

export const RECORD_HOST = "record.example";
export const RECORD_URL = `https://${RECORD_HOST}/track-record?market={market}&count={count}`;
const CREATOR = "0x00000000000000000000000000000000000c0ffe" as Address;
const ZERO = "0x0000000000000000000000000000000000000000" as Address;

/** Heads after each entry count: heads[k] is the head of the first k entries. */
export function headsOf(entries: readonly RecordEntry[]): Hex[] {
  const heads: Hex[] = [ZERO_HEAD];
  for (const e of entries) heads.push(chainStep(heads[heads.length - 1] as Hex, e));
  return heads;
}

export function cutoffOf(entries: readonly RecordEntry[]): RecordCutoff {
  const heads = headsOf(entries);
  return { count: entries.length, head: heads[entries.length] as Hex };
}

/** One finalized market: `answers[i]` is agent i+1's (true yes, false no, undefined failed). */
export function recordEntry(
  index: number,
  outcome: boolean,
  answers: readonly (boolean | undefined)[],
  confidenceBps: readonly number[],
): RecordEntry {
  return {
    index,
    marketId: BigInt(1_000 + index),
    status: STATUS_RESOLVED,
    outcome,
    disputed: false,
    arbiter: ZERO,
    creator: CREATOR,
    value: 10n ** 18n,
    seats: answers.map((a, i) => ({
      agentId: BigInt(i + 1),
      answer: a === undefined ? 0 : a ? 3 : 2,
      confidenceBps: a === undefined ? 0 : (confidenceBps[i] ?? 8000),
      signed: true,
    })),
  };
}

/**
 * `n` past markets of a 7-agent panel in which agents `colluders` (1-based) always answered against the outcome
 * with high confidence and the others were right 85 % of the time (deterministic in `seed`).
 */
export function colludedHistory(n: number, colluders: readonly number[] = [6, 7], seed = 1, agents = 7): RecordEntry[] {
  let s = seed >>> 0;
  const rand = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return Array.from({ length: n }, (_, index) => {
    const outcome = rand() < 0.5;
    const answers = Array.from({ length: agents }, (_, i) =>
      colluders.includes(i + 1) ? !outcome : rand() < 0.85 ? outcome : !outcome,
    );
    const conf = answers.map((_, i) => (colluders.includes(i + 1) ? 9500 : 6500 + Math.floor(rand() * 3000)));
    return recordEntry(index, outcome, answers, conf);
  });
}

/** The record server: GET ?count=N → the window document for cut-off N (what the daemon's /track-record serves). */
export function recordServer(
  entries: readonly RecordEntry[],
  chainId: number,
  market: Address,
  onRequest?: (count: number) => void,
): Agent {
  const heads = headsOf(entries);
  return (path) => {
    const query = path.includes("?") ? path.slice(path.indexOf("?") + 1) : "";
    const count = Number(new URLSearchParams(query).get("count") ?? Number.NaN);
    onRequest?.(count);
    if (!Number.isSafeInteger(count) || count < 0 || count > entries.length)
      return { status: 404, headers: { "content-type": "application/json" }, body: "{}" };
    const doc = encodeWindowDocument({
      chainId,
      market,
      count,
      entryAt: (i) => (i < count ? entries[i] : undefined),
      headAt: (k) => heads[k] as Hex,
    });
    return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(doc) };
  };
}

/** The daemon's index path: the window over the entries it holds up to the market's cut-off, panel-filtered. */
export function indexTrackRecord(
  entries: readonly RecordEntry[],
  chainId: number,
  market: Address,
  trustedArbiters: readonly string[] = [],
): TrackRecordSource {
  return {
    async history(snapshot) {
      const w = recordWindow(entries.length, (i) => entries[i]);
      return windowHistory(
        entries.slice(w.start),
        snapshot.workers.map((s) => s.agentId),
        { chainId, market, trustedArbiters },
      );
    },
  };
}
