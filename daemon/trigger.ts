/**
 * Chain trigger: polls eth_getLogs for ResolutionRequested (new jobs) and ProposalDisputed (disputes of the
 * daemon's proposals) in bounded block ranges, from the stored cursor
 * (or the start block) up to head − confirmations. Works on any RPC (no filters or subscriptions).
 * A range's jobs and the cursor advance are recorded in one transaction, so a crash or an RPC error never
 * loses a range: the range is simply scanned again (job insertion is idempotent).
 */
import type { Logger } from "pino";
import { getAbiItem, type PublicClient } from "viem";
import { sanitizeError } from "./log.js";
import type { DaemonMetrics } from "./metrics.js";
import type { DisputedEvent, RequestedEvent, Store } from "./store.js";
import { resolutionMarketAbi } from "../workflow/chain/abis.js";
import { nameOf, VERDICT_NAMES } from "../workflow/core/codes.js";
import { backoffDelay } from "../workflow/util/retry.js";

const RESOLUTION_REQUESTED = getAbiItem({ abi: resolutionMarketAbi, name: "ResolutionRequested" });
const PROPOSAL_DISPUTED = getAbiItem({ abi: resolutionMarketAbi, name: "ProposalDisputed" });

export interface TriggerMarket {
  address: `0x${string}`;
  startBlock: number;
}

export interface TriggerOptions {
  client: PublicClient;
  store: Store;
  chainId: number;
  markets: TriggerMarket[];
  confirmations: number;
  pollIntervalMs: number;
  maxBlockRange: number;
  maxBackoffMs: number;
  logger: Logger;
  metrics: DaemonMetrics;
  /** Called after new jobs were recorded. */
  onJobs: () => void;
  /** Delay of a market's first run on this instance (multi-daemon stagger), ms. */
  firstRunDelay: (marketId: bigint) => number;
  secrets: readonly string[];
}

export interface TriggerStatus {
  head?: number | undefined;
  lastPollOkAt?: number | undefined;
  lastError?: string | undefined;
  consecutiveErrors: number;
  markets: { market: string; lastProcessedBlock?: number | undefined; lag?: number | undefined }[];
}

export class Trigger {
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  private loopDone: Promise<void> | undefined;
  private head: number | undefined;
  private lastPollOkAt: number | undefined;
  private lastError: string | undefined;
  private consecutiveErrors = 0;
  /** Current getLogs range: halved after a failed call (RPCs cap ranges and result counts), doubled back after successes. */
  private range: number;

  constructor(private readonly o: TriggerOptions) {
    this.range = o.maxBlockRange;
  }

  start(): void {
    this.loopDone = this.loop();
  }

  /** Scan now instead of waiting for the poll interval. */
  poke(): void {
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loopDone;
  }

  status(): TriggerStatus {
    const confirmed = this.head === undefined ? undefined : Math.max(this.head - this.o.confirmations, -1);
    return {
      head: this.head,
      lastPollOkAt: this.lastPollOkAt,
      lastError: this.lastError,
      consecutiveErrors: this.consecutiveErrors,
      markets: this.o.markets.map((m) => {
        const last = this.o.store.isClosed ? undefined : this.o.store.getCursor(this.o.chainId, m.address);
        const lastProcessed = last ?? (m.startBlock > 0 ? m.startBlock - 1 : undefined);
        const lag = confirmed === undefined ? undefined : Math.max(0, confirmed - (lastProcessed ?? -1));
        return { market: m.address, lastProcessedBlock: lastProcessed, lag };
      }),
    };
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(this.timer);
        this.wake = undefined;
        resolve();
      };
      this.wake = done;
      this.timer = setTimeout(done, ms);
    });
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let moreToScan = false;
      try {
        moreToScan = await this.scanOnce();
        this.consecutiveErrors = 0;
        this.lastError = undefined;
        this.lastPollOkAt = Date.now();
      } catch (err) {
        if (this.stopped) break;
        this.consecutiveErrors++;
        this.lastError = sanitizeError(err, this.o.secrets);
        this.o.metrics.recordRpcError("getLogs");
        this.o.logger.warn(
          { error: this.lastError, consecutiveErrors: this.consecutiveErrors },
          "trigger: scan failed, backing off",
        );
      }
      if (this.stopped) break;
      if (moreToScan && this.consecutiveErrors === 0) continue; // catching up: next range at once
      const delay =
        this.consecutiveErrors === 0
          ? this.o.pollIntervalMs
          : backoffDelay(this.consecutiveErrors, {
              baseMs: this.o.pollIntervalMs,
              maxMs: Math.max(this.o.maxBackoffMs, this.o.pollIntervalMs),
            });
      await this.sleep(delay);
    }
  }

  /**
   * Scans at most one range per market. Returns true when some market still has confirmed blocks left
   * to scan (catch-up in progress).
   */
  async scanOnce(): Promise<boolean> {
    const head = Number(await this.o.client.getBlockNumber({ cacheTime: 0 }));
    this.head = head;
    const confirmed = head - this.o.confirmations;
    let more = false;
    for (const m of this.o.markets) {
      if (this.stopped || this.o.store.isClosed) return false;
      const last = this.o.store.getCursor(this.o.chainId, m.address);
      const from = last === undefined ? m.startBlock : last + 1;
      if (from > confirmed) continue;
      const to = Math.min(confirmed, from + this.range - 1);
      let logs;
      try {
        logs = await this.o.client.getLogs({
          address: m.address,
          events: [RESOLUTION_REQUESTED, PROPOSAL_DISPUTED],
          fromBlock: BigInt(from),
          toBlock: BigInt(to),
        });
      } catch (err) {
        this.range = Math.max(1, Math.floor(this.range / 2));
        throw err;
      }
      this.range = Math.min(this.o.maxBlockRange, this.range * 2);
      const events: RequestedEvent[] = [];
      const disputes: DisputedEvent[] = [];
      for (const log of logs) {
        if (log.removed) continue;
        if (log.address.toLowerCase() !== m.address) continue;
        const marketId = log.args.marketId;
        if (marketId === undefined || log.blockNumber === null) continue;
        if (log.eventName === "ProposalDisputed") {
          const { disputer, claimed } = log.args;
          if (disputer === undefined || claimed === undefined) continue;
          disputes.push({ marketId, disputer, claimed: nameOf(VERDICT_NAMES, claimed, String(claimed)) });
          continue;
        }
        const delay = this.o.firstRunDelay(marketId);
        events.push({
          marketId,
          blockNumber: Number(log.blockNumber),
          txHash: log.transactionHash,
          notBefore: delay > 0 ? Date.now() + delay : undefined,
        });
      }
      // The cursor keeps its block's hash: a chain restarted under the database is caught at the next start.
      const toHash = (await this.o.client.getBlock({ blockNumber: BigInt(to) })).hash ?? undefined;
      if (this.stopped || this.o.store.isClosed) return false;
      const created = this.o.store.recordRange(this.o.chainId, m.address, to, events, disputes, toHash);
      if (events.length > 0 || to - from > 0) {
        this.o.logger.debug({ market: m.address, from, to, events: events.length, created }, "trigger: range scanned");
      }
      if (created > 0) {
        this.o.logger.info(
          { market: m.address, from, to, created, disputes: disputes.length },
          "trigger: resolution requests / disputes recorded",
        );
        this.o.onJobs();
      }
      if (to < confirmed) more = true;
    }
    return more;
  }
}
