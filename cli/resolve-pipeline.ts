/**
 * The seam between `cresolver resolve` and the resolution workflow.
 *
 * `resolve <marketId>` re-reads the market (a settled market is reported as skipped, a market not
 * in ResolutionRequested is refused), calls a ResolvePipeline, and writes its decision with the
 * chain layer's resolution writer (resolveMarket or settleInvalid). The pipeline decides; it must
 * not write. `--plan <file>` swaps in a pipeline that returns a precomputed decision.
 *
 * To plug in the workflow (workflow/pipeline/run.ts), replace `defaultResolvePipeline` with:
 *
 *   async ({ marketId, ctx, market, identity }) => {
 *     const ports = { ...createChainPorts({ publicClient: ctx.publicClient, marketAddress: market, identityRegistry: identity }),
 *                     fetcher, adapters, evaluator };          // no writer: the CLI writes
 *     const run = await runResolution(marketId, ports, config);
 *     if (run.plan) return { kind: "resolve", plan: run.plan, summary: {...} };
 *     return { kind: "invalid", bundleHash: run.bundleHash, reason: run.outcome.kind, summary: {...} };
 *   }
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
}

export type ResolveDecision =
  /** Settle with resolveMarket. */
  | { kind: "resolve"; plan: SettlementPlanLike; bundleURI?: string; summary?: Record<string, unknown> }
  /** Settle with settleInvalid (no quorum, no margin, invalid question): full refunds. */
  | { kind: "invalid"; bundleHash: Hex; reason: string; bundleURI?: string; summary?: Record<string, unknown> };

export type ResolvePipeline = (input: ResolveInput) => Promise<ResolveDecision>;

export const defaultResolvePipeline: ResolvePipeline = async () => {
  throw new CliError("the resolution workflow is not wired into this build yet: pass --plan <file> with a precomputed settlement plan", 1);
};
