/**
 * The resolution bundle: one canonical JSON document whose keccak256 is the on-chain `bundleHash`.
 * Its canonical form and hash are canonical-json.ts's; its schema (zod) and size limit are bundle-schema.ts's.
 *
 * What is hashed: the market, quorum, every seat's sanitized answer, challenges and replies, failure
 * kind and message, the 8 dimension scores with explanations and the 3 aggregates, the evaluator
 * identity (and the fallback evaluator's, when used) with fallback reasons, each answer's signature check (signed or
 * attested: reply hash, signature, signer, reason), each seat's WorkerReport (what the proposal posts) and vote (history count, estimated and calibrated accuracy, weight, unproven), the
 * decision (verdict, reason, posterior, log-odds, threshold, unproven bloc, reward weights), the accuracy
 * estimates used (per agent: accuracy, history count, expected rights, calibration table, clone group; EM
 * iterations) with the track record's size and hash, the vote configuration, and the advisory reviews of
 * the computed verdict (per worker: approve, conditions, dissent reason, extras or the failure; plus a
 * summary), present only when a review stage asked someone. Anyone can rebuild the track record from chain
 * logs, check its hash and recompute the decision (core/vote.ts decideVerdict).
 * NOT hashed: latencies, attempt counts, wall-clock times — nothing that varies between two runs on
 * the same inputs. A caller that wants a timestamp in the document must pass it explicitly in
 * `BundleInput.extra`, which makes it part of the deterministic input.
 */
import { BUNDLE_SCHEMA, type BundleDocument, type BundleWorker } from "./bundle-schema.js";
import { bundleHash, canonicalJson } from "./canonical-json.js";
import type { QuorumStatus } from "./quorum.js";
import { sanitizeString } from "./text.js";
import {
  type AnsweredWorkerRecord,
  DIMENSIONS,
  type EvaluationResult,
  type Hex,
  isAnswered,
  type MarketSnapshot,
  type WorkerFailure,
  type WorkerRecord,
} from "./types.js";
import type { VerdictDecision } from "./vote.js";

export { BUNDLE_SCHEMA, DAEMON_INVALID_SCHEMA, MAX_BUNDLE_BYTES } from "./bundle-schema.js";
export { bundleHash, canonicalJson } from "./canonical-json.js";

const MAX_EXTRAS_DEPTH = 6;
const MAX_ARRAY_ITEMS = 200;
const MAX_SOURCES = 100;
const MAX_SOURCE_CHARS = 2_048;

/** Turns arbitrary untrusted JSON-ish data into a canonical-safe value (bounded size and depth). */
export function sanitizeJsonValue(v: unknown, depth = 0): unknown {
  if (v === null) return null;
  switch (typeof v) {
    case "string":
      return sanitizeString(v);
    case "boolean":
      return v;
    case "number":
      return Number.isFinite(v) ? v : null;
    case "bigint":
      return v.toString(10);
    case "object": {
      if (depth >= MAX_EXTRAS_DEPTH) return "[truncated: too deep]";
      if (Array.isArray(v))
        return v.slice(0, MAX_ARRAY_ITEMS).map((x) => (x === undefined ? null : sanitizeJsonValue(x, depth + 1)));
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return null;
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort().slice(0, MAX_ARRAY_ITEMS)) {
        const x = (v as Record<string, unknown>)[k];
        if (x === undefined || typeof x === "function" || typeof x === "symbol") continue;
        out[sanitizeString(k, 200)] = sanitizeJsonValue(x, depth + 1);
      }
      return out;
    }
    default:
      return null;
  }
}

const dec = (n: bigint): string => n.toString(10);

function failureDoc(f: WorkerFailure | undefined): BundleWorker["askFailure"] {
  return f ? { kind: f.kind, message: sanitizeString(String(f.message ?? ""), 1_000) } : undefined;
}

/** Counts of the advisory reviews; undefined when nobody was asked (keeps review-less bundles as before). */
function reviewSummary(records: ReadonlyArray<WorkerRecord>): BundleDocument["review"] {
  const asked = records.filter(isAnswered).filter((r) => r.review !== undefined || r.reviewFailure !== undefined);
  if (asked.length === 0) return undefined;
  const approve = asked.filter((r) => r.review?.approve === true).length;
  const dissent = asked.filter((r) => r.review !== undefined && r.review.approve !== true).length;
  return { advisory: true, asked: asked.length, approve, dissent, failed: asked.length - approve - dissent };
}

