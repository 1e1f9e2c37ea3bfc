/**
 * The daemon's job state machine as a pure function (the diagram is in docs/ARCHITECTURE.md, "Daemon job state
 * machine"; test/ts/daemon/state.test.ts has one row per arrow). The runner (runner.ts) performs the I/O — the
 * pipeline run, the chain reads and writes — turns what happened into an `Outcome`, and applies the returned
 * transition to the store; which state comes next, whether an attempt counts and when the job is due again are
 * decided here only.
 */
import type { JobState } from "./store.js";
import { TERMINAL_STATES } from "./store.js";

/** What the state machine reads of a job. */
export interface JobView {
  state: JobState;
  /** Pipeline runs counted so far (the claim of the current run included). */
  attempts: number;
  /** Proposal sends counted for the current verdict (the claim of the current send included). */
  sendAttempts: number;
}

export interface StatePolicy {
  /** Counted runs before proposing invalid; also proposal sends before `failed`. */
  maxAttempts: number;
  /** Delay before the next try after failed try number `attempt` (1-based; the runner adds jitter). */
  backoffMs: (attempt: number) => number;
  /** Longest pause between two checks of a proposal on chain. */
  watchIntervalMs: number;
  /** The store's clock, ms. */
  now: number;
}

/** The states the chain can put a job in when it moved on without us (see proposals.ts adoptFromChain). */
export type AdoptedState = "proposed" | "disputed" | "finalized" | "proposed-elsewhere" | "already-settled";

export type Outcome =
  /** The runner picked the job up: a pipeline run (requested) or a proposal send (proposing). */
  | { kind: "claimed" }
  /** The daemon started and found the job mid-run (it died during the run). */
  | { kind: "restarted" }
  /** Run: the market is not awaiting a proposal yet (Open): look again later. */
  | { kind: "not-requested" }
  /** Run or send: the chain moved on (our earlier proposal, someone else's, or a final market). */
  | { kind: "adopted"; state: AdoptedState }
  /** Run: a verdict; `retry`: an invalid verdict for a cause another run may fix (e.g. workers down). */
  | { kind: "verdict"; verdict: "yes" | "no" | "invalid"; retry: boolean }
  /** Run: aborted by the daemon's shutdown. */
  | { kind: "aborted" }
  /** Run or send failed and the RPC node is unreachable: not the job's fault. */
  | { kind: "rpc-unreachable" }
  /** Run or send failed otherwise. */
  | { kind: "error" }
  /** Send: the proposal's receipt arrived; `disputed` if the chain already shows a dispute. */
  | { kind: "proposal-landed"; disputed: boolean }
  /** Watch: the chain shows a dispute of our proposal. */
  | { kind: "dispute-seen" }
  /** Watch: the market is final (Resolved or Invalid); `feedbackPending`: ERC-8004 records still to publish. */
  | { kind: "market-final"; feedbackPending: boolean }
  /** Watch: a chain step of a proposed/disputed job failed (watching never gives up). */
  | { kind: "watch-error"; disputedOnChain: boolean };

export interface Transition {
  state: JobState;
  /** Counts after the transition. */
  attempts: number;
  sendAttempts: number;
  /** When the job is due again (ms); undefined = at once. */
  nextAttemptAt: number | undefined;
  /** No work follows (a finalized job with feedback pending is not terminal yet). */
  terminal: boolean;
  /** The verdict to propose is `invalid` because the runs were used up without one. */
  proposeInvalid?: true;
  /** For the store: give the run's / the send's count back, or reset the sends for a new verdict. */
  uncountAttempt?: true;
  uncountSend?: true;
  resetSends?: true;
}

function to(job: JobView, state: JobState, changes: Partial<Transition> = {}, feedbackPending = false): Transition {
  return {
    state,
    attempts: job.attempts,
    sendAttempts: job.sendAttempts,
    nextAttemptAt: undefined,
    terminal: TERMINAL_STATES.has(state) && !feedbackPending,
    ...changes,
  };
}

