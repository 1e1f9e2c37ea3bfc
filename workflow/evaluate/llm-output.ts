/**
 * The LLM evaluator's reading of a model reply: the zod schema of the scores, their clamping and sanitising, the
 * floor a worker gets when its own text broke its evaluation, and the rubric cap for text carrying instructions.
 */
import { z } from "zod";
import { parseJsonWith } from "../util/parse-json.js";
import { toIntScore } from "../core/aggregate.js";
import { cleanForScoring, marketPatterns, sanitizeString } from "../core/text.js";
import { type AnsweredWorkerRecord, DIMENSIONS, type DimensionScores, type EvaluationInput } from "../core/types.js";
import { panelSummary, scoreWorker } from "./rubric.js";

/** True when the rubric finds instruction-like text in the worker's evidence, a source or a challenge reply. */
function carriesInjection(input: EvaluationInput, w: AnsweredWorkerRecord): boolean {
  const a = w.answer;
  const exempt = marketPatterns(input.market);
  const texts = [
    a.evidence,
    ...(Array.isArray(a.sources) ? a.sources : []),
    ...(Array.isArray(w.challengeReplies) ? w.challengeReplies : []),
  ];
  return texts.some((t) => typeof t === "string" && cleanForScoring(t, undefined, exempt).injected);
}

/**
 * A model can be swayed by injected instructions; the rubric cannot (it scores such text as empty).
 * For a worker whose text carries instruction-like text, each LLM score is capped at the rubric's, so
 * injection never scores above the same answer without it under either evaluator.
 */
export function capInjected(input: EvaluationInput, w: AnsweredWorkerRecord, scores: DimensionScores): DimensionScores {
  if (!carriesInjection(input, w)) return scores;
  const rubric = scoreWorker(input.market, w, panelSummary(input.workers));
  const out = {} as DimensionScores;
  for (const d of DIMENSIONS) {
    const cap = rubric[d].score;
    out[d] =
      scores[d].score <= cap
        ? scores[d]
        : {
            score: cap,
            explanation: sanitizeString(
              `${scores[d].explanation} (capped at the rubric's ${cap}: instruction-like text in the worker's text)`,
              600,
            ),
          };
  }
  return out;
}

/** Every dimension at 0: what a worker whose own text broke its evaluation gets (never the lenient rubric). */
export function floorScores(explanation: string): DimensionScores {
  return Object.fromEntries(
    DIMENSIONS.map((d) => [d, { score: 0, explanation: sanitizeString(explanation, 600) }]),
  ) as DimensionScores;
}

const scoreSchema = z.object({
  score: z.number().refine(Number.isFinite, "score must be finite"),
  explanation: z.string(),
});
export const llmOutputSchema = z.object(
  Object.fromEntries(DIMENSIONS.map((d) => [d, scoreSchema])) as Record<
    (typeof DIMENSIONS)[number],
    typeof scoreSchema
  >,
);

/** Validates and normalizes one model reply (the message content). Throws with a short reason. */
export function parseLlmOutput(content: string): DimensionScores {
  const data = parseJsonWith(llmOutputSchema, content, (why) =>
    why.kind === "not-json"
      ? new Error("malformed output: not JSON")
      : new Error(`out-of-schema output: ${why.path || "(root)"} ${why.message}`),
  );
  const out = {} as DimensionScores;
  for (const d of DIMENSIONS) {
    const { score, explanation } = data[d];
    const clamped = toIntScore(score);
    const note = score < 0 || score > 100 ? ` (clamped from ${score})` : "";
    out[d] = { score: clamped, explanation: sanitizeString(explanation.replace(/\s+/g, " ").trim(), 500) + note };
  }
  return out;
}
