/**
 * The protocol-neutral view of a worker's answer that the rubric scores, so that the same answer scores
 * the same whichever protocol carried it (issue 13 item 14).
 *
 * - Sources: the answer's `sources` plus every http(s) URL in its evidence text, once each (Agora has
 *   no sources field and cites URLs in its reasoning, round-table names them in evidence-level tags,
 *   Factagora's rendered ReAct cycle repeats them). URLs are then cut out of the text, so their path
 *   digits never count as figures or years of the analysis.
 * - Text: the labels our adapters add when they render a protocol's structure into one evidence text
 *   ("Position: YES (confidence 0.8).", "Initial thought:", "1. [web_search] …", "[info] …",
 *   "Evidence: [INDICATED: …]", "reliability 0.9", "Sources:" …) are removed: they are ours, not the
 *   agent's. Only the labels of the protocol that carried the answer are touched.
 * Pure and deterministic.
 */
import type { WorkerAnswer, WorkerEndpoint } from "../core/types.js";

const URL_RE = /\bhttps?:\/\/[^\s<>"'()[\]{}]+/gi;
/** Trailing punctuation that closes a sentence rather than belonging to the URL. */
const URL_TAIL = /[.,;:!?]+$/;

export interface AnswerView {
  /** Evidence text without URLs and without our adapters' labels. */
  text: string;
  /** Listed sources first, then URLs found in the evidence that no earlier source has (same `sourceKey`), at most 100. */
  sources: string[];
}

/** The protocol that carried an answer: the endpoint's, else what the adapter wrote into the extras. */
export function protocolOf(record: {
  endpoint?: WorkerEndpoint | undefined;
  answer?: WorkerAnswer | undefined;
}): string {
  const p = record.endpoint?.protocol;
  if (typeof p === "string" && p !== "") return p.toLowerCase();
  const extras = record.answer?.extras;
  if (extras && typeof extras.protocol === "string") return extras.protocol.toLowerCase();
  if (extras && typeof extras.agora === "object" && extras.agora !== null) return "agora";
  return "cresolver";
}

/** Dedupe key of a source: host without "www.", path without trailing slashes, query; else the trimmed text. */
export function sourceKey(raw: string): string {
  const s = String(raw).trim();
  try {
    const url = new URL(s);
    return (
      url.hostname
        .toLowerCase()
        .replace(/\.$/, "")
        .replace(/^www\./, "") +
      url.pathname.replace(/\/+$/, "") +
      url.search
    );
  } catch {
    return s;
  }
}

const line =
  (re: RegExp, to = "") =>
  (s: string) =>
    s.replace(re, to);

/** Per protocol: line rewrites that undo our adapter's rendering (see the adapters' evidence mapping). */
const LABELS: Record<string, Array<(s: string) => string>> = {
  // protocols/factagora/mapping.ts renderEvidence
  factagora: [
    line(/^Position: (YES|NO|NEUTRAL) \(confidence [^)]*\)\.$/, ""),
    line(/^(Actions|Observations|Evidence):$/, ""),
    line(/^(Initial thought|Synthesis|Summary|Limitations): /, ""),
    line(/^\d+\. \[[^\]]*\] /, ""),
    line(/ reliability [\d.eE+-]+$/, ""),
    line(/ → /, ". "),
    line(/ — /, ". "),
  ],
  // protocols/roundtable/answers.ts answerFromAnalysis
  roundtable: [
    line(/^\[[a-z]+\] /i, ""),
    line(/^Evidence: /, ""),
    line(/\[\s*(VERIFIED|CORROBORATED|INDICATED|POSSIBLE)\s*(:[^\]]*)?\]\s*/gi, ""),
    line(/^Recommendation( \([^)]*\))?: /, ""),
  ],
};

/**
 * Lines that carry nothing of the analysis: a list label or bullet left over once URLs are cut out
 * ("Sources:", "-", "1."), or a bare restatement of the determination ("DETERMINATION: YES", the
 * round-table way to state it), which every protocol carries in its own field.
 */
const EMPTY_LINE =
  /^\s*((sources?|references?|links?|citations?)\s*:?|[-*•]|\d+[.)]|(determination|verdict|answer|position|resolution)\s*:\s*(yes|no)\.?)?\s*$/i;

export function answerView(answer: Pick<WorkerAnswer, "evidence" | "sources">, protocol = "cresolver"): AnswerView {
  const evidence = typeof answer.evidence === "string" ? answer.evidence : "";
  const listed = Array.isArray(answer.sources) ? answer.sources.map((s) => (typeof s === "string" ? s : "")) : [];
  // Listed sources are kept as they are (a listed duplicate still counts against the worker); a URL in
  // the text is added only when no listed or earlier source has the same key.
  const sources = listed.slice(0, 100);
  const seen = new Set(sources.map(sourceKey));
  for (const m of evidence.matchAll(URL_RE)) {
    const url = m[0].replace(URL_TAIL, "");
    const key = sourceKey(url);
    if (sources.length >= 100 || seen.has(key)) continue;
    seen.add(key);
    sources.push(url);
  }
  const rules = LABELS[protocol] ?? [];
  const text = evidence
    .split("\n")
    .map((l) =>
      rules
        .reduce((acc, rule) => rule(acc.trim()), l)
        .replace(URL_RE, (u) => u.match(URL_TAIL)?.[0] ?? "")
        .replace(/\(\s*\)/g, ""),
    )
    .filter((l) => !EMPTY_LINE.test(l) || l.trim() === "")
    .join("\n")
    .replace(/\n\s*\n(\s*\n)+/g, "\n\n")
    .trim();
  return { text, sources };
}

/** Per protocol: the wrapper our adapter puts around each challenge reply. */
const REPLY_LABELS: Record<string, RegExp> = {
  // protocols/roundtable/challenge-mapping.ts: `Challenge to peer-2 on "…": ` / `Concession to peer-1 on "…": `
  roundtable: /^(Challenge|Concession) to .{0,300}? on ".{0,300}?": /gm,
  // protocols/factagora/mapping.ts challengeReplies, when no reply is labelled: `Round 2 position: YES (confidence 0.8). `
  factagora: /^Round 2 position: [A-Z]{1,20} \(confidence [0-9.eE-]{1,24}\)\. /g,
};

/** A challenge reply without our adapter's wrapper (see REPLY_LABELS). */
export function replyView(reply: string, protocol = "cresolver"): string {
  const re = REPLY_LABELS[protocol];
  // A leading "1." is how several protocols number replies (Agora splits its reasoning on it).
  return (re ? reply.replace(re, "") : reply).replace(/^\s*\d{1,2}[.)]\s+/, "");
}
