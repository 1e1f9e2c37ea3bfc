/**
 * Rubric evaluator: the offline, deterministic default. Scores the 8 dimensions from observable
 * properties only — it never interprets worker text as instructions.
 *
 * What is scored is the protocol-neutral view of the answer (view.ts): the listed sources plus the
 * URLs found in the evidence, read once; the evidence text without URLs and without the labels our
 * adapters add when they render a protocol's structure. So the same answer scores the same through
 * every protocol (issue 13 item 14).
 *
 * Robustness against prompt injection, by construction:
 *   1. a text (the evidence, or one challenge reply) in which any sentence (or run of fragments) matches an
 *      instruction-like pattern (`cleanForScoring` in core/text.ts: NFKC, invisibles removed,
 *      look-alike letters and accents folded) is scored as EMPTY text, flagged in the explanations —
 *      not just the matching sentence, since where an injected clause ends is unknowable ("…; the
 *      correct resolution is YES"); a source with such text is rejected;
 *   2. every text feature is a count of distinct things (distinct words, distinct well-formed
 *      sentences, distinct numbers, hedges, connectives, dates, years…) and every score is a
 *      non-decreasing function of those counts, so empty text is the floor.
 * Hence injected text never scores above the same answer without it (test/ts/evaluate/injection.test.ts).
 *
 * Dimension formulas (each clamped to 0..100, snapped to 1e-6, then rounded half up):
 *   SQ  40·min(U,5)/5 + 30·min(D,4)/4 + 20·httpsShare + 10·U/total      (0 with no sources)
 *       U = plausible unique sources (http(s) URL, public-looking hostname, not an IP literal,
 *       localhost/.local/.internal/reserved example domains, no credentials, not a duplicate),
 *       D = distinct registrable domains among them.
 *   AD  50·min(words,150)/150 + 20·min(sent,8)/8 + 15·min(num,5)/5 + 15·min(hedge+counter,4)/4
 *   RC  40·min(sent,6)/6 + 35·min(conn,4)/4 + 25·min(words,60)/60
 *       (no paragraph count: line layout differs by protocol, not by answer)
 *   ES  30·min(num,6)/6 + 30·min(U,4)/4 + 15·min(years+dates,3)/3 + 15·min(attrib,3)/3 + 10·min(words,100)/100
 *   BA  45·min(hedge,4)/4 + 35·min(counter,3)/3 + 20·calibration (1 for confidence ≤ 0.95, → 0 at 1.0)
 *   T   40 if a year within deadline-year ±1 appears (20 if 2-3 years before) + 25·min(dates,2)/2
 *       + 20·min(recency,2)/2 + 15·min(recent-year sources,2)/2   (years of plausible sources only)
 *   RQ  50 for every answer (RESOLUTION_QUALITY_PROVISIONAL): Resolution Quality is correctness against the
 *       final outcome, which only finalization knows (the contract derives it from correctness then); rubric-v2
 *       scored agreement with the panel's head count, which paid a wrong majority for herding.
 *   C   neutral 50 when no challenges were issued; otherwise 40·answered/k + 30·mean(min(words_i,40)/40)
 *       + 30·mean(min(overlap_i,3)/3), overlap = content terms shared with challenge i or the question;
 *       duplicated replies count as empty; more replies than challenges (count mismatch) costs 10.
 *   (words = distinct words; sent = distinct well-formed sentences of 4-40 words;
 *    num = distinct numbers; hedge/counter/conn/attrib/recency = distinct marker phrases present.)
 *   A text with instruction-like text counts as empty; a reply with it as unanswered (patterns that the
 *   market's own question/context trips are not held against workers: see core/text.ts marketPatterns).
 */
import { aggregateScores, toIntScore } from "../core/aggregate.js";
import {
  cleanForScoring,
  contentTerms,
  marketPatterns,
  sanitizeString,
  splitParagraphs,
  splitSentences,
  words,
} from "../core/text.js";
import { DIMENSIONS } from "../core/types.js";
import { sourceStats } from "./sources.js";
import { textFeatures } from "./text-features.js";
import { answerView, protocolOf, replyView } from "./view.js";
import type {
  Dimension,
  DimensionScores,
  EvaluationInput,
  EvaluationResult,
  Evaluator,
  EvaluatorIdentity,
  MarketSnapshot,
  WorkerEvaluation,
  AnsweredWorkerRecord,
  WorkerRecord,
} from "../core/types.js";

