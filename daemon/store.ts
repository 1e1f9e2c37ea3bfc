/**
 * Durable daemon state in one SQLite file (node:sqlite, WAL): scan cursors, one job per market, every bundle,
 * the daemon's signing key. Every multi-row change runs in one transaction. One daemon per database file,
 * enforced with SQLite's exclusive locking mode (several daemons on one chain each keep their own file:
 * idempotence comes from the chain). Inspect a live daemon through its API, not the file.
 */
import { closeSync, mkdirSync, openSync, chmodSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync, type SQLInputValue } from "./sqlite.js";

export const JOB_STATES = [
  "requested",
  "running",
  "invalidating",
  "written",
  "no-quorum",
  "already-settled",
  "failed",
] as const;
export type JobState = (typeof JOB_STATES)[number];
export const TERMINAL_STATES: ReadonlySet<JobState> = new Set(["written", "no-quorum", "already-settled", "failed"]);

export interface JobKey {
  chainId: number;
  /** Lower-case 0x address. */
  market: string;
  marketId: bigint;
}

export interface JobRow extends JobKey {
  id: number;
  state: JobState;
  /** Resolve attempts started (counted ones; attempts deferred because the RPC was down are not counted). */
  attempts: number;
  /** settleInvalid attempts started. */
  invalidAttempts: number;
  /** Kind of the last run's result: written, no-quorum, no-margin, error, already-settled, deferred, aborted. */
  lastOutcome: string | null;
  lastError: string | null;
  txHash: string | null;
  source: "event" | "manual";
  requestedBlock: number | null;
  requestedTx: string | null;
  createdAt: number;
  updatedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  nextAttemptAt: number;
}

export interface BundleRow {
  attempt: number;
  hash: string;
  json: string;
  createdAt: number;
}

const MIGRATIONS: string[] = [
  // v1
  `CREATE TABLE cursor (
     chain_id INTEGER NOT NULL,
     market TEXT NOT NULL,
     last_block INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     PRIMARY KEY (chain_id, market)
   );
   CREATE TABLE jobs (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     chain_id INTEGER NOT NULL,
     market TEXT NOT NULL,
     market_id TEXT NOT NULL,
     state TEXT NOT NULL CHECK (state IN ('requested','running','invalidating','written','no-quorum','already-settled','failed')),
     attempts INTEGER NOT NULL DEFAULT 0,
     invalid_attempts INTEGER NOT NULL DEFAULT 0,
     last_outcome TEXT,
     last_error TEXT,
     tx_hash TEXT,
     source TEXT NOT NULL,
     requested_block INTEGER,
     requested_tx TEXT,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     started_at INTEGER,
     finished_at INTEGER,
     next_attempt_at INTEGER NOT NULL,
     UNIQUE (chain_id, market, market_id)
   );
   CREATE INDEX jobs_due ON jobs (state, next_attempt_at);
   CREATE TABLE bundles (
     job_id INTEGER NOT NULL REFERENCES jobs(id),
     attempt INTEGER NOT NULL,
     hash TEXT NOT NULL,
     json TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     PRIMARY KEY (job_id, attempt)
   );
   CREATE TABLE keys (
     kid TEXT PRIMARY KEY,
     alg TEXT NOT NULL,
     private_jwk TEXT NOT NULL,
     public_jwk TEXT NOT NULL,
     created_at INTEGER NOT NULL
   );`,
];

/** Newest schema version this code knows. */
export const SCHEMA_VERSION = MIGRATIONS.length;

interface RawJob {
  id: number;
  chain_id: number;
  market: string;
  market_id: string;
  state: JobState;
  attempts: number;
  invalid_attempts: number;
  last_outcome: string | null;
  last_error: string | null;
  tx_hash: string | null;
  source: "event" | "manual";
  requested_block: number | null;
  requested_tx: string | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  finished_at: number | null;
  next_attempt_at: number;
}

function toJob(r: RawJob): JobRow {
  return {
    id: r.id,
    chainId: r.chain_id,
    market: r.market,
    marketId: BigInt(r.market_id),
    state: r.state,
    attempts: r.attempts,
    invalidAttempts: r.invalid_attempts,
    lastOutcome: r.last_outcome,
    lastError: r.last_error,
    txHash: r.tx_hash,
    source: r.source,
    requestedBlock: r.requested_block,
    requestedTx: r.requested_tx,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    nextAttemptAt: r.next_attempt_at,
  };
}

