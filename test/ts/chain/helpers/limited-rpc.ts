/**
 * A loopback JSON-RPC server in front of an EIP-1193 provider (Hardhat's in-process chain) that enforces a
 * provider's eth_getLogs limits: at most `maxResults` logs per answer (Infura's -32005 "query returned more than
 * 10000 results. Try with this block range [a, b].") and at most `maxRange` blocks per query ("exceed maximum
 * block range: N"). Counts every request by method, and the eth_getLogs ranges asked.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

type Provider = { request(args: { method: string; params?: unknown[] }): Promise<unknown> };

export interface LimitedRpc {
  url: string;
  /** Requests received, by method. */
  counts: Map<string, number>;
  /** Every eth_getLogs range asked, in order, and whether it was refused. */
  getLogs: { from: bigint; to: bigint; refused: boolean }[];
  reset(): void;
  close(): Promise<void>;
}

export interface Limits {
  /** Results per eth_getLogs (default 10,000). */
  maxResults?: number;
  /** Blocks per eth_getLogs (default unlimited). */
  maxRange?: number;
}

type Req = { id: unknown; method: string; params?: unknown[] };
type LogJson = { blockNumber: string };

export async function startLimitedRpc(provider: Provider, limits: Limits = {}): Promise<LimitedRpc> {
  const maxResults = limits.maxResults ?? 10_000;
  const counts = new Map<string, number>();
  const getLogs: LimitedRpc["getLogs"] = [];

  const answer = async (body: Req): Promise<unknown> => {
    counts.set(body.method, (counts.get(body.method) ?? 0) + 1);
    const params = body.params ?? [];
    if (body.method !== "eth_getLogs") return provider.request({ method: body.method, params });
    const filter = params[0] as { fromBlock?: string; toBlock?: string };
    const latest = BigInt((await provider.request({ method: "eth_blockNumber" })) as string);
    const from = filter.fromBlock === undefined || filter.fromBlock === "latest" ? latest : BigInt(filter.fromBlock);
    const to = filter.toBlock === undefined || filter.toBlock === "latest" ? latest : BigInt(filter.toBlock);
    if (limits.maxRange !== undefined && to - from + 1n > BigInt(limits.maxRange)) {
      getLogs.push({ from, to, refused: true });
      throw { code: -32600, message: `exceed maximum block range: ${limits.maxRange}` };
    }
    const logs = (await provider.request({ method: "eth_getLogs", params })) as LogJson[];
    if (logs.length > maxResults) {
      getLogs.push({ from, to, refused: true });
      // Infura's suggestion: the range up to the block before the one holding the (cap+1)-th result.
      const over = BigInt(logs[maxResults].blockNumber);
      const end = over > from ? over - 1n : from;
      throw {
        code: -32005,
        message: `query returned more than ${maxResults} results. Try with this block range [0x${from.toString(16)}, 0x${end.toString(16)}].`,
      };
    }
    getLogs.push({ from, to, refused: false });
    return logs;
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Req | Req[];
        const one = async (body: Req) => {
          try {
            return { jsonrpc: "2.0", id: body.id, result: await answer(body) };
          } catch (e) {
            const err = e as { code?: number; message?: string; data?: unknown };
            return {
              jsonrpc: "2.0",
              id: body.id,
              error: {
                code: err.code ?? -32603,
                message: err.message ?? "error",
                ...(err.data ? { data: err.data } : {}),
              },
            };
          }
        };
        const payload = Array.isArray(parsed) ? await Promise.all(parsed.map(one)) : await one(parsed);
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(payload));
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    getLogs,
    reset() {
      counts.clear();
      getLogs.length = 0;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
