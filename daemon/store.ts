/**
 * Durable daemon state in one SQLite file (node:sqlite, WAL): scan cursors, one job per market, every bundle,
 * the daemon's signing key. Every multi-row change runs in one transaction. One daemon per database file,
 * enforced with SQLite's exclusive locking mode (several daemons on one chain each keep their own file:
 * idempotence comes from the chain). Inspect a live daemon through its API, not the file.
 */
import { closeSync, mkdirSync, openSync, chmodSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import { CresolverError } from "../workflow/util/errors.js";
import { MIGRATIONS } from "./migrations.js";
import { inTransaction, selectAll, selectOne } from "./sql.js";
import { DatabaseSync } from "./sqlite.js";
import { JobTable } from "./store-jobs.js";
import { type BundleRow, bundleRowSchema, cursorRowSchema, keyRowSchema, type StoredKey } from "./store-rows.js";

export {
  type BundleRow,
  type DisputedEvent,
  type FinishUpdate,
  JOB_STATES,
  type JobKey,
  type JobRow,
  type JobState,
  type RequestedEvent,
  type StoredKey,
  TERMINAL_STATES,
} from "./store-rows.js";

/** Newest schema version this code knows. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** What a database is bound to (issue: a database reused on a restarted chain hid new markets). */
export interface StoreBinding {
  chainId: number;
  genesisHash: string;
  markets: readonly string[];
}

export class StoreMismatch extends CresolverError {}

const metaRowSchema = z.object({ value: z.string() });
const marketRowSchema = z.object({ market: z.string() });
const versionRowSchema = z.object({ user_version: z.number().int() });
const lastBlockRowSchema = z.object({ last_block: z.number().int() });
const jsonRowSchema = z.object({ json: z.string() });
const publicKeyRowSchema = z.object({ public_jwk: z.string() });

/** Opens (creating owner-only) the database file with the daemon's pragmas; fails when another daemon holds it. */
function openDatabase(path: string): DatabaseSync {
  if (path !== ":memory:") {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // Create the file owner-only before SQLite touches it: it holds the daemon's private signing key.
    // SQLite gives the -wal and -shm files the main file's permissions.
    closeSync(openSync(path, "a", 0o600));
    chmodSync(path, 0o600);
  }
  const db = new DatabaseSync(path);
  try {
    // EXCLUSIVE locking: the first write takes a lock held until close (or process death), so a second daemon
    // pointed at the same file fails at start instead of running the same jobs. WAL then needs no -shm file.
    db.exec("PRAGMA busy_timeout = 1000; PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL;");
    db.exec("BEGIN EXCLUSIVE; COMMIT;");
  } catch (err) {
    db.close();
    if (/locked|busy/i.test(String(err)))
      throw new StoreMismatch(`database ${path} is in use by another daemon (one daemon per database file)`, {
        cause: err,
      });
    throw err;
  }
  db.exec("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;");
  return db;
}

/** The daemon's database: the job table (JobTable) plus the binding, cursors, bundles and signing key. */
export class Store extends JobTable {
  private closed = false;

  constructor(
    readonly path: string,
    opts: { now?: () => number } = {},
  ) {
    super(openDatabase(path), opts.now ?? Date.now);
    this.migrate();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Runs `fn` in an IMMEDIATE transaction; rolls back on throw. */
  tx<T>(fn: () => T): T {
    return inTransaction(this.db, fn);
  }

  schemaVersion(): number {
    return selectOne(this.db, versionRowSchema, "PRAGMA user_version")?.user_version ?? 0;
  }

  private migrate(): void {
    const current = this.schemaVersion();
    if (current > SCHEMA_VERSION) {
      throw new StoreMismatch(`database schema version ${current} is newer than this daemon (${SCHEMA_VERSION})`);
    }
    MIGRATIONS.slice(current).forEach((sql, i) => {
      this.tx(() => {
        this.db.exec(sql);
        this.db.exec(`PRAGMA user_version = ${current + i + 1}`);
      });
    });
  }

  /**
   * Binds the database to one chain and deployment at first start; later starts must match. A database
   * written on another chain (chain id or genesis hash differ; startDaemon also checks the cursors' block hashes)
   * or for another deployment (a stored market contract missing from the config) is refused with one line,
   * or wiped when `reset` (jobs, bundles, cursors; the signing key stays). New market contracts are added.
   */
  bind(b: StoreBinding, reset: boolean): { reset: boolean; added: string[] } {
    const markets = b.markets.map((m) => m.toLowerCase());
    const get = (k: string) => selectOne(this.db, metaRowSchema, "SELECT value FROM meta WHERE key = ?", k)?.value;
    const storedChain = get("chain_id");
    const storedGenesis = get("genesis_hash");
    const storedMarkets = selectAll(this.db, marketRowSchema, "SELECT market FROM markets ORDER BY market").map(
      (r) => r.market,
    );
    let problem: string | undefined;
    if (storedChain !== undefined && storedChain !== String(b.chainId)) {
      problem = `it belongs to chain id ${storedChain}, the RPC is on chain id ${b.chainId}`;
    } else if (storedGenesis !== undefined && storedGenesis.toLowerCase() !== b.genesisHash.toLowerCase()) {
      problem = `it belongs to another chain with chain id ${b.chainId} (genesis ${storedGenesis}, the RPC's is ${b.genesisHash}; a restarted local node?)`;
    } else {
      const missing = storedMarkets.filter((m) => !markets.includes(m));
      if (missing.length > 0)
        problem = `it belongs to a deployment with market contract ${missing.join(", ")}, which is not configured`;
    }
    let didReset = false;
    if (problem !== undefined) {
      if (!reset) {
        throw new StoreMismatch(
          `database ${this.path} cannot be used: ${problem}; use another database file, or reset it (resetStore / --reset-db)`,
        );
      }
      this.reset();
      didReset = true;
    }
    const known = didReset ? [] : storedMarkets;
    const added = markets.filter((m) => !known.includes(m));
    inTransaction(this.db, () => {
      const put = this.db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING");
      put.run("chain_id", String(b.chainId));
      put.run("genesis_hash", b.genesisHash.toLowerCase());
      for (const m of added) this.db.prepare("INSERT INTO markets (market, added_at) VALUES (?, ?)").run(m, this.now());
    });
    return { reset: didReset, added };
  }

  // ---------------------------------------------------------------------------------------------- cursor

  /** Every cursor with the hash of its block (when known): a chain restarted under the database no longer has it. */
  cursors(): { chainId: number; market: string; lastBlock: number; blockHash: string | null }[] {
    return selectAll(
      this.db,
      cursorRowSchema,
      "SELECT chain_id, market, last_block, block_hash FROM cursor ORDER BY market",
    );
  }

  /** Wipes jobs, bundles, cursors, the track-record index and the binding (the signing key stays). */
  reset(): void {
    this.tx(() =>
      this.db.exec(
        "DELETE FROM bundles; DELETE FROM jobs; DELETE FROM cursor; DELETE FROM markets; DELETE FROM meta; DELETE FROM record_entries; DELETE FROM record_cursor;",
      ),
    );
  }

  getCursor(chainId: number, market: string): number | undefined {
    return selectOne(
      this.db,
      lastBlockRowSchema,
      "SELECT last_block FROM cursor WHERE chain_id = ? AND market = ?",
      chainId,
      market.toLowerCase(),
    )?.last_block;
  }

  // ---------------------------------------------------------------------------------------------- bundles

  bundles(jobId: number): BundleRow[] {
    return selectAll(
      this.db,
      bundleRowSchema,
      "SELECT attempt, hash, json, tx_hash, created_at FROM bundles WHERE job_id = ? ORDER BY attempt",
      jobId,
    );
  }

  /** The stored bundle text with this keccak256 (any job), for GET /bundles/<hash>.json. */
  bundleByHash(hash: string): string | undefined {
    return selectOne(this.db, jsonRowSchema, "SELECT json FROM bundles WHERE hash = ? LIMIT 1", hash.toLowerCase())
      ?.json;
  }

  // ---------------------------------------------------------------------------------------------- keys

  getKey(): StoredKey | undefined {
    return selectOne(
      this.db,
      keyRowSchema,
      "SELECT kid, alg, private_jwk, public_jwk FROM keys ORDER BY created_at LIMIT 1",
    );
  }

  allPublicKeys(): string[] {
    return selectAll(this.db, publicKeyRowSchema, "SELECT public_jwk FROM keys ORDER BY created_at").map(
      (r) => r.public_jwk,
    );
  }

  /** Inserts the key unless one exists already (first writer wins); returns the stored key. */
  putKeyIfAbsent(k: StoredKey): StoredKey {
    return this.tx(() => {
      const existing = this.getKey();
      if (existing) return existing;
      this.db
        .prepare("INSERT INTO keys (kid, alg, private_jwk, public_jwk, created_at) VALUES (?, ?, ?, ?, ?)")
        .run(k.kid, k.alg, k.privateJwk, k.publicJwk, this.now());
      return k;
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }
}
