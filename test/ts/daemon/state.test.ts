/**
 * The daemon's job state machine (daemon/state.ts), one row per arrow of the diagram in docs/ARCHITECTURE.md
 * ("Daemon job state machine"): the state after the outcome, the run and send counts, when the job is due again
 * and whether it is terminal. Backoff is deterministic here (the runner adds jitter).
 */
import { describe, expect, it } from "vitest";
import { nextState, type JobView, type Outcome, type StatePolicy } from "../../../daemon/state.js";

const NOW = 1_000_000;
const policy: StatePolicy = {
  maxAttempts: 3,
  backoffMs: (attempt) => 100 * 2 ** (attempt - 1),
  watchIntervalMs: 5_000,
  now: NOW,
};

type Row = [
  arrow: string,
  job: JobView,
  outcome: Outcome,
  expected: {
    state: string;
    attempts: number;
    sendAttempts: number;
    nextAttemptAt: number | undefined;
    terminal: boolean;
    proposeInvalid?: true;
  },
];

const job = (state: JobView["state"], attempts = 1, sendAttempts = 0): JobView => ({ state, attempts, sendAttempts });

const rows: Row[] = [
  [
    "requested ──claim (attempt+1)──▶ running",
    job("requested", 0),
    { kind: "claimed" },
    { state: "running", attempts: 1, sendAttempts: 0, nextAttemptAt: undefined, terminal: false },
  ],
  [
    "running ──chain: our proposal──▶ proposed (attempt given back)",
    job("running", 1),
    { kind: "adopted", state: "proposed" },
    { state: "proposed", attempts: 0, sendAttempts: 0, nextAttemptAt: undefined, terminal: false },
  ],
  [
    "running ──chain: our proposal disputed──▶ disputed",
    job("running", 2),
    { kind: "adopted", state: "disputed" },
    { state: "disputed", attempts: 1, sendAttempts: 0, nextAttemptAt: undefined, terminal: false },
  ],
  [
    "running ──chain: another resolver proposed──▶ proposed-elsewhere (terminal)",
    job("running", 1),
    { kind: "adopted", state: "proposed-elsewhere" },
    { state: "proposed-elsewhere", attempts: 0, sendAttempts: 0, nextAttemptAt: undefined, terminal: true },
  ],
  [
    "running ──chain: final or cancelled──▶ already-settled (terminal)",
    job("running", 1),
    { kind: "adopted", state: "already-settled" },
    { state: "already-settled", attempts: 0, sendAttempts: 0, nextAttemptAt: undefined, terminal: true },
  ],
  [
    "running ──chain: Open──▶ requested (attempt given back, after backoff)",
    job("running", 2),
    { kind: "not-requested" },
    { state: "requested", attempts: 1, sendAttempts: 0, nextAttemptAt: NOW + 200, terminal: false },
  ],
  [
    "running ──verdict yes──▶ proposing",
    job("running", 1, 2),
    { kind: "verdict", verdict: "yes", retry: false },
    { state: "proposing", attempts: 1, sendAttempts: 0, nextAttemptAt: undefined, terminal: false },
  ],
  [
    "running ──verdict no──▶ proposing",
    job("running", 3),
    { kind: "verdict", verdict: "no", retry: false },
    { state: "proposing", attempts: 3, sendAttempts: 0, nextAttemptAt: undefined, terminal: false },
  ],
  [
    "running ──invalid (retryable cause), attempts < max──▶ requested (after backoff)",
    job("running", 2),
    { kind: "verdict", verdict: "invalid", retry: true },
    { state: "requested", attempts: 2, sendAttempts: 0, nextAttemptAt: NOW + 200, terminal: false },
  ],
  [
    "running ──error, attempts < max──▶ requested (after backoff)",
    job("running", 1),
    { kind: "error" },
    { state: "requested", attempts: 1, sendAttempts: 0, nextAttemptAt: NOW + 100, terminal: false },
  ],
  [
    "running ──invalid (retryable cause), attempts = max──▶ proposing",
    job("running", 3),
    { kind: "verdict", verdict: "invalid", retry: true },
    { state: "proposing", attempts: 3, sendAttempts: 0, nextAttemptAt: undefined, terminal: false },
  ],
  [
    "running ──invalid (final cause)──▶ proposing",
    job("running", 1),
    { kind: "verdict", verdict: "invalid", retry: false },
    { state: "proposing", attempts: 1, sendAttempts: 0, nextAttemptAt: undefined, terminal: false },
  ],
  [
    "running ──error, attempts = max──▶ proposing (verdict invalid)",
    job("running", 3),
    { kind: "error" },
    {
      state: "proposing",
      attempts: 3,
      sendAttempts: 0,
      nextAttemptAt: undefined,
      terminal: false,
      proposeInvalid: true,
    },
  ],
  [
    "running ──RPC unreachable──▶ requested (attempt given back, after backoff)",
    job("running", 3),
    { kind: "rpc-unreachable" },
    { state: "requested", attempts: 2, sendAttempts: 0, nextAttemptAt: NOW + 400, terminal: false },
  ],
  [
    "running ──aborted by shutdown──▶ requested (attempt given back, due at once)",
    job("running", 1),
    { kind: "aborted" },
    { state: "requested", attempts: 0, sendAttempts: 0, nextAttemptAt: undefined, terminal: false },
  ],
  [
    "proposing ──claim (send+1)──▶ proposing",
    job("proposing", 1, 0),
    { kind: "claimed" },
    { state: "proposing", attempts: 1, sendAttempts: 1, nextAttemptAt: undefined, terminal: false },
  ],
  [
    "proposing ──receipt──▶ proposed",
    job("proposing", 1, 1),
    { kind: "proposal-landed", disputed: false },
    { state: "proposed", attempts: 1, sendAttempts: 1, nextAttemptAt: undefined, terminal: false },
  ],
  [
    "proposing ──receipt, already disputed──▶ disputed",
    job("proposing", 1, 1),
    { kind: "proposal-landed", disputed: true },
    { state: "disputed", attempts: 1, sendAttempts: 1, nextAttemptAt: undefined, terminal: false },
  ],
  [
    "proposing ──error, sends < max──▶ proposing (after backoff)",
    job("proposing", 1, 2),
    { kind: "error" },
    { state: "proposing", attempts: 1, sendAttempts: 2, nextAttemptAt: NOW + 200, terminal: false },
  ],
  [
    "proposing ──RPC unreachable──▶ proposing (send given back, after backoff)",
    job("proposing", 1, 3),
    { kind: "rpc-unreachable" },
    { state: "proposing", attempts: 1, sendAttempts: 2, nextAttemptAt: NOW + 400, terminal: false },
  ],
  [
    "proposing ──market moved before the send──▶ proposing (send given back, at once)",
    job("proposing", 1, 1),
    { kind: "not-requested" },
    { state: "proposing", attempts: 1, sendAttempts: 0, nextAttemptAt: undefined, terminal: false },
  ],
  [
    "proposing ──chain moved on──▶ adopted state (send given back)",
    job("proposing", 1, 1),
    { kind: "adopted", state: "proposed-elsewhere" },
    { state: "proposed-elsewhere", attempts: 1, sendAttempts: 0, nextAttemptAt: undefined, terminal: true },
  ],
  [
    "proposing ──error, sends = max──▶ failed (terminal)",
    job("proposing", 1, 3),
    { kind: "error" },
    { state: "failed", attempts: 1, sendAttempts: 3, nextAttemptAt: undefined, terminal: true },
  ],
  [
    "proposed ──window over: finalize──▶ finalized (Invalid: nothing to publish, terminal)",
    job("proposed", 1, 1),
    { kind: "market-final", feedbackPending: false },
    { state: "finalized", attempts: 1, sendAttempts: 1, nextAttemptAt: undefined, terminal: true },
  ],
  [
    "proposed ──window over: finalize──▶ finalized (Resolved: feedback pending, not terminal)",
    job("proposed", 1, 1),
    { kind: "market-final", feedbackPending: true },
    { state: "finalized", attempts: 1, sendAttempts: 1, nextAttemptAt: undefined, terminal: false },
  ],
  [
    "proposed ──ProposalDisputed──▶ disputed",
    job("proposed", 1, 1),
    { kind: "dispute-seen" },
    { state: "disputed", attempts: 1, sendAttempts: 1, nextAttemptAt: NOW + 5_000, terminal: false },
  ],
  [
    "disputed ──arbiter rules──▶ finalized",
    job("disputed", 1, 1),
    { kind: "market-final", feedbackPending: true },
    { state: "finalized", attempts: 1, sendAttempts: 1, nextAttemptAt: undefined, terminal: false },
  ],
  [
    "finalized ──publishFeedback until nothing is pending──▶ finalized (terminal)",
    job("finalized", 1, 1),
    { kind: "market-final", feedbackPending: false },
    { state: "finalized", attempts: 1, sendAttempts: 1, nextAttemptAt: undefined, terminal: true },
  ],
  [
    "proposed ──chain step failed──▶ proposed (watching never gives up)",
    job("proposed", 1, 1),
    { kind: "watch-error", disputedOnChain: false },
    { state: "proposed", attempts: 1, sendAttempts: 1, nextAttemptAt: NOW + 200, terminal: false },
  ],
  [
    "proposed ──chain step failed, chain shows a dispute──▶ disputed",
    job("proposed", 1, 1),
    { kind: "watch-error", disputedOnChain: true },
    { state: "disputed", attempts: 1, sendAttempts: 1, nextAttemptAt: NOW + 200, terminal: false },
  ],
  [
    "startup: running ──▶ requested",
    job("running", 2),
    { kind: "restarted" },
    { state: "requested", attempts: 2, sendAttempts: 0, nextAttemptAt: undefined, terminal: false },
  ],
];

