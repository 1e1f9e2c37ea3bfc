/**
 * The top summary of a market (pure): what happened and why, in one place, for the explorer's market page and
 * `market show` alike. From the market's on-chain state (status, proposal, per-seat reports, settlement events,
 * the arbiter's case) and its resolution bundle it derives: a headline (verdict, dispute, ruling), the one-line
 * reason (explain-reason.ts), each seat's weight and why, the on-chain confidence per seat (any other figure
 * labelled), the dispute, where bonds, slashed stakes and rewards went, and the ERC-8004 feedback status.
 * Probabilities are percentages everywhere; ETH amounts are exact.
 */
import type { BundleDocument, BundleWorker, StoredBundleDocument } from "./bundle-schema.js";
import { explainDecision, formatReason, percent, type ReasonCode } from "./explain-reason.js";
import type { AnswerKind, VerdictKind } from "./types.js";

export { percent, percentOfBps, formatReason, type Reason, type ReasonCode } from "./explain-reason.js";

/** Wei as ETH with up to 6 decimals (exact bigint arithmetic). */
export function eth(wei: bigint): string {
  const neg = wei < 0n;
  const abs = neg ? -wei : wei;
  const whole = abs / 10n ** 18n;
  const frac = ((abs % 10n ** 18n) / 10n ** 12n).toString().padStart(6, "0").replace(/0+$/, "");
  return `${neg ? "-" : ""}${whole}${frac ? `.${frac}` : ""} ETH`;
}

const isoOf = (seconds: bigint) => new Date(Number(seconds) * 1000).toISOString().replace(".000Z", "Z");
const V: Record<VerdictKind, string> = { yes: "YES", no: "NO", invalid: "INVALID" };

/** How the market's arbiter handled the dispute, read from the arbiter's own views. */
export type ArbitrationFacts =
  | { kind: "committee"; address: string; members: number; threshold: number; votes: Record<VerdictKind, number> }
  | { kind: "uma"; address: string; assertionId: string; countered: boolean; settled: boolean }
  | { kind: "other"; address: string };

/** Settlement events of one market (ResolutionMarket), plus the arbiter's case when there was a dispute. */
export interface SettlementFacts {
  disputeResolved?: { verdict: VerdictKind; winner: string; bondPaid: bigint };
  disputeExpired: boolean;
  slashes: { agentId: bigint; beneficiary: string; amount: bigint }[];
  creatorRefund?: { creator: string; amount: bigint };
  /** FeedbackFailed events (ERC-8004 records the registry refused). */
  feedbackFailed: number;
  arbitration?: ArbitrationFacts;
}

export interface SeatSettlement {
  agentId: bigint;
  scored: boolean;
  correctness: number;
  reward: bigint;
  stakeReturned: bigint;
  stakeSlashed: bigint;
}

export interface ExplainInput {
  status: string;
  /** Final outcome when Resolved (true = YES). */
  outcome: boolean;
  rewardPool: bigint;
  creator: string;
  deadline: bigint;
  /** Chain time, for "the window is open until …". */
  now: bigint;
  proposal?: {
    verdict: VerdictKind;
    proposer: string;
    bond: bigint;
    disputeEndsAt: bigint;
    dispute?: { disputer: string; claimed: VerdictKind };
  };
  /** Seats in order (the market's getWorkers). */
  workers: { agentId: bigint; address: string; stake: bigint }[];
  /** The proposal's per-seat reports (ResolutionProposed), seat order; empty before a proposal. */
  reports: { answer: AnswerKind; confidenceBps: number }[];
  /** WorkerSettled per seat once final. */
  results: SeatSettlement[];
  bundle?: StoredBundleDocument;
  facts?: SettlementFacts;
  /** Registration-file names by agent id (decimal string). */
  names?: ReadonlyMap<string, string>;
  feedbackPending: bigint;
  betting?: { yes: bigint; no: bigint; settlement: string };
}

