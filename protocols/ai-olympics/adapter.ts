/**
 * The platform side of AI Olympics webhook agents: signed turns, the turn loop, action execution and the
 * mapping of `done` to an answer (README.md has the full mapping: endpoint, auth, loop limits, actions, turn
 * errors, finish, challenge, extras). Wire format in wire.ts, actions in actions.ts, signing in signing.ts.
 */
import { createHash } from "node:crypto";
import type {
  CallResult,
  FailureKind,
  WorkerAnswer,
  WorkerEndpoint,
  WorkerFailure,
  WorkerProtocolAdapter,
  WorkerSeat,
} from "../../workflow/core/types.js";
import type { SafeHttpClient } from "../../workflow/http/client.js";
import { HttpError } from "../../workflow/http/errors.js";
import { routeWithSecret, toFailure } from "../../workflow/adapters/call.js";
import type { CredentialStore } from "../../workflow/adapters/credentials.js";
import { describeIssues } from "../shared/wire-fields.js";
import {
  apiCallRequest,
  cap,
  clip,
  createStrictActionClient,
  fetchAction,
  navigateRequest,
  pageText,
  previousArguments,
  recordUrl,
  toolOf,
} from "./actions.js";
import {
  actionSchema,
  AI_OLYMPICS_LIMITS,
  askTaskPrompt,
  BROWSER_TOOLS,
  buildTurnRequest,
  challengeRepliesOf,
  challengeTaskPrompt,
  doneArgsSchema,
  doneFindingSchema,
} from "./wire.js";
import {
  EXECUTED_TOOLS,
  initialPageState,
  signTurnRequest,
  turnReplySchema,
  unwrapResult,
  type ActionResultView,
  type PageState,
  type TurnRequest,
} from "./wire.js";

// This module's public surface from before the split: all of the wire format, and pageText.
export * from "./wire.js";
export { pageText } from "./actions.js";

export const AI_OLYMPICS_PROTOCOL = "ai-olympics";

export interface AiOlympicsAdapterConfig {
  /** Client for the webhook calls (the resolver's client; it may allow loopback in tests). */
  http: SafeHttpClient;
  /**
   * Client for the actions agents ask us to run. Keep its guard strict (no allowLoopback/allowPrivate)
   * in production. Default: a strict client created (and closed) per session. Never `http`.
   */
  actionHttp?: SafeHttpClient;
  /** Per-agent secrets (`hmacSecret`), keyed by agent id. */
  credentials?: CredentialStore;
  /** Turns of an ask session. Default 5. */
  maxTurns?: number;
  /** Turns of a challenge session. Default 3. */
  challengeMaxTurns?: number;
  /** Deadline of one webhook call. Default 30,000 ms (spec). */
  turnTimeoutMs?: number;
  /** Deadline of a whole session (all turns and actions). Default 150,000 ms. */
  sessionTimeoutMs?: number;
  /** Actions considered per turn; the rest are skipped. Default 10 (spec). */
  maxActionsPerTurn?: number;
  /** Deadline of one action. Default 10,000 ms. */
  actionTimeoutMs?: number;
  /** Time for all actions of one turn. Default 20,000 ms. */
  actionBudgetMs?: number;
  /** Size cap of one action's response. Default 256 KiB. */
  actionMaxBytes?: number;
  /** Size cap of a webhook reply. Default 1 MiB. */
  maxReplyBytes?: number;
  /** Clock for the request timestamps (Unix ms). Default Date.now. */
  now?: () => number;
}

/**
 * What `defaultAdapters` accepts for this protocol (additive to the CRE adapter's config): the shared
 * credential store and the adapter's own settings. The webhook client is the registry's `http`.
 */
export interface AiOlympicsDefaults {
  credentials?: CredentialStore;
  aiOlympics?: Omit<AiOlympicsAdapterConfig, "http" | "credentials">;
}

// ---------------------------------------------------------------------------------------------
// The session
// ---------------------------------------------------------------------------------------------

export interface ActionRecord {
  turn: number;
  index: number;
  tool: string;
  status: "executed" | "failed" | "skipped";
  method?: string;
  url?: string;
  reason?: string;
  bytes?: number;
  sha256?: string;
  title?: string;
  excerpt?: string;
}

export interface SessionLog {
  turns: number;
  thinking: { turn: number; text: string }[];
  actions: ActionRecord[];
  /** Actions not listed individually (over the listing cap), per turn. */
  unlisted: { turn: number; count: number; reason: string }[];
  turnErrors: { turn: number; kind: FailureKind; message: string }[];
}

