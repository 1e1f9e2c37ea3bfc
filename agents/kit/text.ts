/** Text helpers shared by the engines: normalisation, key terms, stable hashing. Pure. */
import { createHash } from "node:crypto";

/** Version tag mixed into every offline hash. Changing it changes every offline answer: don't. */
export const OFFLINE_HASH_VERSION = "cresolver-reference-v1";

/**
 * Canonical form of a question for hashing and caching: Unicode NFKC, lower case, every run of
 * characters that are neither letters nor digits collapsed to one space, trimmed.
 * "Will BTC reach $200k?" and "will btc reach 200k" normalise identically.
 */
export function normalizeQuestion(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** sha256 over the parts joined by NUL; returns the 32 digest bytes. */
export function hashParts(...parts: string[]): Buffer {
  return createHash("sha256").update(parts.join("\u0000"), "utf8").digest();
}

const STOPWORDS = new Set(
  (
    "a an and any are as at be been before being between both but by can could did do does done during each " +
    "either end ever for from had has have how if in into is it its least less more most much must no nor not " +
    "of off on once only or other over per reach reached remain same shall should so some such than that the " +
    "their them then there these they this those through to under until up upon was we were what when where " +
    "whether which while who whom why will with within without would yes you your after again against all also " +
    "above below out own very get gets got make makes made become becomes happen happens take place least next " +
    "exceed exceeds higher lower greater fewer announce announced officially"
  ).split(" "),
);

/**
 * Salient terms of a text, in order of first appearance: words of at least 3 characters (or containing a
 * digit) that are not stopwords, deduplicated, at most `max`.
 */
export function keyTerms(text: string, max = 6): string[] {
  const out: string[] = [];
  for (const word of normalizeQuestion(text).split(" ")) {
    if (word === "" || STOPWORDS.has(word)) continue;
    if (word.length < 3 && !/\p{N}/u.test(word)) continue;
    if (out.includes(word)) continue;
    out.push(word);
    if (out.length >= max) break;
  }
  return out;
}

/** Four-digit years (1900-2199) mentioned in the text, deduplicated, in order. */
export function yearsIn(text: string): string[] {
  const found = text.match(/\b(19|20|21)\d{2}\b/g) ?? [];
  return [...new Set(found)];
}

/** Splits a text into sentences (rough but deterministic). */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Human list: "a", "a and b", "a, b and c". */
export function humanList(items: string[]): string {
  const last = items.at(-1);
  if (last === undefined) return "";
  if (items.length === 1) return last;
  return `${items.slice(0, -1).join(", ")} and ${last}`;
}

/** Quotes user-supplied text for inclusion in our prose: single line, capped. */
export function quoteSnippet(text: string, max = 160): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
