/**
 * Conformance checker for the round-table External Agent Protocol
 * as the resolver uses it (protocols/roundtable/README.md).
 *
 * Sends, through the safe HTTP client and with the agent's bearer token when one is given:
 *   1. POST /analyze   — the request the resolver sends (sample market, our constraints);
 *   2. POST /challenge — two anonymised peer analyses (one YES, one NO) and three resolver challenges;
 *   3. POST /vote      — a synthesis recommending a resolution;
 *   4. with a token: POST /analyze with a wrong token and with none. The spec only says the platform sends the
 *      agent's API key as a bearer token; it does not require agents to check it, so accepting these is a
 *      warning (beyond the spec: an agent that does not check its key can be called by anyone).
 * Every rule of the spec is checked field by field; each finding names its rule (ids below). Timings per
 * request. Rules: roundtable.<phase>.status|timeout|json, roundtable.limits.body-size,
 * roundtable.analyze.{agent_name,domain,observations,observation.finding,observation.evidence,
 * observation.severity,observation.confidence,recommendations,confidence,determination},
 * roundtable.challenge.{agent_name,challenges,counter-evidence,concessions,concession-reason},
 * roundtable.vote.{agent_name,approve,conditions,dissent_reason}, roundtable.auth.accepts-token. Warnings:
 * roundtable.auth.{rejects-bad-token,rejects-missing-token} (beyond the spec),
 * roundtable.analyze.{evidence-level,determination-keywords,observations-empty,observation.severity-case},
 * roundtable.challenge.{target-agent,replies}, roundtable.agent_name.consistent, roundtable.injection,
 * roundtable.limits.string-length, roundtable.timing.slow.
 */
import {
  analysisReplySchema,
  analyzeRequest,
  challengeRequestBody,
  mapChallengeReplies,
  readDetermination,
  readEvidence,
  ROUNDTABLE_LIMITS,
  ROUNDTABLE_PROTOCOL,
  SEVERITIES,
  challengeReplySchema,
  voteRequestBody,
  injectionFlags,
} from "./adapter.js";
import { joinEndpoint } from "../../workflow/adapters/call.js";
import { challengesFor } from "../../workflow/core/challenges.js";
import { sanitizeString } from "../../workflow/core/text.js";
import type { AskRequest, PeerFinding, WorkerAnswer } from "../../workflow/core/types.js";
import { describeUrlText, isHttpError } from "../../workflow/http/errors.js";
import { conformanceReport } from "../shared/conformance-report.js";
import type { ConformanceChecker, ConformanceFinding } from "../shared/types.js";

/** Said in every finding of a rule the spec does not make: such rules are warnings. */
const BEYOND_SPEC =
  "a warning, beyond the spec: it has the platform send the key but does not require agents to check it";

export const SAMPLE_ASK: AskRequest = {
  marketId: 1n,
  question: "Will the 2026 official annual inflation figure for the euro area exceed 3%?",
  deadline: 1_798_761_600, // 2027-01-01T00:00:00Z
  context: "Resolves on the first official Eurostat estimate published for 2026.",
};

const SAMPLE_PEERS: PeerFinding[] = [
  {
    determination: true,
    confidence: 0.7,
    evidence: "Monthly flash estimates stayed above 3% for most of the year; energy prices rose again in the autumn.",
    sources: ["https://ec.europa.eu/eurostat/web/main/news/euro-indicators"],
  },
  {
    determination: false,
    confidence: 0.65,
    evidence: "Core inflation fell steadily and the central bank projects an annual average below 3%.",
    sources: ["https://www.ecb.europa.eu/pub/projections/html/index.en.html"],
  },
];

const SLOW_MS = 60_000;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);
const present = (v: unknown): boolean => v !== undefined && v !== null;
const show = (v: unknown): string => {
  const t = typeof v === "string" ? JSON.stringify(v) : v === null ? "null" : Array.isArray(v) ? "an array" : typeof v;
  return sanitizeString(t, 80);
};

