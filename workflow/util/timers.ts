/**
 * The host's timers, for the few places the shared pipeline code waits: the adapters' one retry pause
 * (adapters/call.ts) and the registration fetch backstop (registration/codec.ts).
 *
 * Node has timers; the Chainlink CRE runtime (Javy/QuickJS compiled to WASM) has none — a DON execution cannot
 * wait, and its HTTP capability enforces its own deadline. So this module never names the global timer functions
 * (that would tie every runtime that imports the pipeline to Node's globals): it takes the host's timers if the
 * runtime has them, and a host can install its own (`installTimers`, e.g. tests with a fake clock).
 * Without timers, `sleep` rejects (callers only sleep before an optional retry) and `startTimer` returns no timer.
 */

export interface HostTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

function hostTimers(): HostTimers | undefined {
  // Read through Reflect: the CRE SDK's types retype the timer globals as `never`.
  const set: unknown = Reflect.get(globalThis, "setTimeout");
  const clear: unknown = Reflect.get(globalThis, "clearTimeout");
  if (typeof set !== "function" || typeof clear !== "function") return undefined;
  return {
    setTimeout: (cb, ms): unknown => Reflect.apply(set, globalThis, [cb, ms]),
    clearTimeout: (h) => {
      Reflect.apply(clear, globalThis, [h]);
    },
  };
}

let installed: HostTimers | undefined = hostTimers();

/** Replaces the timers (undefined: none, as in the CRE runtime). Returns the previous ones. */
export function installTimers(timers: HostTimers | undefined): HostTimers | undefined {
  const previous = installed;
  installed = timers;
  return previous;
}

/** True when the runtime can wait (retry pauses are only attempted then). */
export function hasTimers(): boolean {
  return installed !== undefined;
}

/** Resolves after `ms`; rejects at once when the runtime has no timers. */
export function sleep(ms: number): Promise<void> {
  const timers = installed;
  if (timers === undefined) return Promise.reject(new Error("this runtime has no timers"));
  return new Promise((resolve) => {
    timers.setTimeout(resolve, ms);
  });
}

/** Calls `callback` after `ms` unless cancelled; returns the cancel function, or undefined without timers. */
export function startTimer(callback: () => void, ms: number): (() => void) | undefined {
  const timers = installed;
  if (timers === undefined) return undefined;
  const handle = timers.setTimeout(callback, ms);
  return () => timers.clearTimeout(handle);
}
