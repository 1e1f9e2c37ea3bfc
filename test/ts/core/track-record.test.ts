/** The track-record hash chain, its compact encoding, the served document and the estimator's window (pure). */
import { encodeAbiParameters, encodePacked, keccak256, parseAbiParameters } from "viem";
import { describe, expect, it } from "vitest";
import { base64Decode, base64Encode } from "../../../workflow/core/base64.js";
import {
  decodeRecordDocument,
  encodeRecordDocument,
  encodeWindowDocument,
  MAX_DOCUMENT_CHARS,
  verifyWindowDocument,
} from "../../../workflow/core/record-document.js";
import {
  chainHead,
  chainStep,
  decodeEntry,
  encodeEntry,
  entryCost,
  RECORD_WINDOW,
  type RecordEntry,
  recordWindow,
  seatsHash,
  toHistoryMarket,
  windowHistory,
  ZERO_HEAD,
} from "../../../workflow/core/track-record.js";
import type { Hex } from "../../../workflow/core/types.js";
import { decideVerdict } from "../../../workflow/core/vote.js";
import { ARBITER, entries, rng } from "./record-fixtures.js";

const MARKET = "0x5fbdb2315678afecb367f032d93f642f64180aa3" as const;
const word = (v: bigint | number | boolean | string): string =>
  typeof v === "string"
    ? v.slice(2).toLowerCase().padStart(64, "0")
    : BigInt(typeof v === "boolean" ? Number(v) : v)
        .toString(16)
        .padStart(64, "0");

/** RECORDS §3 written out byte by byte (no viem encoder), to check the one the module uses. */
function referenceStep(head: Hex, e: RecordEntry): Hex {
  let packed = "0x";
  for (const s of e.seats)
    packed +=
      s.agentId.toString(16).padStart(64, "0") +
      s.answer.toString(16).padStart(2, "0") +
      s.confidenceBps.toString(16).padStart(4, "0") +
      (s.signed ? "01" : "00");
  const sh = keccak256(packed as Hex);
  const enc = [head, e.index, e.marketId, e.status, e.outcome, e.disputed, e.arbiter, e.creator, e.value, sh]
    .map(word)
    .join("");
  return keccak256(`0x${enc}`);
}

const ctx = { chainId: 31337, market: MARKET } as const;
const headsOf = (es: RecordEntry[]): Hex[] => {
  const heads: Hex[] = [ZERO_HEAD];
  for (const e of es) heads.push(chainStep(heads[heads.length - 1], e));
  return heads;
};

describe("the hash chain", () => {
  it("steps exactly as docs/RECORDS.md §3 (abi.encode of the entry, packed seats)", () => {
    let head = ZERO_HEAD;
    for (const e of entries(20, { seed: 7 })) {
      expect(chainStep(head, e)).toBe(referenceStep(head, e));
      head = chainStep(head, e);
    }
    expect(seatsHash([])).toBe(keccak256("0x"));
  });

  it("matches viem's encodePacked / encodeAbiParameters (the Solidity encodings)", () => {
    for (const e of entries(10, { seed: 8 })) {
      const packed = encodePacked(
        e.seats.flatMap(() => ["uint256", "uint8", "uint16", "bool"] as const),
        e.seats.flatMap((s) => [s.agentId, s.answer, s.confidenceBps, s.signed]),
      );
      expect(seatsHash(e.seats)).toBe(keccak256(packed));
      const enc = encodeAbiParameters(
        parseAbiParameters("bytes32, uint256, uint256, uint8, bool, bool, address, address, uint256, bytes32"),
        [
          ZERO_HEAD,
          BigInt(e.index),
          e.marketId,
          e.status,
          e.outcome,
          e.disputed,
          e.arbiter,
          e.creator,
          e.value,
          keccak256(packed),
        ],
      );
      expect(chainStep(ZERO_HEAD, e)).toBe(keccak256(enc));
    }
    expect(() => seatsHash([{ agentId: 2n ** 256n, answer: 0, confidenceBps: 0, signed: false }])).toThrow(/fit/);
  });

  it("changes with every field an entry carries", () => {
    const [e] = entries(1);
    const base = chainStep(ZERO_HEAD, e);
    const variants: RecordEntry[] = [
      { ...e, index: 1 },
      { ...e, marketId: e.marketId + 1n },
      { ...e, status: e.status === 3 ? 4 : 3 },
      { ...e, outcome: !e.outcome },
      { ...e, disputed: !e.disputed },
      { ...e, arbiter: ARBITER },
      { ...e, creator: ARBITER },
      { ...e, value: e.value + 1n },
      { ...e, seats: e.seats.map((s, i) => (i === 0 ? { ...s, signed: !s.signed } : s)) },
      { ...e, seats: e.seats.map((s, i) => (i === 0 ? { ...s, confidenceBps: s.confidenceBps + 1 } : s)) },
      { ...e, seats: e.seats.slice(1) },
    ];
    for (const v of variants) expect(chainStep(ZERO_HEAD, v)).not.toBe(base);
  });
});

