/**
 * Durable daemon state in one SQLite file (node:sqlite, WAL): scan cursors, one job per market, every bundle,
 * the daemon's signing key. Every multi-row change runs in one transaction. One daemon per database file,
 * enforced with SQLite's exclusive locking mode (several daemons on one chain each keep their own file:
 * idempotence comes from the chain). Inspect a live daemon through its API, not the file.
 */
import { closeSync, mkdirSync, openSync, chmodSync } from "node:fs";
import { dirname } from "node:path";
import { MIGRATIONS } from "./migrations.js";
import { DatabaseSync, type SQLInputValue } from "./sqlite.js";

export const JOB_STATES = [
  "requested",
  "running",
  "proposing",
  "proposed",
  "disputed",
  "finalized",
  "already-settled",
  "proposed-elsewhere",
  "failed",
] as const;
export type JobState = (typeof JOB_STATES)[number];
/** States no work follows (a `finalized` job still publishes pending feedback: see `feedback`). */
export const TERMINAL_STATES: ReadonlySet<JobState> = new Set([
  "finalized",
  "already-settled",
  "proposed-elsewhere",
  "failed",
]);
/** States the runner works on by reading and writing the chain (not a pipeline run). */
const CHAIN_STATES = "('proposing','proposed','disputed')";
const DUE_WHERE = `(state = 'requested' OR state IN ${CHAIN_STATES} OR (state = 'finalized' AND feedback = 'pending'))`;

export interface JobKey {
  chainId: number;
  /** Lower-case 0x address. */
  market: string;
  marketId: bigint;
}

export interface JobRow extends JobKey {
  id: number;
  state: JobState;
  /** Pipeline runs started (counted ones: runs deferred by an RPC outage, aborted by shutdown or on a wrong chain state are not). */
  attempts: number;
  /** Proposal transactions tried for the current verdict. */
  sendAttempts: number;
  /** Kind of the last step's result (run: verdict, error, deferred, aborted, not-requested; chain: proposed, finalized, …). */
  lastOutcome: string | null;
  lastError: string | null;
  source: "event" | "manual";
  requestedBlock: number | null;
  requestedTx: string | null;
  /** The verdict being proposed / proposed, and why when invalid (the pipeline's reason, e.g. no-quorum, below-threshold). */
  verdict: string | null;
  reason: string | null;
  /** JSON of the proposal payload (per-seat reports) kept until the proposal is on chain. */
  payload: string | null;
  bundleHash: string | null;
  bundleUri: string | null;
  /** The proposal's transaction (linked as soon as it is sent). */
  txHash: string | null;
  /** Chain time (unix seconds) the dispute window closes. */
  disputeEndsAt: number | null;
  disputer: string | null;
  claimed: string | null;
  /** escalated | conceded (and the transaction when escalating took one). */
  disputeAction: string | null;
  disputeTx: string | null;
  /** resolved | invalid once final on chain. */
  finalStatus: string | null;
  /** yes | no | invalid once final: differs from `verdict` when the arbiter overturned the proposal. */
  finalVerdict: string | null;
  finalizeTx: string | null;
  /** pending while ERC-8004 feedback of the finalized market is left to publish; done after. */
  feedback: string | null;
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
  txHash: string | null;
  createdAt: number;
}

/** Newest schema version this code knows. */
export const SCHEMA_VERSION = MIGRATIONS.length;

type RawJob = Record<string, unknown> & {
  id: number;
  chain_id: number;
  market: string;
  market_id: string;
  state: JobState;
};

/** JobRow field ↔ column (the fields FinishUpdate may set). */
const FIELD_COLUMNS = {
  verdict: "verdict",
  reason: "reason",
  payload: "payload",
  bundleHash: "bundle_hash",
  bundleUri: "bundle_uri",
  txHash: "tx_hash",
  disputeEndsAt: "dispute_ends_at",
  disputer: "disputer",
  claimed: "claimed",
  disputeAction: "dispute_action",
  disputeTx: "dispute_tx",
  finalStatus: "final_status",
  finalVerdict: "final_verdict",
  finalizeTx: "finalize_tx",
  feedback: "feedback",
} as const;
type JobField = keyof typeof FIELD_COLUMNS;