type DoneCheck<T> = (result: unknown) => { ok: true; value: T } | { ok: false; message: string };

interface SessionOutcome<T> {
  result: CallResult<T>;
  log: SessionLog;
}

export function createAiOlympicsAdapter(config: AiOlympicsAdapterConfig): WorkerProtocolAdapter {
  const maxTurns = positive(config.maxTurns, 5);
  const challengeMaxTurns = positive(config.challengeMaxTurns, 3);
  const turnTimeoutMs = positive(config.turnTimeoutMs, 30_000);
  const sessionTimeoutMs = positive(config.sessionTimeoutMs, 150_000);
  const maxActions = positive(config.maxActionsPerTurn, 10);
  const actionTimeoutMs = positive(config.actionTimeoutMs, 10_000);
  const actionBudgetMs = positive(config.actionBudgetMs, 20_000);
  const actionMaxBytes = positive(config.actionMaxBytes, 256 * 1024);
  const maxReplyBytes = positive(config.maxReplyBytes, 1024 * 1024);
  const now = config.now ?? Date.now;

  async function session<T>(
    endpoint: WorkerEndpoint,
    seat: WorkerSeat,
    marketId: bigint,
    taskPrompt: string,
    turns: number,
    check: DoneCheck<T>,
  ): Promise<SessionOutcome<T>> {
    const log: SessionLog = { turns: 0, thinking: [], actions: [], unlisted: [], turnErrors: [] };
    const start = performance.now();
    const fail = (failure: WorkerFailure, attempts: number): SessionOutcome<T> => ({
      result: {
        ok: false,
        failure: { kind: failure.kind, message: cap(failure.message, 500) },
        latencyMs: Math.round(performance.now() - start),
        attempts,
      },
      log,
    });

    // Never called unsigned: no HMAC secret, no call.
    const route = routeWithSecret(config.credentials, seat, endpoint.url, (c) => c.hmacSecret, "HMAC secret");
    if ("failure" in route) return fail(route.failure, 0);
    const { url, secret } = route;

    const deadline = start + sessionTimeoutMs;
    const ownActionClient = config.actionHttp === undefined;
    let actionClient: SafeHttpClient | undefined = config.actionHttp;
    const actions = () => (actionClient ??= createStrictActionClient(actionMaxBytes));

    let pageState = initialPageState();
    let actionResults: ActionResultView[] = [];
    const previousActions: TurnRequest["previousActions"] = [];
    let lastTurnError: WorkerFailure | undefined;
    let lastDoneProblem: string | undefined;

    try {
      for (let turn = 1; turn <= turns; turn++) {
        const remaining = Math.floor(deadline - performance.now());
        if (remaining <= 0)
          return fail(
            {
              kind: "timeout",
              message: `session deadline of ${sessionTimeoutMs} ms passed after ${turn - 1} turns without a valid done`,
            },
            turn - 1,
          );
        log.turns = turn;
        const body = buildTurnRequest({
          timestamp: Math.floor(now()),
          agentId: seat.agentId,
          marketId,
          taskPrompt,
          pageState,
          previousActions: [...previousActions],
          turnNumber: turn,
          actionResults,
        });
        const { headers } = signTurnRequest(secret, body);
        let reply: unknown;
        try {
          // postJson serialises `body` with stringifyJson, exactly as signTurnRequest did: the signed bytes are the sent bytes.
          const res = await config.http.postJson(url, body, {
            timeoutMs: Math.min(turnTimeoutMs, remaining),
            headers,
            maxBytes: maxReplyBytes,
          });
          if (res.status !== 200) throw new HttpError("http-status", `webhook answered ${res.status}, not 200`);
          reply = res.body;
        } catch (error) {
          const failure = toFailure(error);
          if (failure.kind === "timeout" && turnTimeoutMs <= remaining)
            failure.message = `${failure.message} (turn deadline ${turnTimeoutMs} ms)`;
          // Spec: an unreachable webhook fails the agent. Auth refusals and refused destinations cannot improve either.
          if (
            failure.kind === "network" ||
            failure.kind === "auth" ||
            failure.kind === "destination-refused" ||
            failure.kind === "registration"
          ) {
            return fail(failure, turn);
          }
          // Spec: non-200, timeout, invalid JSON → the turn is skipped and the error logged.
          lastTurnError = failure;
          log.turnErrors.push({ turn, kind: failure.kind, message: cap(failure.message, 300) });
          pageState = { ...pageState, error: `turn ${turn} was skipped: ${cap(failure.message, 200)}` };
          actionResults = [];
          continue;
        }
        const parsed = turnReplySchema.safeParse(reply);
        if (!parsed.success) {
          lastTurnError = { kind: "invalid-response", message: describeIssues(`turn ${turn} reply`, parsed.error) };
          log.turnErrors.push({ turn, kind: lastTurnError.kind, message: cap(lastTurnError.message, 300) });
          pageState = { ...pageState, error: `turn ${turn} was skipped: ${cap(lastTurnError.message, 300)}` };
          actionResults = [];
          continue;
        }
        lastTurnError = undefined;
        const data = parsed.data;
        if (typeof data.thinking === "string" && data.thinking.trim() !== "") {
          log.thinking.push({ turn, text: cap(data.thinking, AI_OLYMPICS_LIMITS.maxThinkingChars) });
        }

        // First pass: the first `maxActions` entries are considered; a valid done among them ends the session.
        const considered = data.actions.slice(0, maxActions);
        const overflow = data.actions.length - considered.length;
        const parsedActions = considered.map((raw) => actionSchema.safeParse(raw));
        const problems: string[] = [];
        let done: { value: T } | undefined;
        let doneAt: number | undefined;
        let abstainedAt: number | undefined;
        for (const [i, a] of parsedActions.entries()) {
          if (done !== undefined) break;
          if (!a.success || a.data.tool !== "done") continue;
          const args = doneArgsSchema.safeParse(a.data.args);
          if (!args.success) continue;
          if (args.data.success === false) {
            abstainedAt = i;
            break;
          }
          const checked = check(unwrapResult(args.data.result));
          if (checked.ok) {
            done = { value: checked.value };
            doneAt = i;
          }
        }
        if (done === undefined && abstainedAt === undefined && data.done === true) {
          const checked = check(unwrapResult(data.result));
          if (checked.ok) done = { value: checked.value };
          else {
            lastDoneProblem = `top-level done: ${checked.message}`;
            problems.push(lastDoneProblem);
          }
        }

        const ended = done !== undefined || abstainedAt !== undefined;
        const results: ActionResultView[] = [];
        let lastPage: PageState | undefined;
        const actionDeadline = Math.min(performance.now() + actionBudgetMs, deadline);
        for (const [i, a] of parsedActions.entries()) {
          const toolName = a.success ? a.data.tool : toolOf(considered[i]);
          const skip = (reason: string) => {
            log.actions.push({ turn, index: i, tool: clip(toolName, 64), status: "skipped", reason: cap(reason, 300) });
            problems.push(`action ${i + 1} (${clip(toolName, 40)}) skipped: ${cap(reason, 200)}`);
          };
          if (!a.success) {
            skip(describeIssues("action", a.error));
            continue;
          }
          const tool = a.data.tool;
          if (tool === "done") {
            if (i === doneAt || i === abstainedAt) {
              log.actions.push({ turn, index: i, tool, status: "executed" });
              continue;
            }
            const args = doneArgsSchema.safeParse(a.data.args);
            const checked = args.success
              ? check(unwrapResult(args.data.result))
              : { ok: false as const, message: describeIssues("done args", args.error) };
            if (checked.ok) {
              skip("not executed: another done ended the turn");
              continue;
            }
            lastDoneProblem = `done result invalid: ${checked.message}`;
            skip(lastDoneProblem);
            continue;
          }
          if (ended) {
            skip("not executed: the turn ended with done");
            continue;
          }
          if (!(EXECUTED_TOOLS as readonly string[]).includes(tool)) {
            skip(
              (BROWSER_TOOLS as readonly string[]).includes(tool)
                ? `tool "${tool}" needs a browser; available: navigate, api_call, done`
                : `unknown tool "${clip(tool, 40)}"`,
            );
            continue;
          }
          const request = tool === "navigate" ? navigateRequest(a.data.args) : apiCallRequest(a.data.args);
          if (!request.ok) {
            skip(request.message);
            continue;
          }
          const left = Math.floor(actionDeadline - performance.now());
          if (left <= 0) {
            skip(`the turn's action time budget (${actionBudgetMs} ms) is used up`);
            continue;
          }
          previousActions.push({ name: tool, arguments: previousArguments(tool, request.value) });
          const shown = recordUrl(request.value.url);
          try {
            const raw = await fetchAction(actions(), request.value, {
              maxBytes: actionMaxBytes,
              timeoutMs: Math.min(actionTimeoutMs, left),
            });
            const page = pageText(raw);
            const title =
              page.title !== ""
                ? page.title
                : `${tool === "navigate" ? "navigate" : `api_call ${request.value.method}`} ${shown}`;
            log.actions.push({
              turn,
              index: i,
              tool,
              status: "executed",
              method: request.value.method,
              url: shown,
              bytes: Buffer.byteLength(raw),
              sha256: createHash("sha256").update(raw).digest("hex"),
              title: cap(title, 200),
              excerpt: cap(page.text, 300),
            });
            results.push({
              index: i,
              tool,
              method: request.value.method,
              url: shown,
              ok: true,
              title,
              content: cap(page.text, AI_OLYMPICS_LIMITS.maxActionResultChars),
            });
            lastPage = {
              url: shown,
              title,
              accessibilityTree: cap(page.text, AI_OLYMPICS_LIMITS.maxPageStateChars),
              error: null,
            };
          } catch (error) {
            const failure = toFailure(error);
            const message = `${failure.kind}: ${cap(failure.message, 250)}`;
            log.actions.push({
              turn,
              index: i,
              tool,
              status: "failed",
              method: request.value.method,
              url: shown,
              reason: message,
            });
            results.push({ index: i, tool, method: request.value.method, url: shown, ok: false, error: message });
            problems.push(`action ${i + 1} (${tool} ${shown}) failed: ${message}`);
          }
        }
        if (overflow > 0) {
          const reason = `over the limit of ${maxActions} actions per turn`;
          const listed = Math.min(overflow, AI_OLYMPICS_LIMITS.maxListedOverflow);
          for (let k = 0; k < listed; k++) {
            const i = maxActions + k;
            log.actions.push({ turn, index: i, tool: clip(toolOf(data.actions[i]), 64), status: "skipped", reason });
          }
          if (overflow > listed) log.unlisted.push({ turn, count: overflow - listed, reason });
          problems.push(`${overflow} action(s) skipped: ${reason}`);
        }

        if (abstainedAt !== undefined) {
          return fail(
            { kind: "abstained", message: `the agent finished with done success=false on turn ${turn}` },
            turn,
          );
        }
        if (done !== undefined) {
          return {
            result: { ok: true, value: done.value, latencyMs: Math.round(performance.now() - start), attempts: turn },
            log,
          };
        }
        const error = problems.length > 0 ? cap(problems.join("; "), 1_000) : null;
        pageState = lastPage !== undefined ? { ...lastPage, error } : { ...pageState, error };
        actionResults = results;
      }
      const failure: WorkerFailure =
        lastTurnError !== undefined
          ? {
              kind: lastTurnError.kind,
              message: `no valid done within ${turns} turns; the last turn was skipped: ${lastTurnError.message}`,
            }
          : {
              kind: "invalid-response",
              message: `no valid done within ${turns} turns${lastDoneProblem !== undefined ? ` (last problem: ${lastDoneProblem})` : ""}`,
            };
      return fail(failure, turns);
    } catch (error) {
      // A bug on our side must not take the pipeline down (toFailure says so without details).
      return fail(toFailure(error), log.turns);
    } finally {
      if (ownActionClient && actionClient !== undefined) await actionClient.close().catch(() => undefined);
    }
  }

  return {
    protocol: AI_OLYMPICS_PROTOCOL,

    async ask(endpoint, seat, request): Promise<CallResult<WorkerAnswer>> {
      const { result, log } = await session(
        endpoint,
        seat,
        request.marketId,
        askTaskPrompt(request, maxTurns),
        maxTurns,
        (raw) => {
          const parsed = doneFindingSchema.safeParse(raw);
          return parsed.success
            ? { ok: true, value: parsed.data }
            : { ok: false, message: describeIssues("done result", parsed.error) };
        },
      );
      if (!result.ok) return result;
      const f = result.value;
      const answer: WorkerAnswer = {
        determination: f.determination,
        confidence: f.confidence,
        evidence: f.evidence,
        sources: f.sources,
        extras: { protocol: AI_OLYMPICS_PROTOCOL, ...log },
      };
      return { ...result, value: answer };
    },

    async challenge(endpoint, seat, request): Promise<CallResult<string[]>> {
      if (request.challenges.length === 0) return { ok: true, value: [], latencyMs: 0, attempts: 0 };
      // Spec-only agents finish with any result (a text, say): challengeRepliesOf reads replies from it.
      const { result } = await session(
        endpoint,
        seat,
        request.ask.marketId,
        challengeTaskPrompt(request, challengeMaxTurns),
        challengeMaxTurns,
        (raw) => challengeRepliesOf(raw, request.challenges.length),
      );
      if (!result.ok) return result;
      // Fewer replies than challenges are recorded as they are (lower Collaboration); extra ones are dropped.
      return { ...result, value: result.value.slice(0, request.challenges.length) };
    },
  };
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? Math.floor(value) : fallback;
}
