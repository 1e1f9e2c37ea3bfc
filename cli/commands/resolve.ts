import { resolve as resolvePath } from "node:path";
import { readFileSync, writeFileSync } from "node:fs";
import { Command, Option } from "commander";
import { getAddress, isAddress, type Hex } from "viem";
import { z } from "zod";
import { createResolutionWriter } from "../../workflow/chain/writer.js";
import { isTerminalStatus, readMarketStatus } from "../../workflow/chain/snapshot.js";
import { parseUint } from "../config.js";
import { loadCredentialsFile } from "../credentials-file.js";
import { requireResolver } from "../../workflow/chain/actions.js";
import { CliError } from "../errors.js";
import { defaultResolvePipeline, type ResolveDecision, type ResolvePipeline } from "../resolve-pipeline.js";
import type { Runtime } from "../runtime.js";

const uintString = z.union([z.string().regex(/^[0-9]+$/), z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)]).transform((v) => BigInt(v));
const bytes32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be 0x + 64 hex digits") as unknown as z.ZodType<Hex>;

/** A precomputed decision (`--plan`): what resolveMarket or settleInvalid takes, minus the market id. */
const planFileSchema = z.union([
  z.strictObject({
    kind: z.literal("resolve").optional(),
    workers: z.array(z.string().refine((s) => isAddress(s), "must be an address").transform((s) => getAddress(s))).min(1),
    weights: z.array(uintString),
    scores: z.array(z.number().int().min(0).max(100)),
    resolution: z.boolean(),
    bundleHash: bytes32,
    bundleURI: z.string().max(512).optional(),
  }),
  z.strictObject({ kind: z.literal("invalid"), bundleHash: bytes32, reason: z.string().max(200).optional(), bundleURI: z.string().max(512).optional() }),
]);

function planPipeline(path: string): ResolvePipeline {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new CliError(`--plan ${path}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "file not found" : "not JSON"}`);
  }
  const parsed = planFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CliError(`--plan ${path} is invalid: ${issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "bad shape"}`);
  }
  const p = parsed.data;
  if (p.kind !== "invalid" && (p.weights.length !== p.workers.length || p.scores.length !== 3 * p.workers.length)) {
    throw new CliError(`--plan ${path}: need one weight and three scores per worker (${p.workers.length} workers, ${p.weights.length} weights, ${p.scores.length} scores)`);
  }
  return async ({ marketId }): Promise<ResolveDecision> =>
    p.kind === "invalid"
      ? { kind: "invalid", bundleHash: p.bundleHash, reason: p.reason ?? "invalid", ...(p.bundleURI !== undefined ? { bundleURI: p.bundleURI } : {}) }
      : {
          kind: "resolve",
          plan: { marketId, workers: p.workers, weights: p.weights, scores: p.scores, resolution: p.resolution, bundleHash: p.bundleHash },
          ...(p.bundleURI !== undefined ? { bundleURI: p.bundleURI } : {}),
        };
}

