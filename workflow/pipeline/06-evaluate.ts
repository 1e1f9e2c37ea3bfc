/**
 * Stage 6 — evaluate: the configured Evaluator scores every answering worker. If it throws, the
 * fallback (default: the rubric) scores them instead, the reason ("GLOBAL FALLBACK: …") is recorded
 * and a warning goes to stderr; if that throws
 * too the run stops with a PipelineError (a bug, not worker behaviour).
 */
import type { EvaluationResult, Evaluator, MarketSnapshot, WorkerRecord } from "../core/types.js";
import { createRubricEvaluator } from "../evaluate/rubric.js";
import { errorName, PipelineError } from "./errors.js";

export async function evaluateStage(
  market: MarketSnapshot,
  records: readonly WorkerRecord[],
  evaluator: Evaluator,
  fallback: Evaluator = createRubricEvaluator(),
): Promise<EvaluationResult> {
  const input = { market, workers: records.filter((r) => r.answer !== undefined) };
  try {
    return await evaluator.evaluate(input);
  } catch (error) {
    const reason = `GLOBAL FALLBACK: evaluator ${evaluator.identity.kind}/${evaluator.identity.model} failed (${errorName(error)})`;
    try {
      const result = await fallback.evaluate(input);
      // Loud (issue 13 item 9): the whole panel is scored by the fallback; the reason also lands in the bundle.
      // (No stderr in the CRE runtime: there the reason in the bundle is the only trace.)
      const stderr = (globalThis as { process?: { stderr?: { write(text: string): unknown } } }).process?.stderr;
      stderr?.write(
        `cresolver: WARNING: ${reason}; every worker scored by ${result.evaluator.kind}/${result.evaluator.model}\n`,
      );
      return {
        evaluator: { ...evaluator.identity },
        evaluations: result.evaluations,
        fallbackReason: reason,
        fallbackEvaluator: { ...result.evaluator },
      };
    } catch (again) {
      throw new PipelineError("evaluate", `${reason}; fallback failed too (${errorName(again)})`, again);
    }
  }
}