describe("entry encoding", () => {
  it("round-trips every entry, with any uint256 agent id and value", () => {
    const big = entries(50, { seed: 3 });
    big[0].seats[0].agentId = 2n ** 256n - 1n;
    big[1].value = 2n ** 255n;
    for (const e of big) expect(decodeEntry(encodeEntry(e), e.index)).toEqual(e);
  });

  it("refuses what the chain cannot record and truncated or trailing bytes", () => {
    const [e] = entries(1);
    expect(() => encodeEntry({ ...e, status: 2 })).toThrow(/status 2/);
    expect(() => encodeEntry({ ...e, seats: [{ ...e.seats[0], answer: 4 }] })).toThrow(/answer code/);
    const bytes = encodeEntry(e);
    expect(() => decodeEntry(bytes.slice(0, -1), 0)).toThrow(/truncated/);
    expect(() => decodeEntry(new Uint8Array([...bytes, 0]), 0)).toThrow(/trailing/);
  });

  it("base64 matches Node's encoder and is strict", () => {
    const r = rng(5);
    for (let n = 0; n < 40; n++) {
      const b = Uint8Array.from({ length: n }, () => Math.floor(r() * 256));
      const text = base64Encode(b);
      expect(text).toBe(Buffer.from(b).toString("base64"));
      expect(base64Decode(text)).toEqual(b);
    }
    expect(() => base64Decode("abc")).toThrow();
    expect(() => base64Decode("ab-_")).toThrow();
  });
});

describe("the document", () => {
  const es = entries(300, { seed: 11 });
  const heads = headsOf(es);

  it("pages the whole record; each page verifies from the head before it and chains to the next", () => {
    let from = 0;
    const got: RecordEntry[] = [];
    let pages = 0;
    for (;;) {
      const doc = encodeRecordDocument({
        ...ctx,
        count: es.length,
        from,
        headBefore: heads[from],
        entries: es.slice(from),
        maxBytes: 4_000,
      });
      const text = JSON.stringify(doc);
      const { entries: page, head } = decodeRecordDocument(text);
      expect(head).toBe(heads[doc.to]);
      expect(Buffer.from(doc.entries, "base64").length + 20 * doc.addresses.length).toBeLessThanOrEqual(4_000);
      got.push(...page);
      pages++;
      if (doc.next === undefined) break;
      from = doc.next;
    }
    expect(pages).toBeGreaterThan(3);
    expect(got).toEqual(es);
  });

  it("rejects a tampered entry, head, range or version", () => {
    const doc = encodeRecordDocument({
      ...ctx,
      count: 300,
      from: 10,
      headBefore: heads[10],
      entries: es.slice(10, 40),
    });
    expect(doc.to).toBe(40);
    const bytes = Buffer.from(doc.entries, "base64");
    bytes[5] ^= 1;
    expect(() => decodeRecordDocument({ ...doc, entries: bytes.toString("base64") })).toThrow();
    expect(() => decodeRecordDocument({ ...doc, headBefore: heads[11] })).toThrow(/do not lead/);
    expect(() => decodeRecordDocument({ ...doc, to: 39, next: 39 })).toThrow(/trailing/);
    expect(() => decodeRecordDocument({ ...doc, version: "cresolver-track-record/0" })).toThrow(/version/);
    expect(() => decodeRecordDocument({ ...doc, from: 0, headBefore: heads[1] })).toThrow(/non-zero head/);
    expect(() => decodeRecordDocument("{")).toThrow(/not JSON/);
  });
});

