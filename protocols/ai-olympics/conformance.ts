/**
 * Conformance checker for AI Olympics webhook agents (protocols/ai-olympics/README.md, platform side
 * played by the resolver). `url` is the webhook URL as registered. Needs `credentials.hmacSecret`.
 *
 * Requests sent (timings under these names):
 *   resolve.turn-N      a sample resolution session, turns 1..5 (actions are NOT executed: the page state
 *                       fed back says so), until a done
 *   challenge.turn-N    a sample challenge session, turns 1..3
 *   auth.unsigned       no signature headers                        → must be refused
 *   auth.bad-hmac       signed with a wrong secret                   → must be refused
 *   auth.stale-timestamp / auth.future-timestamp  correctly signed, ±6 minutes → must be refused
 *   auth.replay         the first resolve request again, byte for byte → refusal expected (warning only:
 *                       the spec requires the time window, not duplicate detection)
 *
 * Rule ids (violations unless marked W):
 *   ai-olympics.auth.credentials      a secret is needed to check anything beyond the auth refusals
 *   ai-olympics.auth.required         unsigned request accepted
 *   ai-olympics.auth.signature        bad HMAC accepted
 *   ai-olympics.auth.replay-window    stale or future timestamp accepted
 *   ai-olympics.auth.status       (W) refused with another status than 401
 *   ai-olympics.auth.duplicate    (W) an identical request accepted twice (beyond the spec, which requires the
 *                                     5-minute timestamp window only; the finding says so)
 *   ai-olympics.http.turn             a turn failed (status, network, not JSON, too large)
 *   ai-olympics.turn.timeout          no reply within 30 s
 *   ai-olympics.response.object       reply is not a JSON object
 *   ai-olympics.response.actions      `actions` missing or not an array
 *   ai-olympics.response.thinking     `thinking` present but not a string
 *   ai-olympics.response.done         `done` present but not a boolean
 *   ai-olympics.action.max-per-turn   more than 10 actions
 *   ai-olympics.action.type           an action without a string `tool`
 *   ai-olympics.action.args           an action without an object `args`
 *   ai-olympics.action.known-tool     a tool the spec does not define
 *   ai-olympics.action.unavailable(W) a browser tool (the resolver has no browser; it is skipped)
 *   ai-olympics.action.navigate-args  navigate without an http(s) `url`
 *   ai-olympics.action.api-call-args  api_call without GET/POST `method` or http(s) `url`
 *   ai-olympics.action.done-args      done with a non-boolean `success`
 *   ai-olympics.done.result           done's result missing or not an object
 *   ai-olympics.done.determination | .confidence | .evidence | .sources | .responses   result fields
 *   ai-olympics.done.success      (W) done with success=false (the worker abstains)
 *   ai-olympics.session.done          no valid done within the turn budget
 *   ai-olympics.quality.latency   (W) a turn slower than 10 s
 *   ai-olympics.quality.thinking  (W) no `thinking`
 *   ai-olympics.quality.evidence-length (W) evidence under 200 characters
 *   ai-olympics.quality.source-urls (W) a source that is not an http(s) URL
 *   ai-olympics.quality.confidence-extreme (W) confidence 0 or 1
 *   ai-olympics.quality.responses-count (W) not one response per challenge
 */
import type { z } from "zod";
import {
  apiCallArgsSchema,
  askTaskPrompt,
  BROWSER_TOOLS,
  buildTurnRequest,
  challengeTaskPrompt,
  doneArgsSchema,
  doneFindingSchema,
  doneResponsesSchema,
  initialPageState,
  navigateArgsSchema,
  SPEC_TOOLS,
  turnReplySchema,
  unwrapResult,
  type PageState,
  type TurnRequest,
} from "./wire.js";
import { signedHeaders } from "./signing.js";
import type { AskRequest, ChallengeRequest } from "../../workflow/core/types.js";
import { toFailure } from "../../workflow/adapters/call.js";
import { isHttpError } from "../../workflow/http/errors.js";
import { stringifyJson } from "../../workflow/http/json.js";
import { conformanceReport } from "../shared/conformance-report.js";
import type { ConformanceChecker, ConformanceFinding } from "../shared/types.js";

export const AI_OLYMPICS_RULE_PREFIX = "ai-olympics.";
const TURN_TIMEOUT_MS = 30_000;
const SLOW_MS = 10_000;
const STALE_OFFSET_MS = 6 * 60 * 1000;

const SAMPLE_ASK: AskRequest = {
  marketId: 1n,
  question: "Will the European Central Bank lower its main refinancing rate at its next scheduled meeting?",
  deadline: 1_900_000_000,
  context: "Conformance check sample market.",
};

