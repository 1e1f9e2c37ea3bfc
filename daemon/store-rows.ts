/**
 * The daemon store's row types and the zod schemas its reads parse rows with (daemon/sql.ts): a row whose columns
 * do not have the expected types fails loudly instead of becoming a wrong JobRow.
 */
import { z } from "zod";

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

/** JobRow field ↔ column (the fields FinishUpdate may set). */
export const FIELD_COLUMNS = [
  ["verdict", "verdict"],
  ["reason", "reason"],
  ["payload", "payload"],
  ["bundleHash", "bundle_hash"],
  ["bundleUri", "bundle_uri"],
  ["txHash", "tx_hash"],
  ["disputeEndsAt", "dispute_ends_at"],
  ["disputer", "disputer"],
  ["claimed", "claimed"],
  ["disputeAction", "dispute_action"],
  ["disputeTx", "dispute_tx"],
  ["finalStatus", "final_status"],
  ["finalVerdict", "final_verdict"],
  ["finalizeTx", "finalize_tx"],
  ["feedback", "feedback"],
] as const;
export type JobField = (typeof FIELD_COLUMNS)[number][0];

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

const text = z.string().nullable();
const int = z.number().int().nullable();

/** A `jobs` row (SELECT *) as a JobRow. */
export const jobRowSchema = z
  .object({
    id: z.number().int(),
    chain_id: z.number().int(),
    market: z.string(),
    market_id: z.string().regex(/^[0-9]+$/),
    state: z.enum(JOB_STATES),
    attempts: z.number().int(),
    send_attempts: z.number().int(),
    last_outcome: text,
    last_error: text,
    source: z.enum(["event", "manual"]),
    requested_block: int,
    requested_tx: text,
    verdict: text,
    reason: text,
    payload: text,
    bundle_hash: text,
    bundle_uri: text,
    tx_hash: text,
    dispute_ends_at: int,
    disputer: text,
    claimed: text,
    dispute_action: text,
    dispute_tx: text,
    final_status: text,
    final_verdict: text,
    finalize_tx: text,
    feedback: text,
    created_at: z.number().int(),
    updated_at: z.number().int(),
    started_at: int,
    finished_at: int,
    next_attempt_at: z.number().int(),
  })
  .transform(
    (r): JobRow => ({
      id: r.id,
      chainId: r.chain_id,
      market: r.market,
      marketId: BigInt(r.market_id),
      state: r.state,
      attempts: r.attempts,
      sendAttempts: r.send_attempts,
      lastOutcome: r.last_outcome,
      lastError: r.last_error,
      source: r.source,
      requestedBlock: r.requested_block,
      requestedTx: r.requested_tx,
      verdict: r.verdict,
      reason: r.reason,
      payload: r.payload,
      bundleHash: r.bundle_hash,
      bundleUri: r.bundle_uri,
      txHash: r.tx_hash,
      disputeEndsAt: r.dispute_ends_at,
      disputer: r.disputer,
      claimed: r.claimed,
      disputeAction: r.dispute_action,
      disputeTx: r.dispute_tx,
      finalStatus: r.final_status,
      finalVerdict: r.final_verdict,
      finalizeTx: r.finalize_tx,
      feedback: r.feedback,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      startedAt: r.started_at,
      finishedAt: r.finished_at,
      nextAttemptAt: r.next_attempt_at,
    }),
  );

/** A `bundles` row as a BundleRow. */
export const bundleRowSchema = z
  .object({
    attempt: z.number().int(),
    hash: z.string(),
    json: z.string(),
    tx_hash: text,
    created_at: z.number().int(),
  })
  .transform(
    (r): BundleRow => ({ attempt: r.attempt, hash: r.hash, json: r.json, txHash: r.tx_hash, createdAt: r.created_at }),
  );

/** The daemon's signing key as stored. */
export interface StoredKey {
  kid: string;
  alg: string;
  privateJwk: string;
  publicJwk: string;
}

/** A `keys` row as a StoredKey. */
export const keyRowSchema = z
  .object({ kid: z.string(), alg: z.string(), private_jwk: z.string(), public_jwk: z.string() })
  .transform((r): StoredKey => ({ kid: r.kid, alg: r.alg, privateJwk: r.private_jwk, publicJwk: r.public_jwk }));

/** A `cursor` row: the last scanned block of one market contract and that block's hash (when known). */
export const cursorRowSchema = z
  .object({ chain_id: z.number().int(), market: z.string(), last_block: z.number().int(), block_hash: text })
  .transform((r) => ({ chainId: r.chain_id, market: r.market, lastBlock: r.last_block, blockHash: r.block_hash }));