export const RUBRIC_VERSION = "rubric-v3";
/** The Resolution Quality dimension before the outcome is known (the same for every answer; see `scoreWorker`). */
export const RESOLUTION_QUALITY_PROVISIONAL = 50;
export const RUBRIC_IDENTITY: Readonly<EvaluatorIdentity> = Object.freeze({
  kind: "rubric",
  model: RUBRIC_VERSION,
  promptVersion: RUBRIC_VERSION,
  seed: 42,
});

export { checkSource, sourceStats, type SourceCheck, type SourceStats } from "./sources.js";

// ---------------------------------------------------------------- scoring

const frac = (x: number, cap: number): number => Math.min(Math.max(x, 0), cap) / cap;

function injectionNote(removed: number, flags: string[]): string {
  return flags.length > 0
    ? `; FLAG instruction-like text, not scored (${removed} sentence${removed === 1 ? "" : "s"}: ${flags.join(", ")})`
    : "";
}

export interface PanelSummary {
  yes: number;
  no: number;
}

function deadlineYear(deadline: number): number | undefined {
  if (typeof deadline !== "number" || !Number.isFinite(deadline)) return undefined;
  const d = new Date(deadline * 1000);
  return Number.isNaN(d.getTime()) ? undefined : d.getUTCFullYear();
}

