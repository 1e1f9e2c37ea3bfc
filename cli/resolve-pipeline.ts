/**
 * The seam between `cresolver resolve` and the resolution workflow.
 *
 * `resolve <marketId>` re-reads the market (a settled market is reported as skipped, a market not
 * in ResolutionRequested is refused), calls a ResolvePipeline, and writes its decision with the
 * chain layer's resolution writer (resolveMarket or settleInvalid). The pipeline decides; it must
 * not write. `--plan <file>` swaps in a pipeline that returns a precomputed decision.
 *
 * To plug in the workflow (main: workflow/setup.ts + workflow/pipeline/run.ts), pass this as
 * `resolvePipeline` (or make it `defaultResolvePipeline`). Checked against main at 10:25 UTC: it
 * type-checks and resolved a market of 3 loopback reference agents end to end (quorum 3/3, written):
 *
 *   import type { PublicClient } from "viem";
 *   import { createPipelinePorts } from "../workflow/setup.js";
 *   import { runResolution } from "../workflow/pipeline/run.js";
 *
 *   export const workflowResolvePipeline: ResolvePipeline = async ({ marketId, ctx, market, identity, options }) => {
 *     const { ports, close } = createPipelinePorts({
 *       publicClient: ctx.publicClient as unknown as PublicClient,   // no walletClient: the CLI writes
 *       marketAddress: market,
 *       identityRegistry: identity,
 *       http: { allowLoopback: options.allowLoopback, allowPrivate: options.allowPrivate },
 *       evaluator: { kind: "rubric" },                                  // or the llm config when options.evaluator === "llm"
 *     });
 *     try {
 *       const run = await runResolution(marketId, ports);
 *       const summary = { outcome: run.outcome, quorum: run.quorum };
 *       if (run.plan) return { kind: "resolve", plan: run.plan, bundle: run.bundle, summary };
 *       return { kind: "invalid", bundleHash: run.bundleHash, reason: run.outcome.kind, bundle: run.bundle, summary };
 *     } finally {
 *       await close();
 *     }
 *   };
 */
import type { Address, Hex } from "viem";
import type { ChainContext } from "../workflow/chain/clients.js";
import type { SettlementPlanLike } from "../workflow/chain/writer.js";
import { CliError } from "./errors.js";

export interface ResolveInput {
  marketId: bigint;
  ctx: ChainContext;
  market: Address;
  identity: Address;
  /** Progress lines for humans (stderr, silent with --json). */
  note: (message: string) => void;
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
}

export type ResolveDecision =
  /** Settle with resolveMarket. */
  | { kind: "resolve"; plan: SettlementPlanLike; bundleURI?: string; bundle?: unknown; summary?: Record<string, unknown> }
  /** Settle with settleInvalid (no quorum, no margin, invalid question): full refunds. */
  | { kind: "invalid"; bundleHash: Hex; reason: string; bundleURI?: string; bundle?: unknown; summary?: Record<string, unknown> };

export type ResolvePipeline = (input: ResolveInput) => Promise<ResolveDecision>;

export const defaultResolvePipeline: ResolvePipeline = async () => {
  throw new CliError("the resolution workflow is not wired into this build yet: pass --plan <file> with a precomputed settlement plan", 1);
};