export interface SeatExplanation {
  seat: number;
  agentId: string;
  name?: string;
  answer: AnswerKind | "not reported";
  /** The confidence posted on chain (a probability), for yes/no answers. */
  confidence?: number;
  /** A figure other than the on-chain confidence (e.g. a protocol's confidence × evidence level), labelled. */
  derivedConfidence?: { value: number; label: string };
  /** Vote weight in log-odds units; "bloc" for new agents; "—" for no vote. */
  weight: string;
  why: string;
  reward?: bigint;
  stakeReturned?: bigint;
  stakeSlashed?: bigint;
}

export interface Explanation {
  headline: string;
  reasonCode: ReasonCode | "pending";
  /** The one-line reason of the resolver's vote. */
  reason: string;
  notes: string[];
  seats: SeatExplanation[];
  dispute: string[];
  money: string[];
  feedback: string;
}

const FINAL = new Set(["Resolved", "Invalid"]);

function arbiterName(a: ArbitrationFacts | undefined, verdict: VerdictKind | undefined): string {
  if (a === undefined) return "the arbiter";
  if (a.kind === "committee")
    return verdict !== undefined
      ? `the committee (${a.votes[verdict]} of ${a.members} votes)`
      : `the committee (${a.threshold} of ${a.members} votes needed)`;
  if (a.kind === "uma") return `UMA's Optimistic Oracle (assertion ${a.assertionId.slice(0, 10)}…)`;
  return `the arbiter ${a.address}`;
}

function headlineOf(i: ExplainInput, final: VerdictKind | undefined): string {
  const p = i.proposal;
  const f = i.facts;
  switch (i.status) {
    case "Open":
      return `Open: agents can take seats until ${isoOf(i.deadline)}`;
    case "ResolutionRequested":
      return "Resolution requested: waiting for a resolver's proposal";
    case "Cancelled":
      return "Cancelled: no proposal came in time; stakes and the reward pool went back";
  }
  if (p === undefined) return final !== undefined ? `${i.status} ${V[final]}` : i.status;
  if (i.status === "Proposed")
    return i.now < p.disputeEndsAt
      ? `Proposed ${V[p.verdict]}: anyone can dispute until ${isoOf(p.disputeEndsAt)}`
      : `Proposed ${V[p.verdict]}: the dispute window ended, anyone can finalize`;
  if (i.status === "Disputed" && p.dispute) {
    const a = f?.arbitration;
    const progress =
      a?.kind === "committee"
        ? `; votes so far: ${(["yes", "no", "invalid"] as const).map((v) => `${V[v]} ${a.votes[v]}`).join(", ")} (${a.threshold} of ${a.members} needed)`
        : "";
    return `Proposed ${V[p.verdict]}, disputed claiming ${V[p.dispute.claimed]}: ${arbiterName(a, undefined)} decides${progress}`;
  }
  if (final === undefined) return i.status;
  if (f?.disputeResolved) {
    const r = f.disputeResolved.verdict;
    const by = arbiterName(f.arbitration, r);
    return r === p.verdict
      ? `Proposed ${V[p.verdict]}, upheld by ${by}`
      : `Proposed ${V[p.verdict]}, overturned to ${V[r]} by ${by}`;
  }
  if (f?.disputeExpired)
    return `Proposed ${V[p.verdict]}, disputed; the arbiter did not rule within 30 days, so the market is INVALID`;
  return final === "invalid"
    ? "INVALID as proposed: nobody disputed"
    : `Resolved ${V[final]} as proposed: nobody disputed`;
}

const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);

