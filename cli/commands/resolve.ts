import { resolve as resolvePath } from "node:path";
import { readFileSync, writeFileSync } from "node:fs";
import { type Command, Option } from "commander";
import { formatEther, type Hex } from "viem";
import { z } from "zod";
import { requireResolver } from "../../workflow/chain/actions.js";
import { isSignatureHex, MAX_ANSWER_SIGNATURE_BYTES } from "../../workflow/core/answer-signature.js";
import { hash32Schema } from "../../workflow/core/report-schema.js";
import { ANSWER_NAMES } from "../../workflow/core/codes.js";
import { readMarket } from "../../workflow/chain/lifecycle.js";
import { isPastRequest, readMarketStatus } from "../../workflow/chain/snapshot.js";
import { createSettler, MAX_BUNDLE_URI_BYTES, SettleError } from "../../workflow/settle/index.js";
import { parseSettlerGuard, SETTLER_GUARD_HELP } from "../shared/config.js";
import { loadCredentialsFile } from "../shared/credentials-file.js";
import { iso } from "./market-lifecycle.js";
import { CliError } from "../shared/errors.js";
import { defaultResolvePipeline, type ResolveDecision, type ResolvePipeline } from "../shared/resolve-pipeline.js";
import { allowLoopbackOption, allowPrivateOption, localAddressPolicy } from "../shared/options.js";
import type { Runtime } from "../shared/runtime.js";
import { openResolveRecord } from "./track-record-source.js";
import { marketIdCommand } from "./help-text.js";

const report = z.strictObject({
  answer: z.enum(ANSWER_NAMES),
  confidenceBps: z.number().int().min(0).max(10_000),
  resQuality: z.number().int().min(0).max(100),
  srcQuality: z.number().int().min(0).max(100),
  analysisDepth: z.number().int().min(0).max(100),
  /** The agent's reply hash and EIP-712 answer signature (docs/RECORDS.md §2); without them the seat is attested. */
  replyHash: hash32Schema.optional(),
  signature: z.custom<Hex>(isSignatureHex, { message: `0x-hex of 1..${MAX_ANSWER_SIGNATURE_BYTES} bytes` }).optional(),
});

/** A precomputed decision (`--plan`): what proposeResolution takes, minus the market id. */
const planFileSchema = z.strictObject({
  verdict: z.enum(["yes", "no", "invalid"]),
  reports: z.array(report).min(1),
  bundleHash: hash32Schema,
  bundleURI: z.string().max(512).optional(),
  reason: z.string().max(200).optional(),
});

function planPipeline(path: string): ResolvePipeline {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new CliError(
      `--plan ${path}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "file not found" : "not JSON"}`,
    );
  }
  const parsed = planFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CliError(
      `--plan ${path} is invalid: ${issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "bad shape"}`,
    );
  }
  const p = parsed.data;
  return async (): Promise<ResolveDecision> => ({
    verdict: p.verdict,
    reports: p.reports.map(({ replyHash, signature, ...r }) => ({
      ...r,
      ...(replyHash !== undefined ? { replyHash } : {}),
      ...(signature !== undefined ? { signature } : {}),
    })),
    bundleHash: p.bundleHash,
    failedWorkers: [],
    ...(p.reason !== undefined ? { invalidReason: p.reason } : {}),
    ...(p.bundleURI !== undefined ? { bundleURI: p.bundleURI } : {}),
  });
}

const VERDICT_TEXT = { yes: "YES", no: "NO", invalid: "INVALID" } as const;

/** One line per seat: its answer, or why it failed. */
function workerLines(decision: ResolveDecision, agentIds: readonly string[]): string[] {
  const failed = new Map(decision.failedWorkers.map((f) => [f.seat, f]));
  return decision.reports.map((r, seat) => {
    const f = failed.get(seat);
    const who = `    seat ${seat} agent ${agentIds[seat] ?? "?"}`;
    if (f !== undefined) return `${who}: FAILED (${f.kind}: ${f.message})`;
    if (r.answer === "yes" || r.answer === "no")
      return `${who}: ${r.answer.toUpperCase()} @ ${(r.confidenceBps / 100).toFixed(0)}%, scores ${r.resQuality}/${r.srcQuality}/${r.analysisDepth}`;
    return `${who}: ${r.answer}`;
  });
}

