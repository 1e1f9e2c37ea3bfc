/**
 * The abort signal of the resolution run in progress, carried implicitly (AsyncLocalStorage) to every outbound
 * call the run makes: the HTTP client joins it to each request's own deadline and the adapters' retry loop stops
 * on it. So a daemon shutting down or a job timing out aborts in-flight agent calls at once, without every
 * protocol adapter taking a signal parameter.
 */

interface SignalStore {
  run<R>(store: AbortSignal, fn: () => R): R;
  getStore(): AbortSignal | undefined;
}

/**
 * Node's AsyncLocalStorage, looked up at run time so this module imports no Node built-in: the shared pipeline also
 * runs in the CRE WASM runtime, which has no async context and never aborts a run (there the store is inert).
 */
function createStore(): SignalStore {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const hooks = proc?.getBuiltinModule?.("node:async_hooks") as
    | { AsyncLocalStorage: new () => SignalStore }
    | undefined;
  if (hooks !== undefined) return new hooks.AsyncLocalStorage();
  return { run: (_store, fn) => fn(), getStore: () => undefined };
}

const ambient = createStore();

/** Runs `fn` with `signal` as the ambient abort signal (joined with an outer one, if any). */
export function withAbortSignal<T>(signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
  if (signal === undefined) return fn();
  const outer = ambient.getStore();
  return ambient.run(outer === undefined ? signal : AbortSignal.any([outer, signal]), fn);
}

/** The ambient abort signal, if a run set one. */
export function ambientSignal(): AbortSignal | undefined {
  return ambient.getStore();
}

/** `signal` joined with the ambient one. */
export function joinAmbient(signal: AbortSignal | undefined): AbortSignal | undefined {
  const a = ambient.getStore();
  if (a === undefined) return signal;
  return signal === undefined ? a : AbortSignal.any([a, signal]);
}
