/**
 * `cresolver track-record export|verify` (docs/TRACK-RECORD.md): the record as a `cresolver-track-record/1`
 * document, and the check of any such document against the chain.
 *
 * - export: from the index over `--cache <file>` (synced first: new logs only) or, without it, from the chain's
 *   logs; up to the current head, `--count N`, or a market's cut-off (`--market-id`); the estimator's window with
 *   `--window`.
 * - verify: decoding recomputes every head from `headBefore`; the last one is compared with the chain: the
 *   market's cut-off (`--market-id`), `recordHead()` when the document ends at the current count, else the head
 *   of the `MarketRecorded` event of its last entry.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { Command } from "commander";
import type { Hex } from "viem";
import { readCutoff, readRecordHead, recordedAt } from "../../workflow/chain/record.js";
import {
  decodeRecordDocument,
  encodeRecordDocument,
  encodeWindowDocument,
  MAX_DOCUMENT_CHARS,
  type RecordCutoff,
} from "../../workflow/core/record-document.js";
import { TrackRecordError, ZERO_HEAD } from "../../workflow/core/track-record.js";
import { createSafeHttpClient } from "../../workflow/http/client.js";
import { parseUint } from "../shared/config.js";
import { CliError } from "../shared/errors.js";
import { allowLoopbackOption } from "../shared/options.js";
import type { Runtime } from "../shared/runtime.js";
import { openRecordIndex, type RecordScope } from "./track-record-source.js";
import { describedCommand } from "./help-text.js";

/** A document as big as the record allows (65,536 distinct addresses, ~20 bytes an entry at least). */
const MAX_READ_CHARS = MAX_DOCUMENT_CHARS * 20;

async function scopeOf(rt: Runtime, chunk: string | undefined): Promise<RecordScope> {
  const ctx = await rt.chain();
  return {
    ctx,
    market: await rt.marketAddress(),
    fromBlock: await rt.marketFromBlock(),
    ...(chunk !== undefined ? { chunkBlocks: parseUint(chunk, "--chunk-blocks") } : {}),
  };
}

/** A market's cut-off, or a clear error when it was not requested. */
async function cutoffOf(scope: RecordScope, marketId: bigint): Promise<RecordCutoff> {
  const cutoff = await readCutoff(scope.ctx, scope.market, marketId);
  if (cutoff === undefined) throw new CliError(`market ${marketId} has not requested resolution: it has no cut-off`);
  return cutoff;
}

const count = (v: string, flag: string): number => {
  const n = parseUint(v, flag);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new CliError(`${flag} is too large`);
  return Number(n);
};

function exportCommand(runtime: () => Runtime): Command {
  return describedCommand("track-record export")
    .option("--cache <file>", "the index's SQLite cache file (created when missing; only new logs are read)")
    .option("--count <n>", "the record as of its first n entries (default: the current head)")
    .option("--market-id <id>", "the record as of this market's cut-off (its resolution request)")
    .option("--from <n>", "first entry of the document (default 0)")
    .option("--window", "the estimator's window before the count (what a DON fetches); ignores --from")
    .option("--chunk-blocks <n>", "blocks per eth_getLogs before provider limits split it")
    .option("--out <file>", "write the document here (default: stdout)")
    .action(
      async (opts: {
        cache?: string;
        count?: string;
        marketId?: string;
        from?: string;
        window?: boolean;
        chunkBlocks?: string;
        out?: string;
      }) => {
        const rt = runtime();
        if (opts.count !== undefined && opts.marketId !== undefined)
          throw new CliError("pass --count or --market-id, not both");
        const scope = await scopeOf(rt, opts.chunkBlocks);
        const path = opts.cache === undefined ? ":memory:" : resolvePath(rt.io.cwd, opts.cache);
        const { index, db } = openRecordIndex(path, scope);
        try {
          rt.note(`reading the track record of ${scope.market}${opts.cache !== undefined ? ` into ${path}` : ""}`);
          const synced = await index.sync(scope.ctx);
          const upTo =
            opts.marketId !== undefined
              ? (await cutoffOf(scope, parseUint(opts.marketId, "--market-id"))).count
              : opts.count !== undefined
                ? count(opts.count, "--count")
                : synced.count;
          if (upTo > synced.count) throw new CliError(`the record holds ${synced.count} entries, not ${upTo}`);
          const headAt = (n: number): Hex => {
            const h = index.headAt(n);
            if (h === undefined) throw new CliError(`no head at ${n}`);
            return h;
          };
          let doc;
          if (opts.window === true) {
            const first = Math.max(0, upTo - 5_001);
            const loaded = index.entries(first, upTo);
            doc = encodeWindowDocument({
              chainId: scope.ctx.chainId,
              market: scope.market,
              count: upTo,
              entryAt: (i) => loaded[i - first],
              headAt,
            });
          } else {
            const from = opts.from === undefined ? 0 : count(opts.from, "--from");
            if (from > upTo) throw new CliError(`--from ${from} is past the count ${upTo}`);
            doc = encodeRecordDocument({
              chainId: scope.ctx.chainId,
              market: scope.market,
              count: upTo,
              from,
              headBefore: headAt(from),
              entries: index.entries(from, upTo),
              maxBytes: Number.POSITIVE_INFINITY,
            });
          }
          const text = JSON.stringify(doc);
          if (opts.out === undefined) {
            rt.io.stdout(`${text}\n`);
            return;
          }
          const out = resolvePath(rt.io.cwd, opts.out);
          writeFileSync(out, text);
          rt.emit(
            { out, count: doc.count, from: doc.from, to: doc.to, head: doc.head, chars: text.length },
            `wrote entries ${doc.from}..${doc.to} of ${doc.count} (head ${doc.head}) to ${out}`,
          );
        } finally {
          db.close();
        }
      },
    );
}

