/**
 * The light read path (cli/shared/json-rpc.ts, cli/commands/market-list.ts) against loopback JSON-RPC servers:
 * batches answered in any order, endpoints that do not batch, transient failures retried, errors in one line, a
 * hung endpoint named with its method within the deadline; and the built bin's `market list` loading neither viem,
 * zod, an ABI coder nor fetch's undici (what keeps it near `--version`, bench/cli-startup.ts).
 */
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { JsonRpcClient } from "../../../cli/shared/json-rpc.js";
import { ChainError } from "../../../workflow/chain/chain-error.js";
import { builtBinProblem, NODE, REPO } from "./helpers/processes.js";

type Handler = (body: unknown, res: ServerResponse) => void;
const servers: Server[] = [];

async function serve(handler: Handler): Promise<{ url: string; bodies: unknown[] }> {
  const bodies: unknown[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let text = "";
    req.on("data", (c: Buffer) => (text += c.toString("utf8")));
    req.on("end", () => {
      const body: unknown = JSON.parse(text);
      bodies.push(body);
      handler(body, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

interface Request {
  id: number;
  method: string;
  params: unknown[];
}
const reply = (res: ServerResponse, payload: unknown) =>
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(payload));
const answer = (r: Request) => ({ jsonrpc: "2.0", id: r.id, result: `0x${(r.params.length + 1).toString(16)}` });

describe("JsonRpcClient", () => {
  it("a batch answered out of order comes back in call order", async () => {
    const { url, bodies } = await serve((body, res) => reply(res, [...(body as Request[])].reverse().map(answer)));
    const client = new JsonRpcClient(url, 5_000);
    const calls = [
      { method: "a", params: [] },
      { method: "b", params: [1] },
      { method: "c", params: [1, 2] },
    ];
    expect(await client.batch(calls)).toEqual(["0x1", "0x2", "0x3"]);
    expect(bodies).toHaveLength(1);
  });

  it("an endpoint that answers a batch with one error gets the calls one by one from then on", async () => {
    const { url, bodies } = await serve((body, res) =>
      Array.isArray(body)
        ? reply(res, { jsonrpc: "2.0", id: null, error: { code: -32600, message: "batches are not supported" } })
        : reply(res, answer(body as Request)),
    );
    const client = new JsonRpcClient(url, 5_000);
    const calls = [
      { method: "a", params: [] },
      { method: "b", params: [1] },
    ];
    expect(await client.batch(calls)).toEqual(["0x1", "0x2"]);
    expect(await client.batch(calls)).toEqual(["0x1", "0x2"]);
    expect(bodies.map((b) => Array.isArray(b))).toEqual([true, false, false, false, false]);
  });

  it("HTTP 503 and a rate-limit error are retried; a revert is not", async () => {
    let n = 0;
    const { url, bodies } = await serve((body, res) => {
      n++;
      if (n === 1) res.writeHead(503).end("busy");
      else if (n === 2)
        reply(res, { jsonrpc: "2.0", id: (body as Request).id, error: { code: -32005, message: "slow down" } });
      else if ((body as Request).method === "eth_call")
        reply(res, { jsonrpc: "2.0", id: (body as Request).id, error: { code: 3, message: "execution reverted" } });
      else reply(res, answer(body as Request));
    });
    const client = new JsonRpcClient(url, 10_000);
    expect(await client.request("eth_blockNumber")).toBe("0x1");
    expect(bodies).toHaveLength(3);
    const reverted = await client.request("eth_call", [{}, "latest"]).catch((e: unknown) => e);
    expect(reverted).toBeInstanceOf(ChainError);
    expect(reverted).toMatchObject({ kind: "revert", message: "eth_call: execution reverted" });
    expect(bodies).toHaveLength(4);
  });

  it("a hung endpoint is named with the method it waited on, within the deadline", async () => {
    const held: ServerResponse[] = [];
    const { url } = await serve((_body, res) => held.push(res));
    const client = new JsonRpcClient(url, 1_000);
    const started = performance.now();
    const error = await client.chainId().catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(error).toBeInstanceOf(ChainError);
    expect((error as ChainError).message).toMatch(
      new RegExp(
        `^cannot reach the RPC endpoint: no answer from the RPC endpoint ${url}/? to eth_chainId within 1 s \\(--rpc-timeout\\)$`,
      ),
    );
    for (const res of held) res.end();
  });

  it("malformed answers are refused in one line", async () => {
    const { url } = await serve((body, res) => {
      const r = body as Request;
      if (r.method === "eth_blockNumber") reply(res, { jsonrpc: "2.0", id: r.id, result: "twelve" });
      else if (r.method === "eth_call") reply(res, { jsonrpc: "2.0", id: r.id, result: "0x" });
      else res.writeHead(200).end("<html>");
    });
    const client = new JsonRpcClient(url, 5_000);
    await expect(client.request("web3_clientVersion")).rejects.toThrow(
      /^cannot reach the RPC endpoint: the RPC endpoint .* answered something that is not JSON$/,
    );
    await expect(client.blockNumber()).rejects.toThrow(
      "the RPC endpoint answered eth_blockNumber with a malformed number",
    );
    await expect(client.calls(`0x${"11".repeat(20)}`, ["0x01"], 1n)).rejects.toThrow(
      `no contract at 0x${"11".repeat(20)} (eth_call returned nothing)`,
    );
  });
});

describe("market list on the built bin", () => {
  it("loads neither viem, zod nor undici (subprocess; loads recorded by a module hook)", async () => {
    expect(builtBinProblem()).toBeNull();
    const { url } = await serve((body, res) => {
      const r = body as Request;
      // eth_blockNumber → 1; eth_call (marketCount) → 0 markets.
      reply(res, { jsonrpc: "2.0", id: r.id, result: r.method === "eth_call" ? `0x${"0".repeat(64)}` : "0x1" });
    });
    const hooks = `export async function resolve(s, c, next) { const r = await next(s, c); process._rawDebug("LOADED " + r.url); return r; }`;
    const preload = [
      `import { register } from "node:module";`,
      `register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`,
      `process.on("exit", () => process._rawDebug("BUILTINS " + process.moduleLoadList.join(",")));`,
    ].join("\n");
    const market = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0";
    const child = spawn(
      NODE,
      [
        "--import",
        `data:text/javascript,${encodeURIComponent(preload)}`,
        "bin/cresolver.mjs",
        "--market",
        market,
        "market",
        "list",
      ],
      { cwd: REPO, stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "", RPC_URL: url } },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise((r) => child.on("close", r));
    expect({ code, stdout }).toEqual({ code: 0, stdout: `no markets at ${market}\n` });
    const loaded = stderr.split("\n").filter((l) => l.startsWith("LOADED "));
    expect(loaded.some((l) => l.includes("/dist/cli/commands/market-list.js"))).toBe(true);
    expect(loaded.filter((l) => /\/node_modules\/(viem|zod|abitype)\//.test(l))).toEqual([]);
    // No ABI coder (cli/shared/market-abi.ts codes the two calls) and not the generated ABIs.
    expect(loaded.filter((l) => /\/ox\/.*\/Abi[A-Za-z]*\.js|\/workflow\/chain\/abis\.js/.test(l))).toEqual([]);
    expect(loaded.filter((l) => /\/dist\/cli\/commands\/market\.js/.test(l))).toEqual([]);
    const builtins = stderr.split("\n").find((l) => l.startsWith("BUILTINS ")) ?? "";
    expect(builtins).toMatch(/internal\/modules/);
    expect(builtins).not.toMatch(/undici/);
  }, 60_000);
});