function toJob(r: RawJob): JobRow {
  const str = (k: string) => (r[k] ?? null) as string | null;
  const num = (k: string) => (r[k] ?? null) as number | null;
  return {
    id: r.id,
    chainId: r.chain_id,
    market: r.market,
    marketId: BigInt(r.market_id),
    state: r.state,
    attempts: r.attempts as number,
    sendAttempts: r.send_attempts as number,
    lastOutcome: str("last_outcome"),
    lastError: str("last_error"),
    source: r.source as "event" | "manual",
    requestedBlock: num("requested_block"),
    requestedTx: str("requested_tx"),
    verdict: str("verdict"),
    reason: str("reason"),
    payload: str("payload"),
    bundleHash: str("bundle_hash"),
    bundleUri: str("bundle_uri"),
    txHash: str("tx_hash"),
    disputeEndsAt: num("dispute_ends_at"),
    disputer: str("disputer"),
    claimed: str("claimed"),
    disputeAction: str("dispute_action"),
    disputeTx: str("dispute_tx"),
    finalStatus: str("final_status"),
    finalVerdict: str("final_verdict"),
    finalizeTx: str("finalize_tx"),
    feedback: str("feedback"),
    createdAt: r.created_at as number,
    updatedAt: r.updated_at as number,
    startedAt: num("started_at"),
    finishedAt: num("finished_at"),
    nextAttemptAt: r.next_attempt_at as number,
  };
}

export interface RequestedEvent {
  marketId: bigint;
  blockNumber: number;
  txHash: string | null;
  /** Earliest first run (ms since epoch); default now. */
  notBefore?: number | undefined;
}

export interface DisputedEvent {
  marketId: bigint;
  disputer: string;
  claimed: string;
}

export type FinishUpdate = Partial<Pick<JobRow, JobField>> & {
  state: JobState;
  lastOutcome: string;
  lastError?: string | null;
  nextAttemptAt?: number;
  /** Give back the attempt counted when the run started (deferred, aborted or wrong-state runs). */
  uncountAttempt?: boolean;
  uncountSend?: boolean;
  /** A new verdict to send: the proposal attempts start over. */
  resetSends?: boolean;
  bundle?: { attempt: number; hash: string; json: string };
};

/** What a database is bound to (issue: a database reused on a restarted chain hid new markets). */
export interface StoreBinding {
  chainId: number;
  genesisHash: string;
  markets: readonly string[];
}

export class StoreMismatch extends Error {
  override name = "StoreMismatch";
}

export class Store {
  readonly db: DatabaseSync;
  private closed = false;
  readonly now: () => number;

