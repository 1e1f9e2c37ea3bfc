/**
 * Evaluator selection for the pipeline. The rubric is the offline deterministic default; the LLM
 * evaluator is used only when fully configured, always with the rubric as its per-worker fallback.
 */
import type { Evaluator } from "../core/types.js";
import { createLlmEvaluator, type LlmEvaluatorOptions } from "./llm.js";
import { createRubricEvaluator } from "./rubric.js";

export { createLlmEvaluator, parseLlmOutput, type LlmEvaluatorOptions } from "./llm.js";
export { PROMPT_VERSION, buildPrompt } from "./prompt.js";
export { RUBRIC_IDENTITY, RUBRIC_VERSION, createRubricEvaluator, rubricEvaluate, scoreWorker } from "./rubric.js";

export type EvaluatorConfig = { kind: "rubric" } | ({ kind: "llm" } & Omit<LlmEvaluatorOptions, "fallback">);

export function createEvaluator(config: EvaluatorConfig = { kind: "rubric" }): Evaluator {
  const rubric = createRubricEvaluator();
  if (config.kind !== "llm") return rubric;
  const { kind: _kind, ...options } = config;
  return createLlmEvaluator({ ...options, fallback: rubric });
}
