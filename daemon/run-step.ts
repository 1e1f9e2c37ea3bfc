/**
 * A pipeline run of a `requested` job: check the market still awaits a proposal, run the pipeline under the job
 * timeout, check the bundle against its hash, then store the verdict, bundle and payload as `proposing` (the send
 * is a chain step, daemon/chain-step.ts). A failed run is retried, deferred while the RPC is down, or, with its
 * attempts used up, proposed invalid.
 */
import type { Logger } from "pino";
import { keccak256, stringToBytes } from "viem";
import { MAX_BUNDLE_BYTES } from "../workflow/core/bundle.js";
import type { Hex } from "../workflow/core/types.js";
import { describeProgress, type ProgressEvent } from "../workflow/pipeline/call-worker.js";
import { CresolverError } from "../workflow/util/errors.js";
import type { RunOutcome, Verdict } from "./config.js";
import { type Active, retryIn, type StepContext, storeFields } from "./job-step.js";
import { sanitizeError } from "./log.js";
import { adoptFromChain, bundleUrl, fallbackInvalidBundle, jsonPayload } from "./proposals.js";
import type { Transition } from "./state.js";
import type { FinishUpdate, JobRow } from "./store.js";

/** A run's progress in the job's log: waits and the closing summary at info, each worker's failure at warn. */
function logProgress(log: Logger, event: ProgressEvent): void {
  const message = `job: ${describeProgress(event)}`;
  if (event.type === "waiting") {
    log.info(
      {
        stage: event.stage,
        waitingOn: event.workers.map((w) => ({
          seat: w.seat,
          agentId: w.agentId.toString(),
          protocol: w.protocol,
          deadline: w.deadlineAt !== undefined ? new Date(w.deadlineAt).toISOString() : null,
        })),
      },
      message,
    );
  } else if (event.type === "worker-failed") {
    log.warn(
      {
        stage: event.stage,
        seat: event.seat,
        agentId: event.agentId.toString(),
        kind: event.failure.kind,
        latencyMs: event.latencyMs,
      },
      message,
    );
  } else if (event.type === "worker-done") {
    log.debug({ stage: event.stage, seat: event.seat, latencyMs: event.latencyMs }, message);
  } else {
    const failed = event.failed.map((f) => ({
      seat: f.seat,
      agentId: f.agentId.toString(),
      stage: f.stage,
      kind: f.failure.kind,
      message: f.failure.message,
    }));
    (failed.length > 0 ? log.warn.bind(log) : log.info.bind(log))({ failedWorkers: failed }, message.split("\n")[0]);
  }
}

/** A run's bundle that is not the canonical text its hash names: a failed attempt, whatever the RPC says. */
class BundleMismatch extends CresolverError {}

function checkedBundle(job: JobRow, bundle: unknown, hash: Hex | undefined): NonNullable<FinishUpdate["bundle"]> {
  if (typeof bundle !== "string") throw new BundleMismatch("bundle must be the canonical JSON text");
  if (bundle.length > MAX_BUNDLE_BYTES) throw new BundleMismatch(`bundle larger than ${MAX_BUNDLE_BYTES} bytes`);
  const actual = keccak256(stringToBytes(bundle));
  if (hash === undefined || actual.toLowerCase() !== String(hash).toLowerCase()) {
    throw new BundleMismatch("bundle hash does not match keccak256 of the bundle");
  }
  return { attempt: job.attempts, hash: actual, json: bundle };
}

