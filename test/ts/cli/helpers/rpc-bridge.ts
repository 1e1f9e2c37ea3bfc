/**
 * A loopback JSON-RPC HTTP server in front of an EIP-1193 provider (Hardhat's in-process chain),
 * with fault injection: drop the connection before forwarding (`dropBefore`), after forwarding
 * (`dropAfter`: the node did the work, the client never hears), or answer 503.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

type Provider = { request(args: { method: string; params?: unknown[] }): Promise<unknown> };
export type Fault = "dropBefore" | "dropAfter" | "503";

export interface RpcBridge {
  url: string;
  /** Every method received, in order (including dropped ones). */
  methods: string[];
  /** Queue faults for the next requests whose method matches (`*` = any). */
  inject(method: string, ...faults: Fault[]): void;
  close(): Promise<void>;
}

interface JsonRpcRequest {
  id: unknown;
  method: string;
  params?: unknown[];
}

const hexBigints = (_k: string, v: unknown) => (typeof v === "bigint" ? `0x${v.toString(16)}` : v);

export async function startRpcBridge(provider: Provider): Promise<RpcBridge> {
  const methods: string[] = [];
  const answer = async (body: JsonRpcRequest): Promise<unknown> => {
    try {
      return {
        jsonrpc: "2.0",
        id: body.id,
        result: await provider.request({ method: body.method, params: body.params ?? [] }),
      };
    } catch (e) {
      const err = e as { code?: number; message?: string; data?: unknown };
      return {
        jsonrpc: "2.0",
        id: body.id,
        error: {
          code: err.code ?? -32603,
          message: err.message ?? "error",
          ...(err.data !== undefined ? { data: err.data } : {}),
        },
      };
    }
  };
  const faults: { method: string; fault: Fault }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8")) as JsonRpcRequest | JsonRpcRequest[];
        if (Array.isArray(parsed)) {
          // A batch (the CLI's light reads): each call answered in turn, no faults.
          const replies = [];
          for (const call of parsed) {
            methods.push(call.method);
            replies.push(await answer(call));
          }
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(replies, hexBigints));
          return;
        }
        const body = parsed;
        methods.push(body.method);
        const i = faults.findIndex((f) => f.method === "*" || f.method === body.method);
        const fault = i >= 0 ? faults.splice(i, 1)[0].fault : undefined;
        if (fault === "dropBefore") {
          req.socket.destroy();
          return;
        }
        if (fault === "503") {
          res.writeHead(503).end("busy");
          return;
        }
        const payload = await answer(body);
        if (fault === "dropAfter") {
          req.socket.destroy();
          return;
        }
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(payload, hexBigints));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    methods,
    inject(method, ...list) {
      for (const fault of list) faults.push({ method, fault });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
