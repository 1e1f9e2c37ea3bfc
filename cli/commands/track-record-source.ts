/**
 * Where `cresolver resolve` and `cresolver track-record` take the record from instead of re-reading every log:
 * the daemon's index over a SQLite cache file (daemon/record-index.ts, the same class and schema), or a served
 * window document (GET /track-record?window=1 of a daemon) verified against the market's cut-off on-chain.
 */
import type { Address } from "viem";
import { indexTrackRecord, RecordIndex } from "../../daemon/record-index.js";
import { DatabaseSync } from "../../daemon/sqlite.js";
import type { ChainContext } from "../../workflow/chain/clients.js";
import { readCutoff, readRecordHead } from "../../workflow/chain/record.js";
import { withAllowedRulings } from "../../workflow/allowed-rulings.js";
import { chainAllowList } from "../../workflow/chain/trusted-rulings.js";
import { MAX_DOCUMENT_CHARS, verifyWindowDocument } from "../../workflow/core/record-document.js";
import { windowHistory } from "../../workflow/core/track-record.js";
import { createSafeHttpClient } from "../../workflow/http/client.js";
import type { SafeHttpClient } from "../../workflow/http/types.js";
import type { TrackRecordSource } from "../../workflow/ports.js";
import { CliError } from "../shared/errors.js";

export interface RecordScope {
  ctx: ChainContext;
  market: Address;
  /** The market contract's deployment block (the first scan starts there). */
  fromBlock: bigint;
  chunkBlocks?: bigint;
}

/** The index over `path` (":memory:" for none kept), tables created when missing. Close with `db.close()`. */
export function openRecordIndex(path: string, scope: RecordScope): { index: RecordIndex; db: DatabaseSync } {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path);
  } catch (error) {
    throw new CliError(`cannot open the record cache ${path}: ${(error as Error).message}`);
  }
  db.exec("PRAGMA journal_mode = WAL;");
  const index = new RecordIndex(db, {
    chainId: scope.ctx.chainId,
    market: scope.market,
    fromBlock: scope.fromBlock,
    ...(scope.chunkBlocks !== undefined ? { chunkBlocks: scope.chunkBlocks } : {}),
  });
  return { index, db };
}

/** The pipeline's track record from a cache file: synced (new logs only), then the panel's window at the cut-off. */
export function cachedTrackRecord(index: RecordIndex, scope: RecordScope): TrackRecordSource {
  return indexTrackRecord(index, scope.ctx, scope.market, {
    fromBlock: scope.fromBlock,
    ...(scope.chunkBlocks !== undefined ? { chunkBlocks: scope.chunkBlocks } : {}),
  });
}

/** The window document URL for a cut-off count, from a daemon's base URL or its /track-record URL. */
export function windowUrl(base: string, market: Address, count: number): string {
  const url = new URL(base);
  if (!url.pathname.endsWith("/track-record")) url.pathname = `${url.pathname.replace(/\/$/, "")}/track-record`;
  url.searchParams.set("market", market.toLowerCase());
  url.searchParams.set("count", String(count));
  url.searchParams.set("window", "1");
  return url.toString();
}

/**
 * The pipeline's track record from a served window document: one GET, checked against the market's cut-off (or
 * the current head for a market not requested yet). A server can withhold or fail; it cannot alter the record.
 */
export function servedTrackRecord(
  http: SafeHttpClient,
  base: string,
  scope: RecordScope,
  trustedArbiters?: readonly string[],
): TrackRecordSource {
  const ctx = {
    chainId: scope.ctx.chainId,
    market: scope.market,
    ...(trustedArbiters !== undefined ? { trustedArbiters } : {}),
  };
  // The deployment's allowed arbiters are trusted too, as for the index and on a DON (RECORDS §4).
  return withAllowedRulings(
    {
      async history(snapshot) {
        const cutoff =
          (await readCutoff(scope.ctx, scope.market, snapshot.marketId)) ??
          (await readRecordHead(scope.ctx, scope.market));
        if (cutoff.count === 0) return [];
        const text = await http.getText(windowUrl(base, scope.market, cutoff.count), {
          timeoutMs: 30_000,
          maxBytes: MAX_DOCUMENT_CHARS * 2,
        });
        const { entries } = verifyWindowDocument(text, cutoff, ctx);
        return windowHistory(
          entries,
          snapshot.workers.map((w) => w.agentId),
          ctx,
        );
      },
    },
    chainAllowList(scope.ctx, scope.market),
  );
}

/** `cresolver resolve --record-cache | --record-url`: the pipeline's track record and what to close after the run. */
export function openResolveRecord(
  cwdPath: (p: string) => string,
  opts: { recordCache?: string; recordUrl?: string; allowLoopback?: boolean; allowPrivate?: boolean },
  scope: RecordScope,
): { source: TrackRecordSource; close(): Promise<void> } | undefined {
  if (opts.recordCache !== undefined && opts.recordUrl !== undefined)
    throw new CliError("pass --record-cache or --record-url, not both");
  if (opts.recordCache !== undefined) {
    const { index, db } = openRecordIndex(cwdPath(opts.recordCache), scope);
    return { source: cachedTrackRecord(index, scope), close: async () => db.close() };
  }
  if (opts.recordUrl !== undefined) {
    try {
      new URL(opts.recordUrl);
    } catch {
      throw new CliError(`--record-url ${opts.recordUrl} is not a URL`);
    }
    const http = createSafeHttpClient({
      allowLoopback: opts.allowLoopback === true,
      allowPrivate: opts.allowPrivate === true,
      userAgent: "cresolver-track-record",
    });
    return { source: servedTrackRecord(http, opts.recordUrl, scope), close: () => http.close() };
  }
  return undefined;
}
