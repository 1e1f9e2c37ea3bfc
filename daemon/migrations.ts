/**
 * The daemon database's schema, one SQL script per `PRAGMA user_version` step (store.ts runs them in order,
 * each in one transaction). Never edit a released step: append one.
 */
/** The track-record index's tables (daemon/record-index.ts; `cresolver resolve` creates them in its cache file). */
export const RECORD_INDEX_SCHEMA = `
  CREATE TABLE IF NOT EXISTS record_entries (
    chain_id INTEGER NOT NULL,
    market TEXT NOT NULL,
    idx INTEGER NOT NULL,
    head TEXT NOT NULL,
    block_number INTEGER NOT NULL,
    block_hash TEXT NOT NULL,
    entry BLOB NOT NULL,
    PRIMARY KEY (chain_id, market, idx)
  );
  CREATE TABLE IF NOT EXISTS record_cursor (
    chain_id INTEGER NOT NULL,
    market TEXT NOT NULL,
    last_block INTEGER NOT NULL,
    block_hash TEXT,
    PRIMARY KEY (chain_id, market)
  );`;

export const MIGRATIONS: readonly string[] = [
  // v1 (round 1: resolveMarket / settleInvalid)
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
  // v2 (bonded proposals): v1 jobs belong to v1 contracts a v2 daemon cannot act on; they are kept as v1_* tables
  // for inspection, and the daemon starts over (the signing key is kept).
  `ALTER TABLE bundles RENAME TO v1_bundles;
   ALTER TABLE jobs RENAME TO v1_jobs;
   ALTER TABLE cursor RENAME TO v1_cursor;
   DROP INDEX jobs_due;
   CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE markets (market TEXT PRIMARY KEY, added_at INTEGER NOT NULL);
   CREATE TABLE cursor (
     chain_id INTEGER NOT NULL,
     market TEXT NOT NULL,
     last_block INTEGER NOT NULL,
     block_hash TEXT,
     updated_at INTEGER NOT NULL,
     PRIMARY KEY (chain_id, market)
   );
   CREATE TABLE jobs (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     chain_id INTEGER NOT NULL,
     market TEXT NOT NULL,
     market_id TEXT NOT NULL,
     state TEXT NOT NULL CHECK (state IN ('requested','running','proposing','proposed','disputed','finalized','already-settled','proposed-elsewhere','failed')),
     attempts INTEGER NOT NULL DEFAULT 0,
     send_attempts INTEGER NOT NULL DEFAULT 0,
     last_outcome TEXT,
     last_error TEXT,
     source TEXT NOT NULL,
     requested_block INTEGER,
     requested_tx TEXT,
     verdict TEXT,
     reason TEXT,
     payload TEXT,
     bundle_hash TEXT,
     bundle_uri TEXT,
     tx_hash TEXT,
     dispute_ends_at INTEGER,
     disputer TEXT,
     claimed TEXT,
     dispute_action TEXT,
     dispute_tx TEXT,
     final_status TEXT,
     final_verdict TEXT,
     finalize_tx TEXT,
     feedback TEXT,
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
     tx_hash TEXT,
     created_at INTEGER NOT NULL,
     PRIMARY KEY (job_id, attempt)
   );
   CREATE INDEX bundles_hash ON bundles (hash);`,
  // v3 (issue 22): the track-record index.
  RECORD_INDEX_SCHEMA,
];
