/**
 * Why the resolver's vote came out as it did, from the bundle's decision and per-seat vote breakdown (pure): one
 * primary reason (an enum with a formatter) and notes (clone or correlated groups, and whatever later rules add).
 * Read by explain.ts, which the explorer and `market show` both render: one wording, one unit (percent).
 *
 * Tolerant by design: a bundle without a decision, a decision reason this version does not know, or vote fields a
 * later bundle adds all yield a reason, never an exception. New rules go in NOTE_RULES; a new invalid reason in
 * INVALID_REASONS.
 */
import type { BundleDocument, BundleWorker } from "./bundle-schema.js";

/** Every reason a summary can give. */
export type ReasonCode =
  | "threshold-met"
  | "unproven-bloc"
  | "correlated-groups"
  | "fragile-verdict"
  | "below-threshold"
  | "no-quorum"
  | "tie"
  | "resolver-invalid"
  | "invalid-other"
  | "no-decision";

export interface BlocFacts {
  voters: number;
  yes: number;
  no: number;
  side: "yes" | "no" | null;
  /** The accuracy of the one voter the bloc counts as (a probability). */
  accuracy: number | undefined;
}

/** Summed weights (log-odds units) of the proven voters per side. */
export interface ProvenFacts {
  yes: number;
  no: number;
  voters: number;
}

export type Reason =
  | {
      code: "threshold-met" | "unproven-bloc";
      verdict: "yes" | "no";
      posterior: number;
      threshold: number;
      bloc: BlocFacts;
      proven: ProvenFacts;
    }
  | {
      code: "below-threshold";
      side: "yes" | "no";
      posterior: number;
      threshold: number;
      bloc: BlocFacts;
      proven: ProvenFacts;
    }
  | { code: "tie"; bloc: BlocFacts; proven: ProvenFacts }
  | { code: "no-quorum"; answered: number; required: number; n: number }
  | { code: "correlated-groups"; groups: { group: string; seats: number[] }[] }
  | { code: "fragile-verdict" | "resolver-invalid" | "invalid-other" | "no-decision"; detail: string };

/** A probability as a percentage with at most one decimal ("70 %", "62.5 %"): the one unit for probabilities. */
export function percent(p: number | undefined): string {
  if (p === undefined || !Number.isFinite(p)) return "—";
  const v = Math.round(p * 1000) / 10;
  return `${Number.isInteger(v) ? v.toFixed(0) : v.toFixed(1)} %`;
}

/** Basis points (the contract's unit) as a percentage. */
export const percentOfBps = (bps: number): string => percent(bps / 10_000);

const SIDE = { yes: "YES", no: "NO" } as const;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function blocText(b: BlocFacts): string {
  const acc = b.accuracy !== undefined ? ` of ${percent(b.accuracy)} accuracy` : "";
  if (b.side === null)
    return `the ${plural(b.voters, "new agent")} split ${b.yes}–${b.no}, so their bloc counts for neither side`;
  return `new agents vote as one bloc: ${b[b.side]} of ${b.voters} said ${SIDE[b.side]}, and the bloc counts as one voter${acc}`;
}

function provenText(p: ProvenFacts): string {
  return `${plural(p.voters, "proven agent")} ${p.voters === 1 ? "weighs" : "weigh"} ${p.yes.toFixed(2)} for YES and ${p.no.toFixed(2)} for NO (log-odds)`;
}

/** One sentence per reason: the formatter every surface uses. */
export function formatReason(r: Reason): string {
  switch (r.code) {
    case "unproven-bloc": {
      const mixed = r.proven.voters > 0 ? `; ${provenText(r.proven)}` : "";
      return `${SIDE[r.verdict]}: ${blocText(r.bloc)}${mixed}, so the posterior is ${percent(r.posterior)}, at or above the ${percent(r.threshold)} threshold`;
    }
    case "threshold-met": {
      const bloc = r.bloc.voters > 0 ? `; ${blocText(r.bloc)}` : "";
      return `${SIDE[r.verdict]}: ${provenText(r.proven)}${bloc}; posterior ${percent(r.posterior)}, at or above the ${percent(r.threshold)} threshold`;
    }
    case "below-threshold": {
      const parts = [r.proven.voters > 0 ? provenText(r.proven) : "", r.bloc.voters > 0 ? blocText(r.bloc) : ""];
      const why = parts.filter(Boolean).join("; ");
      return `Invalid, below threshold: ${SIDE[r.side]} leads with a posterior of ${percent(r.posterior)}, under the ${percent(r.threshold)} needed${why ? ` (${why})` : ""}`;
    }
    case "tie": {
      const why = [r.proven.voters > 0 ? provenText(r.proven) : "", r.bloc.voters > 0 ? blocText(r.bloc) : ""]
        .filter(Boolean)
        .join("; ");
      return `Invalid, a tie: YES and NO weigh the same${why ? ` (${why})` : ""}`;
    }
    case "no-quorum":
      return `Invalid, no quorum: ${r.answered} of ${r.n} seats answered yes or no; ${r.required} (two thirds) are needed`;
    case "correlated-groups":
      return `Agents with identical track records count once: ${r.groups
        .map((g) => `seats ${g.seats.join(", ")} share one weight`)
        .join("; ")}`;
    case "fragile-verdict":
      return `Invalid, fragile verdict: ${r.detail}`;
    case "resolver-invalid":
      return `Invalid, proposed without a resolution run: ${r.detail}`;
    case "invalid-other":
      return `Invalid: ${r.detail}`;
    case "no-decision":
      return r.detail;
  }
}

