/**
 * The track-record hash chain (docs/RECORDS.md §3) and its served document (docs/TRACK-RECORD.md). Pure: the
 * daemon's index, `cresolver track-record export|verify`, `cresolver resolve` and the CRE workflow all compute heads,
 * windows and histories here, so every reader reaches the same head and the same estimator input.
 *
 * - `RecordEntry` / `chainStep`: one finalized market and the keccak step that extends the head.
 * - `recordWindow`: the exact reduction of the record to what the estimator reads (the last ≤ 5,000 entries whose
 *   compact encoding fits `RECORD_WINDOW.maxBytes`); the daemon and the DON both call it, so both estimate from the
 *   same markets.
 * - `encodeRecordDocument` / `decodeRecordDocument`: the compact, versioned, paged document (entries `from..to-1`
 *   plus the head before `from`); decoding recomputes every head, so a verifier only compares the last one with the
 *   chain.
 */
import { keccak256 } from "viem";
import { CresolverError } from "../util/errors.js";
import { ANSWER_NAMES } from "./codes.js";
import type { Address, Hex, HistoryAnswer, HistoryMarket } from "./types.js";

export const ZERO_HEAD: Hex = "0x0000000000000000000000000000000000000000000000000000000000000000";
const ZERO_ADDRESS: Address = "0x0000000000000000000000000000000000000000";
/** IResolutionMarket.Status of a finalized market. */
export const STATUS_RESOLVED = 3;
export const STATUS_INVALID = 4;
/** IResolutionMarket.Answer, by code. */

/** One seat of a finalized market as the chain records it (seat order). */
export interface RecordSeat {
  agentId: bigint;
  /** IResolutionMarket.Answer: 0 failed, 1 abstained, 2 no, 3 yes. */
  answer: number;
  confidenceBps: number;
  /** The agent signed the answer (docs/RECORDS.md §2); false: attested by the proposer. */
  signed: boolean;
}

/** One finalized market: the `MarketRecorded` event's entry with its position in the chain. */
export interface RecordEntry {
  index: number;
  marketId: bigint;
  /** 3 Resolved or 4 Invalid. */
  status: number;
  /** false unless Resolved. */
  outcome: boolean;
  disputed: boolean;
  /** The address that ruled, zero when undisputed. */
  arbiter: Address;
  creator: Address;
  /** Reward pool plus every seat's stake at the request, wei. */
  value: bigint;
  seats: RecordSeat[];
}

