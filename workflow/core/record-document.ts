/**
 * The served track-record document (`GET /track-record`, `cresolver track-record export|verify`, the CRE workflow's
 * fetch): compact, versioned, paged and verifiable. It carries entries `from..to-1` of the record as of `count`
 * entries, in the compact encoding of core/track-record.ts (addresses once in `addresses`, referenced by 2-byte
 * index) as base64, and the head before `from`. Decoding recomputes every head from `headBefore`; a verifier then
 * compares the last one with the chain (the market's cut-off head, `recordHead()`, or the `MarketRecorded` event of
 * entry `to-1`): a match proves every entry, since nobody can find another preimage of a keccak chain.
 */
import { base64Decode, base64Encode } from "./base64.js";
import type { Address, Hex } from "./types.js";
import {
  type AddressCodec,
  Bytes,
  chainStep,
  RECORD_WINDOW,
  type RecordEntry,
  type RecordWindow,
  Reader,
  readEntry,
  recordWindow,
  TrackRecordError,
  type WindowLimits,
  writeEntry,
} from "./track-record.js";

export const RECORD_DOCUMENT_VERSION = "cresolver-track-record/1";
/** Payload bytes of one page (a window document may add its boundary entry): ≤ 100 KB as JSON (RECORD_WINDOW). */
export const RECORD_PAGE_BYTES = RECORD_WINDOW.maxBytes;
/** Characters a document may have before it is parsed (hostile servers): the CRE's response cap. */
export const MAX_DOCUMENT_CHARS = 100_000;

export interface RecordDocument {
  version: typeof RECORD_DOCUMENT_VERSION;
  chainId: number;
  /** The ResolutionMarket, lower-case. */
  market: Address;
  /** The record as of this many entries (a market's cut-off, or the head the server had). */
  count: number;
  /** Entries from..to-1 are in this page. */
  from: number;
  to: number;
  /** The head before entry `from` (zero for 0). */
  headBefore: Hex;
  /** The head after entry `to-1`, as the server claims it (decoding recomputes it). */
  head: Hex;
  /** Distinct creators and arbiters of the page, in first-use order. */
  addresses: Address[];
  /** base64 of the entries' compact encoding. */
  entries: string;
  /** `from` of the next page, when `to < count`. */
  next?: number;
}

export interface DocumentInput {
  chainId: number;
  market: Address;
  count: number;
  from: number;
  headBefore: Hex;
  /** Entries from `from` on, consecutive; at most `count - from` are used. */
  entries: Iterable<RecordEntry>;
  /** Payload bytes of the page (default RECORD_PAGE_BYTES); a page holds at least one entry. */
  maxBytes?: number;
}

/** A page of the record: entries from `from` while the payload fits `maxBytes`. Heads are computed here. */
export function encodeRecordDocument(input: DocumentInput): RecordDocument {
  const maxBytes = input.maxBytes ?? RECORD_PAGE_BYTES;
  const addresses: Address[] = [];
  const refs = new Map<string, number>();
  const codec: AddressCodec = {
    write(out, a) {
      const key = a.toLowerCase();
      let i = refs.get(key);
      if (i === undefined) {
        i = addresses.length;
        if (i > 0xffff) throw new TrackRecordError("more than 65,536 addresses in one page");
        refs.set(key, i);
        addresses.push(key as Address);
      }
      out.byte(i >> 8);
      out.byte(i & 0xff);
    },
    read: () => {
      throw new TrackRecordError("write-only codec");
    },
  };
  const out = new Bytes();
  let head = input.headBefore;
  let to = input.from;
  for (const e of input.entries) {
    if (to >= input.count) break;
    if (e.index !== to) throw new TrackRecordError(`entry ${e.index} where ${to} was expected`);
    const mark = out.len;
    const known = addresses.length;
    writeEntry(out, e, codec);
    if (to > input.from && out.len + 20 * addresses.length > maxBytes) {
      out.len = mark; // does not fit: the next page starts with it
      for (const a of addresses.splice(known)) refs.delete(a);
      break;
    }
    head = chainStep(head, e);
    to += 1;
  }
  return {
    version: RECORD_DOCUMENT_VERSION,
    chainId: input.chainId,
    market: input.market.toLowerCase() as Address,
    count: input.count,
    from: input.from,
    to,
    headBefore: input.headBefore,
    head,
    addresses,
    entries: base64Encode(out.done()),
    ...(to < input.count ? { next: to } : {}),
  };
}

const isHex32 = (v: unknown): v is Hex => typeof v === "string" && /^0x[0-9a-f]{64}$/.test(v);
const isAddress = (v: unknown): v is Address => typeof v === "string" && /^0x[0-9a-f]{40}$/.test(v);
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

export interface DecodedDocument {
  doc: RecordDocument;
  /** Entries from..to-1. */
  entries: RecordEntry[];
  /** The recomputed head after entry to-1 (equals `doc.head`, else decoding threw). */
  head: Hex;
}