const SAMPLE_CHALLENGE: ChallengeRequest = {
  ask: SAMPLE_ASK,
  challenges: [
    "Another worker reached the opposite determination. What evidence would change your mind?",
    "Which of your sources is the weakest, and why?",
  ],
  own: {
    determination: true,
    confidence: 0.7,
    evidence: "Sample finding used by the conformance checker.",
    sources: ["https://www.ecb.europa.eu/"],
  },
  peers: [
    {
      determination: false,
      confidence: 0.6,
      evidence: "Sample peer finding: inflation remains above target.",
      sources: ["https://example.org/report"],
    },
  ],
};

export interface AiOlympicsCheckerOptions {
  /** Clock (Unix ms) for the request timestamps. Default Date.now. */
  now?: () => number;
  /** Turns of the sample sessions. Defaults 5 and 3. */
  maxTurns?: number;
  challengeMaxTurns?: number;
}

type Send =
  | { ok: true; status: number; body: unknown; ms: number }
  | { ok: false; status?: number; kind: string; message: string; ms: number };

export function createAiOlympicsChecker(checkerOptions: AiOlympicsCheckerOptions = {}): ConformanceChecker {
  const now = checkerOptions.now ?? Date.now;
  const maxTurns = checkerOptions.maxTurns ?? 5;
  const challengeMaxTurns = checkerOptions.challengeMaxTurns ?? 3;

  return async (options) => {
    const findings: ConformanceFinding[] = [];
    const timings: Record<string, number> = {};
    const add = (rule: string, severity: ConformanceFinding["severity"], message: string) =>
      findings.push({
        rule: AI_OLYMPICS_RULE_PREFIX + rule,
        severity,
        message: message.length > 400 ? `${message.slice(0, 400)}…` : message,
      });
    const timeoutMs = options.timeoutMs ?? TURN_TIMEOUT_MS;
    const secret = options.credentials?.hmacSecret;

    const send = async (name: string, body: unknown, headers: Record<string, string>): Promise<Send> => {
      const start = performance.now();
      try {
        const res = await options.http.postJson(options.url, body, { timeoutMs, headers });
        const ms = Math.round(performance.now() - start);
        timings[name] = ms;
        return { ok: true, status: res.status, body: res.body, ms };
      } catch (error) {
        const ms = Math.round(performance.now() - start);
        timings[name] = ms;
        const failure = toFailure(error);
        return {
          ok: false,
          ...(isHttpError(error) && error.status !== undefined ? { status: error.status } : {}),
          kind: failure.kind,
          message: failure.message,
          ms,
        };
      }
    };

    const turnBody = (
      taskPrompt: string,
      turn: number,
      pageState: PageState,
      previous: TurnRequest["previousActions"],
      timestamp = Math.floor(now()),
    ): TurnRequest =>
      buildTurnRequest({
        timestamp,
        agentId: 0n,
        marketId: SAMPLE_ASK.marketId,
        taskPrompt,
        pageState,
        previousActions: previous,
        turnNumber: turn,
      });

    const sign = (key: string, body: TurnRequest) =>
      signedHeaders(key, stringifyJson(body), body.timestamp, body.agentId);

    let firstSigned: { body: TurnRequest; headers: Record<string, string> } | undefined;

    async function runSession(
      kind: "resolve" | "challenge",
      key: string,
      taskPrompt: string,
      turns: number,
    ): Promise<void> {
      let pageState = initialPageState();
      const previous: TurnRequest["previousActions"] = [];
      for (let turn = 1; turn <= turns; turn++) {
        const name = `${kind}.turn-${turn}`;
        const body = turnBody(taskPrompt, turn, pageState, [...previous]);
        const headers = sign(key, body);
        if (firstSigned === undefined) firstSigned = { body, headers };
        const res = await send(name, body, headers);
        if (!res.ok) {
          if (res.kind === "timeout") add("turn.timeout", "violation", `${name}: no reply within ${timeoutMs} ms`);
          else add("http.turn", "violation", `${name}: ${res.kind}: ${res.message}`);
          return;
        }
        if (res.status !== 200) {
          add("http.turn", "violation", `${name}: status ${res.status}, the spec expects 200`);
          return;
        }
        if (res.ms > SLOW_MS)
          add("quality.latency", "warning", `${name} took ${res.ms} ms (limit ${TURN_TIMEOUT_MS} ms)`);
        const outcome = checkReply(name, kind, res.body, add);
        if (outcome.done) {
          if (
            kind === "challenge" &&
            outcome.responses !== undefined &&
            outcome.responses !== SAMPLE_CHALLENGE.challenges.length
          ) {
            add(
              "quality.responses-count",
              "warning",
              `${name}: ${outcome.responses} responses to ${SAMPLE_CHALLENGE.challenges.length} challenges`,
            );
          }
          return;
        }
        if (outcome.fatal) return;
        for (const a of outcome.executable) previous.push({ name: a.tool, arguments: a.args });
        const last = outcome.executable.at(-1);
        pageState = {
          url: last !== undefined && typeof last.args.url === "string" ? last.args.url.slice(0, 2_048) : pageState.url,
          title: "conformance check",
          accessibilityTree: "",
          error: "conformance check: actions are not executed; finish with done",
        };
      }
      add("session.done", "violation", `${kind} session: no valid done within ${turns} turns`);
    }

    if (secret === undefined || secret === "") {
      add(
        "auth.credentials",
        "violation",
        "no hmacSecret given: only the refusal of unsigned and wrongly signed requests can be checked",
      );
    } else {
      await runSession("resolve", secret, askTaskPrompt(SAMPLE_ASK, maxTurns), maxTurns);
      await runSession(
        "challenge",
        secret,
        challengeTaskPrompt(SAMPLE_CHALLENGE, challengeMaxTurns),
        challengeMaxTurns,
      );
    }

    // --- auth refusals ---------------------------------------------------------------------------
    const refused = async (
      name: string,
      rule: string,
      what: string,
      body: TurnRequest,
      headers: Record<string, string>,
      severity: ConformanceFinding["severity"] = "violation",
      note?: string,
    ) => {
      const res = await send(name, body, headers);
      if (res.ok) {
        add(
          rule,
          severity,
          note === undefined
            ? `${what} was accepted (status ${res.status}); it must be refused`
            : `${what} was accepted (status ${res.status}); refusing it is recommended (${note})`,
        );
      } else if (res.status === undefined) {
        add("http.turn", "violation", `${name}: ${res.kind}: ${res.message}`);
      } else if (res.status !== 401) {
        add("auth.status", "warning", `${what} was refused with status ${res.status}; the spec uses 401`);
      }
    };
    const sample = () => turnBody(askTaskPrompt(SAMPLE_ASK, maxTurns), 1, initialPageState(), []);

    const unsigned = sample();
    await refused("auth.unsigned", "auth.required", "an unsigned request", unsigned, {});

    const wrongKey = `${secret ?? ""}-not-the-secret`;
    const badHmac = sample();
    await refused(
      "auth.bad-hmac",
      "auth.signature",
      "a request with a wrong HMAC signature",
      badHmac,
      sign(wrongKey, badHmac),
    );

    if (secret !== undefined && secret !== "") {
      const stale = turnBody(
        askTaskPrompt(SAMPLE_ASK, maxTurns),
        1,
        initialPageState(),
        [],
        Math.floor(now()) - STALE_OFFSET_MS,
      );
      await refused(
        "auth.stale-timestamp",
        "auth.replay-window",
        "a correctly signed request 6 minutes old",
        stale,
        sign(secret, stale),
      );
      const future = turnBody(
        askTaskPrompt(SAMPLE_ASK, maxTurns),
        1,
        initialPageState(),
        [],
        Math.floor(now()) + STALE_OFFSET_MS,
      );
      await refused(
        "auth.future-timestamp",
        "auth.replay-window",
        "a correctly signed request 6 minutes in the future",
        future,
        sign(secret, future),
      );
      if (firstSigned !== undefined) {
        await refused(
          "auth.replay",
          "auth.duplicate",
          "an identical copy of an earlier request",
          firstSigned.body,
          firstSigned.headers,
          "warning",
          BEYOND_SPEC_DUPLICATE,
        );
      }
    }

    return conformanceReport("ai-olympics", options.url, findings, timings);
  };
}