export interface RequestedEvent {
  marketId: bigint;
  blockNumber: number;
  txHash: string | null;
  /** Earliest first run (ms since epoch); default now. */
  notBefore?: number;
}

export interface FinishUpdate {
  state: JobState;
  lastOutcome: string;
  lastError?: string | null;
  txHash?: string | null;
  nextAttemptAt?: number;
  /** Give back the attempt counted when the run started (deferred or aborted runs). */
  uncountAttempt?: boolean;
  uncountInvalidAttempt?: boolean;
  bundle?: { attempt: number; hash: string; json: string };
}

export class Store {
  readonly db: DatabaseSync;
  private closed = false;
  readonly now: () => number;

  constructor(readonly path: string, opts: { now?: () => number } = {}) {
    this.now = opts.now ?? Date.now;
    if (path !== ":memory:") {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      // Create the file owner-only before SQLite touches it: it holds the daemon's private signing key.
      // SQLite gives the -wal and -shm files the main file's permissions.
      closeSync(openSync(path, "a", 0o600));
      chmodSync(path, 0o600);
    }
    this.db = new DatabaseSync(path);
    try {
      // EXCLUSIVE locking: the first write takes a lock held until close (or process death), so a second daemon
      // pointed at the same file fails at start instead of running the same jobs. WAL then needs no -shm file.
      this.db.exec("PRAGMA busy_timeout = 1000; PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL;");
      this.db.exec("BEGIN EXCLUSIVE; COMMIT;");
    } catch (err) {
      this.db.close();
      if (/locked|busy/i.test(String(err))) throw new Error(`database ${path} is in use by another daemon (one daemon per database file)`);
      throw err;
    }
    this.db.exec("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;");
    this.migrate();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Runs `fn` in an IMMEDIATE transaction; rolls back on throw. */
  tx<T>(fn: () => T): T {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const out = fn();
      this.db.exec("COMMIT");
      return out;
    } catch (err) {
      this.db.exec("ROLLBACK");
      throw err;
    }
  }

  schemaVersion(): number {
    const row = this.db.prepare("PRAGMA user_version").get() as { user_version: number };
    return row.user_version;
  }

  private migrate(): void {
    const current = this.schemaVersion();
    if (current > SCHEMA_VERSION) {
      throw new Error(`database schema version ${current} is newer than this daemon (${SCHEMA_VERSION})`);
    }
    for (let v = current; v < SCHEMA_VERSION; v++) {
      this.tx(() => {
        this.db.exec(MIGRATIONS[v]);
        this.db.exec(`PRAGMA user_version = ${v + 1}`);
      });
    }
  }

  /** Jobs a dead daemon left `running` go back to `requested` (their attempt stays counted). Returns how many. */
  recoverRunning(): number {
    const now = this.now();
    const res = this.db
      .prepare("UPDATE jobs SET state = 'requested', last_outcome = 'interrupted', updated_at = ?, next_attempt_at = ? WHERE state = 'running'")
      .run(now, now);
    return Number(res.changes);
  }

  // ---------------------------------------------------------------------------------------------- cursor

  getCursor(chainId: number, market: string): number | undefined {
    const row = this.db.prepare("SELECT last_block FROM cursor WHERE chain_id = ? AND market = ?").get(chainId, market.toLowerCase()) as
      | { last_block: number }
      | undefined;
    return row?.last_block;
  }

  /**
   * Records the jobs of one scanned block range and advances the cursor to `toBlock`, atomically.
   * Idempotent: an event seen twice yields one job. Returns the number of new jobs.
   */
  recordRange(chainId: number, market: string, toBlock: number, events: RequestedEvent[]): number {
    const m = market.toLowerCase();
    return this.tx(() => {
      let created = 0;
      for (const ev of events) {
        if (this.insertJob({ chainId, market: m, marketId: ev.marketId }, "event", ev.blockNumber, ev.txHash, ev.notBefore)) created++;
      }
      this.db
        .prepare(
          `INSERT INTO cursor (chain_id, market, last_block, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (chain_id, market) DO UPDATE SET last_block = MAX(last_block, excluded.last_block), updated_at = excluded.updated_at`,
        )
        .run(chainId, m, toBlock, this.now());
      return created;
    });
  }