export interface BundleInput {
  market: MarketSnapshot;
  /** All seats, in on-chain order (the frozen worker set). */
  records: ReadonlyArray<WorkerRecord>;
  quorum: QuorumStatus;
  /** Absent when the run stopped before evaluation (e.g. no quorum). */
  evaluation?: EvaluationResult;
  /** Absent when the run stopped before the vote. */
  decision?: VerdictDecision;
  /** Extra deterministic metadata chosen by the caller (e.g. pipeline version). Hashed as given. */
  extra?: Record<string, unknown>;
}

export interface Bundle {
  /** The document as plain JSON data (what `json` serializes); its shape is core/bundle-schema.ts. */
  document: BundleDocument;
  /** Canonical JSON text. */
  json: string;
  /** keccak256(utf8(json)). */
  hash: Hex;
}

/** Builds the canonical bundle. Same inputs → byte-identical `json` and identical `hash`. */
export function buildBundle(input: BundleInput): Bundle {
  const { market, records, quorum, evaluation, decision } = input;
  const evalByAddr = new Map((evaluation?.evaluations ?? []).map((e) => [e.address.toLowerCase(), e]));
  const voterBySeat = new Map((decision?.voters ?? []).map((v) => [v.seat, v]));

  const workers = records.map((r, i): BundleWorker => {
    const ev = evalByAddr.get(r.seat.address.toLowerCase());
    const voter = voterBySeat.get(i);
    const report = decision?.reports[i];
    const rewardWeight = decision?.rewardWeights?.[i];
    return {
      seat: i,
      address: r.seat.address,
      agentId: dec(r.seat.agentId),
      stake: dec(r.seat.stake),
      endpoint: r.endpoint
        ? { url: sanitizeString(r.endpoint.url, 2_048), protocol: sanitizeString(r.endpoint.protocol, 100) }
        : undefined,
      ...(r.answer === undefined
        ? {
            status: "no-answer" as const,
            discoveryFailure: failureDoc(r.discoveryFailure),
            askFailure: failureDoc(r.askFailure),
          }
        : answeredDoc(r)),
      evaluation: ev
        ? {
            dimensions: dimensionsDoc(ev.dimensions),
            aggregate: { ...ev.aggregate },
            fallbackReason: ev.fallbackReason !== undefined ? sanitizeString(ev.fallbackReason, 1_000) : undefined,
          }
        : undefined,
      report: report ? { ...report } : undefined,
      rewardWeight: rewardWeight !== undefined ? dec(rewardWeight) : undefined,
      vote: voter
        ? {
            history: voter.history,
            accuracy: voter.accuracy,
            calibratedAccuracy: voter.calibratedAccuracy,
            weight: voter.weight,
            unproven: voter.unproven,
            cloneGroup: voter.cloneGroup === undefined ? undefined : dec(voter.cloneGroup),
            excludedReason: voter.excludedReason,
          }
        : undefined,
    };
  });

  const document: BundleDocument = {
    schema: BUNDLE_SCHEMA,
    market: {
      chainId: market.chainId,
      marketAddress: market.marketAddress,
      marketId: dec(market.marketId),
      question: sanitizeString(market.question),
      deadline: market.deadline,
      context: sanitizeString(market.context ?? ""),
      workerCount: market.workers.length,
    },
    quorum: { n: quorum.n, required: quorum.required, answered: quorum.answered, reached: quorum.reached },
    evaluator: evaluation ? { ...evaluation.evaluator } : undefined,
    fallbackEvaluator: evaluation?.fallbackEvaluator ? { ...evaluation.fallbackEvaluator } : undefined,
    evaluationFallbackReason:
      evaluation?.fallbackReason !== undefined ? sanitizeString(evaluation.fallbackReason, 1_000) : undefined,
    workers,
    outcome: decision
      ? { ...decision.outcome }
      : quorum.reached
        ? undefined
        : { kind: "no-quorum", answered: quorum.answered, required: quorum.required },
    decision: decision
      ? {
          verdict: decision.verdict,
          reason: decision.reason,
          posterior: decision.posterior,
          logOdds: decision.logOdds,
          thresholdBps: decision.thresholdBps,
          quorum: { ...decision.quorum },
          bloc: { ...decision.bloc },
          rewardWeights: decision.rewardWeights?.map(dec),
          fragility:
            decision.fragility === undefined
              ? undefined
              : {
                  coalition: decision.fragility.coalition.map(dec),
                  restLogOdds: decision.fragility.restLogOdds,
                },
        }
      : undefined,
    estimates: decision
      ? {
          agents: decision.estimate.agents.map((a) => ({
            agentId: dec(a.agentId),
            count: a.count,
            weight: a.weight,
            right: a.right,
            accuracy: a.accuracy,
            calibration: a.calibration.map((b) => ({ ...b })),
            cloneGroup: a.cloneGroup === undefined ? undefined : dec(a.cloneGroup),
            changedAfter: a.changedAfter,
          })),
          dependence: decision.estimate.dependence.map((e) => ({ a: dec(e.a), b: dec(e.b), d: e.d })),
          sharedErrors: decision.estimate.sharedErrors.map((e) => ({ a: dec(e.a), b: dec(e.b), d: e.d })),
          markets: decision.estimate.markets,
          answers: decision.estimate.answers,
          knownTruths: decision.estimate.knownTruths,
          iterations: decision.estimate.iterations,
          converged: decision.estimate.converged,
          history: { ...decision.history },
        }
      : undefined,
    voteConfig: decision
      ? {
          ...decision.config,
          accuracy: { ...decision.config.accuracy, confidenceBins: [...decision.config.accuracy.confidenceBins] },
        }
      : undefined,
    review: reviewSummary(records),
    extra: input.extra !== undefined ? sanitizeJsonValue(input.extra) : undefined,
  };
  const json = canonicalJson(document);
  return { document: JSON.parse(json) as BundleDocument, json, hash: bundleHash(json) };
}