/** Writes `v` big-endian into `out[at..at+width)` (v < 2^(8·width), checked by the caller's types). */
function putUint(out: Uint8Array, at: number, width: number, v: bigint | number): void {
  if (typeof v === "number" || v <= 9_007_199_254_740_991n) {
    let x = Number(v); // the common case (ids, indexes, codes): no BigInt arithmetic
    if (!Number.isSafeInteger(x) || x < 0 || (width < 7 && x >= 2 ** (8 * width)))
      throw new TrackRecordError(`value ${v} does not fit ${width} bytes`);
    for (let i = at + width - 1; i >= at && x > 0; i--) {
      out[i] = x % 256;
      x = Math.floor(x / 256);
    }
    return;
  }
  let x = v;
  if (x >> BigInt(8 * width) !== 0n) throw new TrackRecordError(`value ${v} does not fit ${width} bytes`);
  for (let i = at + width - 1; i >= at && x > 0n; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
}
const putHex = (out: Uint8Array, at: number, hex: string): void => {
  const h = hex.slice(2);
  const off = at + 32 - h.length / 2;
  for (let i = 0; i < h.length / 2; i++) out[off + i] = Number.parseInt(h.slice(2 * i, 2 * i + 2), 16);
};

/**
 * keccak256(abi.encodePacked(for each seat: uint256 agentId, uint8 answer, uint16 confidenceBps, bool signed)).
 * Laid out by hand (36 bytes a seat): viem's encoders build hex strings and cost twice as much on a long record;
 * the tests check the bytes against `encodePacked`.
 */
export function seatsHash(seats: readonly RecordSeat[]): Hex {
  const out = new Uint8Array(36 * seats.length);
  seats.forEach((s, i) => {
    putUint(out, 36 * i, 32, s.agentId);
    putUint(out, 36 * i + 32, 1, s.answer);
    putUint(out, 36 * i + 33, 2, s.confidenceBps);
    out[36 * i + 35] = s.signed ? 1 : 0;
  });
  return keccak256(out);
}

/**
 * head' = keccak256(abi.encode(head, index, marketId, status, outcome, disputed, arbiter, creator, value, seatsHash)):
 * ten 32-byte words (checked against viem's `encodeAbiParameters` in the tests).
 */
export function chainStep(head: Hex, e: RecordEntry): Hex {
  const out = new Uint8Array(320);
  putHex(out, 0, head);
  putUint(out, 32, 32, e.index);
  putUint(out, 64, 32, e.marketId);
  putUint(out, 96, 32, e.status);
  out[159] = e.outcome ? 1 : 0;
  out[191] = e.disputed ? 1 : 0;
  putHex(out, 192, e.arbiter);
  putHex(out, 224, e.creator);
  putUint(out, 256, 32, e.value);
  putHex(out, 288, seatsHash(e.seats));
  return keccak256(out);
}

/** The head after `entries` (consecutive indexes), starting from `head`. */
export function chainHead(head: Hex, entries: Iterable<RecordEntry>): Hex {
  let h = head;
  for (const e of entries) h = chainStep(h, e);
  return h;
}

/** Where the entries come from: the HistoryMarket key and the allow-listed arbiters (§4). */
export interface HistoryContext {
  chainId: number;
  market: Address;
  /** Arbiters whose ruling is known truth (lower-case or checksummed). Default: none trusted. */
  trustedArbiters?: ReadonlySet<string> | readonly string[];
}

/** An entry as the estimator's HistoryMarket (workflow/core/types.ts), every optional round-3 field filled. */
export function toHistoryMarket(e: RecordEntry, ctx: HistoryContext): HistoryMarket {
  const trusted = new Set([...(ctx.trustedArbiters ?? [])].map((a) => a.toLowerCase()));
  const answers: HistoryAnswer[] = e.seats.map((s) => ({
    agentId: s.agentId,
    answer: ANSWER_NAMES[s.answer] ?? "failed",
    confidenceBps: s.confidenceBps,
    signed: s.signed,
  }));
  const arbiter = e.disputed && e.arbiter.toLowerCase() !== ZERO_ADDRESS ? e.arbiter : undefined;
  return {
    key: `${ctx.chainId}:${ctx.market.toLowerCase()}:${e.marketId}`,
    final: e.status === STATUS_RESOLVED ? e.outcome : "invalid",
    disputed: e.disputed,
    answers,
    index: e.index,
    ...(arbiter !== undefined ? { arbiter } : {}),
    trustedRuling: arbiter !== undefined && trusted.has(arbiter.toLowerCase()),
    value: e.value,
    creator: e.creator,
  };
}

// ------------------------------------------------------------------------------------------------
// Compact binary encoding of entries
// ------------------------------------------------------------------------------------------------

/** Grows a byte buffer (no Node Buffer: this runs in the CRE runtime too). */
export class Bytes {
  buf = new Uint8Array(256);
  len = 0;
  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + n));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }
  byte(b: number): void {
    this.room(1);
    this.buf[this.len++] = b;
  }
  varint(v: bigint): void {
    if (v < 0n) throw new RangeError("negative value in a record entry");
    let x = v;
    while (x >= 0x80n) {
      this.byte(Number(x & 0x7fn) | 0x80);
      x >>= 7n;
    }
    this.byte(Number(x));
  }
  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }
  done(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

export class Reader {
  pos = 0;
  constructor(private readonly b: Uint8Array) {}
  byte(): number {
    const value = this.b[this.pos];
    if (value === undefined) throw new TrackRecordError("truncated entries");
    this.pos++;
    return value;
  }
  varint(): bigint {
    let v = 0n;
    let shift = 0n;
    for (;;) {
      const b = this.byte();
      v |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return v;
      shift += 7n;
      if (shift > 266n) throw new TrackRecordError("varint longer than 256 bits");
    }
  }
  u16(): number {
    return (this.byte() << 8) | this.byte();
  }
  bytes(n: number): Uint8Array {
    if (this.pos + n > this.b.length) throw new TrackRecordError("truncated entries");
    const out = this.b.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  get done(): boolean {
    return this.pos >= this.b.length;
  }
}

export class TrackRecordError extends CresolverError {}

const hexToBytes = (h: string): Uint8Array => {
  const out = new Uint8Array((h.length - 2) / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(h.slice(2 + 2 * i, 4 + 2 * i), 16);
  return out;
};
const bytesToHex = (b: Uint8Array): `0x${string}` => {
  let s = "0x";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s as `0x${string}`;
};

/** How addresses are written: inline (20 bytes, the index's stored form) or as a 2-byte reference (a document). */
export type AddressCodec = { write(out: Bytes, a: Address): void; read(r: Reader): Address };

const INLINE: AddressCodec = {
  write: (out, a) => out.bytes(hexToBytes(a.toLowerCase())),
  read: (r) => bytesToHex(r.bytes(20)) as Address,
};

/**
 * One entry (its index is implicit): varint marketId; flags (bit 0 Resolved, 1 outcome, 2 disputed, 3 arbiter
 * follows); [arbiter]; creator; varint value; varint seat count; per seat varint agentId, a byte (answer in bits
 * 0-1, signed in bit 2, confidence follows in bit 3) and the confidence as 2 bytes.
 */
export function writeEntry(out: Bytes, e: RecordEntry, addr: AddressCodec): void {
  if (e.status !== STATUS_RESOLVED && e.status !== STATUS_INVALID)
    throw new TrackRecordError(`entry ${e.index}: status ${e.status} is not Resolved or Invalid`);
  out.varint(e.marketId);
  const hasArbiter = e.arbiter.toLowerCase() !== ZERO_ADDRESS;
  out.byte((e.status === STATUS_RESOLVED ? 1 : 0) | (e.outcome ? 2 : 0) | (e.disputed ? 4 : 0) | (hasArbiter ? 8 : 0));
  if (hasArbiter) addr.write(out, e.arbiter);
  addr.write(out, e.creator);
  out.varint(e.value);
  out.varint(BigInt(e.seats.length));
  for (const s of e.seats) {
    if (!Number.isInteger(s.answer) || s.answer < 0 || s.answer > 3)
      throw new TrackRecordError(`entry ${e.index}: answer code ${s.answer}`);
    if (!Number.isInteger(s.confidenceBps) || s.confidenceBps < 0 || s.confidenceBps > 0xffff)
      throw new TrackRecordError(`entry ${e.index}: confidence ${s.confidenceBps}`);
    out.varint(s.agentId);
    const conf = s.confidenceBps !== 0;
    out.byte(s.answer | (s.signed ? 4 : 0) | (conf ? 8 : 0));
    if (conf) {
      out.byte(s.confidenceBps >> 8);
      out.byte(s.confidenceBps & 0xff);
    }
  }
}

/** Seats a decoded entry may claim (the contract's cap is 100; this only bounds hostile input). */
const MAX_SEATS = 1_000;

export function readEntry(r: Reader, index: number, addr: AddressCodec): RecordEntry {
  const marketId = r.varint();
  const flags = r.byte();
  if (flags > 15) throw new TrackRecordError(`entry ${index}: unknown flags ${flags}`);
  const arbiter = flags & 8 ? addr.read(r) : ZERO_ADDRESS;
  const creator = addr.read(r);
  const value = r.varint();
  const n = Number(r.varint());
  if (n > MAX_SEATS) throw new TrackRecordError(`entry ${index}: ${n} seats`);
  const seats: RecordSeat[] = [];
  for (let i = 0; i < n; i++) {
    const agentId = r.varint();
    const b = r.byte();
    if (b > 15) throw new TrackRecordError(`entry ${index}: unknown seat flags ${b}`);
    const confidenceBps = b & 8 ? r.u16() : 0;
    if (b & 8 && confidenceBps === 0) throw new TrackRecordError(`entry ${index}: non-canonical confidence`);
    seats.push({ agentId, answer: b & 3, confidenceBps, signed: (b & 4) !== 0 });
  }
  return {
    index,
    marketId,
    status: flags & 1 ? STATUS_RESOLVED : STATUS_INVALID,
    outcome: (flags & 2) !== 0,
    disputed: (flags & 4) !== 0,
    arbiter,
    creator,
    value,
    seats,
  };
}

/** An entry on its own (addresses inline): the daemon index's stored form. */
export function encodeEntry(e: RecordEntry): Uint8Array {
  const out = new Bytes();
  writeEntry(out, e, INLINE);
  return out.done();
}

export function decodeEntry(bytes: Uint8Array, index: number): RecordEntry {
  const r = new Reader(bytes);
  const e = readEntry(r, index, INLINE);
  if (!r.done) throw new TrackRecordError(`entry ${index}: trailing bytes`);
  return e;
}

/** Bytes an entry takes in a document, its addresses as 2-byte references. */
export function entryCost(e: RecordEntry): number {
  const out = new Bytes();
  writeEntry(out, e, {
    write: (o) => {
      o.byte(0);
      o.byte(0);
    },
    read: () => ZERO_ADDRESS,
  });
  return out.len;
}

// ------------------------------------------------------------------------------------------------
// The estimator's window (the exact reduction both the daemon and the DON apply)
// ------------------------------------------------------------------------------------------------

/**
 * What a verdict reads of the record: the last entries before the cut-off, at most `maxEntries` (the estimator's
 * own `maxMarkets`), and only as many as fit `maxBytes` of document payload (each entry's `entryCost` plus 20 bytes
 * per distinct address). 64 KiB of payload is ≤ 87.4 KB in base64, so with the boundary entry (≤ 4.2 KB at the
 * contract's 100-seat cap) and the JSON envelope a window document stays under the CRE's 100 KB response.
 */
export const RECORD_WINDOW = Object.freeze({ maxEntries: 5_000, maxBytes: 65_536 });
export type WindowLimits = { maxEntries: number; maxBytes: number };

export interface RecordWindow {
  /** First entry of the window; the window is [start, count). */
  start: number;
  /** Why it starts there: the record's beginning, the entry cap, or the byte budget (entry start-1 did not fit). */
  stop: "beginning" | "entries" | "bytes";
  /** Payload bytes of the window. */
  bytes: number;
}

/**
 * The window before `count`, scanning back from entry count-1. `entryAt(i)` returns entry i, or undefined when the
 * caller does not have it: then the window cannot be decided and this throws (a document that stops too early).
 */
export function recordWindow(
  count: number,
  entryAt: (index: number) => RecordEntry | undefined,
  limits: WindowLimits = RECORD_WINDOW,
): RecordWindow {
  const seen = new Set<string>();
  let bytes = 0;
  let start = count;
  while (start > 0) {
    if (count - start >= limits.maxEntries) return { start, stop: "entries", bytes };
    const e = entryAt(start - 1);
    if (e === undefined)
      throw new TrackRecordError(`the window before ${count} needs entry ${start - 1}, which is not given`);
    let cost = entryCost(e);
    const fresh = [e.creator, ...(e.arbiter.toLowerCase() !== ZERO_ADDRESS ? [e.arbiter] : [])]
      .map((a) => a.toLowerCase())
      .filter((a, i, all) => !seen.has(a) && all.indexOf(a) === i);
    cost += 20 * fresh.length;
    if (bytes + cost > limits.maxBytes) return { start, stop: "bytes", bytes };
    bytes += cost;
    for (const a of fresh) seen.add(a);
    start -= 1;
  }
  return { start, stop: "beginning", bytes };
}

/** The first entry a window document must carry: the window's, or the one before it when the budget stopped it. */
export const windowDocumentFrom = (w: RecordWindow): number => (w.stop === "bytes" ? w.start - 1 : w.start);

/**
 * The estimator's history for a panel: the window's entries as HistoryMarkets, oldest first, keeping only markets
 * in which one of `agents` held a seat (what the daemon has always passed; the market itself is never in the
 * window, which ends before its request).
 */
export function windowHistory(
  window: Iterable<RecordEntry>,
  agents: Iterable<bigint>,
  ctx: HistoryContext,
): HistoryMarket[] {
  const panel = new Set(agents);
  const out: HistoryMarket[] = [];
  for (const e of window) if (e.seats.some((s) => panel.has(s.agentId))) out.push(toHistoryMarket(e, ctx));
  return out;
}