/** The duplicate rule is ours, not the spec's: its finding says so. */
const BEYOND_SPEC_DUPLICATE =
  "a warning, beyond the spec: the spec requires the 5-minute timestamp window, not duplicate detection";

export const checkAiOlympics: ConformanceChecker = createAiOlympicsChecker();

interface ReplyOutcome {
  done: boolean;
  /** The reply cannot be continued (not an object / no actions). */
  fatal: boolean;
  executable: { tool: string; args: Record<string, unknown> }[];
  responses?: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Quality check of a source (not a wire rule): an http(s) URL without whitespace. */
const httpUrl = (v: unknown) => typeof v === "string" && /^https?:\/\/\S+$/i.test(v) && v.length <= 2_048;

function checkReply(
  name: string,
  kind: "resolve" | "challenge",
  body: unknown,
  add: (rule: string, severity: ConformanceFinding["severity"], message: string) => void,
): ReplyOutcome {
  const outcome: ReplyOutcome = { done: false, fatal: false, executable: [] };
  if (!isObject(body)) {
    add("response.object", "violation", `${name}: the reply is not a JSON object`);
    return { ...outcome, fatal: true };
  }
  if (body.thinking !== undefined && body.thinking !== null && typeof body.thinking !== "string")
    add("response.thinking", "violation", `${name}: thinking must be a string`);
  if (typeof body.thinking !== "string" || body.thinking.trim() === "")
    add("quality.thinking", "warning", `${name}: no thinking (shown to spectators)`);
  if (!turnReplySchema.shape.done.safeParse(body.done).success)
    add("response.done", "violation", `${name}: done must be a boolean`);
  if (!Array.isArray(body.actions)) {
    add("response.actions", "violation", `${name}: actions is required and must be an array`);
    return { ...outcome, fatal: true };
  }
  if (body.actions.length > 10)
    add(
      "action.max-per-turn",
      "violation",
      `${name}: ${body.actions.length} actions (at most 10 a turn; the rest are skipped)`,
    );
  let doneResult: { result: unknown; success: unknown } | undefined;
  body.actions.slice(0, 10).forEach((action, i) => {
    const where = `${name} action ${i + 1}`;
    if (!isObject(action) || typeof action.tool !== "string" || action.tool === "") {
      add("action.type", "violation", `${where}: each action needs a string "tool"`);
      return;
    }
    if (!isObject(action.args)) {
      add("action.args", "violation", `${where} (${action.tool.slice(0, 40)}): args must be an object`);
      return;
    }
    const tool = action.tool;
    if (!(SPEC_TOOLS as readonly string[]).includes(tool)) {
      add("action.known-tool", "violation", `${where}: unknown tool "${tool.slice(0, 40)}"`);
      return;
    }
    if ((BROWSER_TOOLS as readonly string[]).includes(tool)) {
      add("action.unavailable", "warning", `${where}: "${tool}" needs a browser; the resolver skips it`);
      return;
    }
    // Arguments are judged with the schemas the adapter executes actions with (wire.ts).
    if (tool === "navigate") {
      const args = navigateArgsSchema.safeParse(action.args);
      if (!args.success) add("action.navigate-args", "violation", `${where}: navigate needs an http(s) url`);
      else outcome.executable.push({ tool, args: { url: args.data.url } });
    } else if (tool === "api_call") {
      const args = apiCallArgsSchema.safeParse(action.args);
      if (!args.success)
        add("action.api-call-args", "violation", `${where}: api_call needs method GET or POST and an http(s) url`);
      else outcome.executable.push({ tool, args: { method: args.data.method, url: args.data.url } });
    } else if (tool === "done") {
      if (!doneArgsSchema.safeParse(action.args).success)
        add("action.done-args", "violation", `${where}: done's success must be a boolean`);
      doneResult ??= { result: action.args.result, success: action.args.success };
    }
  });
  if (doneResult === undefined && body.done === true) doneResult = { result: body.result, success: true };
  if (doneResult === undefined) return outcome;
  outcome.done = true;
  if (doneResult.success === false) {
    add("done.success", "warning", `${name}: done with success=false (the worker abstains)`);
    return outcome;
  }
  const result = unwrapResult(doneResult.result);
  if (!isObject(result)) {
    add(
      "done.result",
      "violation",
      `${name}: done's result must be an object with the ${kind === "resolve" ? "finding" : "responses"}`,
    );
    return outcome;
  }
  const schema: z.ZodType = kind === "resolve" ? doneFindingSchema : doneResponsesSchema;
  const parsed = schema.safeParse(result);
  if (!parsed.success) {
    const seen = new Set<string>();
    for (const issue of parsed.error.issues) {
      const field = String(issue.path[0] ?? "result");
      const rule = ["determination", "confidence", "evidence", "sources", "responses"].includes(field)
        ? `done.${field}`
        : "done.result";
      if (seen.has(rule)) continue;
      seen.add(rule);
      add(rule, "violation", `${name}: ${issue.path.join(".") || "result"}: ${issue.message}`);
    }
    return outcome;
  }
  if (kind === "resolve") {
    const f = parsed.data as z.infer<typeof doneFindingSchema>;
    if (f.evidence.trim().length < 200)
      add(
        "quality.evidence-length",
        "warning",
        `${name}: evidence has ${f.evidence.trim().length} characters (under 200)`,
      );
    const bad = f.sources.filter((s) => !httpUrl(s));
    if (bad.length > 0) add("quality.source-urls", "warning", `${name}: ${bad.length} source(s) are not http(s) URLs`);
    if (f.confidence === 0 || f.confidence === 1)
      add("quality.confidence-extreme", "warning", `${name}: confidence ${f.confidence}`);
  } else {
    outcome.responses = (parsed.data as z.infer<typeof doneResponsesSchema>).responses.length;
  }
  return outcome;
}
