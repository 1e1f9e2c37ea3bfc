/**
 * Offline deterministic answer engine: no network, no key, no clock, no randomness.
 *
 * determination, confidence, sources and the analysis text are a pure function of
 * (normalised question, persona); the analysis additionally cites the deadline date when the request has one.
 * Context is accepted but does not change the answer. Same inputs → same bytes, forever
 * (guarded by golden values in test/ts/agents/offline-engine.test.ts).
 */
import type { AnswerEngine, Finding, PersonaName, Question } from "../../kit/answer-engine.js";
import { getPersona, WEAK_SIGNAL, type BaseSignal, type Persona } from "./personas.js";
import {
  hashParts,
  humanList,
  keyTerms,
  normalizeQuestion,
  OFFLINE_HASH_VERSION,
  quoteSnippet,
  yearsIn,
} from "../../kit/text.js";

/** Well-known reference sites and their search URL shapes. Order is irrelevant (sources are hash-ordered). */
const REFERENCE_DOMAINS: ReadonlyArray<{ id: string; url: (q: string) => string }> = [
  { id: "wikipedia", url: (q) => `https://en.wikipedia.org/w/index.php?search=${q}` },
  { id: "reuters", url: (q) => `https://www.reuters.com/site-search/?query=${q}` },
  { id: "apnews", url: (q) => `https://apnews.com/search?q=${q}` },
  { id: "bbc", url: (q) => `https://www.bbc.co.uk/search?q=${q}` },
  { id: "britannica", url: (q) => `https://www.britannica.com/search?query=${q}` },
  { id: "scholar", url: (q) => `https://scholar.google.com/scholar?q=${q}` },
  { id: "metaculus", url: (q) => `https://www.metaculus.com/questions/?search=${q}` },
  { id: "ourworldindata", url: (q) => `https://ourworldindata.org/search?q=${q}` },
];

/** The persona-independent signal of a question, plus the persona's own hash byte. */
export function baseSignal(normalized: string, persona: PersonaName): BaseSignal {
  const base = hashParts(OFFLINE_HASH_VERSION, "base", normalized);
  const lean = base.readUInt16BE(0) / 0xffff;
  const own = hashParts(OFFLINE_HASH_VERSION, "persona", persona, normalized);
  return { yes: lean >= 0.5, strength: Math.abs(lean - 0.5) * 2, personaByte: own.readUInt8(0) };
}

/** One of `items` chosen by a hash byte. */
const pick = <T>(items: readonly [T, ...T[]], byte: number): T => items[byte % items.length] ?? items[0];
const pct = (c: number): string => `${Math.round(c * 100)}%`;
const yesNo = (d: boolean): string => (d ? "YES" : "NO");

function strengthWord(strength: number): string {
  if (strength < WEAK_SIGNAL) return "weak";
  if (strength < 0.65) return "moderate";
  return "strong";
}

/** Latest instant printed as a date: 9999-12-31T23:59:59.999Z (later deadlines are treated as unknown). */
const MAX_DATE_MS = 253_402_300_799_999;

function isoDate(unixSeconds: number): string | undefined {
  const ms = unixSeconds * 1000;
  if (!Number.isFinite(ms) || ms < 0 || ms > MAX_DATE_MS) return undefined;
  return new Date(ms).toISOString().slice(0, 10);
}

function buildSources(terms: string[], normalized: string, persona: PersonaName, count: number): string[] {
  const words = terms.length > 0 ? terms.slice(0, 4) : normalized.split(" ").filter(Boolean).slice(0, 4);
  const query = words.length > 0 ? words.map(encodeURIComponent).join("+") : "prediction+market";
  const ranked = REFERENCE_DOMAINS.map((d) => ({
    d,
    rank: hashParts(OFFLINE_HASH_VERSION, "source", persona, normalized, d.id).readUInt32BE(0),
  })).sort((a, b) => a.rank - b.rank || a.d.id.localeCompare(b.d.id));
  return ranked.slice(0, count).map(({ d }) => d.url(query));
}

interface Analysis {
  finding: Finding;
}

