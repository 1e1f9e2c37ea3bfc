/**
 * The seam between `cresolver resolve` and the resolution workflow.
 *
 * `resolve <marketId>` re-reads the market (a market past ResolutionRequested is reported as already settled, an
 * earlier one is refused), calls a ResolvePipeline, and proposes its verdict through the one settlement module
 * (workflow/settle/). The pipeline decides; it must not write. `--plan <file>` swaps in a pipeline that returns a
 * precomputed decision.
 */
import type { Address, Hex } from "viem";
import type { ChainContext } from "../../workflow/chain/clients.js";
import type { VerdictKind, WorkerReport } from "../../workflow/core/types.js";
import { runResolution, type FailedWorker } from "../../workflow/pipeline/run.js";
import { describeProgress, type ProgressEvent } from "../../workflow/pipeline/call-worker.js";
import { createPipelinePorts } from "../../workflow/pipeline/setup.js";
import type { EvaluatorConfig } from "../../workflow/evaluate/index.js";
import { createCredentialStore, type BoundAgentCredentials } from "../../workflow/adapters/credentials.js";
import type { TrackRecordSource } from "../../workflow/ports.js";
import { CliError } from "./errors.js";

export interface ResolveInput {
  marketId: bigint;
  ctx: ChainContext;
  market: Address;
  identity: Address;
  /** The market contract's deployment block (from the deployment file): where the track record's log scan starts. */
  fromBlock?: bigint;
  /** The track record from an index cache file or a served document (`--record-cache`, `--record-url`). */
  trackRecord?: TrackRecordSource;
  /** Progress lines for humans (stderr, silent with --json). */
  note: (message: string) => void;
  /** Progress of the worker calls (whom the run waits on, until when; failures): stderr, also with --json. */
  progress?: (message: string) => void;
  /** From `resolve`'s flags. */
  options: ResolveOptions;
}

export interface ResolveOptions {
  /** Let the safe HTTP client reach loopback agents (local demo/testing only). */
  allowLoopback: boolean;
  /** Let it reach private-network agents. */
  allowPrivate: boolean;
  /** Evaluator kind (the LLM one reads its endpoint from the environment). */
  evaluator: "rubric" | "llm";
  /** Per-agent secrets (Factagora bearer tokens, AI Olympics HMAC secrets), keyed by agent id. */
  credentials?: Record<string, BoundAgentCredentials> | undefined;
}

/** What the workflow decided: the verdict to propose, and why (failed workers, invalid reason). */
export interface ResolveDecision {
  verdict: VerdictKind;
  /** One per seat, seat order. */
  reports: WorkerReport[];
  bundleHash: Hex;
  /** Why the verdict is invalid (no-quorum, tie, below-threshold, …). */
  invalidReason?: string;
  /** Seats without an answer and why (an Invalid verdict with failed workers has a fixable cause). */
  failedWorkers: FailedWorker[];
  bundleURI?: string;
  /** The canonical bundle text (what `bundleHash` hashes) or a JSON value. */
  bundle?: unknown;
  summary?: Record<string, unknown>;
}

export type ResolvePipeline = (input: ResolveInput) => Promise<ResolveDecision>;

/** The LLM evaluator's endpoint from the environment (any OpenAI-compatible server). */
export function llmEvaluatorFromEnv(env: NodeJS.ProcessEnv): EvaluatorConfig {
  const model = env.CRESOLVER_EVAL_MODEL;
  if (model === undefined || model === "")
    throw new CliError(
      "--evaluator llm needs CRESOLVER_EVAL_MODEL (and OPENAI_BASE_URL / OPENAI_API_KEY for the endpoint)",
    );
  const baseURL = env.OPENAI_BASE_URL;
  if (baseURL === undefined || baseURL === "")
    throw new CliError(
      "--evaluator llm needs OPENAI_BASE_URL (the OpenAI-compatible endpoint, e.g. https://api.openai.com/v1)",
    );
  return { kind: "llm", model, baseURL, apiKey: env.OPENAI_API_KEY ?? "" };
}

/** Worker call deadlines of the resolve pipeline (defaults: the protocols' own, 30 s / 15 s for cresolver). */
export interface ResolveDeadlines {
  resolveTimeoutMs?: number;
  challengeTimeoutMs?: number;
}

/** The resolution workflow (workflow/pipeline/run.ts) as a dry run: the command writes its decision. */
export const defaultResolvePipeline: ResolvePipeline = (input) => createResolvePipeline()(input);

/** `defaultResolvePipeline` with other worker deadlines (tests of a hanging worker need not wait 30 s). */
export const createResolvePipeline =
  (deadlines: ResolveDeadlines = {}): ResolvePipeline =>
  async ({ marketId, ctx, market, identity, fromBlock, trackRecord, note, progress, options }) => {
    const { walletClient: _wallet, account: _account, ...readOnly } = ctx; // the pipeline never writes
    const { ports, close } = createPipelinePorts({
      ctx: readOnly,
      marketAddress: market,
      identityRegistry: identity,
      http: { allowLoopback: options.allowLoopback, allowPrivate: options.allowPrivate },
      evaluator: options.evaluator === "llm" ? llmEvaluatorFromEnv(process.env) : { kind: "rubric" },
      ...(options.credentials !== undefined ? { credentials: createCredentialStore(options.credentials) } : {}),
      ...(fromBlock !== undefined ? { trackRecord: { fromBlock } } : {}),
      ...deadlines,
    });
    if (trackRecord !== undefined) ports.trackRecord = trackRecord;
    try {
      note(`market ${marketId}: asking, challenging and evaluating its workers`);
      const onProgress =
        progress === undefined
          ? undefined
          : (event: ProgressEvent) => progress(`market ${marketId} ${describeProgress(event)}`);
      const run = await runResolution(marketId, ports, {}, onProgress === undefined ? {} : { onProgress });
      const summary = {
        outcome: run.outcome,
        posterior: run.decision.posterior,
        quorum: { n: run.quorum.n, required: run.quorum.required, answered: run.quorum.answered },
        workers: run.records.map((r, i) => ({
          address: r.seat.address,
          agentId: r.seat.agentId.toString(),
          determination: r.answer === undefined ? null : r.answer.determination ? "YES" : "NO",
          confidence: r.answer?.confidence ?? null,
          failure: r.answer === undefined ? ((r.discoveryFailure ?? r.askFailure)?.kind ?? null) : null,
          report: run.proposal.reports[i],
        })),
      };
      return {
        verdict: run.proposal.verdict,
        reports: run.proposal.reports,
        bundleHash: run.bundleHash,
        ...(run.invalidReason !== undefined ? { invalidReason: run.invalidReason } : {}),
        failedWorkers: run.failedWorkers,
        bundle: run.bundle.json,
        summary,
      };
    } finally {
      await close();
    }
  };
