/**
 * Text features of the rubric (rubric.ts): counts of distinct things in a cleaned text — words, well-formed
 * sentences, numbers, dates, years and marker phrases (hedges, counter-arguments, connectives, attributions,
 * recency). Every feature is a count, so a score that is non-decreasing in them has empty text as its floor.
 */
import { words, type CleanedText } from "../core/text.js";

const HEDGES = [
  "may",
  "might",
  "could",
  "likely",
  "unlikely",
  "possibly",
  "probably",
  "perhaps",
  "uncertain",
  "uncertainty",
  "suggests",
  "appears",
  "estimate",
  "estimated",
  "approximately",
  "roughly",
  "assume",
  "assuming",
  "probability",
  "risk",
  "risks",
  "caveat",
];
const COUNTER = [
  "however",
  "although",
  "though",
  "whereas",
  "nevertheless",
  "nonetheless",
  "on the other hand",
  "counterargument",
  "on the contrary",
  "despite",
  "but",
  "conversely",
  "alternatively",
  "bear case",
  "downside",
  "limitation",
  "limitations",
];
const CONNECTIVES = [
  "because",
  "therefore",
  "thus",
  "hence",
  "since",
  "consequently",
  "as a result",
  "first",
  "second",
  "third",
  "finally",
  "moreover",
  "furthermore",
  "in addition",
  "which means",
  "given that",
  "so that",
  "in conclusion",
  "overall",
];
const ATTRIBUTION = [
  "according to",
  "reported",
  "reports",
  "data from",
  "published",
  "announced",
  "statement",
  "filing",
  "official",
  "survey",
  "study",
  "dataset",
  "press release",
  "source",
];
const RECENCY = [
  "as of",
  "latest",
  "recent",
  "recently",
  "currently",
  "this week",
  "this month",
  "this year",
  "today",
  "updated",
  "to date",
  "so far",
  "year to date",
  "last week",
  "last month",
];
const MONTHS =
  "(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|jun(e)?|jul(y)?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?)";
const DATE_RES = [
  /\b(19|20)\d{2}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?\b/g,
  new RegExp(`\\b${MONTHS}\\.? \\d{1,2}(st|nd|rd|th)?,? (19|20)\\d{2}\\b`, "g"),
  new RegExp(`\\b\\d{1,2} ${MONTHS}\\.? (19|20)\\d{2}\\b`, "g"),
  new RegExp(`\\b${MONTHS}\\.? (19|20)\\d{2}\\b`, "g"),
  /\bq[1-4] (19|20)\d{2}\b/g,
];

function distinctMarkers(lowerText: string, markers: readonly string[]): number {
  let n = 0;
  for (const m of markers) if (new RegExp(`\\b${m.replace(/ /g, "\\s+")}\\b`).test(lowerText)) n += 1;
  return n;
}

export interface TextFeatures {
  distinctWords: number;
  wellFormedSentences: number;
  paragraphs: number;
  distinctNumbers: number;
  hedges: number;
  counter: number;
  connectives: number;
  attributions: number;
  recency: number;
  dates: number;
  years: number[];
  removedSentences: number;
  flags: string[];
}

export function textFeatures(cleaned: CleanedText): TextFeatures {
  const sentences = cleaned.paragraphs.flat();
  // Sentence/paragraph joiners that no marker, date or number pattern can match across.
  const text = cleaned.paragraphs.map((p) => p.join(" ¦ ")).join("\n¦\n");
  const lowerText = text.toLowerCase();
  const tokens = words(text);
  const numbers = new Set(text.match(/\d+(?:[.,]\d+)*%?/g) ?? []);
  const dates = new Set<string>();
  for (const re of DATE_RES) for (const m of lowerText.match(re) ?? []) dates.add(m);
  const years = new Set<number>();
  for (const m of text.match(/\b(19|20)\d{2}\b/g) ?? []) years.add(Number(m));
  return {
    distinctWords: new Set(tokens).size,
    // Distinct sentences only: a protocol that repeats a claim (a ReAct observation restating the
    // synthesis) or an agent that repeats itself gains nothing.
    wellFormedSentences: new Set(
      sentences
        .map((s) => words(s))
        .filter((w) => w.length >= 4 && w.length <= 40)
        .map((w) => w.join(" ")),
    ).size,
    paragraphs: cleaned.paragraphs.length,
    distinctNumbers: numbers.size,
    hedges: distinctMarkers(lowerText, HEDGES),
    counter: distinctMarkers(lowerText, COUNTER),
    connectives: distinctMarkers(lowerText, CONNECTIVES),
    attributions: distinctMarkers(lowerText, ATTRIBUTION),
    recency: distinctMarkers(lowerText, RECENCY),
    dates: dates.size,
    years: [...years].sort((a, b) => a - b),
    removedSentences: cleaned.removedSentences,
    flags: cleaned.flags,
  };
}
