/**
 * Round-table reading rules: the evidence levels of an observation (readEvidence), the rule that reads
 * YES/NO out of the observations (readDetermination) and the confidence weighting by evidence level
 * (answerConfidence); documented in protocols/roundtable/README.md. Kept apart from the transport because
 * these are the protocol's documented semantics, pure functions tested on their own.
 */
import { normalizeForAnalysis } from "../../workflow/core/text.js";
import type { AnalysisReply, Observation } from "./wire.js";

/**
 * Confidence weight of each evidence level (spec: `[VERIFIED: source:ref]`, `[CORROBORATED: src1 + src2]`,
 * `[INDICATED: source]`, `[POSSIBLE]`). An observation counts with its strongest tag; evidence without
 * any tag is weighted below POSSIBLE (the spec asks for levels; an untagged claim is unqualified).
 */
export const EVIDENCE_LEVEL_WEIGHTS = {
  VERIFIED: 1,
  CORROBORATED: 0.85,
  INDICATED: 0.6,
  POSSIBLE: 0.3,
  NONE: 0.2,
} as const;
export type EvidenceLevel = keyof typeof EVIDENCE_LEVEL_WEIGHTS;

// ---------------------------------------------------------------------------------------------------
// Evidence levels.

const LEVEL_TAG = /\[\s*(VERIFIED|CORROBORATED|INDICATED|POSSIBLE)\s*(?::([^\]]*))?\]/gi;
const URL_RE = /\bhttps?:\/\/[^\s<>"'()[\]{}]+/gi;

export interface EvidenceReading {
  /** The strongest level tagged in the evidence ("NONE" without a tag). */
  level: EvidenceLevel;
  weight: number;
  /** Sources named in the tags (split on " + ") and URLs anywhere in the evidence, in order, deduplicated. */
  sources: string[];
}

/** Reads the evidence levels and cited sources of one observation's evidence string. */
export function readEvidence(evidence: string): EvidenceReading {
  let level: EvidenceLevel = "NONE";
  const sources: string[] = [];
  const add = (s: string) => {
    const t = s.trim().replace(/[.,;:]+$/, "");
    if (t.length > 0 && !sources.includes(t)) sources.push(t);
  };
  for (const [, name = "", list] of evidence.matchAll(LEVEL_TAG)) {
    const tag = name.toUpperCase() as Exclude<EvidenceLevel, "NONE">;
    if (EVIDENCE_LEVEL_WEIGHTS[tag] > EVIDENCE_LEVEL_WEIGHTS[level]) level = tag;
    // "src1 + src2": the plus must stand between spaces (URLs often contain a bare "+").
    if (list !== undefined) for (const part of list.split(/\s+\+\s+/)) add(part);
  }
  for (const m of evidence.matchAll(URL_RE)) add(m[0]);
  return { level, weight: EVIDENCE_LEVEL_WEIGHTS[level], sources };
}

// ---------------------------------------------------------------------------------------------------
// Determination rule.

export type DeterminationReading =
  | { kind: "yes" | "no"; basis: "tag" | "keywords"; observations: number[] }
  | { kind: "abstain"; basis: "tag"; observations: number[] }
  | { kind: "ambiguous"; reason: string };

// "DETERMINATION: YES", "Final determination - not yes", "**Determination:** NO" (markdown stripped first).
const TAG_RE =
  /^(?:final |overall )?determination ?[:=\-–—] ?(?:(not|never) )?(yes|no|undetermined|abstain|neutral|unknown|undecided)\b/;
const ABSTAIN_WORDS = new Set(["undetermined", "abstain", "neutral", "unknown", "undecided"]);
const ANCHORS = new Set([
  "answer",
  "outcome",
  "resolution",
  "determination",
  "verdict",
  "conclusion",
  "resolve",
  "resolves",
  "resolved",
  "resolving",
]);
const FILLERS = new Set([
  "is",
  "be",
  "should",
  "would",
  "will",
  "must",
  "to",
  "as",
  "the",
  "a",
  "clearly",
  "likely",
  "therefore",
  "thus",
  "final",
  "this",
  "market",
  "question",
  "of",
  "in",
  "favour",
  "favor",
  "with",
  "at",
  "being",
  "remains",
  "stays",
]);
const NEGATORS = new Set(["not", "never"]);
const HYPOTHETICAL = new Set(["could", "might", "may", "if", "unless", "whether", "would've", "cannot"]);

function flattenFinding(finding: string): string {
  return normalizeForAnalysis(finding)
    .toLowerCase()
    .replace(/n['’]t\b/g, " not")
    .replace(/[*_#>`~]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** Keyword verdicts of one finding: each anchor followed (within 4 words) by YES/NO, with negation. */
function keywordVerdicts(finding: string): boolean[] {
  const out: boolean[] = [];
  const text = normalizeForAnalysis(finding).replace(/n['’]t\b/gi, " not");
  // A sentence that opens with a condition ("If the estimate is revised, the outcome is NO") states no verdict.
  const sentences = text
    .split(/[.;!?\n]+/)
    .filter(
      (s) =>
        !/^\W*(?:if|unless|suppose|supposing|assuming|in case|(?:should|were|had) (?:the|a|an|it|this|that|these|those|there|they|we|its|their))\b/i.test(
          s,
        ),
    );
  // Clauses end at commas and brackets too; ":" and "-" stay inside.
  for (const clause of sentences.flatMap((s) => s.split(/[,()[\]]+/))) {
    const raw = clause.match(/[\p{L}\p{N}']+/gu) ?? [];
    const tokens = raw.map((t) => t.toLowerCase());
    for (const [i, token] of tokens.entries()) {
      if (!ANCHORS.has(token)) continue;
      const before = tokens.slice(Math.max(0, i - 3), i);
      if (before.some((t) => HYPOTHETICAL.has(t))) continue; // "could still resolve NO" is not a verdict
      let negations = before.slice(-2).filter((t) => NEGATORS.has(t)).length;
      for (let j = i + 1; j <= Math.min(tokens.length - 1, i + 5); j++) {
        const t = tokens[j] ?? "";
        if (t === "yes" || t === "no") {
          // "no" must be a verdict, not a determiner ("the answer is no evidence…"): written YES/NO,
          // or the last word of its clause.
          const emphatic = raw[j] === "YES" || raw[j] === "NO";
          if (emphatic || j === tokens.length - 1) out.push((t === "yes") !== negations % 2 > 0);
          break;
        }
        if (NEGATORS.has(t)) negations++;
        else if (!FILLERS.has(t)) break;
      }
    }
  }
  return out;
}

/**
 * Reads the YES/NO determination out of the observations (documented in protocols/roundtable/README.md):
 *
 * 1. Tags (what our constraints ask for): an observation whose finding starts — after Markdown
 *    emphasis, case and spacing are normalised — with `DETERMINATION: YES|NO`, optionally `not`/`never`
 *    before the value (`DETERMINATION: NOT YES` = NO), or `DETERMINATION: UNDETERMINED` (also
 *    ABSTAIN/NEUTRAL/UNKNOWN/UNDECIDED); "final"/"overall" may precede "determination", and
 *    `:`, `=`, `-` separate. If tags exist they alone decide: all YES → YES, all NO → NO, all
 *    undetermined → abstain; any mix → ambiguous.
 * 2. Keywords (only without any tag): in every finding, a verdict word (answer, outcome, resolution,
 *    determination, verdict, conclusion, resolve[s|d]) followed within five words — through filler words
 *    only (is, should, be, to, as, the, …) — by YES or NO. `not`/`never`/`n't` in that span or in the
 *    two words before the verdict word negate it (odd count inverts). A verdict word preceded within
 *    three words by could/might/may/if/unless/whether/cannot, or in a sentence that opens with a condition
 *    (if, unless, suppose, assuming, in case; should/were/had + the/a/it/this/there/they/…), is
 *    hypothetical and ignored. A lower-case
 *    "no"/"yes" counts only as the last word of its clause ("the answer is no evidence" is not a verdict).
 *    All verdicts agree → that determination; none or both → ambiguous.
 *
 * Ambiguous is a failure of kind `invalid-response` (the agent did not follow the constraint: no vote,
 * no quorum credit); an explicit UNDETERMINED tag is `abstained` (a valid answer that takes no side).
 */
export function readDetermination(observations: ReadonlyArray<Pick<Observation, "finding">>): DeterminationReading {
  const tagged: { index: number; value: "yes" | "no" | "abstain" }[] = [];
  observations.forEach((o, index) => {
    const [, not, word] = TAG_RE.exec(flattenFinding(o.finding)) ?? [];
    if (word === undefined) return;
    if (ABSTAIN_WORDS.has(word)) {
      if (not === undefined) tagged.push({ index, value: "abstain" });
      return; // "not undetermined" says nothing
    }
    const yes = (word === "yes") !== (not !== undefined);
    tagged.push({ index, value: yes ? "yes" : "no" });
  });
  const [firstTag] = tagged;
  if (firstTag !== undefined) {
    const values = new Set(tagged.map((t) => t.value));
    if (values.size > 1)
      return { kind: "ambiguous", reason: `contradictory determination tags (${[...values].sort().join(", ")})` };
    const { value } = firstTag;
    const indices = tagged.map((t) => t.index);
    return value === "abstain"
      ? { kind: "abstain", basis: "tag", observations: indices }
      : { kind: value, basis: "tag", observations: indices };
  }
  const yes: number[] = [];
  const no: number[] = [];
  observations.forEach((o, index) => {
    for (const v of keywordVerdicts(o.finding)) (v ? yes : no).push(index);
  });
  if (yes.length > 0 && no.length > 0)
    return { kind: "ambiguous", reason: "findings state both YES and NO and no DETERMINATION tag decides" };
  if (yes.length > 0) return { kind: "yes", basis: "keywords", observations: [...new Set(yes)] };
  if (no.length > 0) return { kind: "no", basis: "keywords", observations: [...new Set(no)] };
  return { kind: "ambiguous", reason: "no DETERMINATION tag and no YES/NO verdict in the findings" };
}

/**
 * confidence = base × strength, rounded to 4 decimals, where
 *   base     = the analysis' overall `confidence`; else the mean of the observations' confidences; else 0.5;
 *   strength = Σ wᵢ·cᵢ / Σ cᵢ over the observations, wᵢ = EVIDENCE_LEVEL_WEIGHTS of the strongest level
 *              in observation i's evidence, cᵢ = its confidence (1 when absent); the plain mean of wᵢ
 *              when every cᵢ is 0.
 * So an analysis whose evidence is all [VERIFIED] keeps its confidence, all [POSSIBLE] keeps 30 % of it.
 */
export function answerConfidence(reply: Pick<AnalysisReply, "confidence" | "observations">): {
  confidence: number;
  strength: number;
  base: number;
} {
  const obs = reply.observations;
  const stated = obs.map((o) => o.confidence).filter((c): c is number => c !== undefined);
  const base = reply.confidence ?? (stated.length > 0 ? stated.reduce((a, b) => a + b, 0) / stated.length : 0.5);
  let num = 0;
  let den = 0;
  let plain = 0;
  for (const o of obs) {
    const w = readEvidence(o.evidence).weight;
    const c = o.confidence ?? 1;
    num += w * c;
    den += c;
    plain += w;
  }
  const strength = obs.length === 0 ? EVIDENCE_LEVEL_WEIGHTS.NONE : den > 0 ? num / den : plain / obs.length;
  const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
  return {
    confidence: round4(Math.min(1, Math.max(0, base * strength))),
    strength: round4(strength),
    base: round4(base),
  };
}
