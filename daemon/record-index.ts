/**
 * The track-record index (issue 22): every `MarketRecorded` entry of one market contract in SQLite, read once from
 * the deployment block, then only new logs. Each entry is checked as it arrives (its index follows the last one,
 * the RECORDS §3 step from the stored head gives the head the event carries) and each sync ends by comparing the
 * stored (count, head) with `recordHead()` at the scanned block. Reorg-safe like the trigger's cursors: the cursor
 * keeps its block's hash; when that block changed, entries from the replaced blocks are dropped and read again.
 *
 * The daemon builds it before accepting jobs (daemon/host.ts) and each resolution reads only the estimator's
 * window before its cut-off (≤ 5,000 entries): memory and CPU do not grow with the record. `cresolver resolve` uses
 * the same class over a cache file.
 */
import type { Address, Hex } from "viem";
import type { RecordCutoff } from "../workflow/core/record-document.js";
import {
  chainStep,
  decodeEntry,
  encodeEntry,
  type HistoryContext,
  type RecordEntry,
  recordWindow,
  TrackRecordError,
  windowHistory,
  ZERO_HEAD,
} from "../workflow/core/track-record.js";
import type { HistoryMarket } from "../workflow/core/types.js";
import type { ChainContext } from "../workflow/chain/clients.js";
import { toChainError } from "../workflow/chain/errors.js";
import { entryOfLog, readCutoff, readRecordHead, scanRecordLogs } from "../workflow/chain/record.js";
import { chainAllowList } from "../workflow/chain/trusted-rulings.js";
import { withAllowedRulings } from "../workflow/allowed-rulings.js";
import type { TrackRecordSource } from "../workflow/ports.js";
import { RECORD_INDEX_SCHEMA } from "./migrations.js";
import { inTransaction } from "./sql.js";
import type { DatabaseSync } from "./sqlite.js";

export interface RecordIndexOptions {
  chainId: number;
  market: Address;
  /** The market contract's deployment block (the first scan starts there). Default 0. */
  fromBlock?: bigint;
  /** Blocks per eth_getLogs request before provider limits split it (range or result caps). Default 2,000,000. */
  chunkBlocks?: bigint;
  /** Arbiters whose rulings are known truth (docs/RECORDS.md §4). */
  trustedArbiters?: readonly string[];
}

export interface SyncResult {
  count: number;
  head: Hex;
  /** Entries added by this sync. */
  added: number;
  /** Entries dropped because their blocks were replaced (a reorg). */
  dropped: number;
  toBlock: bigint;
}

type EntryRow = { idx: number; head: string; entry: Uint8Array };

export class RecordIndex {
  private readonly chainId: number;
  private readonly market: string;
  private syncing: Promise<SyncResult> | undefined;

  constructor(
    private readonly db: DatabaseSync,
    private readonly options: RecordIndexOptions,
  ) {
    this.chainId = options.chainId;
    this.market = options.market.toLowerCase();
    db.exec(RECORD_INDEX_SCHEMA);
  }

  /** Entries stored. */
  count(): number {
    const row = this.db
      .prepare("SELECT MAX(idx) AS m FROM record_entries WHERE chain_id = ? AND market = ?")
      .get(this.chainId, this.market) as { m: number | null };
    return row.m === null ? 0 : row.m + 1;
  }

  /** The head after the first `count` entries (zero for 0); undefined past the stored ones. */
  headAt(count: number): Hex | undefined {
    if (count === 0) return ZERO_HEAD;
    const row = this.db
      .prepare("SELECT head FROM record_entries WHERE chain_id = ? AND market = ? AND idx = ?")
      .get(this.chainId, this.market, count - 1) as { head: string } | undefined;
    return row?.head as Hex | undefined;
  }

  /** Stored entries from..to-1, oldest first. */
  entries(from: number, to: number): RecordEntry[] {
    const rows = this.db
      .prepare(
        "SELECT idx, head, entry FROM record_entries WHERE chain_id = ? AND market = ? AND idx >= ? AND idx < ? ORDER BY idx",
      )
      .all(this.chainId, this.market, from, to) as EntryRow[];
    return rows.map((r) => decodeEntry(r.entry, r.idx));
  }