/** The answer, challenge and review parts of an answered seat. */
function answeredDoc(r: AnsweredWorkerRecord) {
  const a = r.answer;
  return {
    status: "answered" as const,
    answer: {
      determination: a.determination === true,
      confidence: Number.isFinite(a.confidence) ? Math.min(1, Math.max(0, a.confidence)) : 0,
      evidence: sanitizeString(String(a.evidence ?? "")),
      sources: (Array.isArray(a.sources) ? a.sources : [])
        .slice(0, MAX_SOURCES)
        .map((s) => sanitizeString(String(s), MAX_SOURCE_CHARS)),
      extras: a.extras !== undefined ? sanitizeJsonValue(a.extras) : undefined,
    },
    // The signed fields (with market.chainId/marketAddress/marketId, agentId and the report's answer and
    // confidenceBps) re-verify with core/answer-signature.ts; a clipped evidence text no longer rehashes to replyHash.
    signature: r.signatureCheck
      ? {
          status: r.signatureCheck.status,
          replyHash: r.signatureCheck.replyHash,
          signature: r.signatureCheck.signature,
          signer: r.signatureCheck.signer,
          reason: r.signatureCheck.reason !== undefined ? sanitizeString(r.signatureCheck.reason, 300) : undefined,
        }
      : undefined,
    challenges: r.challenges?.map((c) => sanitizeString(c)),
    challengeReplies: r.challengeReplies?.slice(0, MAX_ARRAY_ITEMS).map((c) => sanitizeString(String(c))),
    challengeFailure: failureDoc(r.challengeFailure),
    review: r.review
      ? {
          approve: r.review.approve === true,
          conditions: (Array.isArray(r.review.conditions) ? r.review.conditions : [])
            .slice(0, MAX_ARRAY_ITEMS)
            .map((c) => sanitizeString(String(c))),
          dissentReason:
            r.review.dissentReason !== undefined ? sanitizeString(String(r.review.dissentReason)) : undefined,
          extras: r.review.extras !== undefined ? sanitizeJsonValue(r.review.extras) : undefined,
        }
      : undefined,
    reviewFailure: failureDoc(r.reviewFailure),
  } satisfies Partial<BundleWorker>;
}

function dimensionsDoc(
  dimensions: EvaluationResult["evaluations"][number]["dimensions"],
): NonNullable<BundleWorker["evaluation"]>["dimensions"] {
  const out = {} as NonNullable<BundleWorker["evaluation"]>["dimensions"];
  // Every dimension, in the fixed order (canonical JSON sorts keys anyway).
  for (const k of DIMENSIONS)
    out[k] = { score: dimensions[k].score, explanation: sanitizeString(dimensions[k].explanation, 2_000) };
  return out;
}