function analyse(q: Question, persona: Persona): Analysis {
  const normalized = normalizeQuestion(q.question);
  const signal = baseSignal(normalized, persona.name);
  const decision = persona.decide(signal);
  const h = hashParts(OFFLINE_HASH_VERSION, "text", persona.name, normalized);
  const terms = keyTerms(q.question, 6);
  const t = (i: number): string => terms[i % Math.max(terms.length, 1)] ?? "the subject";
  const focus = terms.length > 0 ? humanList(terms.slice(0, 3)) : "the subject of the question";
  const answer = yesNo(decision.determination);
  const other = yesNo(!decision.determination);
  const strength = strengthWord(signal.strength);

  const baseRate = pick(
    [
      `Base rate: outcomes comparable to "${t(0)}" have historically resolved ${answer} more often than not when the underlying trend was this ${strength}.`,
      `Base rate: prior cases involving ${focus} point towards ${answer}, although the reference class is small and imperfect.`,
      `Base rate: the historical record for questions about ${t(0)} and ${t(1)} gives a ${strength} prior in favour of ${answer}.`,
    ],
    h.readUInt8(0),
  );
  const indicators = pick(
    [
      `Current indicators: recent reporting on ${t(1)} is consistent with ${answer}, and no scheduled event tied to ${t(2)} is known to reverse it.`,
      `Current indicators: the latest public data about ${t(0)} moves in the direction of ${answer}, but the trend is ${strength} rather than decisive.`,
      `Current indicators: statements and data concerning ${focus} lean ${answer}; the pace of change matters more than its direction here.`,
    ],
    h.readUInt8(1),
  );
  const counter = pick(
    [
      `Counter-evidence: a sudden shift around ${t(2)} could still produce ${other}, and that scenario is not negligible.`,
      `Counter-evidence: sources that argue ${other} stress uncertainty about ${t(1)}; their case is weaker but not dismissed.`,
      `Counter-evidence: the strongest argument for ${other} is that ${t(0)} depends on decisions not yet taken.`,
    ],
    h.readUInt8(2),
  );
  const personaNote = decision.departed
    ? `As the ${persona.name}, I depart from the ${strength} majority reading (${persona.summary}), which is why my confidence is limited to ${pct(decision.confidence)}.`
    : `As the ${persona.name}, I follow the ${strength} reading of the evidence at ${pct(decision.confidence)} confidence.`;
  const uncertainty = `Uncertainty: this is a probabilistic judgement, not a certainty; I would revise it if ${t(0)} saw a material development before resolution.`;

  const deadline = q.deadline !== undefined ? isoDate(q.deadline) : undefined;
  const years = yearsIn(q.question);
  const timing = deadline
    ? `Timing: assessed against the market deadline of ${deadline} (UTC); only developments before that date count.`
    : years.length > 0
      ? `Timing: the question refers to ${humanList(years)}; the assessment covers developments up to the end of ${years[years.length - 1]}.`
      : "Timing: the question gives no explicit date, so the assessment applies to the market's resolution date.";
  const disclosure =
    "Method: offline reference mode; this analysis is derived deterministically from the question text rather than from live data, and the sources listed are where a full investigation would start.";

  const header = `Question examined: "${quoteSnippet(q.question)}". Determination: ${answer} with ${pct(decision.confidence)} confidence. Key terms: ${terms.length > 0 ? terms.join(", ") : "none extracted"}.`;
  const observations = [baseRate, indicators, counter];
  const evidence = [
    header,
    ...observations.map((o, i) => `${i + 1}. ${o}`),
    personaNote,
    uncertainty,
    timing,
    disclosure,
  ].join("\n");
  const sources = buildSources(terms, normalized, persona.name, 2 + (h.readUInt8(3) % 3));

  return {
    finding: {
      determination: decision.determination,
      confidence: decision.confidence,
      evidence,
      sources,
      observations,
      keyTerms: terms,
    },
  };
}

/** Words that are about the challenge itself rather than its topic. */
const CHALLENGE_META = new Set(
  (
    "workers worker opposite conclusion conclusions specific evidence makes making confident confidence answer " +
    "determination determinations identify weakest weak point points defend defence defense analysis reached " +
    "need needs change reverse reversal your you explain why what would could please justify position " +
    "percent claim claims argument arguments response respond think believe reasoning"
  ).split(" "),
);

/** Topic words of a challenge: its key terms minus challenge boilerplate, bare numbers and the question's terms. */
function challengeTopic(challenge: string, questionTerms: string[]): string[] {
  return keyTerms(challenge, 12)
    .filter((w) => !CHALLENGE_META.has(w) && !/^\p{N}+$/u.test(w) && !questionTerms.includes(w))
    .slice(0, 3);
}

type ChallengeKind = "disagreement" | "reversal" | "weakness" | "sources" | "general";