  /**
   * The estimator's window before `cutoff` (recordWindow), after checking the stored head at the cut-off is the
   * chain's. Reads at most maxEntries + 1 entries.
   */
  window(cutoff: RecordCutoff): RecordEntry[] {
    const stored = this.headAt(cutoff.count);
    if (stored === undefined)
      throw new TrackRecordError(`the index holds ${this.count()} entries, the cut-off is ${cutoff.count}`);
    if (stored !== cutoff.head.toLowerCase())
      throw new TrackRecordError(`the index's head at ${cutoff.count} is not the chain's cut-off head`);
    // Enough for any window: the entry cap, plus the boundary entry.
    const first = Math.max(0, cutoff.count - 5_001);
    const loaded = this.entries(first, cutoff.count);
    const w = recordWindow(cutoff.count, (i) => loaded[i - first]);
    return loaded.slice(w.start - first);
  }

  /** The panel's history before `cutoff` (windowHistory over `window`). */
  history(cutoff: RecordCutoff, agents: Iterable<bigint>, chainId: number): HistoryMarket[] {
    const ctx: HistoryContext = {
      chainId,
      market: this.market as Address,
      ...(this.options.trustedArbiters !== undefined ? { trustedArbiters: this.options.trustedArbiters } : {}),
    };
    return windowHistory(this.window(cutoff), agents, ctx);
  }

  /** Brings the index to the chain's latest block (concurrent callers share one sync). */
  sync(ctx: ChainContext): Promise<SyncResult> {
    this.syncing ??= this.doSync(ctx).finally(() => {
      this.syncing = undefined;
    });
    return this.syncing;
  }

  private cursor(): { lastBlock: bigint; blockHash: string | null } | undefined {
    const row = this.db
      .prepare("SELECT last_block, block_hash FROM record_cursor WHERE chain_id = ? AND market = ?")
      .get(this.chainId, this.market) as { last_block: number; block_hash: string | null } | undefined;
    return row === undefined ? undefined : { lastBlock: BigInt(row.last_block), blockHash: row.block_hash };
  }

  private setCursor(block: bigint, hash: string | null): void {
    this.db
      .prepare(
        `INSERT INTO record_cursor (chain_id, market, last_block, block_hash) VALUES (?, ?, ?, ?)
         ON CONFLICT (chain_id, market) DO UPDATE SET last_block = excluded.last_block, block_hash = excluded.block_hash`,
      )
      .run(this.chainId, this.market, Number(block), hash);
  }

  private tx<T>(fn: () => T): T {
    return inTransaction(this.db, fn);
  }

  /** Drops every entry of this market (a head that disagrees with the chain: rebuilt at the next sync). */
  clear(): void {
    this.tx(() => {
      this.db.prepare("DELETE FROM record_entries WHERE chain_id = ? AND market = ?").run(this.chainId, this.market);
      this.db.prepare("DELETE FROM record_cursor WHERE chain_id = ? AND market = ?").run(this.chainId, this.market);
    });
  }

  private async blockHash(ctx: ChainContext, n: bigint): Promise<string | undefined> {
    try {
      return (await ctx.publicClient.getBlock({ blockNumber: n })).hash?.toLowerCase();
    } catch (error) {
      const e = toChainError(error, `eth_getBlockByNumber ${n}`);
      if (/not found|could not be found/i.test(e.message)) return undefined;
      throw e;
    }
  }

  /** Rolls back to the newest stored block the chain still has. Returns the entries dropped. */
  private async unwindReorg(ctx: ChainContext): Promise<number> {
    const cur = this.cursor();
    if (cur === undefined) return 0;
    if (cur.blockHash !== null && (await this.blockHash(ctx, cur.lastBlock)) === cur.blockHash) return 0;
    // The newest 64 blocks holding entries (a deeper reorg drops everything: rebuilt from the deployment block).
    const blocks = this.db
      .prepare(
        "SELECT DISTINCT block_number AS n, block_hash AS h FROM record_entries WHERE chain_id = ? AND market = ? ORDER BY block_number DESC LIMIT 64",
      )
      .all(this.chainId, this.market) as { n: number; h: string }[];
    let keep: { n: number; h: string } | undefined;
    for (const b of blocks) {
      if ((await this.blockHash(ctx, BigInt(b.n))) === b.h) {
        keep = b;
        break;
      }
    }
    const before = this.count();
    this.tx(() => {
      this.db
        .prepare("DELETE FROM record_entries WHERE chain_id = ? AND market = ? AND block_number > ?")
        .run(this.chainId, this.market, keep?.n ?? -1);
      if (keep === undefined)
        this.db.prepare("DELETE FROM record_cursor WHERE chain_id = ? AND market = ?").run(this.chainId, this.market);
      else this.setCursor(BigInt(keep.n), keep.h);
    });
    return before - this.count();
  }

