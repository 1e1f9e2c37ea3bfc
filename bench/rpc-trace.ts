/**
 * Opt-in diagnostic for bench/daemon.ts (BENCH_RPC_TRACE=1): a loopback JSON-RPC proxy in front of the chain
 * that times every request the daemon makes, by method (batches count each call). It adds a hop, so runs
 * with it are not the headline figures.
 */
import { createServer, type Server } from "node:http";

export interface MethodStats {
  calls: number;
  totalMs: number;
  maxMs: number;
}

export interface RpcTrace {
  url: string;
  /** Snapshot and reset. */
  take(): Record<string, MethodStats>;
  close(): Promise<void>;
}

interface Call {
  method?: string;
  params?: unknown[];
}

/** eth_call / eth_estimateGas are split by function (`names`: 4-byte selector → name). */
let names: Record<string, string> = {};
function label(c: Call): string {
  const m = String(c.method);
  if (m !== "eth_call" && m !== "eth_estimateGas") return m;
  const tx = c.params?.[0] as { data?: string; input?: string } | undefined;
  const sel = (tx?.data ?? tx?.input ?? "").slice(0, 10);
  return `${m} ${names[sel] ?? sel}`;
}

export async function startRpcTrace(target: string, selectorNames: Record<string, string> = {}): Promise<RpcTrace> {
  names = selectorNames;
  let byMethod = new Map<string, MethodStats>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        let methods: string[] = [];
        try {
          const parsed = JSON.parse(body.toString("utf8")) as Call | Call[];
          methods = (Array.isArray(parsed) ? parsed : [parsed]).map(label);
        } catch {
          methods = ["(unparsed)"];
        }
        const t0 = performance.now();
        try {
          const r = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body });
          const text = await r.text();
          const ms = performance.now() - t0;
          for (const m of methods) {
            const s = byMethod.get(m) ?? { calls: 0, totalMs: 0, maxMs: 0 };
            s.calls++;
            s.totalMs += ms;
            s.maxMs = Math.max(s.maxMs, ms);
            byMethod.set(m, s);
          }
          res.writeHead(r.status, { "content-type": "application/json" }).end(text);
        } catch (err) {
          res.writeHead(502).end(String(err));
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    take() {
      const out = Object.fromEntries(
        [...byMethod.entries()]
          .sort((a, b) => b[1].totalMs - a[1].totalMs)
          .map(([m, s]) => [m, { calls: s.calls, totalMs: Math.round(s.totalMs), maxMs: Math.round(s.maxMs) }]),
      );
      byMethod = new Map();
      return out;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