export const checkRoundtable: ConformanceChecker = async (options) => {
  const findings: ConformanceFinding[] = [];
  const timings: Record<string, number> = {};
  const add = (rule: string, severity: ConformanceFinding["severity"], message: string) =>
    findings.push({ rule, severity, message: sanitizeString(message, 500) });
  const violation = (rule: string, message: string) => add(rule, "violation", message);
  const warning = (rule: string, message: string) => add(rule, "warning", message);
  const timeoutMs = options.timeoutMs ?? ROUNDTABLE_LIMITS.timeoutMs;
  const token = options.credentials?.bearerToken;
  const names = new Set<string>();

  /** POSTs a sample; returns the parsed body, or undefined after recording why there is none. */
  async function send(
    name: string,
    phase: string,
    path: string,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<unknown> {
    let url: string;
    try {
      url = joinEndpoint(options.url, path);
    } catch {
      violation(`roundtable.${phase}.status`, `${describeUrlText(options.url)} is not a URL`);
      return undefined;
    }
    const t0 = performance.now();
    try {
      const res = await options.http.postJson(url, body, {
        timeoutMs,
        maxBytes: ROUNDTABLE_LIMITS.maxResponseBytes,
        ...(headers ? { headers } : {}),
      });
      return res.body;
    } catch (error) {
      if (!isHttpError(error)) throw error;
      if (error.kind === "timeout")
        violation(`roundtable.${phase}.timeout`, `no complete reply within ${timeoutMs} ms (spec: 120 s per endpoint)`);
      else if (error.kind === "too-large") violation("roundtable.limits.body-size", `${path}: reply larger than 5 MB`);
      else if (error.kind === "invalid-response")
        violation(`roundtable.${phase}.json`, `${path}: expected 200 with valid JSON (${error.message})`);
      else if (error.kind === "auth" && token !== undefined)
        violation(
          "roundtable.auth.accepts-token",
          `${path}: the configured bearer token was refused (${error.message})`,
        );
      else violation(`roundtable.${phase}.status`, `${path}: expected 200 with JSON (${error.message})`);
      return undefined;
    } finally {
      timings[name] = Math.round(performance.now() - t0);
      if (timings[name] > SLOW_MS) warning("roundtable.timing.slow", `${path} took ${timings[name]} ms (limit 120 s)`);
    }
  }
  const auth = token !== undefined ? { authorization: `Bearer ${token}` } : undefined;

  /** Whether a phase's reply is a JSON object (a violation if not), after the checks every reply object gets. */
  function checkedReply(phase: string, type: string, reply: unknown): reply is Json {
    if (!isObject(reply)) {
      violation(`roundtable.${phase}.json`, `the reply must be a JSON object (${type}), got ${show(reply)}`);
      return false;
    }
    commonChecks(phase, reply);
    return true;
  }
  function commonChecks(phase: string, reply: Json): void {
    if (typeof reply.agent_name !== "string" || reply.agent_name.trim() === "") {
      violation(
        `roundtable.${phase}.agent_name`,
        `agent_name is required and must be a non-empty string, got ${show(reply.agent_name)}`,
      );
    } else names.add(reply.agent_name);
    const flags = injectionFlags(reply);
    for (const [path, patterns] of Object.entries(flags))
      warning("roundtable.injection", `${phase} ${path}: prompt-injection pattern(s) ${patterns.join(", ")}`);
    scanLengths(phase, reply, "");
  }
  function scanLengths(phase: string, v: unknown, path: string, depth = 0): void {
    if (depth > 16) return;
    if (typeof v === "string" && v.length >= ROUNDTABLE_LIMITS.maxStringLength) {
      warning(
        "roundtable.limits.string-length",
        `${phase} ${path || "(root)"}: string reaches the 50,000-character limit and was truncated`,
      );
    } else if (Array.isArray(v)) for (const [i, x] of v.entries()) scanLengths(phase, x, `${path}[${i}]`, depth + 1);
    else if (isObject(v))
      for (const [k, x] of Object.entries(v)) scanLengths(phase, x, path ? `${path}.${k}` : k, depth + 1);
  }
  const unitOk = (v: unknown) => typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= 1;

  // 1. /analyze
  const analysis = await send("analyze", "analyze", "analyze", analyzeRequest(SAMPLE_ASK), auth);
  let own: WorkerAnswer = { determination: true, confidence: 0.5, evidence: "", sources: [] };
  if (analysis !== undefined) {
    if (checkedReply("analyze", "AgentAnalysis", analysis)) {
      if (typeof analysis.domain !== "string")
        violation("roundtable.analyze.domain", `domain is required and must be a string, got ${show(analysis.domain)}`);
      if (present(analysis.confidence) && !unitOk(analysis.confidence))
        violation(
          "roundtable.analyze.confidence",
          `confidence must be a number in [0, 1], got ${show(analysis.confidence)}`,
        );
      if (present(analysis.recommendations)) {
        if (!Array.isArray(analysis.recommendations))
          violation(
            "roundtable.analyze.recommendations",
            `recommendations must be an array of objects, got ${show(analysis.recommendations)}`,
          );
        else
          analysis.recommendations.forEach((r, i) => {
            if (!isObject(r))
              violation("roundtable.analyze.recommendations", `recommendations[${i}] must be an object`);
            else
              for (const k of ["action", "rationale", "priority"])
                if (present(r[k]) && typeof r[k] !== "string")
                  violation(
                    "roundtable.analyze.recommendations",
                    `recommendations[${i}].${k} must be a string, got ${show(r[k])}`,
                  );
          });
      }
      if (!Array.isArray(analysis.observations))
        violation(
          "roundtable.analyze.observations",
          `observations is required and must be an array, got ${show(analysis.observations)}`,
        );
      else {
        if (analysis.observations.length === 0)
          warning("roundtable.analyze.observations-empty", "observations is empty: no findings");
        for (const [i, o] of (analysis.observations as unknown[]).entries()) {
          const at = `observations[${i}]`;
          if (!isObject(o)) {
            violation("roundtable.analyze.observations", `${at} must be an object`);
            continue;
          }
          if (typeof o.finding !== "string" || o.finding.trim() === "")
            violation(
              "roundtable.analyze.observation.finding",
              `${at}.finding is required and must be a non-empty string, got ${show(o.finding)}`,
            );
          if (typeof o.evidence !== "string")
            violation(
              "roundtable.analyze.observation.evidence",
              `${at}.evidence is required and must be a string, got ${show(o.evidence)}`,
            );
          else if (readEvidence(o.evidence).level === "NONE")
            warning(
              "roundtable.analyze.evidence-level",
              `${at}.evidence has no evidence level ([VERIFIED: …], [CORROBORATED: …], [INDICATED: …], [POSSIBLE])`,
            );
          if (typeof o.severity !== "string" || !(SEVERITIES as readonly string[]).includes(o.severity.toLowerCase())) {
            violation(
              "roundtable.analyze.observation.severity",
              `${at}.severity must be one of critical, warning, info; got ${show(o.severity)}`,
            );
          } else if (!(SEVERITIES as readonly string[]).includes(o.severity)) {
            warning(
              "roundtable.analyze.observation.severity-case",
              `${at}.severity should be lower-case, got ${show(o.severity)}`,
            );
          }
          if (present(o.confidence) && !unitOk(o.confidence))
            violation(
              "roundtable.analyze.observation.confidence",
              `${at}.confidence must be a number in [0, 1], got ${show(o.confidence)}`,
            );
        }
        const readable = analysis.observations.filter(
          (o): o is { finding: string } => isObject(o) && typeof o.finding === "string",
        );
        const reading = readDetermination(readable);
        if (reading.kind === "ambiguous") {
          violation(
            "roundtable.analyze.determination",
            `the constraints require one observation starting "DETERMINATION: YES|NO|UNDETERMINED": ${reading.reason}`,
          );
        } else if (reading.basis === "keywords") {
          warning(
            "roundtable.analyze.determination-keywords",
            `no DETERMINATION tag; the determination (${reading.kind.toUpperCase()}) was read from keywords`,
          );
        }
      }
      const parsed = analysisReplySchema.safeParse(analysis);
      if (parsed.success) {
        const reading = readDetermination(parsed.data.observations);
        if (reading.kind === "yes" || reading.kind === "no") own = { ...own, determination: reading.kind === "yes" };
      }
    }
  }

  // 2. /challenge
  const challenges = challengesFor(own, { agree: 1, disagree: 1 });
  const peers = SAMPLE_PEERS;
  const challengeReply = await send(
    "challenge",
    "challenge",
    "challenge",
    challengeRequestBody({ ask: SAMPLE_ASK, challenges, own, peers }),
    auth,
  );
  if (challengeReply !== undefined) {
    if (checkedReply("challenge", "AgentChallenge", challengeReply)) {
      const targets = new Set(["resolver", ...peers.map((_p, i) => `peer-${i + 1}`)]);
      const items = (key: "challenges" | "concessions", fields: [string, string, string]) => {
        const list = challengeReply[key];
        if (!present(list)) return;
        if (!Array.isArray(list)) {
          violation(`roundtable.challenge.${key}`, `${key} must be an array of objects, got ${show(list)}`);
          return;
        }
        for (const [i, item] of (list as unknown[]).entries()) {
          const at = `${key}[${i}]`;
          if (!isObject(item)) {
            violation(`roundtable.challenge.${key}`, `${at} must be an object`);
            continue;
          }
          for (const f of fields)
            if (typeof item[f] !== "string")
              violation(
                `roundtable.challenge.${key}`,
                `${at}.${f} is required and must be a string, got ${show(item[f])}`,
              );
          const explain = fields[2];
          if (typeof item[explain] === "string" && item[explain].trim() === "") {
            violation(
              key === "challenges" ? "roundtable.challenge.counter-evidence" : "roundtable.challenge.concession-reason",
              `${at}.${explain} must not be empty (${key === "challenges" ? "challenges must include counter-evidence" : "concessions must explain why"})`,
            );
          }
          if (typeof item.target_agent === "string" && !targets.has(item.target_agent))
            warning(
              "roundtable.challenge.target-agent",
              `${at}.target_agent ${show(item.target_agent)} names no agent that was sent`,
            );
        }
      };
      items("challenges", ["target_agent", "finding_challenged", "counter_evidence"]);
      items("concessions", ["target_agent", "finding_accepted", "reason"]);
      const parsed = challengeReplySchema.safeParse(challengeReply);
      if (parsed.success) {
        const replies = mapChallengeReplies(challenges, parsed.data);
        const answered = replies.filter((r) => r.trim() !== "").length;
        if (answered < challenges.length)
          warning(
            "roundtable.challenge.replies",
            `only ${answered} of the ${challenges.length} resolver challenges got a challenge or concession`,
          );
      }
    }
  }

  // 3. /vote
  const proposal = {
    ask: SAMPLE_ASK,
    resolution: true,
    tally: { yesWeight: 1.4, noWeight: 0.6, margin: 0.4, yesVoters: 2, noVoters: 1 },
    findings: [
      ...peers,
      {
        determination: own.determination,
        confidence: own.confidence,
        evidence: "The agent's own analysis.",
        sources: [],
      },
    ],
  };
  const vote = await send("vote", "vote", "vote", voteRequestBody(proposal), auth);
  if (vote !== undefined) {
    if (checkedReply("vote", "AgentVote", vote)) {
      if (typeof vote.approve !== "boolean")
        violation("roundtable.vote.approve", `approve is required and must be a boolean, got ${show(vote.approve)}`);
      if (
        present(vote.conditions) &&
        (!Array.isArray(vote.conditions) || vote.conditions.some((c) => typeof c !== "string"))
      ) {
        violation("roundtable.vote.conditions", `conditions must be an array of strings, got ${show(vote.conditions)}`);
      }
      if (present(vote.dissent_reason) && typeof vote.dissent_reason !== "string")
        violation(
          "roundtable.vote.dissent_reason",
          `dissent_reason must be a string, got ${show(vote.dissent_reason)}`,
        );
      else if (
        vote.approve === false &&
        (typeof vote.dissent_reason !== "string" || vote.dissent_reason.trim() === "")
      ) {
        violation("roundtable.vote.dissent_reason", "dissent_reason is required when approve is false");
      }
    }
  }
  if (names.size > 1)
    warning(
      "roundtable.agent_name.consistent",
      `agent_name differs between endpoints: ${[...names].map(show).join(", ")}`,
    );

  // 4. Auth: a wrong token and no token should be refused. Warnings only: the spec has the platform send the key
  // but never requires the agent to verify it.
  if (token !== undefined) {
    for (const [name, rule, headers] of [
      ["bad-token", "roundtable.auth.rejects-bad-token", { authorization: `Bearer ${token}x-wrong` }],
      ["no-token", "roundtable.auth.rejects-missing-token", undefined],
    ] as const) {
      let url: string;
      try {
        url = joinEndpoint(options.url, "analyze");
      } catch {
        break;
      }
      const t0 = performance.now();
      try {
        await options.http.postJson(url, analyzeRequest(SAMPLE_ASK), { timeoutMs, ...(headers ? { headers } : {}) });
        warning(
          rule,
          `/analyze answered 200 ${name === "bad-token" ? "with a wrong bearer token" : "without an Authorization header"}; 401 or 403 recommended (${BEYOND_SPEC})`,
        );
      } catch (error) {
        if (!isHttpError(error) || error.kind !== "auth") {
          warning(
            rule,
            `/analyze ${name === "bad-token" ? "with a wrong bearer token" : "without an Authorization header"} should get 401 or 403, got: ${isHttpError(error) ? error.message : "an error"} (${BEYOND_SPEC})`,
          );
        }
      } finally {
        timings[name] = Math.round(performance.now() - t0);
      }
    }
  }
  return conformanceReport(ROUNDTABLE_PROTOCOL, options.url, findings, timings);
};
