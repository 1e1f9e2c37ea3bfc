/**
 * The one adapter-call wrapper of the stages that talk to workers (ask, challenge, review): every call of a
 * stage starts at once, a throwing adapter becomes the seat's failure (one broken worker or adapter never
 * stops the run), and the caller hears about it through `onProgress`: which workers the stage waits on and
 * until when, then each worker's answer or failure as it arrives.
 *
 * Progress is observation only: nothing in the records or the bundle depends on it, and a throwing listener
 * is ignored.
 */
import type { CallResult, WorkerFailure, WorkerProtocolAdapter, WorkerRecord, WorkerSeat } from "../core/types.js";
import { errorName } from "./errors.js";

export type WorkerCallStage = "ask" | "challenge" | "review";

/** One worker a stage waits on. */
export interface AwaitedWorker {
  seat: number;
  agentId: bigint;
  protocol: string;
  /** When its call gives up (ms since the epoch), from the adapter's declared deadline; absent if it declares none. */
  deadlineAt?: number;
}

export type ProgressEvent =
  | { type: "waiting"; stage: WorkerCallStage; at: number; workers: AwaitedWorker[] }
  | { type: "worker-done"; stage: WorkerCallStage; seat: number; agentId: bigint; latencyMs: number }
  | {
      type: "worker-failed";
      stage: WorkerCallStage;
      seat: number;
      agentId: bigint;
      latencyMs: number;
      failure: WorkerFailure;
    }
  /** At the end of the run: every worker that failed at some stage, and why. */
  | { type: "summary"; failed: StageFailure[] };

export interface StageFailure {
  seat: number;
  agentId: bigint;
  stage: "discover" | WorkerCallStage;
  failure: WorkerFailure;
}

export type ProgressListener = (event: ProgressEvent) => void;

/** What a stage does with one record: leave it as it is, or call its worker and fold the result in. */
export type WorkerCallPlan<T> =
  | { skip: WorkerRecord }
  | {
      adapter: WorkerProtocolAdapter;
      invoke: () => Promise<CallResult<T>>;
      apply: (result: CallResult<T>) => WorkerRecord;
    };

/** Every failure recorded on `records`, in seat then stage order (abstentions are answers, not failures). */
export function stageFailures(records: readonly WorkerRecord[]): StageFailure[] {
  const out: StageFailure[] = [];
  records.forEach((r, seat) => {
    const found: [StageFailure["stage"], WorkerFailure | undefined][] = [
      ["discover", r.discoveryFailure],
      ["ask", r.askFailure],
      ["challenge", r.challengeFailure],
      ["review", r.reviewFailure],
    ];
    for (const [stage, failure] of found) {
      if (failure !== undefined && failure.kind !== "abstained")
        out.push({ seat, agentId: r.seat.agentId, stage, failure });
    }
  });
  return out;
}

export function emit(listener: ProgressListener | undefined, event: ProgressEvent): void {
  if (listener === undefined) return;
  try {
    listener(event);
  } catch {
    // A progress printer must not change the resolution.
  }
}

/** The call, with a thrown error turned into the seat's failure (no details: they may come from the worker). */
async function guarded<T>(
  adapter: WorkerProtocolAdapter,
  invoke: () => Promise<CallResult<T>>,
): Promise<CallResult<T>> {
  try {
    return await invoke();
  } catch (error) {
    return {
      ok: false,
      failure: { kind: "network", message: `adapter ${adapter.protocol} failed (${errorName(error)})` },
      latencyMs: 0,
      attempts: 0,
    };
  }
}

/** Plans every record, calls the planned workers at once, and returns the records in seat order. */
export async function callWorkers<R extends { seat: WorkerSeat }, T>(
  stage: WorkerCallStage,
  records: readonly R[],
  plan: (record: R) => WorkerCallPlan<T>,
  onProgress?: ProgressListener,
): Promise<WorkerRecord[]> {
  const plans = records.map((record) => ({ agentId: record.seat.agentId, p: plan(record) }));
  const now = Date.now();
  const workers: AwaitedWorker[] = [];
  plans.forEach(({ agentId, p }, seat) => {
    if ("skip" in p) return;
    const deadlineMs = p.adapter.deadlines?.[stage];
    workers.push({
      seat,
      agentId,
      protocol: p.adapter.protocol,
      ...(deadlineMs !== undefined ? { deadlineAt: now + deadlineMs } : {}),
    });
  });
  if (workers.length > 0) emit(onProgress, { type: "waiting", stage, at: now, workers });
  return Promise.all(
    plans.map(async ({ agentId, p }, seat) => {
      if ("skip" in p) return p.skip;
      const result = await guarded(p.adapter, p.invoke);
      emit(
        onProgress,
        result.ok
          ? { type: "worker-done", stage, seat, agentId, latencyMs: result.latencyMs }
          : { type: "worker-failed", stage, seat, agentId, latencyMs: result.latencyMs, failure: result.failure },
      );
      return p.apply(result);
    }),
  );
}

/** One human line for a progress event (CLI stderr, daemon log messages). */
export function describeProgress(event: ProgressEvent): string {
  if (event.type === "waiting") {
    const whom = event.workers
      .map(
        (w) =>
          `seat ${w.seat} (agent ${w.agentId}, ${w.protocol}) until ${w.deadlineAt !== undefined ? new Date(w.deadlineAt).toISOString() : "its adapter's deadline"}`,
      )
      .join(", ");
    return `${event.stage}: waiting on ${event.workers.length} worker(s): ${whom}`;
  }
  if (event.type === "summary") {
    if (event.failed.length === 0) return "every worker answered";
    const lines = event.failed.map(
      (f) => `  seat ${f.seat} (agent ${f.agentId}) ${f.stage}: ${f.failure.kind}: ${f.failure.message}`,
    );
    return [`${event.failed.length} worker failure(s):`, ...lines].join("\n");
  }
  const who = `seat ${event.seat} (agent ${event.agentId})`;
  if (event.type === "worker-done") return `${event.stage}: ${who} answered in ${event.latencyMs} ms`;
  return `${event.stage}: ${who} failed after ${event.latencyMs} ms: ${event.failure.kind}: ${event.failure.message}`;
}
