/**
 * The `jobs` table of the daemon store (one job per market, with its bundles): scan results, claims, step
 * results, manual requests. Every read is parsed by jobRowSchema; every multi-row change is one transaction.
 */
import { z } from "zod";
import { inTransaction, selectAll, selectOne } from "./sql.js";
import type { DatabaseSync, SQLInputValue } from "./sqlite.js";
import {
  type DisputedEvent,
  FIELD_COLUMNS,
  type FinishUpdate,
  JOB_STATES,
  type JobKey,
  type JobRow,
  type JobState,
  jobRowSchema,
  type RequestedEvent,
  TERMINAL_STATES,
} from "./store-rows.js";

/** States the runner works on by reading and writing the chain (not a pipeline run). */
const CHAIN_STATES = "('proposing','proposed','disputed')";
const DUE_WHERE = `(state = 'requested' OR state IN ${CHAIN_STATES} OR (state = 'finalized' AND feedback = 'pending'))`;
const stateCountSchema = z.object({ state: z.enum(JOB_STATES), n: z.number().int() });
const minTimeSchema = z.object({ t: z.number().int().nullable() });

export class JobTable {
  constructor(
    readonly db: DatabaseSync,
    readonly now: () => number,
  ) {}

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
    return inTransaction(this.db, () => {
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

  getJob(key: JobKey): JobRow | undefined {
    return selectOne(
      this.db,
      jobRowSchema,
      "SELECT * FROM jobs WHERE chain_id = ? AND market = ? AND market_id = ?",
      key.chainId,
      key.market.toLowerCase(),
      key.marketId.toString(10),
    );
  }

  getJobById(id: number): JobRow | undefined {
    return selectOne(this.db, jobRowSchema, "SELECT * FROM jobs WHERE id = ?", id);
  }

  /** A job this store has just written (inside the same transaction): a miss is a bug, not input. */
  private writtenJob(job: JobRow | undefined): JobRow {
    if (job === undefined) throw new Error("internal: job vanished inside its own transaction");
    return job;
  }

  listJobs(): JobRow[] {
    return selectAll(this.db, jobRowSchema, "SELECT * FROM jobs ORDER BY id");
  }

  /** Jobs with work left: not terminal, or finalized with feedback still to publish. */
  unfinishedJobs(): JobRow[] {
    return selectAll(
      this.db,
      jobRowSchema,
      `SELECT * FROM jobs WHERE state NOT IN (${[...TERMINAL_STATES].map(() => "?").join(",")}) OR (state = 'finalized' AND feedback = 'pending') ORDER BY id`,
      ...TERMINAL_STATES,
    );
  }

  countByState(): Record<JobState, number> {
    const counts = new Map(
      selectAll(this.db, stateCountSchema, "SELECT state, COUNT(*) AS n FROM jobs GROUP BY state").map(
        (r) => [r.state, r.n] as const,
      ),
    );
    const n = (state: JobState) => counts.get(state) ?? 0;
    return {
      requested: n("requested"),
      running: n("running"),
      proposing: n("proposing"),
      proposed: n("proposed"),
      disputed: n("disputed"),
      finalized: n("finalized"),
      "already-settled": n("already-settled"),
      "proposed-elsewhere": n("proposed-elsewhere"),
      failed: n("failed"),
    };
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
    const rows = selectAll(
      this.db,
      jobRowSchema,
      `SELECT * FROM jobs WHERE ${where} AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`,
      this.now(),
      limit + busy.size,
    );
    return rows.filter((j) => !busy.has(j.id)).slice(0, limit);
  }

  /** Earliest next_attempt_at of a job with work left, if any. */
  nextDueAt(): number | undefined {
    return (
      selectOne(this.db, minTimeSchema, `SELECT MIN(next_attempt_at) AS t FROM jobs WHERE ${DUE_WHERE}`)?.t ?? undefined
    );
  }

  /** requested → running, attempt counted. Undefined if the job was not `requested` any more. */
  claimRun(id: number): JobRow | undefined {
    return this.claim(
      id,
      "UPDATE jobs SET state = 'running', attempts = attempts + 1, started_at = ?, updated_at = ? WHERE id = ? AND state = 'requested'",
    );
  }

  /** Counts one proposal transaction of a `proposing` job. */
  claimSend(id: number): JobRow | undefined {
    return this.claim(
      id,
      "UPDATE jobs SET send_attempts = send_attempts + 1, last_outcome = 'sending', started_at = ?, updated_at = ? WHERE id = ? AND state = 'proposing'",
    );
  }

  /** One claiming UPDATE (bound: started_at, updated_at, id) in a transaction; the row when it matched. */
  private claim(id: number, sql: string): JobRow | undefined {
    const now = this.now();
    return inTransaction(this.db, () => {
      const res = this.db.prepare(sql).run(now, now, id);
      return Number(res.changes) === 1 ? this.getJobById(id) : undefined;
    });
  }

  /** Records a step's result (and a bundle) in one transaction. */
  finish(id: number, u: FinishUpdate): JobRow {
    const now = this.now();
    return inTransaction(this.db, () => {
      if (u.bundle) this.putBundle(id, u.bundle);
      const terminal = TERMINAL_STATES.has(u.state) && u.feedback !== "pending";
      const sets: string[] = ["state = ?", "last_outcome = ?", "updated_at = ?", "next_attempt_at = ?"];
      const args: SQLInputValue[] = [u.state, u.lastOutcome, now, u.nextAttemptAt ?? now];
      if (u.lastError !== undefined) {
        sets.push("last_error = ?");
        args.push(u.lastError);
      }
      for (const [field, column] of FIELD_COLUMNS) {
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
    inTransaction(this.db, () => {
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
    return inTransaction(this.db, () => {
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
}
