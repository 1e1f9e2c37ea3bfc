/**
 * Infrastructure failures that stop a run (market unreadable, evaluator and fallback both broken).
 * Worker misbehaviour never becomes one of these: it is recorded per worker instead.
 */
import { CresolverError } from "../util/errors.js";
export type StageName =
  | "read"
  | "discover"
  | "ask"
  | "quorum"
  | "challenge"
  | "evaluate"
  | "resolve"
  | "review"
  | "bundle";

export class PipelineError extends CresolverError {
  readonly stage: StageName;
  constructor(stage: StageName, message: string, cause?: unknown) {
    super(`${stage}: ${message}`, cause === undefined ? undefined : { cause });
    this.name = "PipelineError";
    this.stage = stage;
  }
}

/**
 * The run's abort signal fired (daemon shutdown, job timeout): nothing was decided, nothing was written, and the
 * run must not count as an attempt. `name` is "AbortError", like the platform's own abort errors.
 */
export class RunAbortedError extends CresolverError {
  readonly stage: StageName;
  constructor(stage: StageName, reason?: unknown) {
    super(`run aborted during ${stage}`, reason === undefined ? undefined : { cause: reason });
    this.name = "AbortError";
    this.stage = stage;
  }
}

/** Name of an error for messages that end up in the bundle: never its text (it may hold RPC URLs or keys). */
export function errorName(error: unknown): string {
  if (error instanceof Error) return error.name.slice(0, 60);
  return typeof error;
}