/** The document's text from a file or an http(s) URL. */
async function readDocument(rt: Runtime, source: string, allowLoopback: boolean): Promise<string> {
  if (/^https?:\/\//i.test(source)) {
    const http = createSafeHttpClient({ allowLoopback, userAgent: "cresolver-track-record" });
    try {
      return await http.getText(source, { timeoutMs: 30_000, maxBytes: MAX_READ_CHARS });
    } catch (error) {
      throw new CliError(`cannot fetch ${source}: ${(error as Error).message.split("\n")[0]}`, 1);
    } finally {
      await http.close();
    }
  }
  try {
    return readFileSync(resolvePath(rt.io.cwd, source), "utf8");
  } catch (error) {
    throw new CliError(
      `${source}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "file not found" : (error as Error).message}`,
    );
  }
}

function verifyCommand(runtime: () => Runtime): Command {
  return describedCommand("track-record verify")
    .argument("<document>", "a file or an http(s) URL (e.g. a daemon's /track-record)")
    .option("--market-id <id>", "the document must be the record as of this market's cut-off")
    .addOption(allowLoopbackOption("the URL"))
    .action(async (source: string, opts: { marketId?: string; allowLoopback?: boolean }) => {
      const rt = runtime();
      const text = await readDocument(rt, source, opts.allowLoopback === true);
      let decoded;
      try {
        decoded = decodeRecordDocument(text);
      } catch (error) {
        if (error instanceof TrackRecordError) throw new CliError(`${source}: ${error.message}`);
        throw error;
      }
      const { doc } = decoded;
      const scope = await scopeOf(rt, undefined);
      if (doc.chainId !== scope.ctx.chainId)
        throw new CliError(`the document is for chain ${doc.chainId}, not ${scope.ctx.chainId}`);
      if (doc.market !== scope.market.toLowerCase())
        throw new CliError(`the document is for market contract ${doc.market}, not ${scope.market.toLowerCase()}`);
      let against: string;
      let expected: Hex;
      if (opts.marketId !== undefined) {
        const marketId = parseUint(opts.marketId, "--market-id");
        const cutoff = await cutoffOf(scope, marketId);
        if (doc.to !== cutoff.count)
          throw new CliError(`the document ends at entry ${doc.to}, market ${marketId}'s cut-off is ${cutoff.count}`);
        against = `market ${marketId}'s cut-off`;
        expected = cutoff.head;
      } else {
        const now = await readRecordHead(scope.ctx, scope.market);
        if (doc.to > now.count)
          throw new CliError(`the document ends at entry ${doc.to}, the chain holds ${now.count}`);
        if (doc.to === now.count) {
          against = `recordHead() (${now.count} entries)`;
          expected = now.head;
        } else if (doc.to === 0) {
          against = "the empty record";
          expected = ZERO_HEAD;
        } else {
          const last = await recordedAt(scope.ctx, scope.market, doc.to - 1, { fromBlock: scope.fromBlock });
          if (last === undefined) throw new CliError(`no MarketRecorded event for entry ${doc.to - 1}`, 1);
          against = `the MarketRecorded event of entry ${doc.to - 1}`;
          expected = last.head;
        }
      }
      if (decoded.head !== expected.toLowerCase())
        throw new CliError(
          `the document's entries ${doc.from}..${doc.to} do not lead to ${against}: not this chain's record`,
          1,
        );
      rt.emit(
        { verified: true, count: doc.count, from: doc.from, to: doc.to, head: decoded.head, against },
        `verified: entries ${doc.from}..${doc.to} lead to ${against}, head ${decoded.head}`,
      );
    });
}

export function trackRecordCommand(runtime: () => Runtime): Command {
  return new Command("track-record")
    .description("The on-chain track record (docs/TRACK-RECORD.md): export it as a document, verify a document")
    .addCommand(exportCommand(runtime))
    .addCommand(verifyCommand(runtime));
}
