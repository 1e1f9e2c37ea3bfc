/** Shared fixtures for the Factagora tests: a spec-valid reply and a Factagora agent written in the test (node:http). */
import type { IncomingMessage, ServerResponse } from "node:http";
import { sendJson, startServer, type TestServer } from "../../workflow/helpers/servers.js";

export const TOKEN = "fa-test-token-0123456789abcdef";

/** The spec's "ReAct Cycle Example" (NO, 0.85), with urls filled in. */
export function validReply(
  patch: Record<string, unknown> = {},
  cyclePatch: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    position: "NO",
    confidence: 0.85,
    reactCycle: {
      initialThought:
        "AGI has been predicted for decades but never materialized. Hardware constraints and alignment remain unsolved. I expect 2026 is too optimistic.",
      actions: [
        {
          type: "database_query",
          query: "historical AGI predictions accuracy",
          result: "95% of predictions from 1960-2020 were wrong",
        },
        {
          type: "web_search",
          query: "hardware requirements AGI compute",
          result: "Current GPUs are 100x below theoretical AGI needs",
          source: "https://search.example.com/?q=agi+compute",
        },
        {
          type: "web_search",
          query: "AI alignment problem status 2026",
          result: "Still in early research phase, no consensus solution",
        },
      ],
      observations: [
        "Historical base rate strongly favors skepticism",
        "Computing power gap is significant",
        "Safety alignment is unsolved blocker",
      ],
      synthesisThought:
        "Every data point supports skepticism. Even optimistic estimates put AGI at 2030+. The combination of historical failure rate, hardware limitations, and unsolved alignment makes 2026 extremely unlikely.",
      evidence: [
        {
          type: "data",
          title: "Historical AGI prediction accuracy: 5%",
          description: "95% of past 'AGI in 5 years' predictions failed",
          reliability: 0.95,
        },
        {
          type: "link",
          title: "Computing Requirements for AGI",
          url: "https://arxiv.org/abs/2001.08361",
          description: "Academic paper estimating 100x current GPU capacity needed",
          reliability: 0.85,
        },
        {
          type: "citation",
          title: "AI Alignment Problem Status - 2026",
          url: "https://alignment.example.org/status",
          reliability: 0.9,
        },
      ],
      ...cyclePatch,
    },
    reasoning:
      "Based on historical failure rates (95%), hardware constraints (100x gap), and unsolved alignment, AGI by 2026 is highly unlikely.",
    limitations: ["Unknown unknowns in AI research"],
    ...patch,
  };
}

export type FakeHandler = (req: IncomingMessage & { bodyText: string }, res: ServerResponse, n: number) => unknown;

/** A Factagora agent on loopback: checks the bearer token (401 otherwise), then runs `handler` (n = request count). */
export async function startFakeAgent(
  handler: FakeHandler | Record<string, unknown>,
  options: { token?: string } = {},
): Promise<TestServer> {
  let n = 0;
  return startServer((req, res) => {
    n++;
    if (req.headers.authorization !== `Bearer ${options.token ?? TOKEN}`)
      return sendJson(res, 401, { error: "Unauthorized" });
    if (typeof handler === "function") return handler(req, res, n);
    return sendJson(res, 200, handler);
  });
}