/** The transition of `job` on `outcome` under `policy`; throws on an outcome its state cannot have. */
export function nextState(job: JobView, outcome: Outcome, policy: StatePolicy): Transition {
  const later = (attempt: number) => policy.now + policy.backoffMs(Math.max(1, attempt));
  const given = (attempts: number) => Math.max(attempts - 1, 0);
  const wrong = () => new Error(`job state machine: no transition from ${job.state} on ${outcome.kind}`);
  // A run or a send that does not count: its attempt is given back; `wait` waits out the attempt's back-off first.
  const runAgain = (wait: boolean) =>
    to(job, "requested", {
      attempts: given(job.attempts),
      uncountAttempt: true,
      ...(wait ? { nextAttemptAt: later(job.attempts) } : {}),
    });
  const sendAgain = (wait: boolean) =>
    to(job, "proposing", {
      sendAttempts: given(job.sendAttempts),
      uncountSend: true,
      ...(wait ? { nextAttemptAt: later(job.sendAttempts) } : {}),
    });

  if (outcome.kind === "restarted") {
    if (job.state !== "running") throw wrong();
    return to(job, "requested");
  }
  if (outcome.kind === "claimed") {
    if (job.state === "requested") return to(job, "running", { attempts: job.attempts + 1 });
    if (job.state === "proposing") return to(job, "proposing", { sendAttempts: job.sendAttempts + 1 });
    throw wrong();
  }

  if (outcome.kind === "watch-error") {
    // Watching never gives up: the same state (disputed when the chain says so), checked again soon. The state
    // is the row's as it is now: a trigger or an operator may have moved the job meanwhile.
    const state = outcome.disputedOnChain && job.state === "proposed" ? "disputed" : job.state;
    return to(
      job,
      state,
      { nextAttemptAt: policy.now + Math.min(policy.backoffMs(2), policy.watchIntervalMs * 4) },
      job.state === "finalized",
    );
  }

  switch (job.state) {
    case "running":
      switch (outcome.kind) {
        case "not-requested":
          return runAgain(true);
        case "adopted":
          return to(job, outcome.state, { attempts: given(job.attempts), uncountAttempt: true });
        case "verdict":
          if (outcome.verdict === "invalid" && outcome.retry && job.attempts < policy.maxAttempts) {
            return to(job, "requested", { nextAttemptAt: later(job.attempts) });
          }
          return to(job, "proposing", { sendAttempts: 0, resetSends: true });
        case "aborted":
          return runAgain(false);
        case "rpc-unreachable":
          return runAgain(true);
        case "error":
          if (job.attempts < policy.maxAttempts) return to(job, "requested", { nextAttemptAt: later(job.attempts) });
          return to(job, "proposing", { sendAttempts: 0, resetSends: true, proposeInvalid: true });
        default:
          throw wrong();
      }
    case "proposing":
      switch (outcome.kind) {
        case "proposal-landed":
          return to(job, outcome.disputed ? "disputed" : "proposed");
        case "adopted":
          return to(job, outcome.state, { sendAttempts: given(job.sendAttempts), uncountSend: true });
        case "not-requested":
          // The market moved between our read and the send: read it again at once, the send not counted.
          return sendAgain(false);
        case "rpc-unreachable":
          return sendAgain(true);
        case "error":
          if (job.sendAttempts < policy.maxAttempts)
            return to(job, "proposing", { nextAttemptAt: later(job.sendAttempts) });
          return to(job, "failed");
        default:
          throw wrong();
      }
    case "proposed":
    case "disputed":
    case "finalized":
      switch (outcome.kind) {
        case "dispute-seen":
          if (job.state === "finalized") throw wrong();
          return to(job, "disputed", { nextAttemptAt: policy.now + policy.watchIntervalMs });
        case "market-final":
          return to(job, "finalized", {}, outcome.feedbackPending);
        default:
          throw wrong();
      }
    default:
      throw wrong();
  }
}