  private async doSync(ctx: ChainContext): Promise<SyncResult> {
    const dropped = await this.unwindReorg(ctx);
    const latest = await ctx.publicClient.getBlockNumber({ cacheTime: 0 }).catch((e: unknown) => {
      throw toChainError(e, "eth_blockNumber");
    });
    const cur = this.cursor();
    const from = cur === undefined ? (this.options.fromBlock ?? 0n) : cur.lastBlock + 1n;
    let count = this.count();
    let head = this.headAt(count) ?? ZERO_HEAD;
    let added = 0;
    if (from <= latest) {
      const insert = this.db.prepare(
        "INSERT INTO record_entries (chain_id, market, idx, head, block_number, block_hash, entry) VALUES (?, ?, ?, ?, ?, ?, ?)",
      );
      for await (const chunk of scanRecordLogs(ctx, this.options.market, {
        fromBlock: from,
        toBlock: latest,
        chunkBlocks: this.options.chunkBlocks ?? 2_000_000n,
      })) {
        const logs = chunk.logs
          .filter((l) => !l.removed)
          .sort((a, b) =>
            a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1,
          );
        this.tx(() => {
          for (const log of logs) {
            const { entry, head: claimed } = entryOfLog(log);
            if (entry.index < count) continue; // read again after a partial sync: already stored and checked
            if (entry.index > count)
              throw new TrackRecordError(`record entry ${count} is missing (the chain sent ${entry.index})`);
            const next = chainStep(head, entry);
            if (next !== claimed)
              throw new TrackRecordError(`entry ${entry.index}: the event's head is not the RECORDS §3 step`);
            insert.run(
              this.chainId,
              this.market,
              entry.index,
              next,
              Number(log.blockNumber),
              log.blockHash.toLowerCase(),
              encodeEntry(entry),
            );
            head = next;
            count += 1;
            added += 1;
          }
          this.setCursor(chunk.toBlock, null);
        });
      }
    }
    // The cursor's hash (reorg check of the next sync) and the chain's own (count, head) at the same block.
    const [hash, onChain] = await Promise.all([
      this.blockHash(ctx, latest),
      readRecordHead(ctx, this.options.market, latest),
    ]);
    if (onChain.count !== count || onChain.head !== head) {
      this.clear();
      throw new TrackRecordError(
        `the index (${count} entries) disagrees with recordHead() (${onChain.count}) at block ${latest}: cleared, it is rebuilt at the next sync`,
      );
    }
    this.tx(() => this.setCursor(latest, hash ?? null));
    return { count, head, added, dropped, toBlock: latest };
  }
}

/**
 * The pipeline's TrackRecordSource over the index: sync (new logs only), the market's cut-off, the panel's window
 * history. A market not requested yet (a manual run) uses the current head.
 */
export function indexTrackRecord(
  index: RecordIndex,
  ctx: ChainContext,
  market: Address,
  _options: { fromBlock?: bigint; chunkBlocks?: bigint } = {},
): TrackRecordSource {
  // Rulings of arbiters the deployment allows are known truth too (RECORDS §4), marked in the one shared wrapper
  // (workflow/allowed-rulings.ts) the CRE workflow and `cresolver resolve` use as well.
  return withAllowedRulings(
    {
      async history(snapshot) {
        const synced = await index.sync(ctx);
        const cutoff = (await readCutoff(ctx, market, snapshot.marketId)) ?? {
          count: synced.count,
          head: synced.head,
        };
        return index.history(
          cutoff,
          snapshot.workers.map((w) => w.agentId),
          snapshot.chainId,
        );
      },
    },
    chainAllowList(ctx, market),
  );
}