  constructor(
    readonly path: string,
    opts: { now?: () => number } = {},
  ) {
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
      if (/locked|busy/i.test(String(err)))
        throw new Error(`database ${path} is in use by another daemon (one daemon per database file)`);
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

  /**
   * Binds the database to one chain and deployment at first start; later starts must match. A database
   * written on another chain (chain id or genesis hash differ; startDaemon also checks the cursors' block hashes)
   * or for another deployment (a stored market contract missing from the config) is refused with one line,
   * or wiped when `reset` (jobs, bundles, cursors; the signing key stays). New market contracts are added.
   */
  bind(b: StoreBinding, reset: boolean): { reset: boolean; added: string[] } {
    const markets = b.markets.map((m) => m.toLowerCase());
    const get = (k: string) =>
      (this.db.prepare("SELECT value FROM meta WHERE key = ?").get(k) as { value: string } | undefined)?.value;
    const storedChain = get("chain_id");
    const storedGenesis = get("genesis_hash");
    const storedMarkets = (
      this.db.prepare("SELECT market FROM markets ORDER BY market").all() as { market: string }[]
    ).map((r) => r.market);
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
    this.tx(() => {
      const put = this.db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING");
      put.run("chain_id", String(b.chainId));
      put.run("genesis_hash", b.genesisHash.toLowerCase());
      for (const m of added) this.db.prepare("INSERT INTO markets (market, added_at) VALUES (?, ?)").run(m, this.now());
    });
    return { reset: didReset, added };
  }

  /**
   * At start: jobs a dead daemon left `running` go back to `requested` (their attempt stays counted); watched
   * proposals are checked at once (the window may have closed while no daemon ran). Returns the running count.
   */
  recoverRunning(): number {
    const now = this.now();
    this.db
      .prepare(
        `UPDATE jobs SET next_attempt_at = ? WHERE state IN ('proposed','disputed') OR (state = 'finalized' AND feedback = 'pending')`,
      )
      .run(now);
    const res = this.db
      .prepare(
        "UPDATE jobs SET state = 'requested', last_outcome = 'interrupted', updated_at = ?, next_attempt_at = ? WHERE state = 'running'",
      )
      .run(now, now);
    return Number(res.changes);
  }

  /** A run abandoned at shutdown (it did not stop in time): back to `requested`, its attempt not counted. */
  abandonRun(id: number, message: string): void {
    const now = this.now();
    this.db
      .prepare(
        "UPDATE jobs SET state = 'requested', attempts = MAX(attempts - 1, 0), last_outcome = 'aborted', last_error = ?, updated_at = ?, next_attempt_at = ? WHERE id = ? AND state = 'running'",
      )
      .run(message, now, now, id);
  }

  // ---------------------------------------------------------------------------------------------- cursor

  /** Every cursor with the hash of its block (when known): a chain restarted under the database no longer has it. */
  cursors(): { chainId: number; market: string; lastBlock: number; blockHash: string | null }[] {
    return (
      this.db.prepare("SELECT chain_id, market, last_block, block_hash FROM cursor ORDER BY market").all() as {
        chain_id: number;
        market: string;
        last_block: number;
        block_hash: string | null;
      }[]
    ).map((r) => ({ chainId: r.chain_id, market: r.market, lastBlock: r.last_block, blockHash: r.block_hash }));
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
    const row = this.db
      .prepare("SELECT last_block FROM cursor WHERE chain_id = ? AND market = ?")
      .get(chainId, market.toLowerCase()) as { last_block: number } | undefined;
    return row?.last_block;
  }

  /**
   * Records the jobs and disputes of one scanned block range and advances the cursor to `toBlock`, atomically.
   * Idempotent: an event seen twice yields one job. Returns the number of new or revived jobs and of disputes recorded.
   */
  recordRange(
    chainId: number,
    market: string,
    toBlock: number,
    events: RequestedEvent[],
    disputes: DisputedEvent[] = [],
    toBlockHash?: string,
  ): number {
    const m = market.toLowerCase();
    return this.tx(() => {
      let changed = 0;
      for (const ev of events) {
        if (
          this.insertJob(
            { chainId, market: m, marketId: ev.marketId },
            "event",
            ev.blockNumber,
            ev.txHash,
            ev.notBefore,
          )
        )
          changed++;
      }
      for (const d of disputes) {
        if (this.recordDispute({ chainId, market: m, marketId: d.marketId }, d.disputer, d.claimed)) changed++;
      }
      this.db
        .prepare(
          `INSERT INTO cursor (chain_id, market, last_block, block_hash, updated_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (chain_id, market) DO UPDATE SET
             block_hash = CASE WHEN excluded.last_block >= last_block THEN excluded.block_hash ELSE block_hash END,
             last_block = MAX(last_block, excluded.last_block), updated_at = excluded.updated_at`,
        )
        .run(chainId, m, toBlock, toBlockHash?.toLowerCase() ?? null, this.now());
      return changed;
    });
  }

  /**
   * New job, or an existing one revived: a ResolutionRequested event means the chain awaits a proposal, so a
   * `failed` job gets a fresh budget and a job waiting because the market was not requested yet is due now (the
   * event always revives a job that is not terminal on chain).
   */
  private insertJob(
    key: JobKey,
    source: "event" | "manual",
    block: number | null,
    txHash: string | null,
    notBefore?: number,
  ): boolean {
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
    if (before?.state === "failed") {
      this.requeue(before.id, now);
      return true;
    }
    if (source === "event" && before?.state === "requested" && before.lastOutcome === "not-requested") {
      // It waited because the chain did not await a proposal yet; now it does.
      this.db.prepare("UPDATE jobs SET next_attempt_at = ?, updated_at = ? WHERE id = ?").run(due, now, before.id);
      return true;
    }
    return before === undefined;
  }

  private requeue(id: number, now: number): void {
    this.db
      .prepare(
        "UPDATE jobs SET state = 'requested', attempts = 0, send_attempts = 0, finished_at = NULL, updated_at = ?, next_attempt_at = ? WHERE id = ?",
      )
      .run(now, now, id);
  }

  /** A ProposalDisputed event: a `proposed` job becomes `disputed` and is due now. False if nothing changed. */
  recordDispute(key: JobKey, disputer: string, claimed: string): boolean {
    const job = this.getJob(key);
    if (job?.state !== "proposed") return false;
    const now = this.now();
    this.db
      .prepare(
        "UPDATE jobs SET state = 'disputed', disputer = ?, claimed = ?, last_outcome = 'disputed', updated_at = ?, next_attempt_at = ? WHERE id = ?",
      )
      .run(disputer.toLowerCase(), claimed, now, now, job.id);
    return true;
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

  /** A job this store has just written (inside the same transaction): a miss is a bug, not input. */
  private writtenJob(job: JobRow | undefined): JobRow {
    if (job === undefined) throw new Error("internal: job vanished inside its own transaction");
    return job;
  }

  listJobs(): JobRow[] {
    return (this.db.prepare("SELECT * FROM jobs ORDER BY id").all() as unknown as RawJob[]).map(toJob);
  }

  countByState(): Record<JobState, number> {
    const out = Object.fromEntries(JOB_STATES.map((s) => [s, 0])) as Record<JobState, number>;
    for (const r of this.db.prepare("SELECT state, COUNT(*) AS n FROM jobs GROUP BY state").all() as {
      state: JobState;
      n: number;
    }[]) {
      out[r.state] = r.n;
    }
    return out;
  }

  /**
   * Due jobs, oldest first, excluding ids in `busy`: kind "run" = `requested` (a pipeline run); kind "chain" =
   * proposing, proposed, disputed, and finalized with feedback pending (chain reads and writes only).
   */
  dueJobs(kind: "run" | "chain", limit: number, busy: ReadonlySet<number>): JobRow[] {
    if (limit <= 0) return [];
    const where =
      kind === "run"
        ? "state = 'requested'"
        : `(state IN ${CHAIN_STATES} OR (state = 'finalized' AND feedback = 'pending'))`;
    const rows = this.db
      .prepare(`SELECT * FROM jobs WHERE ${where} AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`)
      .all(this.now(), limit + busy.size) as unknown as RawJob[];
    return rows
      .map(toJob)
      .filter((j) => !busy.has(j.id))
      .slice(0, limit);
  }

  /** Earliest next_attempt_at of a job with work left, if any. */
  nextDueAt(): number | undefined {
    const row = this.db.prepare(`SELECT MIN(next_attempt_at) AS t FROM jobs WHERE ${DUE_WHERE}`).get() as {
      t: number | null;
    };
    return row.t ?? undefined;
  }

  /** requested → running, attempt counted. Undefined if the job was not `requested` any more. */
  claimRun(id: number): JobRow | undefined {
    const now = this.now();
    return this.tx(() => {
      const res = this.db
        .prepare(
          "UPDATE jobs SET state = 'running', attempts = attempts + 1, started_at = ?, updated_at = ? WHERE id = ? AND state = 'requested'",
        )
        .run(now, now, id);
      return Number(res.changes) === 1 ? this.getJobById(id) : undefined;
    });
  }

  /** Counts one proposal transaction of a `proposing` job. */
  claimSend(id: number): JobRow | undefined {
    const now = this.now();
    return this.tx(() => {
      const res = this.db
        .prepare(
          "UPDATE jobs SET send_attempts = send_attempts + 1, last_outcome = 'sending', started_at = ?, updated_at = ? WHERE id = ? AND state = 'proposing'",
        )
        .run(now, now, id);
      return Number(res.changes) === 1 ? this.getJobById(id) : undefined;
    });
  }

  /** Records a step's result (and a bundle) in one transaction. */
  finish(id: number, u: FinishUpdate): JobRow {
    const now = this.now();
    return this.tx(() => {
      if (u.bundle) this.putBundle(id, u.bundle);
      const terminal = TERMINAL_STATES.has(u.state) && u.feedback !== "pending";
      const sets: string[] = ["state = ?", "last_outcome = ?", "updated_at = ?", "next_attempt_at = ?"];
      const args: SQLInputValue[] = [u.state, u.lastOutcome, now, u.nextAttemptAt ?? now];
      if (u.lastError !== undefined) {
        sets.push("last_error = ?");
        args.push(u.lastError);
      }
      for (const [field, column] of Object.entries(FIELD_COLUMNS) as [JobField, string][]) {
        const v = u[field];
        if (v === undefined) continue;
        sets.push(`${column} = ?`);
        args.push(v);
      }
      sets.push("finished_at = ?");
      args.push(terminal ? now : null);
      if (u.uncountAttempt) sets.push("attempts = MAX(attempts - 1, 0)");
      if (u.uncountSend) sets.push("send_attempts = MAX(send_attempts - 1, 0)");
      if (u.resetSends) sets.push("send_attempts = 0");
      this.db.prepare(`UPDATE jobs SET ${sets.join(", ")} WHERE id = ?`).run(...args, id);
      return this.writtenJob(this.getJobById(id));
    });
  }

  /** Links a sent proposal transaction to the job and to its (already stored) bundle. */
  linkTx(id: number, txHash: string): void {
    this.tx(() => {
      this.db.prepare("UPDATE jobs SET tx_hash = ?, updated_at = ? WHERE id = ?").run(txHash, this.now(), id);
      this.db
        .prepare(
          "UPDATE bundles SET tx_hash = ? WHERE job_id = ? AND hash = (SELECT bundle_hash FROM jobs WHERE id = ?)",
        )
        .run(txHash, id, id);
    });
  }

  private putBundle(jobId: number, b: { attempt: number; hash: string; json: string }): void {
    this.db
      .prepare(
        `INSERT INTO bundles (job_id, attempt, hash, json, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (job_id, attempt) DO UPDATE SET hash = excluded.hash, json = excluded.json, created_at = excluded.created_at`,
      )
      .run(jobId, b.attempt, b.hash.toLowerCase(), b.json, this.now());
  }

  /**
   * Manual trigger (the API checked that the chain awaits a proposal). Unknown market → new job; `failed` →
   * back to `requested` with a fresh budget; waiting → due now; anything else → unchanged.
   */
  manualRequest(key: JobKey): { job: JobRow; action: "created" | "requeued" | "unchanged" } {
    const now = this.now();
    return this.tx(() => {
      const existing = this.getJob(key);
      if (!existing) {
        this.insertJob(key, "manual", null, null);
        return { job: this.writtenJob(this.getJob(key)), action: "created" as const };
      }
      if (existing.state === "failed") {
        this.requeue(existing.id, now);
        return { job: this.writtenJob(this.getJobById(existing.id)), action: "requeued" as const };
      }
      if (existing.state === "requested") {
        this.db.prepare("UPDATE jobs SET next_attempt_at = ?, updated_at = ? WHERE id = ?").run(now, now, existing.id);
        return { job: this.writtenJob(this.getJobById(existing.id)), action: "requeued" as const };
      }
      return { job: existing, action: "unchanged" as const };
    });
  }

  // ---------------------------------------------------------------------------------------------- bundles

  bundles(jobId: number): BundleRow[] {
    return (
      this.db
        .prepare("SELECT attempt, hash, json, tx_hash, created_at FROM bundles WHERE job_id = ? ORDER BY attempt")
        .all(jobId) as unknown as {
        attempt: number;
        hash: string;
        json: string;
        tx_hash: string | null;
        created_at: number;
      }[]
    ).map((r) => ({ attempt: r.attempt, hash: r.hash, json: r.json, txHash: r.tx_hash, createdAt: r.created_at }));
  }

  /** The stored bundle text with this keccak256 (any job), for GET /bundles/<hash>.json. */
  bundleByHash(hash: string): string | undefined {
    const row = this.db.prepare("SELECT json FROM bundles WHERE hash = ? LIMIT 1").get(hash.toLowerCase()) as
      | { json: string }
      | undefined;
    return row?.json;
  }

  // ---------------------------------------------------------------------------------------------- keys

  getKey(): { kid: string; alg: string; privateJwk: string; publicJwk: string } | undefined {
    const row = this.db
      .prepare("SELECT kid, alg, private_jwk, public_jwk FROM keys ORDER BY created_at LIMIT 1")
      .get() as { kid: string; alg: string; private_jwk: string; public_jwk: string } | undefined;
    return row ? { kid: row.kid, alg: row.alg, privateJwk: row.private_jwk, publicJwk: row.public_jwk } : undefined;
  }

  allPublicKeys(): string[] {
    return (this.db.prepare("SELECT public_jwk FROM keys ORDER BY created_at").all() as { public_jwk: string }[]).map(
      (r) => r.public_jwk,
    );
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
