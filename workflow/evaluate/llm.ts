/**
 * LLM evaluator through the `openai` SDK against any OpenAI-compatible endpoint.
 *
 * - One request per answering worker (bounded concurrency, default 4): a worker's text can only
 *   ever influence its own scores, one bad reply costs one worker's fallback, not the panel's, and
 *   prompts stay small. The panel is summarized as YES/NO counts only.
 * - Request: temperature 0, seed 42, response_format json_schema (strict), system + user messages
 *   from prompt.ts (agent text only as fenced, JSON-encoded data).
 * - Output: JSON.parse + zod. Every dimension must be present with a finite number `score` and a
 *   string `explanation` (non-numbers, e.g. "100" or null, are rejected → fallback). Scores outside
 *   0..100 are clamped (and rounded half up to integers); the explanation then notes
 *   "(clamped from X)". Unknown extra keys are ignored. Explanations are sanitized and capped.
 * - Retries: our own bounded loop (the SDK's retry is disabled so server Retry-After headers cannot
 *   stretch it): up to `maxRetries` retries on connection errors, timeouts, 408/409/429/5xx, with
 *   deterministic exponential backoff retryBaseDelayMs·2^i capped at retryMaxDelayMs. Malformed or
 *   out-of-schema output is not retried (at temperature 0 the same prompt gives the same output).
 * - Timeout: `timeoutMs` per attempt covers the whole exchange (headers and body), via an
 *   AbortSignal. Response bodies over `maxResponseBytes` (default 1 MiB) are refused. Redirects are
 *   never followed (a 3xx is a non-retryable HTTP error). The endpoint is operator configuration, so
 *   it is not subject to the agent destination guard (loopback is fine for tests and local models).
 * - Failures are blamed (issue 13 item 9). A failure caused by the worker's own text (refusal, content
 *   filter, truncation, malformed or out-of-schema output, 400/413/422, oversized reply) scores that
 *   worker at the floor (every dimension 0) with `fallbackReason` "…counted against the worker": it
 *   can never do better than the model would have. A service failure (connection, timeout,
 *   408/409/429/5xx, auth, redirect), or every one of ≥ 2 workers failing, is a global fallback: every
 *   worker not blamed for its own failure is scored by the `fallback` evaluator (LLM scores already
 *   received are discarded, so no panel mixes evaluators), the result carries `fallbackEvaluator` and a
 *   `fallbackReason` starting "GLOBAL FALLBACK" (the bundle's `evaluationFallbackReason`), and one
 *   warning line goes to `warn` (stderr by default).
 * - A worker whose text carries instruction-like text (core/text.ts) gets each LLM score capped at the
 *   rubric's, which scores such text as empty: injection never pays under either evaluator.
 * - The API key is only given to the SDK (Authorization header). It is never logged (SDK logging is
 *   off), never put in prompts, identities or results, and redacted from any error text.
 */
import OpenAI from "openai";
import { Agent, fetch as undiciFetch } from "undici";
import { aggregateScores } from "../core/aggregate.js";
import { sanitizeString } from "../core/text.js";
import type {
  Address,
  DimensionScores,
  EvaluationInput,
  EvaluationResult,
  Evaluator,
  EvaluatorIdentity,
  WorkerEvaluation,
  AnsweredWorkerRecord,
} from "../core/types.js";
import { capInjected, floorScores, parseLlmOutput } from "./llm-output.js";
import { PROMPT_VERSION, RESPONSE_FORMAT_NAME, buildPrompt, responseJsonSchema } from "./prompt.js";
import { rubricEvaluate } from "./rubric.js";
import { causes } from "../util/cause.js";
import { retry } from "../util/retry.js";
import { redactText } from "../util/redact.js";
import { CresolverError } from "../util/errors.js";

export { floorScores, llmOutputSchema, parseLlmOutput } from "./llm-output.js";

export const LLM_SEED = 42;

interface Failed {
  error: string;
  blame: FailureBlame;
}

export interface LlmEvaluatorOptions {
  baseURL: string;
  apiKey: string;
  model: string;
  /** Per-attempt timeout covering the whole request and response. Default 60 000 ms. */
  timeoutMs?: number;
  /** Retries after the first attempt (0..10). Default 2. */
  maxRetries?: number;
  /** Evaluator used for workers whose LLM evaluation failed (normally the rubric). */
  fallback: Evaluator;
  /** Parallel requests. Default 4. */
  concurrency?: number;
  /** First backoff delay. Default 500 ms. */
  retryBaseDelayMs?: number;
  /** Backoff cap. Default 4 000 ms. */
  retryMaxDelayMs?: number;
  /** Response body cap. Default 1 MiB. */
  maxResponseBytes?: number;
  /** Where the loud global-fallback warning goes. Default: one line on stderr. */
  warn?: (message: string) => void;
}