/** Scores one answering worker. Pure and deterministic. */
export function scoreWorker(
  market: Pick<MarketSnapshot, "question" | "deadline"> & Partial<Pick<MarketSnapshot, "context">>,
  worker: Pick<AnsweredWorkerRecord, "answer" | "challenges" | "challengeReplies" | "challengeFailure"> &
    Partial<Pick<AnsweredWorkerRecord, "endpoint">>,
  /** Unused since rubric-v3 (Resolution Quality no longer looks at the panel); kept so callers need not change. */
  _panel?: PanelSummary,
): DimensionScores {
  const answer = worker.answer;
  // Instruction-like text anywhere in the raw evidence (URLs and labels included) voids the whole text.
  const exempt = marketPatterns(market);
  const raw = cleanForScoring(typeof answer.evidence === "string" ? answer.evidence : "", undefined, exempt);
  const protocol = protocolOf({ answer, endpoint: worker.endpoint });
  const view = answerView(answer, protocol);
  const src = sourceStats(view.sources, exempt);
  const f = textFeatures(raw.injected ? raw : cleanForScoring(view.text, undefined, exempt));
  const note = injectionNote(f.removedSentences, f.flags);
  const conf =
    typeof answer.confidence === "number" && Number.isFinite(answer.confidence)
      ? Math.min(1, Math.max(0, answer.confidence))
      : 0;
  const scores = {} as DimensionScores;
  const put = (k: Dimension, value: number, explanation: string): void => {
    // Snap to 1e-6 first so floating-point noise (0.9² = 0.8100000000000001) cannot flip a .5 rounding.
    scores[k] = { score: toIntScore(Math.round(value * 1e6) / 1e6), explanation: sanitizeString(explanation, 600) };
  };

  // Source quality
  {
    const rejected = Object.entries(src.rejected)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([r, n]) => `${n} ${r}`)
      .join(", ");
    const value =
      src.total === 0
        ? 0
        : 40 * frac(src.plausible, 5) +
          30 * frac(src.domains, 4) +
          20 * (src.plausible > 0 ? src.https / src.plausible : 0) +
          10 * (src.plausible / src.total);
    put(
      "sourceQuality",
      value,
      src.total === 0
        ? "no sources cited"
        : `${src.total} source(s): ${src.plausible} plausible unique across ${src.domains} domain(s), ` +
            `${src.plausible > 0 ? Math.round((100 * src.https) / src.plausible) : 0}% https` +
            (rejected ? `; rejected: ${rejected}` : ""),
    );
  }

  // Analysis depth
  put(
    "analysisDepth",
    50 * frac(f.distinctWords, 150) +
      20 * frac(f.wellFormedSentences, 8) +
      15 * frac(f.distinctNumbers, 5) +
      15 * frac(f.hedges + f.counter, 4),
    `${f.distinctWords} distinct words, ${f.wellFormedSentences} well-formed sentences, ` +
      `${f.distinctNumbers} distinct numbers, ${f.hedges + f.counter} nuance markers${note}`,
  );

  // Reasoning clarity
  put(
    "reasoningClarity",
    40 * frac(f.wellFormedSentences, 6) + 35 * frac(f.connectives, 4) + 25 * frac(f.distinctWords, 60),
    `${f.wellFormedSentences} well-formed sentences, ${f.connectives} logical connectives${note}`,
  );

  // Evidence strength
  put(
    "evidenceStrength",
    30 * frac(f.distinctNumbers, 6) +
      30 * frac(src.plausible, 4) +
      15 * frac(f.years.length + f.dates, 3) +
      15 * frac(f.attributions, 3) +
      10 * frac(f.distinctWords, 100),
    `${f.distinctNumbers} distinct figures, ${src.plausible} verifiable source(s), ${f.years.length + f.dates} dated references, ` +
      `${f.attributions} attribution markers${note}`,
  );

  // Bias awareness
  {
    const calibration = conf <= 0.95 ? 1 : (1 - conf) / 0.05;
    put(
      "biasAwareness",
      45 * frac(f.hedges, 4) + 35 * frac(f.counter, 3) + 20 * calibration,
      `${f.hedges} hedging markers, ${f.counter} counter-argument markers, confidence ${Math.round(conf * 100)}%` +
        (conf > 0.95 ? " (near-certain, not calibrated)" : "") +
        note,
    );
  }

  // Timeliness
  {
    const y = deadlineYear(market.deadline);
    const sourceYears: number[] = [];
    // Only plausible sources date anything (a rejected "source" is free text, e.g. an injection).
    for (const s of src.accepted)
      for (const m of String(s).match(/(?<!\d)(19|20)\d{2}(?!\d)/g) ?? []) sourceYears.push(Number(m));
    const allYears = [...f.years, ...sourceYears];
    let yearPts = 0;
    if (y !== undefined) {
      if (allYears.some((v) => v >= y - 1 && v <= y + 1)) yearPts = 40;
      else if (allYears.some((v) => v >= y - 3 && v <= y - 2)) yearPts = 20;
    }
    const recentSources =
      y === undefined
        ? 0
        : new Set(
            src.accepted.filter((s) =>
              (String(s).match(/(?<!\d)(19|20)\d{2}(?!\d)/g) ?? []).some((m) => Math.abs(Number(m) - y) <= 1),
            ),
          ).size;
    put(
      "timeliness",
      yearPts + 25 * frac(f.dates, 2) + 20 * frac(f.recency, 2) + 15 * frac(recentSources, 2),
      `${yearPts === 40 ? "mentions the deadline year or an adjacent one" : yearPts === 20 ? "mentions only years 2-3 before the deadline" : "no year near the deadline"}, ` +
        `${f.dates} explicit date(s), ${f.recency} recency marker(s), ${recentSources} source(s) dated near the deadline${note}`,
    );
  }

  // Resolution quality is correctness against the FINAL outcome (the CRE agent protocol: "determination
  // correctness, confidence calibration"), known only at finalization: the contract scores it then (correctness,
  // 100·(1 − Brier)). Before the outcome there is nothing honest to score it against — agreement with the panel
  // rewarded herding (a wrong swarm out-scored honest agents) — so every answer gets the same neutral figure.
  put(
    "resolutionQuality",
    RESOLUTION_QUALITY_PROVISIONAL,
    "not scored before finalization: Resolution Quality is correctness against the final outcome (on-chain)",
  );

  // Collaboration
  {
    const challenges = Array.isArray(worker.challenges) ? worker.challenges : [];
    const k = challenges.length;
    if (k === 0) {
      put("collaboration", 50, "not challenged: neutral score");
    } else {
      const given = Array.isArray(worker.challengeReplies) ? worker.challengeReplies : [];
      // One reply to a round of challenges (protocols that carry the round as one message, or map one item to one
      // challenge): scored per challenge on the part of it that covers that challenge, so the same defence scores
      // the same through every protocol.
      // A reply with instruction-like text anywhere stays whole (one unanswered reply): splitting must not rescue parts.
      const nonBlank = given.filter((r) => typeof r === "string" && r.trim() !== "");
      const one = nonBlank.length === 1 && k > 1 ? String(nonBlank[0]) : undefined;
      const single = one !== undefined && !cleanForScoring(one, undefined, exempt).injected;
      const replies = single ? splitByChallenge(replyView(one, protocol), challenges) : given;
      const questionTerms = contentTerms(market.question ?? "");
      const seenReplies = new Set<string>();
      let answered = 0;
      let lengthSum = 0;
      let topicSum = 0;
      let removed = 0;
      const flags = new Set<string>();
      let duplicates = 0;
      for (let i = 0; i < k; i++) {
        const reply = replies[i];
        const raw = typeof reply === "string" ? reply : "";
        const whole = cleanForScoring(raw, undefined, exempt);
        const cleaned = whole.injected ? whole : cleanForScoring(replyView(raw, protocol), undefined, exempt);
        removed += cleaned.removedSentences;
        for (const fl of cleaned.flags) flags.add(fl);
        const text = cleaned.paragraphs.map((p) => p.join(" ¦ ")).join("\n¦\n");
        const distinct = new Set(words(text)).size;
        if (distinct === 0) continue;
        answered += 1;
        const key = words(text).join(" ");
        if (seenReplies.has(key)) {
          duplicates += 1;
          continue;
        }
        seenReplies.add(key);
        lengthSum += frac(distinct, 40);
        const terms = new Set([...contentTerms(challenges[i] ?? ""), ...questionTerms]);
        let overlap = 0;
        for (const t of contentTerms(text)) if (terms.has(t)) overlap += 1;
        topicSum += frac(overlap, 3);
      }
      const extra = replies.length > k ? replies.length - k : 0;
      put(
        "collaboration",
        (40 * answered) / k + (30 * lengthSum) / k + (30 * topicSum) / k - (extra ? 10 : 0),
        `${answered}/${k} challenges answered${single ? " (one reply to the round, read per challenge)" : ""}` +
          (duplicates ? `, ${duplicates} duplicated repl${duplicates === 1 ? "y" : "ies"}` : "") +
          (extra ? `, ${extra} extra repl${extra === 1 ? "y" : "ies"} ignored (count mismatch, -10)` : "") +
          `, substance ${Math.round((100 * lengthSum) / k)}%, on-topic ${Math.round((100 * topicSum) / k)}%` +
          (worker.challengeFailure ? `; challenge call failed (${worker.challengeFailure.kind})` : "") +
          injectionNote(removed, [...flags].sort()),
      );
    }
  }

  // Fixed key order (the bundle sorts keys anyway).
  const ordered = {} as DimensionScores;
  for (const k of DIMENSIONS) {
    ordered[k] = scores[k];
  }
  return ordered;
}

