/**
 * Prometheus metrics of one daemon, in their own registry (several daemons can live in one process).
 * `recordAgentCall` is the hook the pipeline calls for every outbound worker call.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { JobState } from "./store.js";

/** Distinct protocol label values kept before folding into "other" (protocol names come from untrusted registration files). */
const MAX_PROTOCOL_LABELS = 32;

export interface DaemonMetrics {
  readonly registry: Registry;
  /** Worker call by protocol: latency in ms, ok = usable answer. */
  recordAgentCall(protocol: string, latencyMs: number, ok: boolean): void;
  recordRpcError(operation: string): void;
  recordRun(outcome: string, seconds: number): void;
  recordJobStartDelay(seconds: number): void;
  /** Sets the source of the jobs-by-state gauge (read on every scrape). */
  setJobCounts(fn: () => Record<JobState, number> | undefined): void;
  setChainStatus(
    fn: () => {
      head?: number | undefined;
      markets: { market: string; lastProcessedBlock?: number | undefined; lag?: number | undefined }[];
    },
  ): void;
}

export function createMetrics(): DaemonMetrics {
  const registry = new Registry();
  let jobCounts: () => Record<JobState, number> | undefined = () => undefined;
  let chainStatus: () => {
    head?: number | undefined;
    markets: { market: string; lastProcessedBlock?: number | undefined; lag?: number | undefined }[];
  } = () => ({ markets: [] });

  new Gauge({
    name: "cresolver_daemon_jobs",
    help: "Resolution jobs by state",
    labelNames: ["state"],
    registers: [registry],
    collect() {
      const counts = jobCounts();
      this.reset();
      if (!counts) return;
      for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
    },
  });
  const runs = new Histogram({
    name: "cresolver_daemon_job_run_duration_seconds",
    help: "Duration of one pipeline run (or chain step) by outcome",
    labelNames: ["outcome"],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [registry],
  });
  const startDelay = new Histogram({
    name: "cresolver_daemon_job_start_delay_seconds",
    help: "Time from a job being due to its run starting",
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const agentLatency = new Histogram({
    name: "cresolver_agent_call_latency_seconds",
    help: "Latency of outbound worker-agent calls by protocol",
    labelNames: ["protocol", "ok"],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60],
    registers: [registry],
  });
  const agentFailures = new Counter({
    name: "cresolver_agent_call_failures_total",
    help: "Failed outbound worker-agent calls by protocol",
    labelNames: ["protocol"],
    registers: [registry],
  });
  const rpcErrors = new Counter({
    name: "cresolver_daemon_rpc_errors_total",
    help: "JSON-RPC errors seen by the daemon, by operation",
    labelNames: ["operation"],
    registers: [registry],
  });
  new Gauge({
    name: "cresolver_daemon_last_processed_block",
    help: "Last block scanned for ResolutionRequested, by market contract",
    labelNames: ["market"],
    registers: [registry],
    collect() {
      this.reset();
      for (const m of chainStatus().markets)
        if (m.lastProcessedBlock !== undefined) this.set({ market: m.market }, m.lastProcessedBlock);
    },
  });
  new Gauge({
    name: "cresolver_daemon_block_lag",
    help: "Blocks between the confirmed head and the last processed block, by market contract",
    labelNames: ["market"],
    registers: [registry],
    collect() {
      this.reset();
      for (const m of chainStatus().markets) if (m.lag !== undefined) this.set({ market: m.market }, m.lag);
    },
  });

  const protocols = new Set<string>();
  const protocolLabel = (p: string): string => {
    const clean =
      String(p)
        .toLowerCase()
        .replace(/[^a-z0-9._-]/g, "_")
        .slice(0, 40) || "unknown";
    if (protocols.has(clean)) return clean;
    if (protocols.size >= MAX_PROTOCOL_LABELS) return "other";
    protocols.add(clean);
    return clean;
  };

  return {
    registry,
    recordAgentCall(protocol, latencyMs, ok) {
      const label = protocolLabel(protocol);
      const seconds = Number.isFinite(latencyMs) && latencyMs >= 0 ? latencyMs / 1000 : 0;
      agentLatency.observe({ protocol: label, ok: ok ? "true" : "false" }, seconds);
      if (!ok) agentFailures.inc({ protocol: label });
    },
    recordRpcError(operation) {
      rpcErrors.inc({ operation });
    },
    recordRun(outcome, seconds) {
      runs.observe({ outcome }, seconds);
    },
    recordJobStartDelay(seconds) {
      startDelay.observe(Math.max(0, seconds));
    },
    setJobCounts(fn) {
      jobCounts = fn;
    },
    setChainStatus(fn) {
      chainStatus = fn;
    },
  };
}
