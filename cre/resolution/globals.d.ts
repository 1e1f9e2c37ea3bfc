/**
 * Types of the globals the shared pipeline code names, for the CRE type-check program (which has no Node or DOM
 * types: the SDK declares the runtime's own globals). Values: `URL` and `performance` come from shims.ts;
 * `AbortSignal` exists only as a type here — the pipeline touches it only when a run is given a signal, which the
 * workflow never does.
 */
declare global {
  interface URL extends CreURL {}
  interface AbortSignal {
    readonly aborted: boolean;
    readonly reason: unknown;
  }
  var AbortSignal: { any(signals: AbortSignal[]): AbortSignal };
  var performance: { now(): number };
}

export {};