/**
 * Who a failed evaluation is blamed on. "worker": the request carrying this worker's text was refused
 * or answered unusably (refusal, moderation/content filter, truncation, malformed or out-of-schema
 * output, a 400/413/422 for the request, an oversized reply) — the same prompt without that text
 * works for the others. "service": the LLM endpoint itself failed (connection, timeout, 408/409/429/5xx,
 * auth, unknown model, redirect), which says nothing about the worker.
 */
export type FailureBlame = "worker" | "service";

class AttemptError extends CresolverError {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly blame: FailureBlame = "worker",
  ) {
    super(message);
  }
}

function redact(text: string, secret: string): string {
  return sanitizeString(redactText(String(text), [secret]).replace(/\s+/g, " "), 300);
}

class ResponseTooLargeError extends CresolverError {}

/** "fetch failed: connect ECONNREFUSED 127.0.0.1:1" — the innermost causes are the informative ones. */
function causeChain(err: unknown): string {
  const parts: string[] = [];
  for (const e of causes((err as { cause?: unknown })?.cause ?? err, 4)) {
    const msg = e instanceof Error ? e.message : String(e);
    if (msg && !parts.includes(msg)) parts.push(msg);
  }
  return parts.join(": ") || "unknown";
}

/** fetch wrapper that refuses bodies over `limit` bytes (the SDK reads bodies without a cap). */
function cappedFetch(limit: number, dispatcher: Agent): typeof fetch {
  return async (input, init) => {
    const res = await undiciFetch(input as Parameters<typeof undiciFetch>[0], {
      ...(init as Parameters<typeof undiciFetch>[1]),
      dispatcher,
      redirect: "manual",
    });
    const declared = Number(res.headers.get("content-length"));
    if (Number.isFinite(declared) && declared > limit) {
      await res.body?.cancel().catch(() => undefined);
      throw new ResponseTooLargeError(`response body too large (${declared} bytes > ${limit})`);
    }
    // A global Response (the SDK's type), rebuilt from undici's: headers, status and the capped body.
    const headers = new Headers([...res.headers]);
    headers.delete("content-encoding");
    headers.delete("content-length");
    if (!res.body) return new Response(null, { status: res.status, statusText: res.statusText, headers });
    const reader = res.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => undefined);
        throw new ResponseTooLargeError(`response body too large (> ${limit} bytes)`);
      }
      chunks.push(value);
    }
    return new Response(Buffer.concat(chunks), { status: res.status, statusText: res.statusText, headers });
  };
}

function intOption(value: number | undefined, fallback: number, lo: number, hi: number, name: string): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < lo || v > hi)
    throw new RangeError(`createLlmEvaluator: ${name} must be an integer in [${lo}, ${hi}]`);
  return v;
}