export function resolveCommand(runtime: () => Runtime, pipeline: ResolvePipeline = defaultResolvePipeline): Command {
  return marketIdCommand("resolve resolve")
    .option(
      "--plan <file>",
      'propose this precomputed decision instead of running the workflow (JSON: {verdict: "yes"|"no"|"invalid", reports: [{answer, confidenceBps, resQuality, srcQuality, analysisDepth}], bundleHash[, bundleURI, reason]})',
    )
    .option("--dry-run", "decide but do not propose")
    .option(
      "--allow-invalid",
      "propose an Invalid verdict even though some workers failed (an Invalid finalization refunds everyone)",
    )
    .option("--bundle-uri <uri>", "where the bundle can be fetched (stored with the proposal, ≤ 512 bytes)")
    .option("--max-bond <eth>", SETTLER_GUARD_HELP.maxBond)
    .option("--trusted-arbiter <address...>", SETTLER_GUARD_HELP.trustedArbiter)
    .addOption(allowLoopbackOption("the agents the workflow calls"))
    .addOption(allowPrivateOption("the agents the workflow calls"))
    .addOption(
      new Option(
        "--evaluator <kind>",
        "worker evaluator (llm reads OPENAI_BASE_URL, OPENAI_API_KEY and CRESOLVER_EVAL_MODEL from the environment)",
      )
        .choices(["rubric", "llm"])
        .default("rubric"),
    )
    .option(
      "--record-cache <file>",
      "keep the track record's index in this SQLite file (read once, then only new logs; the daemon's own format)",
    )
    .option(
      "--record-url <url>",
      "read the track record from a daemon's GET /track-record (verified against the market's cut-off on-chain)",
    )
    .option("--bundle-out <file>", "also write the resolution bundle (canonical JSON) to this file, before proposing")
    .option(
      "--credentials-file <path>",
      'per-agent secrets for Factagora / AI Olympics workers, JSON { "<agentId>": { "origin", "bearerToken"?, "hmacSecret"? } } (each sent only to its origin); chmod 600, outside the repository',
    )
    .action(
      async (
        marketId: bigint,
        opts: {
          plan?: string;
          dryRun?: boolean;
          allowInvalid?: boolean;
          bundleUri?: string;
          allowLoopback?: boolean;
          allowPrivate?: boolean;
          evaluator: "rubric" | "llm";
          bundleOut?: string;
          credentialsFile?: string;
          maxBond?: string;
          trustedArbiter?: string[];
          recordCache?: string;
          recordUrl?: string;
        },
      ) => {
        const rt = runtime();
        const credentials =
          opts.credentialsFile !== undefined
            ? loadCredentialsFile(resolvePath(rt.io.cwd, opts.credentialsFile), (m) => rt.io.stderr(`${m}\n`))
            : undefined;
        const guard = parseSettlerGuard(opts);
        if (opts.bundleUri !== undefined && Buffer.byteLength(opts.bundleUri, "utf8") > MAX_BUNDLE_URI_BYTES)
          throw new CliError(`--bundle-uri is longer than ${MAX_BUNDLE_URI_BYTES} bytes`);
        const run = opts.plan !== undefined ? planPipeline(resolvePath(rt.io.cwd, opts.plan)) : pipeline;
        if (!opts.dryRun) rt.requireKey();
        const market = await rt.marketAddress();
        const identity = await rt.identityAddress();
        const ctx = await rt.chain({ needsKey: !opts.dryRun });
        const state = await readMarketStatus(ctx, market, marketId);
        if (isPastRequest(state.status)) {
          rt.emit(
            {
              marketId,
              status: "already-settled",
              reason: `market ${marketId} is already ${state.statusName}`,
              marketStatus: state.statusName,
            },
            `market ${marketId} is already ${state.statusName}: nothing to do`,
          );
          return;
        }
        if (state.statusName !== "ResolutionRequested")
          throw new CliError(
            `market ${marketId} is ${state.statusName}, not ResolutionRequested: run \`cresolver market request-resolution ${marketId}\` after the deadline`,
          );
        if (!opts.dryRun) await requireResolver(ctx, market, marketId);
        const deployed =
          rt.globals.market === undefined
            ? (await rt.deployment({ required: false }))?.contracts.ResolutionMarket.blockNumber
            : undefined;
        const record = openResolveRecord((p) => resolvePath(rt.io.cwd, p), opts, {
          ctx,
          market,
          fromBlock: BigInt(deployed ?? 0),
        });
        const decision = await run({
          marketId,
          ctx,
          market,
          identity,
          ...(deployed !== undefined ? { fromBlock: BigInt(deployed) } : {}),
          ...(record !== undefined ? { trackRecord: record.source } : {}),
          note: (m) => rt.note(m),
          progress: (m) => rt.io.stderr(`${m}\n`),
          options: {
            ...localAddressPolicy(opts),
            evaluator: opts.evaluator,
            ...(credentials !== undefined ? { credentials } : {}),
          },
        }).finally(() => record?.close());
        const [, agentIds] = await readMarket(ctx, market, "getWorkers", [marketId]);
        const ids = agentIds.map(String);
        const lines = workerLines(decision, ids);
        const summary = {
          ...(decision.summary ?? {}),
          failedWorkers: decision.failedWorkers,
          ...(decision.invalidReason !== undefined ? { invalidReason: decision.invalidReason } : {}),
        };
        if (opts.bundleOut !== undefined) {
          if (decision.bundle === undefined) throw new CliError("--bundle-out: this decision carries no bundle");
          // The canonical JSON text as hashed (keccak256 of these bytes is the on-chain bundle hash).
          const text =
            typeof decision.bundle === "string"
              ? decision.bundle
              : JSON.stringify(decision.bundle, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v), 2);
          writeFileSync(resolvePath(rt.io.cwd, opts.bundleOut), text);
        }
        const verdict = VERDICT_TEXT[decision.verdict];
        const why = decision.invalidReason !== undefined ? ` (${decision.invalidReason})` : "";
        if (opts.dryRun) {
          rt.emit(
            {
              marketId,
              status: "dry-run",
              verdict: decision.verdict,
              reports: decision.reports,
              bundleHash: decision.bundleHash,
              ...summary,
            },
            [`market ${marketId}: would propose ${verdict}${why}`, ...lines].join("\n"),
          );
          return;
        }
        // A fixable cause (workers down, credentials missing) must not end in an irreversible refund by default.
        if (decision.verdict === "invalid" && decision.failedWorkers.length > 0 && !opts.allowInvalid) {
          rt.note(
            [
              `market ${marketId}: the verdict is INVALID${why} and ${decision.failedWorkers.length} worker(s) failed:`,
              ...lines,
            ].join("\n"),
          );
          const names = decision.failedWorkers.map((f) => `agent ${ids[f.seat] ?? f.agentId} (${f.kind})`).join(", ");
          throw new CliError(
            `market ${marketId}: not proposing INVALID${why} while workers failed: ${names}; fix them (e.g. --credentials-file) and rerun, or pass --allow-invalid`,
            1,
          );
        }
        const settler = createSettler(ctx, market, {
          ...guard,
          onRetry: (r) => rt.note(`proposal attempt ${r.attempt} failed (${r.error}); retrying in ${r.delayMs} ms`),
        });
        let written;
        try {
          written = await settler.propose({
            marketId,
            verdict: decision.verdict,
            reports: decision.reports,
            bundleHash: decision.bundleHash,
            bundleURI: opts.bundleUri ?? decision.bundleURI ?? "",
          });
        } catch (error) {
          if (error instanceof SettleError)
            throw new CliError(
              `market ${marketId}: proposal failed after ${error.attempts} attempt(s): ${error.message}`,
              error.retryable ? 1 : 2,
            );
          throw error;
        }
        if (written.status === "already-settled") {
          rt.emit(
            { marketId, verdict: decision.verdict, bundleHash: decision.bundleHash, ...written, ...summary },
            `market ${marketId}: ${written.reason}: nothing proposed`,
          );
          return;
        }
        rt.emit(
          {
            marketId,
            verdict: decision.verdict,
            reports: decision.reports,
            bundleHash: decision.bundleHash,
            ...written,
            disputeEndsAtIso: iso(written.disputeEndsAt),
            ...summary,
          },
          [
            `market ${marketId}: proposed ${verdict}${why} with a bond of ${formatEther(written.bond)} ETH; disputable until ${iso(written.disputeEndsAt)}, then \`cresolver market finalize ${marketId}\``,
            ...lines,
            `  tx ${written.txHash}`,
          ].join("\n"),
        );
      },
    );
}