function moneyOf(i: ExplainInput, final: VerdictKind | undefined): string[] {
  const p = i.proposal;
  const f = i.facts;
  const out: string[] = [];
  if (final === undefined) {
    if (i.status === "Cancelled") return ["Stakes refunded to the workers and the reward pool to the creator"];
    if (p === undefined) return [`Reward pool ${eth(i.rewardPool)} and stakes held until finalization`];
    const bonds =
      i.status === "Disputed"
        ? `The proposer's bond ${eth(p.bond)} and the disputer's dispute bond`
        : `The proposer's bond ${eth(p.bond)}`;
    return [`${bonds} held; nothing is paid before finalization`];
  }
  const slashed = sum((f?.slashes ?? []).map((s) => s.amount));
  if (p !== undefined) {
    if (f?.disputeResolved) {
      const w = f.disputeResolved.winner.toLowerCase();
      const role = p.dispute && w === p.dispute.disputer.toLowerCase() ? "The disputer" : "The proposer";
      const extra =
        slashed > 0n
          ? ` plus ${eth(slashed)} of slashed stakes (${f.slashes.length} seat${f.slashes.length === 1 ? "" : "s"} on the losing side)`
          : "";
      out.push(`${role} ${f.disputeResolved.winner} took both bonds (${eth(f.disputeResolved.bondPaid)})${extra}`);
    } else if (f?.disputeExpired) out.push("Both bonds returned to their owners: no arbiter ruled");
    else out.push(`The proposer's bond ${eth(p.bond)} went back to the proposer ${p.proposer}`);
  }
  if (slashed > 0n && !f?.disputeResolved) out.push(`Slashed stakes: ${eth(slashed)}`);
  const rewards = sum(i.results.map((r) => r.reward));
  const paid = i.results.filter((r) => r.reward > 0n).length;
  if (rewards > 0n)
    out.push(
      `Reward pool ${eth(i.rewardPool)}: ${eth(rewards)} paid to ${paid} of ${i.workers.length} workers by their on-chain weights`,
    );
  if (f?.creatorRefund && f.creatorRefund.amount > 0n)
    out.push(
      `${eth(f.creatorRefund.amount)} of the reward pool back to the creator ${f.creatorRefund.creator}${final === "invalid" ? " (Invalid)" : " (no seat earned a weight)"}`,
    );
  const returned = sum(i.results.map((r) => r.stakeReturned));
  const back = i.results.filter((r) => r.stakeReturned > 0n).length;
  if (i.results.length > 0)
    out.push(
      `Stakes: ${eth(returned)} returned to ${back} of ${i.results.length} workers${slashed > 0n ? `, ${eth(slashed)} slashed` : ""}`,
    );
  const b = i.betting;
  if (b !== undefined && b.yes + b.no > 0n) {
    const pool = eth(b.yes + b.no);
    out.push(
      b.settlement === "refund"
        ? `Betting pool ${pool} refunded to the bettors`
        : b.settlement === "payout"
          ? `Betting pool ${pool} paid to the ${final === "yes" ? "YES" : "NO"} bettors`
          : `Betting pool ${pool}: claims wait for finalization`,
    );
  }
  return out;
}

function feedbackOf(i: ExplainInput, final: VerdictKind | undefined): string {
  if (final === undefined) return "ERC-8004 feedback: written when the market is finalized";
  if (final === "invalid") return "ERC-8004 feedback: none (an Invalid market writes no records)";
  const failed = i.facts?.feedbackFailed ?? 0;
  const parts: string[] = [];
  if (i.feedbackPending > 0n)
    parts.push(`${i.feedbackPending} of ${i.workers.length} seats still pending (market publish-feedback)`);
  if (failed > 0) parts.push(`${failed} record(s) refused by the registry (market retry-feedback)`);
  return parts.length > 0
    ? `ERC-8004 feedback: ${parts.join("; ")}`
    : `ERC-8004 feedback: written for all ${i.workers.length} seats`;
}

const num = (x: unknown): number | undefined => (typeof x === "number" && Number.isFinite(x) ? x : undefined);