type Decision = NonNullable<BundleDocument["decision"]>;

/** Invalid reasons the vote writes, by their bundle spelling. Unknown ones fall back to "invalid-other". */
const INVALID_REASONS: Record<string, ReasonCode> = {
  "no-quorum": "no-quorum",
  "below-threshold": "below-threshold",
  tie: "tie",
  fragile: "fragile-verdict",
  "fragile-verdict": "fragile-verdict",
};

const voting = (w: BundleWorker) => w.vote !== undefined && w.vote.excludedReason === undefined;
const answerOf = (w: BundleWorker): "yes" | "no" | undefined =>
  w.report?.answer === "yes" || w.report?.answer === "no"
    ? w.report.answer
    : w.answer
      ? w.answer.determination
        ? "yes"
        : "no"
      : undefined;

function provenOf(doc: BundleDocument): ProvenFacts {
  const p: ProvenFacts = { yes: 0, no: 0, voters: 0 };
  for (const w of doc.workers) {
    const side = answerOf(w);
    if (!voting(w) || w.vote?.unproven !== false || side === undefined) continue;
    p.voters += 1;
    p[side] += w.vote.weight;
  }
  return p;
}

const blocOf = (doc: BundleDocument, d: Decision): BlocFacts => ({
  ...d.bloc,
  accuracy: doc.voteConfig?.unprovenAccuracy,
});

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** The primary reason of the resolver's vote. */
export function primaryReason(doc: BundleDocument): Reason {
  const d = doc.decision;
  if (d === undefined) {
    const q = doc.quorum;
    if (!q.reached) return { code: "no-quorum", answered: q.answered, required: q.required, n: q.n };
    return { code: "no-decision", detail: "The bundle records no vote decision." };
  }
  const bloc = blocOf(doc, d);
  const proven = provenOf(doc);
  const threshold = d.thresholdBps / 10_000;
  if (d.verdict === "yes" || d.verdict === "no") {
    // The bloc decided when the proven agents alone would not have carried this verdict past the threshold.
    const s = proven.yes - proven.no;
    const alone = d.verdict === "yes" ? s : -s;
    const carried = alone > 0 && sigmoid(alone) >= threshold;
    const code = !carried && bloc.side === d.verdict ? "unproven-bloc" : "threshold-met";
    return { code, verdict: d.verdict, posterior: d.posterior, threshold, bloc, proven };
  }
  const code = d.reason !== undefined ? (INVALID_REASONS[d.reason] ?? "invalid-other") : "invalid-other";
  switch (code) {
    case "no-quorum":
      return { code, answered: d.quorum.answered, required: d.quorum.required, n: d.quorum.n };
    case "below-threshold":
      return { code, side: d.logOdds >= 0 ? "yes" : "no", posterior: d.posterior, threshold, bloc, proven };
    case "tie":
      return { code, bloc, proven };
    case "fragile-verdict":
      return {
        code,
        detail: `the vote's fragile-verdict rule withheld a verdict at a posterior of ${percent(d.posterior)}`,
      };
    default:
      return { code: "invalid-other", detail: d.reason ?? "no reason recorded" };
  }
}

/** Clone groups (identical track records) whose members voted here share one weight. */
function cloneGroups(doc: BundleDocument): Reason | undefined {
  const groups = new Map<string, number[]>();
  for (const w of doc.workers) {
    const g = w.vote?.cloneGroup;
    if (g === undefined || !voting(w)) continue;
    groups.set(g, [...(groups.get(g) ?? []), w.seat]);
  }
  const shared = [...groups].filter(([, seats]) => seats.length > 1).map(([group, seats]) => ({ group, seats }));
  return shared.length > 0 ? { code: "correlated-groups", groups: shared } : undefined;
}

/** Rules that add notes beside the primary reason (correlated groups, later a fragile-verdict check …). */
export const NOTE_RULES: readonly ((doc: BundleDocument) => Reason | undefined)[] = [cloneGroups];

/** The primary reason and the notes of a resolution bundle. */
export function explainDecision(doc: BundleDocument): { primary: Reason; notes: Reason[] } {
  const notes: Reason[] = [];
  for (const rule of NOTE_RULES) {
    const r = rule(doc);
    if (r !== undefined) notes.push(r);
  }
  return { primary: primaryReason(doc), notes };
}
