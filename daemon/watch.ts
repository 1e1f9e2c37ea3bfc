/**
 * `cresolver daemon --watch`: the watcher (workflow/watch/) beside the resolver, one pass every interval over the
 * daemon's market contract, each result one log line. A separate loop, not a job of the resolver's state machine:
 * it keeps no state of its own (a proposal disputed by a pass is `Disputed` at the next and is not reviewed again),
 * and a failing pass (RPC down) is logged and retried at the next interval; it never stops the daemon.
 */
import type { Address } from "viem";
import type { ChainContext } from "../workflow/chain/clients.js";
import { type WatchPassOptions, type WatchResult, watchPass } from "../workflow/watch/run.js";

export interface WatchLoopOptions {
  ctx: ChainContext;
  market: Address;
  pass: WatchPassOptions;
  /** Between the end of one pass and the start of the next. */
  intervalMs: number;
  /** A pino logger, or anything with its two calls. */
  logger: { info(fields: object, message: string): void; warn(fields: object, message: string): void };
  /** Called after every pass (tests, metrics). */
  onPass?: (results: WatchResult[]) => void;
}

export interface WatchLoop {
  /** Completed passes. */
  readonly passes: number;
  /** Stops scheduling and waits for a pass in flight. */
  stop(): Promise<void>;
}

export function startWatchLoop(options: WatchLoopOptions): WatchLoop {
  let passes = 0;
  let stopped = false;
  let cancel: (() => void) | undefined;
  let inFlight: Promise<void> | undefined;
  const run = async (): Promise<void> => {
    try {
      const results = await watchPass(options.ctx, options.market, options.pass);
      for (const r of results) {
        const fields = { market: options.market, marketId: r.marketId.toString() };
        if ("error" in r) options.logger.warn(fields, r.line);
        else options.logger.info({ ...fields, action: r.action.kind, reasons: r.review.watch.reasons }, r.line);
      }
      passes += 1;
      options.onPass?.(results);
    } catch (error) {
      const message = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "error";
      options.logger.warn({ market: options.market }, `watch pass failed: ${message.slice(0, 300)}`);
    }
  };
  const schedule = (ms: number): void => {
    if (stopped) return;
    const handle = setTimeout(() => {
      inFlight = run().finally(() => {
        inFlight = undefined;
        schedule(options.intervalMs);
      });
    }, ms);
    cancel = () => clearTimeout(handle);
  };
  schedule(0);
  return {
    get passes() {
      return passes;
    },
    async stop() {
      stopped = true;
      cancel?.();
      await inFlight;
    },
  };
}