export async function runResolve(ctx: StepContext, job: JobRow, entry: Active): Promise<void> {
  const { o } = ctx;
  const log = ctx.log(job);
  const { controller } = entry;
  const started = performance.now();
  const timeout = setTimeout(
    () => controller.abort(new Error(`job timed out after ${o.jobTimeoutMs} ms`)),
    o.jobTimeoutMs,
  );
  let outcome: RunOutcome | undefined;
  let error: unknown;
  try {
    const seams = ctx.seams(job);
    const chain = await seams.read(job.marketId);
    if (chain.status !== "requested") {
      clearTimeout(timeout);
      const adopted = adoptFromChain(seams.account, chain, (hash) => o.store.bundleByHash(hash) !== undefined);
      // Open / unknown: not an attempt; look again later (an event or a manual trigger made this job).
      const t = ctx.transition(job, adopted ? { kind: "adopted", state: adopted.state } : { kind: "not-requested" });
      const u: FinishUpdate = adopted
        ? { ...adopted, ...storeFields(t) }
        : { lastOutcome: "not-requested", lastError: `market is ${chain.status} on chain`, ...storeFields(t) };
      ctx.finish(job, entry, u);
      o.metrics.recordRun(u.lastOutcome, (performance.now() - started) / 1000);
      log.info({ chainStatus: chain.status, state: u.state }, "job: market not awaiting a proposal, nothing to run");
      return;
    }
    log.info({ attempt: job.attempts }, "job: run started");
    outcome = await seams.run(job.marketId, job.attempts, controller.signal, (event) => logProgress(log, event));
    if (!outcome || typeof outcome !== "object" || !["yes", "no", "invalid"].includes(outcome.verdict))
      throw new Error("the run returned no verdict");
  } catch (err) {
    error = err;
  } finally {
    clearTimeout(timeout);
  }
  const seconds = (performance.now() - started) / 1000;
  if (o.store.isClosed || entry.abandoned) return;

  if (outcome && error === undefined) {
    try {
      const bundle = checkedBundle(job, outcome.bundle, outcome.bundleHash);
      const kind = outcome.verdict === "invalid" ? (outcome.reason ?? "invalid") : outcome.verdict;
      o.metrics.recordRun(kind, seconds);
      const t = ctx.transition(job, { kind: "verdict", verdict: outcome.verdict, retry: outcome.retry === true });
      if (t.state === "requested") {
        ctx.finish(job, entry, { lastOutcome: kind, lastError: null, bundle, ...storeFields(t) });
        log.warn(
          {
            attempt: job.attempts,
            maxAttempts: o.maxAttempts,
            reason: outcome.reason,
            retryInMs: retryIn(t, o.store.now()),
          },
          "job: invalid verdict for a fixable cause, will run again",
        );
        return;
      }
      beginProposal(ctx, job, entry, t, {
        verdict: outcome.verdict,
        reason: outcome.reason ?? null,
        payload: outcome.payload,
        bundle,
        lastOutcome: kind,
      });
      return;
    } catch (err) {
      error = err; // malformed bundle: a failed attempt
    }
  }

  const message = sanitizeError(error, o.secrets);
  if (controller.signal.aborted && ctx.stopping()) {
    ctx.finish(job, entry, {
      lastOutcome: "aborted",
      lastError: message,
      ...storeFields(ctx.transition(job, { kind: "aborted" })),
    });
    o.metrics.recordRun("aborted", seconds);
    log.warn({ error: message }, "job: aborted by shutdown, will run again");
    return;
  }
  if (!(error instanceof BundleMismatch) && !(await ctx.rpcReachable())) {
    const t = ctx.transition(job, { kind: "rpc-unreachable" });
    ctx.finish(job, entry, { lastOutcome: "deferred", lastError: message, ...storeFields(t) });
    o.metrics.recordRun("deferred", seconds);
    log.warn(
      { error: message, retryInMs: retryIn(t, o.store.now()) },
      "job: RPC unreachable, attempt not counted, will retry",
    );
    return;
  }
  o.metrics.recordRun("error", seconds);
  const failed = ctx.transition(job, { kind: "error" });
  if (failed.state === "requested") {
    ctx.finish(job, entry, { lastOutcome: "error", lastError: message, ...storeFields(failed) });
    log.warn(
      {
        attempt: job.attempts,
        maxAttempts: o.maxAttempts,
        error: message,
        retryInMs: retryIn(failed, o.store.now()),
      },
      "job: run failed, will retry",
    );
    return;
  }
  // Attempts used up without a verdict: propose invalid with every seat failed. The last stored run bundle is the
  // evidence when there is one, else a small daemon document.
  const stored = o.store.bundles(job.id).at(-1);
  const bundle = stored
    ? { attempt: stored.attempt, hash: stored.hash, json: stored.json }
    : { attempt: job.attempts, ...fallbackInvalidBundle(job, "error") };
  log.warn({ attempts: job.attempts, error: message }, "job: attempts used up, proposing invalid");
  beginProposal(ctx, job, entry, failed, {
    verdict: "invalid",
    reason: job.lastOutcome ?? "error",
    payload: null,
    bundle,
    lastOutcome: "error",
    lastError: message,
  });
}

/** Stores the bundle and the payload, then state `proposing` (the send follows at once as a chain step). */
function beginProposal(
  ctx: StepContext,
  job: JobRow,
  entry: Active,
  t: Transition,
  p: {
    verdict: Verdict;
    reason: string | null;
    payload: unknown;
    bundle: NonNullable<FinishUpdate["bundle"]>;
    lastOutcome: string;
    lastError?: string;
  },
): void {
  const { o } = ctx;
  ctx.finish(job, entry, {
    ...storeFields(t),
    lastOutcome: p.lastOutcome,
    lastError: p.lastError ?? null,
    verdict: p.verdict,
    reason: p.verdict === "invalid" ? p.reason : null,
    payload: jsonPayload(p.payload),
    bundleHash: p.bundle.hash.toLowerCase(),
    bundleUri: bundleUrl(o.publicUrl, p.bundle.hash),
    bundle: p.bundle,
  });
  ctx
    .log(job)
    .info(
      { verdict: p.verdict, reason: p.reason ?? undefined, bundleHash: p.bundle.hash },
      "job: verdict ready, bundle stored, proposing",
    );
}