export function resolveCommand(runtime: () => Runtime, pipeline: ResolvePipeline = defaultResolvePipeline): Command {
  return new Command("resolve")
    .description(
      "One-shot resolution of a market in ResolutionRequested: run the workflow (read → discover → ask → quorum → challenge → evaluate → vote) and write the result on-chain (resolveMarket, or settleInvalid without quorum). A market that is already settled is skipped. The key must be a resolver on the market.",
    )
    .argument("<marketId>", "the market")
    .option("--plan <file>", "write this precomputed decision instead of running the workflow (JSON: workers, weights, scores, resolution, bundleHash[, bundleURI] or {kind:\"invalid\", bundleHash})")
    .option("--dry-run", "decide but do not write")
    .option("--allow-loopback", "let the workflow reach agents on loopback addresses (local testing only)")
    .option("--allow-private", "let the workflow reach agents on private networks")
    .addOption(new Option("--evaluator <kind>", "worker evaluator (llm reads OPENAI_BASE_URL, OPENAI_API_KEY and CRESOLVER_EVAL_MODEL from the environment)").choices(["rubric", "llm"]).default("rubric"))
    .option("--bundle-out <file>", "also write the resolution bundle (canonical JSON) to this file")
    .option("--credentials-file <path>", 'per-agent secrets for Factagora / AI Olympics workers, JSON { "<agentId>": { "origin", "bearerToken"?, "hmacSecret"? } } (each sent only to its origin); chmod 600, outside the repository')
    .action(async (marketIdArg: string, opts: { plan?: string; dryRun?: boolean; allowLoopback?: boolean; allowPrivate?: boolean; evaluator: "rubric" | "llm"; bundleOut?: string; credentialsFile?: string }) => {
      const rt = runtime();
      const credentials = opts.credentialsFile !== undefined ? loadCredentialsFile(resolvePath(rt.io.cwd, opts.credentialsFile), (m) => rt.io.stderr(`${m}\n`)) : undefined;
      const marketId = parseUint(marketIdArg, "marketId");
      const run = opts.plan !== undefined ? planPipeline(resolvePath(rt.io.cwd, opts.plan)) : pipeline;
      if (!opts.dryRun) rt.requireKey();
      const market = await rt.marketAddress();
      const identity = await rt.identityAddress();
      const ctx = await rt.chain({ needsKey: !opts.dryRun });
      const state = await readMarketStatus(ctx, market, marketId);
      if (isTerminalStatus(state.status)) {
        rt.emit({ marketId, status: "skipped", reason: `market ${marketId} is already ${state.statusName}`, marketStatus: state.statusName }, `market ${marketId} is already ${state.statusName}: nothing to do`);
        return;
      }
      if (state.statusName !== "ResolutionRequested") throw new CliError(`market ${marketId} is ${state.statusName}, not ResolutionRequested: run \`cresolver market request-resolution ${marketId}\` after the deadline`);
      if (!opts.dryRun) {
        await requireResolver(ctx, market);
      }
      const decision = await run({
        marketId,
        ctx,
        market,
        identity,
        note: (m) => rt.note(m),
        options: { allowLoopback: opts.allowLoopback === true, allowPrivate: opts.allowPrivate === true, evaluator: opts.evaluator, ...(credentials !== undefined ? { credentials } : {}) },
      });
      const summary = decision.summary ?? {};
      if (opts.bundleOut !== undefined) {
        if (decision.bundle === undefined) throw new CliError("--bundle-out: this decision carries no bundle");
        // The canonical JSON text as hashed (keccak256 of these bytes is the on-chain bundle hash).
        const text = typeof decision.bundle === "string" ? decision.bundle : JSON.stringify(decision.bundle, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v), 2);
        writeFileSync(resolvePath(rt.io.cwd, opts.bundleOut), text);
      }
      if (opts.dryRun) {
        rt.emit({ marketId, status: "dry-run", decision: decision.kind, ...(decision.kind === "resolve" ? { plan: decision.plan } : { bundleHash: decision.bundleHash, reason: decision.reason }), ...summary }, `market ${marketId}: would ${decision.kind === "resolve" ? `resolve ${decision.plan.resolution ? "YES" : "NO"}` : `settle invalid (${decision.reason})`}`);
        return;
      }
      const writer = createResolutionWriter(ctx, market, { bundleURI: decision.bundleURI ?? "" });
      const written = decision.kind === "resolve" ? await writer.writeResolution(decision.plan) : await writer.settleInvalid(marketId, decision.bundleHash);
      const verdict = decision.kind === "resolve" ? (decision.plan.resolution ? "YES" : "NO") : "INVALID";
      rt.emit(
        { marketId, decision: decision.kind, verdict, bundleHash: decision.kind === "resolve" ? decision.plan.bundleHash : decision.bundleHash, ...written, ...summary },
        written.status === "written" ? `market ${marketId} settled ${verdict}\n  tx ${written.txHash}` : `market ${marketId}: skipped (${written.reason})`,
      );
    });
}