/** The agent's answer confidence when it is not the on-chain figure, with what it is. */
function derivedOf(w: BundleWorker | undefined, onChainBps: number | undefined): SeatExplanation["derivedConfidence"] {
  if (w?.answer === undefined || onChainBps === undefined) return undefined;
  const c = w.answer.confidence;
  if (Math.round(c * 10_000) === onChainBps) return undefined;
  const x = w.answer.extras;
  const extras = typeof x === "object" && x !== null ? (x as Record<string, unknown>) : {};
  const base = num(extras.confidenceBase);
  const strength = num(extras.evidenceStrength);
  const label =
    base !== undefined && strength !== undefined
      ? `confidence × evidence level (${percent(base)} × ${percent(strength)})`
      : "the adapter's confidence";
  return { value: c, label: `${label}${c < 0.5 ? "; the chain takes at least 50 %" : ""}` };
}

/** Agents the estimate counts as one voter with `id` (d = 1: a copy group, or clones), from the bundle. */
function copyPartners(doc: BundleDocument | undefined, id: string): string[] {
  return (doc?.estimates?.dependence ?? [])
    .filter((e) => e.d >= 1 && (e.a === id || e.b === id))
    .map((e) => (e.a === id ? e.b : e.a));
}

function seatOf(
  i: ExplainInput,
  worker: ExplainInput["workers"][number],
  seat: number,
  doc: BundleDocument | undefined,
): SeatExplanation {
  const id = worker.agentId.toString();
  const w = doc?.workers.find((x) => x.seat === seat && x.agentId === id);
  const report = i.reports[seat];
  const result = i.results.find((r) => r.agentId === worker.agentId);
  const yesNo = report !== undefined && (report.answer === "yes" || report.answer === "no");
  const minHistory = doc?.voteConfig?.minHistory;
  const v = w?.vote;
  let weight = "—";
  let why = doc === undefined ? "no resolution bundle to explain the vote" : "no vote recorded";
  if (v !== undefined) {
    const failure = w?.discoveryFailure ?? w?.askFailure;
    if (v.excludedReason !== undefined) why = `no vote: ${v.excludedReason}${failure ? ` (${failure.kind})` : ""}`;
    else if (v.unproven) {
      weight = "bloc";
      why = `new agent (${v.history} of ${minHistory ?? "?"} answers on record needed): votes inside the new-agent bloc`;
    } else {
      weight = v.weight.toFixed(2);
      why = `accuracy ${percent(v.accuracy)} over ${v.history} answers, ${percent(v.calibratedAccuracy)} at this confidence`;
      if (v.weight === 0) why += "; no weight: not better than a coin flip";
      if (v.cloneGroup !== undefined) why += "; shares its weight with agents of identical record";
      const copies = copyPartners(doc, id);
      if (v.cloneGroup === undefined && copies.length > 0)
        why += `; counted as one voter with agent${copies.length > 1 ? "s" : ""} ${copies.join(", ")} (a copy group: they agree far beyond what their accuracy explains)`;
      const changed = doc?.estimates?.agents.find((a) => a.agentId === id)?.changedAfter;
      if (changed !== undefined)
        why += `; changed behaviour (rulings or the other agents lately against it): its ${changed} earlier answers no longer count`;
    }
  } else if (w !== undefined && w.status === "no-answer") {
    const failure = w.discoveryFailure ?? w.askFailure;
    why = `no answer${failure ? `: ${failure.kind}` : ""}`;
  }
  const name = i.names?.get(id);
  const derived = derivedOf(w, yesNo ? report.confidenceBps : undefined);
  return {
    seat,
    agentId: id,
    ...(name !== undefined ? { name } : {}),
    answer: report?.answer ?? "not reported",
    ...(yesNo ? { confidence: report.confidenceBps / 10_000 } : {}),
    ...(derived ? { derivedConfidence: derived } : {}),
    weight,
    why,
    ...(result
      ? { reward: result.reward, stakeReturned: result.stakeReturned, stakeSlashed: result.stakeSlashed }
      : {}),
  };
}