  private insertJob(key: JobKey, source: "event" | "manual", block: number | null, txHash: string | null, notBefore?: number): boolean {
    const now = this.now();
    const due = Math.max(now, notBefore ?? now);
    const before = this.getJob(key);
    this.db
      .prepare(
        `INSERT INTO jobs (chain_id, market, market_id, state, source, requested_block, requested_tx, created_at, updated_at, next_attempt_at)
         VALUES (?, ?, ?, 'requested', ?, ?, ?, ?, ?, ?)
         ON CONFLICT (chain_id, market, market_id) DO UPDATE SET
           requested_block = COALESCE(jobs.requested_block, excluded.requested_block),
           requested_tx = COALESCE(jobs.requested_tx, excluded.requested_tx)`,
      )
      .run(key.chainId, key.market.toLowerCase(), key.marketId.toString(10), source, block, txHash, now, now, due);
    return before === undefined;
  }

  // ---------------------------------------------------------------------------------------------- jobs

  getJob(key: JobKey): JobRow | undefined {
    const row = this.db
      .prepare("SELECT * FROM jobs WHERE chain_id = ? AND market = ? AND market_id = ?")
      .get(key.chainId, key.market.toLowerCase(), key.marketId.toString(10)) as RawJob | undefined;
    return row ? toJob(row) : undefined;
  }

  getJobById(id: number): JobRow | undefined {
    const row = this.db.prepare("SELECT * FROM jobs WHERE id = ?").get(id) as RawJob | undefined;
    return row ? toJob(row) : undefined;
  }

  listJobs(): JobRow[] {
    return (this.db.prepare("SELECT * FROM jobs ORDER BY id").all() as unknown as RawJob[]).map(toJob);
  }

  countByState(): Record<JobState, number> {
    const out = Object.fromEntries(JOB_STATES.map((s) => [s, 0])) as Record<JobState, number>;
    for (const r of this.db.prepare("SELECT state, COUNT(*) AS n FROM jobs GROUP BY state").all() as { state: JobState; n: number }[]) {
      out[r.state] = r.n;
    }
    return out;
  }

  /** Jobs ready to run now (requested or invalidating, due), oldest first, excluding ids in `busy`. */
  dueJobs(limit: number, busy: ReadonlySet<number>): JobRow[] {
    if (limit <= 0) return [];
    const rows = this.db
      .prepare(
        `SELECT * FROM jobs WHERE state IN ('requested','invalidating') AND next_attempt_at <= ?
         ORDER BY next_attempt_at, id LIMIT ?`,
      )
      .all(this.now(), limit + busy.size) as unknown as RawJob[];
    return rows.map(toJob).filter((j) => !busy.has(j.id)).slice(0, limit);
  }

  /** Earliest next_attempt_at of a waiting job, if any. */
  nextDueAt(): number | undefined {
    const row = this.db
      .prepare("SELECT MIN(next_attempt_at) AS t FROM jobs WHERE state IN ('requested','invalidating')")
      .get() as { t: number | null };
    return row.t ?? undefined;
  }

  /** requested → running, attempt counted. False if the job was not `requested` any more. */
  claimRun(id: number): JobRow | undefined {
    const now = this.now();
    return this.tx(() => {
      const res = this.db
        .prepare("UPDATE jobs SET state = 'running', attempts = attempts + 1, started_at = ?, updated_at = ? WHERE id = ? AND state = 'requested'")
        .run(now, now, id);
      return Number(res.changes) === 1 ? this.getJobById(id) : undefined;
    });
  }

  /** Counts one settleInvalid attempt of an `invalidating` job. */
  claimInvalidate(id: number): JobRow | undefined {
    const now = this.now();
    return this.tx(() => {
      const res = this.db
        .prepare("UPDATE jobs SET invalid_attempts = invalid_attempts + 1, started_at = ?, updated_at = ? WHERE id = ? AND state = 'invalidating'")
        .run(now, now, id);
      return Number(res.changes) === 1 ? this.getJobById(id) : undefined;
    });
  }

