/**
 * The protocol-neutral types of the platform side (types only, no code): WorkerProtocolAdapter (defined with the
 * pipeline's request/answer types in workflow/core/types.ts), the adapter registry and the conformance checker.
 * Runtime-neutral on purpose: the pipeline's ports, and so the CRE workflow, reach this file (no Node or Fastify
 * type here; the reference agent's side is in agent-types.ts, the registry's descriptor in module.ts).
 */
import type { AgentCredentials, CredentialStore } from "../../workflow/adapters/credentials.js";
import type { WorkerProtocolAdapter } from "../../workflow/core/types.js";
import type { SafeHttpClient } from "../../workflow/http/types.js";

export type { WorkerProtocolAdapter } from "../../workflow/core/types.js";

/** The adapters the pipeline can use, by protocol name (built by createAdapterRegistry). */
export interface AdapterRegistry {
  /** Supported protocol names, lower-case, in registration order (passed to pickWorkerEndpoint). */
  readonly protocols: readonly string[];
  get(protocol: string): WorkerProtocolAdapter | undefined;
}

/** What every adapter factory receives: the resolver's HTTP client and the per-agent credentials. */
export interface AdapterDefaults {
  http: SafeHttpClient;
  credentials: CredentialStore;
}

// ---------------------------------------------------------------------------------------------
// Conformance checking (`cresolver agent check <url> --protocol <p>`)
// ---------------------------------------------------------------------------------------------

export interface ConformanceFinding {
  /** Stable rule id naming the spec requirement, e.g. "factagora.response.position-enum". */
  rule: string;
  severity: "violation" | "warning";
  /** What was wrong, sanitized and capped (no secrets, no huge echoes). */
  message: string;
}

export interface ConformanceReport {
  protocol: string;
  url: string;
  findings: ConformanceFinding[];
  /** Milliseconds per named request. */
  timings: Record<string, number>;
  /** True when there is no violation (warnings allowed). */
  passed: boolean;
}

export interface ConformanceCheckOptions {
  /** The agent's endpoint as registered (base URL or full webhook URL, per protocol). */
  url: string;
  http: SafeHttpClient;
  credentials?: AgentCredentials;
  /** Per-request deadline override (default: the protocol's own limit). */
  timeoutMs?: number;
}

export type ConformanceChecker = (options: ConformanceCheckOptions) => Promise<ConformanceReport>;