function disputeOf(i: ExplainInput): string[] {
  const p = i.proposal;
  if (p?.dispute === undefined) return [];
  const lines = [`Disputed by ${p.dispute.disputer}, claiming ${V[p.dispute.claimed]} (proposal ${V[p.verdict]})`];
  const a = i.facts?.arbitration;
  if (a?.kind === "committee")
    lines.push(
      `Committee ${a.address}: ${a.threshold} of ${a.members} members must agree; votes YES ${a.votes.yes}, NO ${a.votes.no}, INVALID ${a.votes.invalid}`,
    );
  else if (a?.kind === "uma")
    lines.push(
      `UMA assertion ${a.assertionId}: ${a.countered ? "countered, so UMA's voters decide" : "not countered"}${a.settled ? "; settled" : "; not settled yet"}`,
    );
  else if (a?.kind === "other") lines.push(`Arbiter ${a.address}`);
  const r = i.facts?.disputeResolved;
  if (r)
    lines.push(
      `Ruling: ${V[r.verdict]}${r.verdict === p.verdict ? " (the proposal stands)" : " (the proposal is overturned)"}`,
    );
  else if (i.facts?.disputeExpired) lines.push("No ruling within 30 days: expired into INVALID");
  return lines;
}

/** The top summary of one market. */
export function explainMarket(i: ExplainInput): Explanation {
  const final: VerdictKind | undefined = FINAL.has(i.status)
    ? i.status === "Invalid"
      ? "invalid"
      : i.outcome
        ? "yes"
        : "no"
    : undefined;
  const doc = i.bundle !== undefined && "workers" in i.bundle ? i.bundle : undefined;
  let reasonCode: Explanation["reasonCode"] = "pending";
  let reason = i.proposal === undefined ? "No proposal yet." : "The resolution bundle is not available.";
  let notes: string[] = [];
  if (doc !== undefined) {
    const { primary, notes: more } = explainDecision(doc);
    reasonCode = primary.code;
    reason = formatReason(primary);
    notes = more.map(formatReason);
  } else if (i.bundle !== undefined && "reason" in i.bundle) {
    reasonCode = "resolver-invalid";
    reason = formatReason({ code: "resolver-invalid", detail: i.bundle.reason });
  }
  return {
    headline: headlineOf(i, final),
    reasonCode,
    reason,
    notes,
    seats: i.workers.map((worker, seat) => seatOf(i, worker, seat, doc)),
    dispute: disputeOf(i),
    money: moneyOf(i, final),
    feedback: feedbackOf(i, final),
  };
}

/** A seat's answer as one short phrase: "YES at 80 %" (on-chain confidence). */
export function seatAnswer(s: SeatExplanation): string {
  if (s.answer === "yes" || s.answer === "no") return `${s.answer.toUpperCase()} at ${percent(s.confidence)}`;
  return s.answer;
}

/** The summary as plain text lines (market show); `label` names each seat. */
export function explanationLines(e: Explanation, label: (s: SeatExplanation) => string): string[] {
  const lines = [`  summary       ${e.headline}`, `  reason        ${e.reason}`];
  for (const n of e.notes) lines.push(`                ${n}`);
  for (const s of e.seats) {
    const derived = s.derivedConfidence
      ? ` (agent's figure ${percent(s.derivedConfidence.value)}: ${s.derivedConfidence.label})`
      : "";
    lines.push(`    seat ${s.seat} ${label(s)}: ${seatAnswer(s)}${derived}; weight ${s.weight}: ${s.why}`);
  }
  for (const d of e.dispute) lines.push(`  dispute       ${d}`);
  for (const m of e.money) lines.push(`  money         ${m}`);
  lines.push(`  feedback      ${e.feedback.replace(/^ERC-8004 feedback: /, "ERC-8004 ")}`);
  return lines;
}