describe("the estimator's window", () => {
  it("takes the last maxEntries when they fit, everything when the record is short", () => {
    const es = entries(40);
    expect(recordWindow(40, (i) => es[i], { maxEntries: 10, maxBytes: 1e9 })).toMatchObject({
      start: 30,
      stop: "entries",
    });
    expect(recordWindow(40, (i) => es[i], { maxEntries: 100, maxBytes: 1e9 })).toMatchObject({
      start: 0,
      stop: "beginning",
    });
  });

  it("stops where the byte budget ends, counting each address once", () => {
    const es = entries(200, { seed: 2 });
    const w = recordWindow(200, (i) => es[i], { maxEntries: 5_000, maxBytes: 3_000 });
    expect(w.stop).toBe("bytes");
    const inWindow = es.slice(w.start);
    const addrs = new Set(inWindow.flatMap((e) => [e.creator, ...(e.disputed ? [e.arbiter] : [])]));
    expect(w.bytes).toBe(inWindow.reduce((s, e) => s + entryCost(e), 0) + 20 * addrs.size);
    expect(w.bytes + entryCost(es[w.start - 1])).toBeGreaterThan(3_000);
  });

  it("fits a window document of 100-seat markets with 256-bit agent ids in the CRE's 100 KB response", () => {
    const es = entries(400, { seats: 100, agents: 150, seed: 9 }).map((e) => ({
      ...e,
      value: 2n ** 256n - 1n,
      creator: `0x${e.index.toString(16).padStart(40, "0")}` as const,
      seats: e.seats.map((s) => ({ ...s, agentId: 2n ** 255n + s.agentId })),
    }));
    const heads = headsOf(es);
    const doc = encodeWindowDocument({ ...ctx, count: es.length, entryAt: (i) => es[i], headAt: (c) => heads[c] });
    expect(JSON.stringify(doc).length).toBeLessThan(MAX_DOCUMENT_CHARS);
    expect(verifyWindowDocument(JSON.stringify(doc), { count: 400, head: heads[400] }, ctx).window.stop).toBe("bytes");
  });

  it("a verifier refuses a window cut short by the server, or one not ending at the cut-off", () => {
    const es = entries(3_000, { seed: 4 });
    const heads = headsOf(es);
    const cutoff = { count: 2_500, head: heads[2_500] };
    const doc = encodeWindowDocument({ ...ctx, count: 2_500, entryAt: (i) => es[i], headAt: (c) => heads[c] });
    const { window, entries: got } = verifyWindowDocument(doc, cutoff, ctx);
    expect(window.stop).toBe("bytes");
    expect(doc.from).toBe(window.start - 1);
    expect(got).toEqual(es.slice(window.start, 2_500));
    // Dropping the boundary entry (a shorter, still hash-valid suffix) is detected.
    const short = encodeRecordDocument({
      ...ctx,
      count: 2_500,
      from: window.start,
      headBefore: heads[window.start],
      entries: es.slice(window.start, 2_500),
      maxBytes: Infinity,
    });
    expect(() => verifyWindowDocument(short, cutoff, ctx)).toThrow(/needs entry/);
    expect(() => verifyWindowDocument(doc, { count: 2_500, head: heads[2_499] }, ctx)).toThrow(/cut-off head/);
    expect(() => verifyWindowDocument(doc, cutoff, { ...ctx, chainId: 1 })).toThrow(/is for/);
  });

  it("gives the daemon (full index) and a DON (verified document) the same history and verdict", () => {
    for (const seed of [1, 2, 3]) {
      const es = entries(2_000, { seed, agents: 9 });
      const heads = headsOf(es);
      const count = 1_500 + seed * 37;
      const panel = [1n, 2n, 3n, 4n, 5n, 6n, 7n];
      // Daemon: the window over its index.
      const w = recordWindow(count, (i) => es[i]);
      const daemon = windowHistory(es.slice(w.start, count), panel, ctx);
      // DON: the served window document, verified against the cut-off.
      const doc = JSON.stringify(
        encodeWindowDocument({ ...ctx, count, entryAt: (i) => es[i], headAt: (c) => heads[c] }),
      );
      expect(doc.length).toBeLessThan(MAX_DOCUMENT_CHARS);
      const don = windowHistory(verifyWindowDocument(doc, { count, head: heads[count] }, ctx).entries, panel, ctx);
      expect(don).toEqual(daemon);
      const reports = panel.map((_, i) => ({
        answer: i < 4 ? ("yes" as const) : ("no" as const),
        confidenceBps: 8000,
        resQuality: 50,
        srcQuality: 50,
        analysisDepth: 50,
      }));
      const a = decideVerdict({ agentIds: panel, reports, history: daemon });
      const b = decideVerdict({ agentIds: panel, reports, history: don });
      expect(b.verdict).toBe(a.verdict);
      expect(b.posterior).toBe(a.posterior);
      expect(b.history).toEqual(a.history);
    }
  });

  it("converts entries to HistoryMarket with every round-3 field", () => {
    const [e] = entries(1, { seed: 1 });
    const d = { ...e, disputed: true, arbiter: ARBITER, status: 3, outcome: true };
    expect(toHistoryMarket(d, { ...ctx, trustedArbiters: [ARBITER] })).toMatchObject({
      key: `31337:${MARKET}:${e.marketId}`,
      final: true,
      disputed: true,
      index: 0,
      arbiter: ARBITER,
      trustedRuling: true,
      value: e.value,
      creator: e.creator,
    });
    expect(toHistoryMarket({ ...d, status: 4, outcome: false }, ctx)).toMatchObject({
      final: "invalid",
      trustedRuling: false,
    });
    expect(toHistoryMarket(e, ctx).answers[0]).toHaveProperty("signed");
    expect(chainHead(ZERO_HEAD, [e])).toBe(chainStep(ZERO_HEAD, e));
  });
});

// Bounded: the window never exceeds the estimator's own cap.
it("RECORD_WINDOW caps entries at the estimator's maxMarkets", () => {
  expect(RECORD_WINDOW.maxEntries).toBe(5_000);
});