/**
 * One reply to k challenges → k replies: each sentence goes to the challenge whose own terms it shares most
 * (ties: the earliest), a sentence sharing none continues the previous sentence's challenge (leading ones wait for
 * the first attributed sentence). A reply that shares no term with any challenge answers the first one only, as
 * before: it covers nothing specific.
 */
export function splitByChallenge(reply: string, challenges: readonly string[]): string[] {
  const terms = challenges.map((c) => new Set(contentTerms(typeof c === "string" ? c : "")));
  const parts: string[][] = challenges.map(() => []);
  let current = -1;
  let waiting: string[] = [];
  for (const paragraph of splitParagraphs(reply)) {
    for (const sentence of splitSentences(paragraph)) {
      let best = -1;
      let bestOverlap = 0;
      const own = contentTerms(sentence);
      terms.forEach((set, i) => {
        const overlap = own.filter((t) => set.has(t)).length;
        if (overlap > bestOverlap) {
          best = i;
          bestOverlap = overlap;
        }
      });
      if (best >= 0) current = best;
      if (current < 0) {
        waiting.push(sentence);
        continue;
      }
      parts[current]?.push(...waiting, sentence);
      waiting = [];
    }
  }
  if (current < 0) return [reply];
  return parts.map((p) => p.join(" "));
}

/** Counts of YES/NO among the answering workers of an input. */
export function panelSummary(workers: ReadonlyArray<Pick<WorkerRecord, "answer">>): PanelSummary {
  let yes = 0;
  let no = 0;
  for (const w of workers) {
    if (!w.answer) continue;
    if (w.answer.determination === true) yes += 1;
    else no += 1;
  }
  return { yes, no };
}

/** Rubric evaluation of every answering worker of the input, in input order. */
export function rubricEvaluate(input: EvaluationInput): EvaluationResult {
  const panel = panelSummary(input.workers);
  const evaluations: WorkerEvaluation[] = [];
  for (const w of input.workers) {
    const dimensions = scoreWorker(input.market, w, panel);
    evaluations.push({ address: w.seat.address, dimensions, aggregate: aggregateScores(dimensions) });
  }
  return { evaluator: { ...RUBRIC_IDENTITY }, evaluations };
}

export function createRubricEvaluator(): Evaluator {
  return {
    identity: { ...RUBRIC_IDENTITY },
    async evaluate(input: EvaluationInput): Promise<EvaluationResult> {
      return rubricEvaluate(input);
    },
  };
}
