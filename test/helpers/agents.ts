/** Test helpers: real agents on loopback, real HTTP. */
import {
  createReferenceAgent,
  type ReferenceAgent,
  type ReferenceAgentOptions,
} from "../../agents/reference/server.js";

export interface Running {
  agent: ReferenceAgent;
  url: string;
}

const running = new Set<ReferenceAgent>();

export async function startAgent(options: ReferenceAgentOptions = {}): Promise<Running> {
  const agent = createReferenceAgent(options);
  const url = await agent.start({ host: "127.0.0.1", port: 0 });
  running.add(agent);
  return { agent, url };
}

export async function stopAgent(agent: ReferenceAgent): Promise<void> {
  running.delete(agent);
  await agent.close();
}

/** Closes every agent started through startAgent (use in afterEach/afterAll). */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((a) => stopAgent(a)));
}

export interface HttpResult {
  status: number;
  contentType: string;
  text: string;
  json: any;
}

async function toResult(res: Response): Promise<HttpResult> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, contentType: res.headers.get("content-type") ?? "", text, json };
}

/** POSTs a JSON value (or a raw string body when `raw` is given). */
export async function post(
  base: string,
  path: string,
  body: unknown,
  init: { raw?: string; contentType?: string } = {},
): Promise<HttpResult> {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": init.contentType ?? "application/json" },
    body: init.raw ?? JSON.stringify(body),
  });
  return toResult(res);
}

export async function get(base: string, path: string): Promise<HttpResult> {
  return toResult(await fetch(`${base}${path}`));
}
