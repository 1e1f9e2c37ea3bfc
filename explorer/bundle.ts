/**
 * The one place the explorer reads a resolution bundle (cresolver.resolution-bundle.v2, workflow/core/bundle.ts)
 * into the trace it renders. Tolerant: a bundle is untrusted input fetched from a URI, so every field is checked
 * for its type and a missing or odd field becomes "absent", never an exception. The text is rendered escaped.
 */

export interface TraceFailure {
  kind: string;
  message: string;
}

export interface TraceDimension {
  name: string;
  score: number | undefined;
  explanation: string;
}

export interface TraceWorker {
  seat: number;
  agentId: string;
  address: string;
  endpoint?: { url: string; protocol: string };
  answer?: { determination: boolean; confidence: number | undefined; evidence: string; sources: string[] };
  failure?: TraceFailure;
  challenges: string[];
  replies: string[];
  challengeFailure?: TraceFailure;
  dimensions: TraceDimension[];
  aggregate: Record<string, number>;
  report?: { answer: string; confidenceBps: number | undefined };
  vote?: {
    weight: number | undefined;
    accuracy: number | undefined;
    calibratedAccuracy: number | undefined;
    history: number | undefined;
    unproven: boolean;
    excludedReason?: string;
  };
}

export interface Trace {
  schema: string;
  question: string;
  quorum?: { n: number | undefined; required: number | undefined; answered: number | undefined; reached: boolean };
  decision?: {
    verdict: string;
    reason?: string;
    posterior: number | undefined;
    thresholdBps: number | undefined;
    logOdds: number | undefined;
  };
  outcome?: string;
  evaluator?: string;
  workers: TraceWorker[];
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined;
const str = (v: unknown): string =>
  typeof v === "string" ? v : typeof v === "number" || typeof v === "bigint" ? String(v) : "";
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const MAX_WORKERS = 256;
const MAX_ITEMS = 200;

function failure(v: unknown): TraceFailure | undefined {
  const f = obj(v);
  return f ? { kind: str(f.kind) || "failed", message: str(f.message) } : undefined;
}

function worker(v: unknown, index: number): TraceWorker {
  const w = obj(v) ?? {};
  const endpoint = obj(w.endpoint);
  const answer = obj(w.answer);
  const evaluation = obj(w.evaluation);
  const report = obj(w.report);
  const vote = obj(w.vote);
  const dims = obj(evaluation?.dimensions) ?? {};
  const aggregate: Record<string, number> = {};
  for (const [k, x] of Object.entries(obj(evaluation?.aggregate) ?? {})) {
    const n = num(x);
    if (n !== undefined) aggregate[k] = n;
  }
  const excluded = str(vote?.excludedReason);
  const failed = failure(w.discoveryFailure) ?? failure(w.askFailure);
  const challengeFailure = failure(w.challengeFailure);
  return {
    seat: num(w.seat) ?? index,
    agentId: str(w.agentId),
    address: str(w.address),
    ...(endpoint ? { endpoint: { url: str(endpoint.url), protocol: str(endpoint.protocol) } } : {}),
    ...(answer
      ? {
          answer: {
            determination: answer.determination === true,
            confidence: num(answer.confidence),
            evidence: str(answer.evidence),
            sources: arr(answer.sources).slice(0, MAX_ITEMS).map(str),
          },
        }
      : {}),
    ...(failed ? { failure: failed } : {}),
    challenges: arr(w.challenges).slice(0, MAX_ITEMS).map(str),
    replies: arr(w.challengeReplies).slice(0, MAX_ITEMS).map(str),
    ...(challengeFailure ? { challengeFailure } : {}),
    dimensions: Object.entries(dims)
      .slice(0, 16)
      .map(([name, d]) => ({ name, score: num(obj(d)?.score), explanation: str(obj(d)?.explanation) })),
    aggregate,
    ...(report ? { report: { answer: str(report.answer), confidenceBps: num(report.confidenceBps) } } : {}),
    ...(vote
      ? {
          vote: {
            weight: num(vote.weight),
            accuracy: num(vote.accuracy),
            calibratedAccuracy: num(vote.calibratedAccuracy),
            history: num(vote.history),
            unproven: vote.unproven === true,
            ...(excluded ? { excludedReason: excluded } : {}),
          },
        }
      : {}),
  };
}

/** Parses bundle text into a Trace. Throws one-line errors only for text that is not a JSON object. */
export function parseTrace(text: string): Trace {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Error("the bundle is not valid JSON");
  }
  const d = obj(doc);
  if (!d) throw new Error("the bundle is not a JSON object");
  const market = obj(d.market) ?? {};
  const quorum = obj(d.quorum);
  const decision = obj(d.decision);
  const outcome = obj(d.outcome);
  const evaluator = obj(d.evaluator);
  const reason = str(decision?.reason);
  return {
    schema: str(d.schema),
    question: str(market.question),
    ...(quorum
      ? {
          quorum: {
            n: num(quorum.n),
            required: num(quorum.required),
            answered: num(quorum.answered),
            reached: quorum.reached === true,
          },
        }
      : {}),
    ...(decision
      ? {
          decision: {
            verdict: str(decision.verdict),
            ...(reason ? { reason } : {}),
            posterior: num(decision.posterior),
            thresholdBps: num(decision.thresholdBps),
            logOdds: num(decision.logOdds),
          },
        }
      : {}),
    ...(outcome ? { outcome: str(outcome.kind) } : {}),
    ...(evaluator
      ? {
          evaluator: [
            ...new Set([str(evaluator.kind), str(evaluator.model), str(evaluator.promptVersion)].filter(Boolean)),
          ].join(" "),
        }
      : {}),
    workers: arr(d.workers).slice(0, MAX_WORKERS).map(worker),
  };
}