function classifyChallenge(text: string): ChallengeKind {
  const s = text.toLowerCase();
  if (/opposite|disagree|other workers|contrary|different conclusion|majority/.test(s)) return "disagreement";
  if (/reverse|change your|change (?:the|my|your)|what would|overconfiden|too confident|confidence/.test(s))
    return "reversal";
  if (/weak|flaw|limitation|assumption|blind spot/.test(s)) return "weakness";
  if (/source|evidence|data|cite|citation|verify|proof/.test(s)) return "sources";
  return "general";
}

function defendOne(q: Question, finding: Finding, persona: Persona, challenge: string): string {
  const normalized = normalizeQuestion(q.question);
  const h = hashParts(OFFLINE_HASH_VERSION, "defend", persona.name, normalized, normalizeQuestion(challenge));
  const qTerms = finding.keyTerms.length > 0 ? finding.keyTerms : keyTerms(q.question, 4);
  const cTerms = challengeTopic(challenge, qTerms);
  const topic = humanList(qTerms.slice(0, 2)) || "the question";
  const about = cTerms.length > 0 ? `the point about ${humanList(cTerms)}` : `this challenge about ${topic}`;
  const answer = yesNo(finding.determination);
  const other = yesNo(!finding.determination);
  const conf = pct(finding.confidence);
  const holds = persona.defends(finding);
  const firstSource = finding.sources[0] ?? "the cited references";

  const opener = holds
    ? pick(
        [
          `On ${about}: I maintain ${answer}.`,
          `Regarding ${about}, my determination of ${answer} stands.`,
          `On ${about}, I hold my position (${answer}).`,
        ],
        h.readUInt8(0),
      )
    : pick(
        [
          `On ${about}: this is a fair challenge and I concede part of it, while keeping ${answer}.`,
          `Regarding ${about}, I accept that my case for ${answer} is thinner than I would like.`,
        ],
        h.readUInt8(0),
      );

  let body: string;
  switch (classifyChallenge(challenge)) {
    case "disagreement":
      body = holds
        ? `Disagreement from other workers on ${topic} is informative, but it does not add evidence beyond what I weighed; the ${other} case rests on developments that have not happened yet.`
        : `Other workers reading ${topic} as ${other} is a signal I take seriously, and it is why I keep my confidence at ${conf}.`;
      break;
    case "reversal":
      body = `I would reverse to ${other} if verifiable reporting showed a decisive change in ${topic} before the deadline; at ${conf}, ${holds ? "my confidence reflects the balance of the evidence I found" : "I already treat the question as close"}.`;
      break;
    case "weakness":
      body = `The weakest point is the dependence on how ${topic} develops from here; ${holds ? "the base rate and current indicators both support my reading, which limits that risk" : `that is a real limitation and I have priced it into a confidence of ${conf}`}.`;
      break;
    case "sources":
      body = `The evidence on ${topic} can be checked starting from ${firstSource}; ${holds ? "those references are consistent with my reading" : "I acknowledge they do not settle the question on their own"}.`;
      break;
    default:
      body = `Taking the challenge into account for ${topic}, ${holds ? `the balance of evidence still favours ${answer} at ${conf}` : `I keep ${answer} but would not argue against a panel majority for ${other}`}.`;
  }
  const closing = pick(
    [`(${persona.name}, offline reference mode)`, `This reply reflects the ${persona.name} persona's decision rule.`],
    h.readUInt8(1),
  );
  return `${opener} ${body} ${closing}`;
}

export interface OfflineEngineOptions {
  persona?: PersonaName;
}

export class OfflineEngine implements AnswerEngine {
  readonly mode = "offline" as const;
  readonly persona: PersonaName;
  private readonly p: Persona;

  constructor(options: OfflineEngineOptions = {}) {
    this.persona = options.persona ?? "analyst";
    this.p = getPersona(this.persona);
  }

  /** Synchronous core, exposed for tests and tools. */
  investigateSync(q: Question): Finding {
    return analyse(q, this.p).finding;
  }

  async investigate(q: Question): Promise<Finding> {
    return this.investigateSync(q);
  }

  async defend(q: Question, finding: Finding, challenges: string[]): Promise<string[]> {
    return challenges.map((c) => defendOne(q, finding, this.p, c));
  }
}

export function createOfflineEngine(options: OfflineEngineOptions = {}): OfflineEngine {
  return new OfflineEngine(options);
}
