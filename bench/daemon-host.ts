/**
 * Hosts the production daemon (`startResolverDaemon`) for bench/daemon.ts, either in the bench's own process
 * or in a forked Node process (this file is also the child's entry point), behind one interface:
 * start(config) → wait(ids) (rows of the finished jobs, read from the daemon's SQLite store) → stop().
 * The child keeps running between daemons, so its JIT stays warm like a long-running daemon's.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { keccak256, stringToBytes, type Address, type Hex } from "viem";
import { startResolverDaemon, type ResolverDaemonHandle } from "../daemon/host.js";
import { createLogger } from "../daemon/index.js";

export interface HostedDaemonConfig {
  rpcUrl: string;
  privateKey: Hex;
  market: Address;
  startBlock: number;
  dbPath: string;
  pollIntervalMs: number;
  concurrency: number;
}

export interface JobTimes {
  marketId: string;
  state: string;
  attempts: number;
  /** Date.now() of the job's (last) running claim. */
  startedAt: number;
  /** Date.now() of its terminal state (after the resolveMarket receipt for `written`). */
  finishedAt: number;
  /** keccak256 of the latest stored bundle. */
  bundleHash: string | null;
}

export interface DaemonHost {
  readonly where: "in-process" | "child-process";
  start(config: HostedDaemonConfig): Promise<void>;
  /** Resolves once every id has a terminal job. */
  wait(ids: bigint[], timeoutMs: number): Promise<JobTimes[]>;
  /** The daemon's agent-call latency histogram (GET /metrics), protocol cresolver. */
  agentCalls(): Promise<{ calls: number; meanMs: number } | undefined>;
  stop(): Promise<void>;
  /** Ends the child process (no-op in process). */
  dispose(): Promise<void>;
}

/** Where the bench stops the clock: the proposal is on chain (its window then runs for a day). */
const TERMINAL = ["proposed", "proposed-elsewhere", "finalized", "already-settled", "failed"] as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The in-process implementation; the child runs the same one behind IPC. */
export function inProcessHost(): DaemonHost {
  let d: ResolverDaemonHandle | undefined;
  let market: Address;
  const logger = createLogger({
    level: process.env.DAEMON_TEST_LOG ?? "silent",
    pretty: false,
    destination: process.stderr,
  });
  return {
    where: "in-process",
    async start(c) {
      market = c.market;
      d = await startResolverDaemon({
        rpcUrl: c.rpcUrl,
        privateKey: c.privateKey,
        markets: [c.market],
        startBlock: c.startBlock,
        dbPath: c.dbPath,
        apiHost: "127.0.0.1",
        apiPort: 0,
        confirmations: 0,
        pollIntervalMs: c.pollIntervalMs,
        concurrency: c.concurrency,
        maxAttempts: 2,
        backoffMs: 20,
        maxBackoffMs: 100,
        shutdownGraceMs: 2_000,
        http: { allowLoopback: true },
        resolveTimeoutMs: 5_000,
        challengeTimeoutMs: 5_000,
        logger,
      });
    },
    async wait(ids, timeoutMs) {
      const daemon = d!;
      const deadline = Date.now() + timeoutMs;
      // One cheap query per poll (each daemon has its own database: every job in it is ours).
      for (;;) {
        const counts = daemon.store.countByState();
        if (TERMINAL.reduce((n, s) => n + counts[s], 0) >= ids.length) {
          const rows = ids.map((id) => daemon.store.getJob({ chainId: daemon.chainId, market, marketId: id }));
          if (rows.every((r) => r !== undefined && (TERMINAL as readonly string[]).includes(r.state))) {
            return rows.map((r) => {
              const b = daemon.store.bundles(r!.id).at(-1);
              return {
                marketId: r!.marketId.toString(10),
                state: r!.state,
                attempts: r!.attempts,
                startedAt: r!.startedAt!,
                finishedAt: r!.finishedAt ?? r!.updatedAt,
                bundleHash: b ? keccak256(stringToBytes(b.json)) : null,
              };
            });
          }
        }
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${ids.length} jobs`);
        await sleep(10);
      }
    },
    async agentCalls() {
      const text = await (await fetch(`${d!.url}/metrics`)).text();
      const sum = /cresolver_agent_call_latency_seconds_sum\{[^}]*protocol="cresolver"[^}]*\} ([0-9.e+-]+)/.exec(text);
      const count = /cresolver_agent_call_latency_seconds_count\{[^}]*protocol="cresolver"[^}]*\} (\d+)/.exec(text);
      if (!sum || !count) return undefined;
      const n = Number(count[1]);
      return { calls: n, meanMs: Math.round((Number(sum[1]) / n) * 1000 * 10) / 10 };
    },
    async stop() {
      await d?.close();
      d = undefined;
    },
    async dispose() {},
  };
}

type Request = { seq: number } & (
  | { op: "start"; config: HostedDaemonConfig }
  | { op: "wait"; ids: string[]; timeoutMs: number }
  | { op: "agentCalls" }
  | { op: "stop" }
);
type Reply = { seq: number; ok: true; value?: unknown } | { seq: number; ok: false; error: string };

/** The daemon in a forked Node process (same Node binary, tsx loader), driven over IPC. */
export async function childProcessHost(): Promise<DaemonHost> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ["--no-warnings", "--import", "tsx"],
    env: { ...process.env, BENCH_DAEMON_CHILD: "1" },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let seq = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  child.on("message", (m: Reply) => {
    const p = pending.get(m.seq);
    if (!p) return;
    pending.delete(m.seq);
    if (m.ok) p.resolve(m.value);
    else p.reject(new Error(`daemon child: ${m.error}`));
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.once("exit", (code, signal) => {
    for (const p of pending.values()) p.reject(new Error(`daemon child exited (${code ?? signal})`));
    pending.clear();
  });
  const call = (req: Record<string, unknown>): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const s = ++seq;
      pending.set(s, { resolve, reject });
      child.send({ ...req, seq: s });
    });
  return {
    where: "child-process",
    start: async (config) => void (await call({ op: "start", config })),
    wait: async (ids, timeoutMs) => (await call({ op: "wait", ids: ids.map(String), timeoutMs })) as JobTimes[],
    agentCalls: async () => (await call({ op: "agentCalls" })) as { calls: number; meanMs: number } | undefined,
    stop: async () => void (await call({ op: "stop" })),
    async dispose() {
      child.disconnect();
      await exited;
    },
  };
}

if (process.env.BENCH_DAEMON_CHILD === "1" && process.send) {
  const host = inProcessHost();
  process.on("message", (m: Request) => {
    void (async () => {
      try {
        let value: unknown;
        if (m.op === "start") await host.start(m.config);
        else if (m.op === "wait") value = await host.wait(m.ids.map(BigInt), m.timeoutMs);
        else if (m.op === "agentCalls") value = await host.agentCalls();
        else if (m.op === "stop") await host.stop();
        process.send!({ seq: m.seq, ok: true, value } satisfies Reply);
      } catch (err) {
        process.send!({
          seq: m.seq,
          ok: false,
          error: err instanceof Error ? err.message : String(err),
        } satisfies Reply);
      }
    })();
  });
  process.on("disconnect", () => {
    void host.stop().finally(() => process.exit(0));
  });
}