  /** Records a run's result (and its bundle) in one transaction. */
  finish(id: number, u: FinishUpdate): JobRow {
    const now = this.now();
    return this.tx(() => {
      if (u.bundle) {
        this.db
          .prepare(
            `INSERT INTO bundles (job_id, attempt, hash, json, created_at) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT (job_id, attempt) DO UPDATE SET hash = excluded.hash, json = excluded.json, created_at = excluded.created_at`,
          )
          .run(id, u.bundle.attempt, u.bundle.hash, u.bundle.json, now);
      }
      const terminal = TERMINAL_STATES.has(u.state);
      const sets: string[] = ["state = ?", "last_outcome = ?", "updated_at = ?", "next_attempt_at = ?"];
      const args: SQLInputValue[] = [u.state, u.lastOutcome, now, u.nextAttemptAt ?? now];
      if (u.lastError !== undefined) {
        sets.push("last_error = ?");
        args.push(u.lastError);
      }
      if (u.txHash !== undefined) {
        sets.push("tx_hash = ?");
        args.push(u.txHash);
      }
      if (terminal) {
        sets.push("finished_at = ?");
        args.push(now);
      }
      if (u.uncountAttempt) sets.push("attempts = MAX(attempts - 1, 0)");
      if (u.uncountInvalidAttempt) sets.push("invalid_attempts = MAX(invalid_attempts - 1, 0)");
      this.db.prepare(`UPDATE jobs SET ${sets.join(", ")} WHERE id = ?`).run(...args, id);
      return this.getJobById(id)!;
    });
  }

  /**
   * Manual trigger. Unknown market → new job; `failed` → back to `requested` with a fresh attempt budget;
   * waiting → due now; running/invalidating → unchanged; settled (written, no-quorum, already-settled) → unchanged.
   */
  manualRequest(key: JobKey): { job: JobRow; action: "created" | "requeued" | "unchanged" } {
    const now = this.now();
    return this.tx(() => {
      const existing = this.getJob(key);
      if (!existing) {
        this.insertJob(key, "manual", null, null);
        return { job: this.getJob(key)!, action: "created" as const };
      }
      if (existing.state === "failed") {
        this.db
          .prepare("UPDATE jobs SET state = 'requested', attempts = 0, invalid_attempts = 0, finished_at = NULL, updated_at = ?, next_attempt_at = ? WHERE id = ?")
          .run(now, now, existing.id);
        return { job: this.getJobById(existing.id)!, action: "requeued" as const };
      }
      if (existing.state === "requested") {
        this.db.prepare("UPDATE jobs SET next_attempt_at = ?, updated_at = ? WHERE id = ?").run(now, now, existing.id);
        return { job: this.getJobById(existing.id)!, action: "requeued" as const };
      }
      return { job: existing, action: "unchanged" as const };
    });
  }

  // ---------------------------------------------------------------------------------------------- bundles

  bundles(jobId: number): BundleRow[] {
    return (
      this.db.prepare("SELECT attempt, hash, json, created_at FROM bundles WHERE job_id = ? ORDER BY attempt").all(jobId) as unknown as {
        attempt: number;
        hash: string;
        json: string;
        created_at: number;
      }[]
    ).map((r) => ({ attempt: r.attempt, hash: r.hash, json: r.json, createdAt: r.created_at }));
  }

  // ---------------------------------------------------------------------------------------------- keys

  getKey(): { kid: string; alg: string; privateJwk: string; publicJwk: string } | undefined {
    const row = this.db.prepare("SELECT kid, alg, private_jwk, public_jwk FROM keys ORDER BY created_at LIMIT 1").get() as
      | { kid: string; alg: string; private_jwk: string; public_jwk: string }
      | undefined;
    return row ? { kid: row.kid, alg: row.alg, privateJwk: row.private_jwk, publicJwk: row.public_jwk } : undefined;
  }

  allPublicKeys(): string[] {
    return (this.db.prepare("SELECT public_jwk FROM keys ORDER BY created_at").all() as { public_jwk: string }[]).map((r) => r.public_jwk);
  }

  /** Inserts the key unless one exists already (first writer wins); returns the stored key. */
  putKeyIfAbsent(k: { kid: string; alg: string; privateJwk: string; publicJwk: string }) {
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
