/**
 * Personas: decision rules and confidence styles applied to a question's base signal.
 *
 * The base signal is a pure function of the normalised question: `lean` in [0, 1] from its sha256
 * (YES when lean >= 0.5) and `strength` = |lean - 0.5| * 2 in [0, 1] (0 = coin toss, 1 = clear-cut).
 * Every persona follows the base signal unless its rule says otherwise, so a panel agrees most of the time
 * and disagrees on weak or "contrarian" questions.
 */
import type { PersonaName } from "../../kit/answer-engine.js";
import { PERSONAS } from "../../kit/answer-engine.js";

export interface BaseSignal {
  yes: boolean;
  strength: number;
  /** A byte from a persona-specific hash of the question, in 0..255 (used by the contrarian's rule). */
  personaByte: number;
}

export interface PersonaDecision {
  determination: boolean;
  confidence: number;
  /** True when the persona departed from the base signal. */
  departed: boolean;
}

/** Below this strength the base signal counts as weak. */
export const WEAK_SIGNAL = 0.3;
/** The contrarian departs when its persona byte is below this (64/256 = 25% of questions). */
export const CONTRARIAN_THRESHOLD = 64;

export interface Persona {
  name: PersonaName;
  /** One line for health output and prompts. */
  summary: string;
  /** Stance instructions used in LLM mode. */
  llmStance: string;
  decide(signal: BaseSignal): PersonaDecision;
  /** Whether the persona holds its ground under challenge (otherwise it concedes the point, keeping its answer). */
  defends(decision: { determination: boolean; confidence: number }): boolean;
}

const round2 = (x: number): number => Math.round(Math.min(1, Math.max(0, x)) * 100) / 100;

export const PERSONA_TABLE: Record<PersonaName, Persona> = {
  analyst: {
    name: "analyst",
    summary: "follows the evidence; confidence calibrated to the strength of the signal (0.55-0.95)",
    llmStance:
      "You are a careful, neutral analyst. Follow the weight of the evidence and calibrate your confidence to it.",
    decide: (s) => ({ determination: s.yes, confidence: round2(0.55 + 0.4 * s.strength), departed: false }),
    defends: (d) => d.confidence >= 0.7,
  },
  skeptic: {
    name: "skeptic",
    summary: "status-quo bias: rejects a weak YES (strength < 0.3); modest confidence in YES, firmer in NO",
    llmStance:
      "You are a skeptic. Extraordinary claims need strong evidence: when the case for YES is weak or " +
      "speculative, answer NO. Keep your confidence modest unless the evidence is overwhelming.",
    decide: biasedToward(false, { base: 0.52, span: 0.2 }, { yes: 0.5, no: 0.6 }),
    defends: (d) => !d.determination,
  },
  contrarian: {
    name: "contrarian",
    summary: "takes the opposite side on about a quarter of questions (hash rule) with low confidence (0.50-0.60)",
    llmStance:
      "You are a contrarian. Look hard for what the consensus is missing and argue the less popular side when " +
      "it is defensible, but say plainly how uncertain you are.",
    decide: (s) => {
      if (s.personaByte < CONTRARIAN_THRESHOLD) {
        return {
          determination: !s.yes,
          confidence: round2(0.5 + 0.1 * (s.personaByte / CONTRARIAN_THRESHOLD)),
          departed: true,
        };
      }
      return { determination: s.yes, confidence: round2(0.6 + 0.25 * s.strength), departed: false };
    },
    defends: (d) => d.confidence >= 0.55,
  },
  optimist: {
    name: "optimist",
    summary: "change-happens bias: accepts a weak NO as YES (strength < 0.3); higher confidence in YES",
    llmStance:
      "You are an optimist. Give real weight to momentum and to announced plans: when the case for NO is weak, " +
      "answer YES.",
    decide: biasedToward(true, { base: 0.55, span: 0.15 }, { yes: 0.65, no: 0.5 }),
    defends: () => true,
  },
};

/**
 * The skeptic's and the optimist's rule: a weak signal (strength < WEAK_SIGNAL) against `side` is overturned, with
 * confidence `overturn.base` plus up to `overturn.span` the weaker it is; otherwise the signal is followed with
 * confidence `follow.yes` or `follow.no` plus 0.3 × strength.
 */
function biasedToward(
  side: boolean,
  overturn: { base: number; span: number },
  follow: { yes: number; no: number },
): Persona["decide"] {
  return (s) => {
    if (s.yes !== side && s.strength < WEAK_SIGNAL) {
      const weakness = (WEAK_SIGNAL - s.strength) / WEAK_SIGNAL;
      return { determination: side, confidence: round2(overturn.base + overturn.span * weakness), departed: true };
    }
    return {
      determination: s.yes,
      confidence: round2((s.yes ? follow.yes : follow.no) + 0.3 * s.strength),
      departed: false,
    };
  };
}

export function isPersonaName(x: string): x is PersonaName {
  return (PERSONAS as readonly string[]).includes(x);
}

export function getPersona(name: PersonaName): Persona {
  return PERSONA_TABLE[name];
}
