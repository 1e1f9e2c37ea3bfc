/** Shared pieces of the AI Olympics tests: real servers on loopback, no function mocks. */
import type { IncomingMessage } from "node:http";
import { anyOriginStore } from "../../workflow/helpers/credentials.js";
import { verifyBodySignature, SIGNATURE_HEADER } from "../../../../protocols/ai-olympics/signing.js";
import type { AskRequest, ChallengeRequest, WorkerSeat } from "../../../../workflow/core/types.js";
import { sendJson, startServer, type TestServer } from "../../workflow/helpers/servers.js";

export const SECRET = "test-webhook-secret-0123456789";
export const seat: WorkerSeat = { address: "0x0000000000000000000000000000000000000007", agentId: 7n, stake: 1n };
export const credentials = anyOriginStore({ "7": { hmacSecret: SECRET } });
export const request: AskRequest = {
  marketId: 42n,
  question: "Will the city's population exceed 2 million by the end of 2026?",
  deadline: 1_900_000_000,
  context: "official census data",
};

export function challengeRequest(): ChallengeRequest {
  return {
    ask: request,
    challenges: ["What would make you change your answer?", "Which of your sources is weakest?"],
    own: {
      determination: true,
      confidence: 0.7,
      evidence: "Census trend supports growth.",
      sources: ["https://census.example.org"],
    },
    peers: [
      { determination: false, confidence: 0.6, evidence: "Growth has slowed.", sources: ["https://news.example.com"] },
    ],
  };
}

export function finding(determination: unknown = "YES", extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    determination,
    confidence: 0.8,
    evidence:
      "The census bureau's latest estimate is above the threshold and independent estimates agree; the main risk is a revision.",
    sources: ["https://census.example.org/estimate"],
    ...extra,
  };
}

export const doneAction = (result: unknown, success = true) => ({ tool: "done", args: { success, result } });

export interface Turn {
  body: Record<string, any>;
  signatureValid: boolean;
}

/**
 * A scripted webhook agent: `script(turn, body)` returns the reply object (sent as JSON) or a raw handler
 * result. Records every turn with whether its signature was valid for SECRET.
 */
export async function startScriptedAgent(
  script: (turn: Turn, req: IncomingMessage & { bodyText: string }, res: import("node:http").ServerResponse) => unknown,
): Promise<TestServer & { turns: Turn[] }> {
  const turns: Turn[] = [];
  const server = await startServer(async (req, res) => {
    const turn: Turn = {
      body: JSON.parse(req.bodyText),
      signatureValid: verifyBodySignature(SECRET, req.bodyText, req.headers[SIGNATURE_HEADER] as string | undefined),
    };
    turns.push(turn);
    const reply = await script(turn, req, res);
    if (reply !== undefined && !res.headersSent) sendJson(res, 200, reply);
  });
  return Object.assign(server, { turns });
}