describe("nextState", () => {
  it.each(rows)("%s", (_arrow, view, outcome, expected) => {
    const t = nextState(view, outcome, policy);
    expect({
      state: t.state,
      attempts: t.attempts,
      sendAttempts: t.sendAttempts,
      nextAttemptAt: t.nextAttemptAt,
      terminal: t.terminal,
      ...(t.proposeInvalid ? { proposeInvalid: true } : {}),
    }).toEqual(expected);
  });

  it("tells the store which counts to give back or reset", () => {
    expect(nextState(job("running", 1), { kind: "aborted" }, policy)).toMatchObject({ uncountAttempt: true });
    expect(nextState(job("proposing", 1, 1), { kind: "rpc-unreachable" }, policy)).toMatchObject({ uncountSend: true });
    expect(nextState(job("running", 1, 3), { kind: "verdict", verdict: "yes", retry: false }, policy)).toMatchObject({
      resetSends: true,
    });
  });

  it("the watch backoff is capped by four watch intervals", () => {
    const slow: StatePolicy = { ...policy, backoffMs: () => 1_000_000, watchIntervalMs: 100 };
    expect(nextState(job("disputed", 1, 1), { kind: "watch-error", disputedOnChain: true }, slow).nextAttemptAt).toBe(
      NOW + 400,
    );
  });

  it.each<[JobView, Outcome]>([
    [job("requested"), { kind: "error" }],
    [job("proposed"), { kind: "claimed" }],
    [job("running"), { kind: "proposal-landed", disputed: false }],
    [job("finalized"), { kind: "dispute-seen" }],
    [job("failed"), { kind: "error" }],
    [job("proposing"), { kind: "restarted" }],
  ])("refuses an outcome its state cannot have: %j on %j", (view, outcome) => {
    expect(() => nextState(view, outcome, policy)).toThrow(/no transition/);
  });
});