/** Parses and checks a document (text or parsed JSON): shape, entries, and every head from `headBefore` on. */
export function decodeRecordDocument(input: unknown): DecodedDocument {
  let raw = input;
  if (typeof raw === "string") {
    if (raw.length > MAX_DOCUMENT_CHARS * 20) throw new TrackRecordError("document too large");
    try {
      raw = JSON.parse(raw);
    } catch {
      throw new TrackRecordError("document is not JSON");
    }
  }
  if (typeof raw !== "object" || raw === null) throw new TrackRecordError("document is not an object");
  const d = raw as Record<string, unknown>;
  if (d.version !== RECORD_DOCUMENT_VERSION)
    throw new TrackRecordError(`unknown document version ${JSON.stringify(d.version)}`);
  if (!isCount(d.chainId) || !isAddress(d.market) || !isCount(d.count) || !isCount(d.from) || !isCount(d.to))
    throw new TrackRecordError("document chainId, market, count, from or to malformed");
  if (!isHex32(d.headBefore) || !isHex32(d.head)) throw new TrackRecordError("document heads malformed");
  if (!Array.isArray(d.addresses) || !d.addresses.every(isAddress) || typeof d.entries !== "string")
    throw new TrackRecordError("document addresses or entries malformed");
  const { from, to, count } = d;
  if (from > to || to > count) throw new TrackRecordError(`document range ${from}..${to} of ${count}`);
  if (from === 0 && d.headBefore !== "0x".padEnd(66, "0"))
    throw new TrackRecordError("entry 0 follows a non-zero head");
  if (d.next !== undefined && d.next !== to) throw new TrackRecordError("document next is not its end");
  const addresses = d.addresses as Address[];
  let bytes: Uint8Array;
  try {
    bytes = base64Decode(d.entries);
  } catch (e) {
    throw new TrackRecordError(`document entries: ${(e as Error).message}`);
  }
  const codec: AddressCodec = {
    write: () => {
      throw new TrackRecordError("read-only codec");
    },
    read(r) {
      const i = r.u16();
      const a = addresses[i];
      if (a === undefined) throw new TrackRecordError(`address reference ${i} out of range`);
      return a;
    },
  };
  const r = new Reader(bytes);
  const entries: RecordEntry[] = [];
  let head = d.headBefore;
  for (let i = from; i < to; i++) {
    const e = readEntry(r, i, codec);
    head = chainStep(head, e);
    entries.push(e);
  }
  if (!r.done) throw new TrackRecordError("document entries have trailing bytes");
  if (head !== d.head) throw new TrackRecordError(`entries ${from}..${to} do not lead to the document's head`);
  const doc: RecordDocument = {
    version: RECORD_DOCUMENT_VERSION,
    chainId: d.chainId,
    market: d.market,
    count,
    from,
    to,
    headBefore: d.headBefore,
    head: d.head,
    addresses,
    entries: d.entries,
    ...(to < count ? { next: to } : {}),
  };
  return { doc, entries, head };
}

/** A market's cut-off: the record's entry count and head when its resolution was requested. */
export interface RecordCutoff {
  count: number;
  head: Hex;
}

/**
 * The window document for a cut-off: the estimator's window (recordWindow) plus, when the byte budget ended it,
 * the entry before it, so that a verifier can check the server did not cut the window short.
 */
export function encodeWindowDocument(
  input: Omit<DocumentInput, "from" | "headBefore" | "entries" | "maxBytes"> & {
    entryAt: (index: number) => RecordEntry | undefined;
    headAt: (count: number) => Hex;
    limits?: WindowLimits;
  },
): RecordDocument {
  const w = recordWindow(input.count, input.entryAt, input.limits);
  const from = w.stop === "bytes" ? w.start - 1 : w.start;
  const entries: RecordEntry[] = [];
  for (let i = from; i < input.count; i++) {
    const e = input.entryAt(i);
    if (e === undefined) throw new TrackRecordError(`entry ${i} is missing`);
    entries.push(e);
  }
  return encodeRecordDocument({ ...input, from, headBefore: input.headAt(from), entries, maxBytes: Infinity });
}

/**
 * Checks a window document against the market's cut-off (read on-chain) and returns the window's entries: the
 * heads lead to the cut-off head, the document ends at the cut-off, and it starts early enough to decide the window.
 */
export function verifyWindowDocument(
  input: unknown,
  cutoff: RecordCutoff,
  expect: { chainId: number; market: Address },
  limits: WindowLimits = RECORD_WINDOW,
): { entries: RecordEntry[]; window: RecordWindow } {
  const { doc, entries, head } = decodeRecordDocument(input);
  if (doc.chainId !== expect.chainId || doc.market !== expect.market.toLowerCase())
    throw new TrackRecordError(`document is for ${doc.chainId}:${doc.market}`);
  if (doc.to !== cutoff.count) throw new TrackRecordError(`document ends at ${doc.to}, the cut-off is ${cutoff.count}`);
  if (head !== cutoff.head.toLowerCase()) throw new TrackRecordError("document does not lead to the cut-off head");
  const window = recordWindow(cutoff.count, (i) => (i >= doc.from ? entries[i - doc.from] : undefined), limits);
  return { entries: entries.slice(window.start - doc.from), window };
}