export function createLlmEvaluator(options: LlmEvaluatorOptions): Evaluator {
  const { baseURL, apiKey, model, fallback } = options;
  if (typeof baseURL !== "string" || !/^https?:\/\//i.test(baseURL))
    throw new TypeError("createLlmEvaluator: baseURL must be an http(s) URL");
  if (typeof model !== "string" || model.length === 0) throw new TypeError("createLlmEvaluator: model is required");
  if (typeof apiKey !== "string") throw new TypeError("createLlmEvaluator: apiKey must be a string");
  if (!fallback || typeof fallback.evaluate !== "function")
    throw new TypeError("createLlmEvaluator: fallback evaluator is required");
  const timeoutMs = intOption(options.timeoutMs, 60_000, 1, 600_000, "timeoutMs");
  const maxRetries = intOption(options.maxRetries, 2, 0, 10, "maxRetries");
  const concurrency = intOption(options.concurrency, 4, 1, 64, "concurrency");
  const baseDelay = intOption(options.retryBaseDelayMs, 500, 0, 60_000, "retryBaseDelayMs");
  const maxDelay = intOption(options.retryMaxDelayMs, 4_000, 0, 60_000, "retryMaxDelayMs");
  const maxBytes = intOption(options.maxResponseBytes, 1 << 20, 1_024, 64 << 20, "maxResponseBytes");
  const warn = options.warn ?? ((message: string) => void process.stderr.write(`${message}\n`));

  const client = new OpenAI({
    baseURL,
    apiKey: apiKey.length > 0 ? apiKey : "unused",
    maxRetries: 0,
    timeout: timeoutMs,
    logLevel: "off",
    // Own connection pool (undici Agent): no sockets shared with, or poisoned by, other clients.
    fetch: cappedFetch(maxBytes, new Agent({ keepAliveTimeout: 1_000, connect: { timeout: timeoutMs } })),
  });
  const identity: EvaluatorIdentity = { kind: "llm", model, promptVersion: PROMPT_VERSION, seed: LLM_SEED };

  async function attempt(system: string, user: string): Promise<DimensionScores> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    let content: string;
    try {
      const completion = await client.chat.completions.create(
        {
          model,
          temperature: 0,
          seed: LLM_SEED,
          messages: [
            { role: "system", content: system },
            { role: "user", content: user },
          ],
          response_format: {
            type: "json_schema",
            json_schema: { name: RESPONSE_FORMAT_NAME, strict: true, schema: responseJsonSchema() },
          },
        },
        { signal: controller.signal, maxRetries: 0, timeout: timeoutMs },
      );
      const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
      const message = choice?.message;
      if (!message) throw new AttemptError("malformed output: no choices", false);
      if (typeof message.refusal === "string" && message.refusal.length > 0)
        throw new AttemptError("model refused", false);
      if (choice?.finish_reason === "content_filter")
        throw new AttemptError("output blocked by the content filter", false);
      if (choice?.finish_reason === "length") throw new AttemptError("truncated output (finish_reason length)", false);
      if (typeof message.content !== "string") throw new AttemptError("malformed output: no content", false);
      content = message.content;
    } catch (err) {
      if (err instanceof AttemptError) throw err;
      if (timedOut) throw new AttemptError(`timeout after ${timeoutMs} ms`, true, "service");
      const cause = err instanceof Error ? (err as Error & { cause?: unknown }).cause : undefined;
      if (err instanceof ResponseTooLargeError || cause instanceof ResponseTooLargeError) {
        throw new AttemptError((cause instanceof ResponseTooLargeError ? cause : (err as Error)).message, false);
      }
      if (err instanceof OpenAI.APIConnectionTimeoutError)
        throw new AttemptError(`timeout after ${timeoutMs} ms`, true, "service");
      if (err instanceof OpenAI.APIError && typeof err.status === "number") {
        const s = err.status;
        const code = typeof err.code === "string" && /^[a-z0-9_.-]{1,60}$/i.test(err.code) ? ` (${err.code})` : "";
        // 400/413/422: this request (this worker's text) was refused — moderation, context length, a filter.
        const blame: FailureBlame = s === 400 || s === 413 || s === 422 ? "worker" : "service";
        throw new AttemptError(`HTTP ${s}${code}`, s === 408 || s === 409 || s === 429 || s >= 500, blame);
      }
      if (err instanceof OpenAI.APIConnectionError)
        throw new AttemptError(`connection error: ${redact(causeChain(err), apiKey)}`, true, "service");
      if (err instanceof SyntaxError)
        throw new AttemptError("malformed output: response is not JSON", false, "service");
      throw new AttemptError(
        `request failed: ${redact(err instanceof Error ? err.message : String(err), apiKey)}`,
        false,
        "service",
      );
    } finally {
      clearTimeout(timer);
    }
    try {
      return parseLlmOutput(content);
    } catch (err) {
      throw new AttemptError(redact((err as Error).message, apiKey), false);
    }
  }

  async function evaluateWorker(
    input: EvaluationInput,
    worker: AnsweredWorkerRecord,
    panel: { answered: number; yes: number; no: number },
  ): Promise<DimensionScores | Failed> {
    const { system, user } = buildPrompt(input.market, worker, panel);
    const asAttemptError = (err: unknown) =>
      err instanceof AttemptError ? err : new AttemptError(redact(String(err), apiKey), false, "service");
    try {
      return await retry(
        async () => {
          try {
            return await attempt(system, user);
          } catch (err) {
            throw asAttemptError(err);
          }
        },
        {
          attempts: maxRetries + 1,
          delayMs: { baseMs: baseDelay, maxMs: maxDelay },
          retryable: (err) => asAttemptError(err).retryable,
        },
      );
    } catch (err) {
      const e = asAttemptError(err);
      const last = e.retryable && maxRetries > 0 ? `${e.message} (after ${maxRetries + 1} attempts)` : e.message;
      return { error: redact(last, apiKey), blame: e.blame };
    }
  }

  return {
    identity: { ...identity },
    async evaluate(input: EvaluationInput): Promise<EvaluationResult> {
      const answered = input.workers.filter((w) => w.answer !== undefined);
      let yes = 0;
      for (const w of answered) if (w.answer?.determination === true) yes += 1;
      const panel = { answered: answered.length, yes, no: answered.length - yes };

      const results: Array<DimensionScores | Failed> = new Array(answered.length);
      let next = 0;
      const runners = Array.from({ length: Math.min(concurrency, answered.length) }, async () => {
        for (;;) {
          const i = next++;
          const worker = answered[i];
          if (worker === undefined) return;
          results[i] = await evaluateWorker(input, worker, panel);
        }
      });
      await Promise.all(runners);

      const failures = results.filter((r): r is Failed => "error" in r);
      // The LLM is down for the panel: any service failure, or every one of ≥ 2 workers failing because
      // of "its own" text (then the cause is the model or the market text, not one worker). Then every
      // worker not blamed for its own failure is scored by the fallback, loudly, so no panel mixes
      // evaluators. A service failure elsewhere never lifts a worker's own blame.
      const allFailed =
        answered.length >= 2 && failures.length === answered.length && failures.every((f) => f.blame === "worker");
      const global = allFailed || failures.some((f) => f.blame === "service");
      const blamed = (r: DimensionScores | Failed): r is Failed => "error" in r && r.blame === "worker" && !allFailed;

      let fallbackByAddr = new Map<string, WorkerEvaluation>();
      let fallbackIdentity: EvaluatorIdentity | undefined;
      let fallbackNote = "";
      if (global) {
        let fb: EvaluationResult;
        try {
          fb = await fallback.evaluate(input);
        } catch (err) {
          fb = rubricEvaluate(input);
          fallbackNote = `; fallback evaluator failed (${redact(err instanceof Error ? err.message : String(err), apiKey)}), built-in rubric used`;
        }
        fallbackIdentity = { ...fb.evaluator };
        fallbackByAddr = new Map(fb.evaluations.map((e) => [e.address.toLowerCase(), e]));
      }
      const first = failures.find((f) => f.blame === "service") ?? failures[0];
      const globalReason = first
        ? `GLOBAL FALLBACK: LLM evaluation failed for ${failures.length} of ${answered.length} workers (${first.error})${fallbackNote}; ` +
          `every worker not blamed for its own failure was scored by ${fallbackIdentity?.kind ?? "rubric"}/${fallbackIdentity?.model ?? "?"}`
        : "";

      const evaluations: WorkerEvaluation[] = answered.map((w, i) => {
        const r = results[i];
        if (r === undefined) throw new Error(`internal: worker ${i} was not evaluated`);
        const address: Address = w.seat.address;
        if (blamed(r)) {
          const dimensions = floorScores(
            `LLM evaluation failed because of this worker's text (${r.error}): scored at the floor`,
          );
          return {
            address,
            dimensions,
            aggregate: aggregateScores(dimensions),
            fallbackReason: `llm evaluation failed (counted against the worker): ${r.error}`,
          };
        }
        if (!global && !("error" in r)) {
          const dimensions = capInjected(input, w, r);
          return { address, dimensions, aggregate: aggregateScores(dimensions) };
        }
        const fb =
          fallbackByAddr.get(address.toLowerCase()) ??
          rubricEvaluate({ market: input.market, workers: input.workers }).evaluations.find(
            (e) => e.address.toLowerCase() === address.toLowerCase(),
          );
        if (!fb) throw new Error("fallback produced no evaluation");
        const own = "error" in r ? `llm evaluation failed: ${r.error}` : "llm evaluation discarded";
        return {
          address,
          dimensions: fb.dimensions,
          aggregate: fb.aggregate,
          fallbackReason: `${own}; global fallback for the panel${fallbackNote}`,
        };
      });

      const result: EvaluationResult = { evaluator: { ...identity }, evaluations };
      if (global && fallbackIdentity) {
        result.fallbackEvaluator = fallbackIdentity;
        result.fallbackReason = globalReason;
        warn(`cresolver: WARNING: ${globalReason}`);
      }
      return result;
    },
  };
}
