/**
 * A stand-in for an OpenAI-compatible endpoint, on loopback: node:http, POST /v1/chat/completions.
 * Each test sets `reply` to decide what the "model" says; every request is recorded.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  body: any;
}

/** What the stand-in answers: a message content string (wrapped in a completion), or a raw HTTP reply. */
export type StandInReply = { content: string; finishReason?: string } | { status: number; json: unknown };

export interface StandIn {
  baseURL: string;
  requests: RecordedRequest[];
  reply: (req: RecordedRequest) => StandInReply;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

export function completion(content: string, finishReason = "stop") {
  return {
    id: "chatcmpl-standin",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "standin-model",
    system_fingerprint: "fp_standin",
    choices: [
      { index: 0, message: { role: "assistant", content, refusal: null }, logprobs: null, finish_reason: finishReason },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
  };
}

export async function startStandIn(): Promise<StandIn> {
  const state: StandIn = {
    baseURL: "",
    requests: [],
    reply: () => ({ status: 500, json: { error: { message: "no reply configured" } } }),
    close: async () => undefined,
  };
  const server: Server = createServer(async (req, res) => {
    const text = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    const recorded: RecordedRequest = {
      method: req.method ?? "",
      url: req.url ?? "",
      authorization: req.headers.authorization,
      body,
    };
    state.requests.push(recorded);
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: "not found" } }));
      return;
    }
    const r = state.reply(recorded);
    if ("content" in r) {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify(completion(r.content, r.finishReason)));
    } else {
      res.writeHead(r.status, { "content-type": "application/json" }).end(JSON.stringify(r.json));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  state.baseURL = `http://127.0.0.1:${port}/v1`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
