/**
 * The one settlement path: a pipeline verdict becomes `IResolutionMarket.proposeResolution` (bonded, disputable).
 * Used by `cresolver resolve`, the daemon and the CRE workflow's local runner; nothing else sends proposals.
 *
 * Policy (the only one; callers do not add their own):
 *   1. Before every attempt the market's status is re-read. ResolutionRequested → send. Anything after it
 *      (Proposed, Disputed, Resolved, Invalid, Cancelled) → `{ status: "already-settled" }`: someone (maybe an
 *      earlier attempt of ours whose answer was lost) already moved the market on; nothing is sent. Before it
 *      (Open) → a permanent SettleError.
 *   2. The market is checked as this settler's policy requires (guard.ts): its arbiter is one the deployment allows
 *      and its bond is within `maxBond`; otherwise nothing is sent (one line, permanent). Then the proposal is
 *      checked as the contract would (one report per seat, report rules, bundle URI length, the
 *      key is a resolver active for this market, the bond) and its gas is capped at min(2^24, block gas limit)
 *      (workflow/chain/gas.ts). A failed check is permanent: it will not pass on a retry.
 *   3. Transport failures are retried underneath by the chain client (workflow/chain/clients.ts). What still fails
 *      is retried here up to `attempts` times in all (default 3, `backoffMs` between), each time from step 1:
 *      an RPC failure, a dropped or reverted transaction whose revert is not one of the permanent ones.
 *   4. Giving up throws `SettleError` (`retryable` says whether a later call may succeed). A failed proposal is
 *      never turned into another verdict: in particular it never becomes an Invalid proposal (that would refund a
 *      market that had a result). The market stays ResolutionRequested; a later run may propose, or anyone can
 *      cancel it after the grace period (`requestCancel` → `cancelStale`).
 */
import { getAddress, parseEventLogs, type Address, type Hex } from "viem";
import { resolutionMarketAbi } from "../chain/abis.js";
import type { ChainContext } from "../chain/clients.js";
import { ChainError } from "../chain/errors.js";
import { cappedGas, txGasCeiling, withHeadroom } from "../chain/gas.js";
import { getProposal } from "../chain/lifecycle.js";
import { readView, viewCall } from "../chain/reads.js";
import { readMarketStatus } from "../chain/snapshot.js";
import { sendContractTx } from "../chain/writer.js";
import type { VerdictKind, WorkerReport } from "../core/types.js";
import { encodeReport, reportProblem, VERDICT_CODE } from "./reports.js";
import { checkMarketGuard, type MarketGuardOptions } from "./guard.js";
import { CresolverError } from "../util/errors.js";
import { abortableSleep, retry } from "../util/retry.js";

export { DEFAULT_MAX_BOND, type MarketGuardOptions } from "./guard.js";
export { encodeReport, decodeReport, reportProblem, VERDICT_CODE, ANSWER_CODE } from "./reports.js";

/** The status the market must be in to take a proposal (IResolutionMarket.Status.ResolutionRequested). */
const RESOLUTION_REQUESTED = 2;
/** The on-chain bundle URI limit (`BundleURITooLong`). */
export const MAX_BUNDLE_URI_BYTES = 512;

/** What the pipeline decided about one market, ready to propose. */
export interface ProposalInput {
  marketId: bigint;
  verdict: VerdictKind;
  /** One per seat, in seat order. */
  reports: readonly WorkerReport[];
  /** keccak256 of the canonical bundle (the bytes stored / served under `bundleURI`). */
  bundleHash: Hex;
  /** Where the bundle can be fetched; "" when nowhere. Overrides the settler's `bundleURI` option. */
  bundleURI?: string;
  /** Hears the proposal's hash once broadcast, before its receipt (so a crash while it is pending loses nothing). */
  onSent?: (hash: Hex) => void;
}

export type SettleResult =
  | {
      status: "proposed";
      txHash: Hex;
      blockNumber: bigint;
      gasUsed: bigint;
      bond: bigint;
      disputeEndsAt: bigint;
      attempts: number;
    }
  /**
   * The market is no longer ResolutionRequested (the one spelling of "already settled/proposed"): nothing sent.
   * `ours`: the standing proposal is this key's (e.g. an earlier attempt whose receipt was lost landed after all).
   */
  | { status: "already-settled"; marketStatus: string; reason: string; proposer?: Address; ours?: boolean };

export interface SettlePolicy {
  /** Attempts in all (default 3). 1 = no retry here (the caller schedules its own later call). */
  attempts?: number;
  /** Wait between attempts, ms (default 2000, doubled each time). */
  backoffMs?: number;
}

export interface SettlerOptions extends SettlePolicy, MarketGuardOptions {
  /** Default bundle URI (or a function of the market id) when the input has none. Default "". */
  bundleURI?: string | ((marketId: bigint) => string);
  /** Progress lines (retries), never secrets. */
  onRetry?: (info: { marketId: bigint; attempt: number; error: string; delayMs: number }) => void;
  /**
   * Called once per attempt after every check passed, right before the transaction is sent (e.g. the daemon
   * stores the bundle here, so a proposal on chain always has its evidence stored). A throw stops the attempt.
   */
  beforeSend?: (input: ProposalInput & { bundleURI: string; bond: bigint }) => Promise<void> | void;
  /** Sleep used between attempts (tests). */
  sleep?: (ms: number) => Promise<void>;
}

/** A proposal that was not sent or did not land. `retryable`: a later call may succeed (RPC, dropped tx). */
export class SettleError extends CresolverError {
  readonly retryable: boolean;
  readonly attempts: number;
  constructor(message: string, options: { retryable: boolean; attempts: number; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryable = options.retryable;
    this.attempts = options.attempts;
  }
}

/** Reverts that no retry can change. */
const PERMANENT_REVERTS = new Set([
  "NotResolver",
  "WrongBond",
  "InvalidReport",
  "ReportsLengthMismatch",
  "NoAnswerForVerdict",
  "BundleURITooLong",
  "MarketNotFound",
]);

function isRetryable(error: unknown): boolean {
  if (!(error instanceof ChainError)) return false;
  if (error.kind === "precondition") return false;
  if (error.kind === "revert") return error.errorName === undefined || !PERMANENT_REVERTS.has(error.errorName);
  return true;
}

interface ProposeConfig {
  bond: bigint;
  arbiter: Address;
  workerCount: number;
}

export interface Settler {
  /** Proposes `input.verdict` (see the module's policy). */
  propose(input: ProposalInput): Promise<SettleResult>;
}

/** A settler for one market contract; `ctx` must carry the resolver's key. */
export function createSettler(ctx: ChainContext, market: Address, options: SettlerOptions = {}): Settler {
  const attempts = Math.max(1, options.attempts ?? 3);
  const backoff = options.backoffMs ?? 2_000;
  const sleep = options.sleep ?? abortableSleep;
  const uriFor = (input: ProposalInput) =>
    input.bundleURI ??
    (typeof options.bundleURI === "function" ? options.bundleURI(input.marketId) : (options.bundleURI ?? ""));

  /** undefined = ResolutionRequested; a result = already settled; throws for a market not yet requested. */
  async function statusGate(marketId: bigint): Promise<SettleResult | undefined> {
    const s = await readMarketStatus(ctx, market, marketId);
    if (s.status === RESOLUTION_REQUESTED) return undefined;
    if (s.status > RESOLUTION_REQUESTED) {
      const p = await getProposal(ctx, market, marketId).catch(() => undefined);
      const who =
        p !== undefined
          ? { proposer: p.proposer, ours: ctx.account !== undefined && getAddress(ctx.account.address) === p.proposer }
          : {};
      return {
        status: "already-settled",
        marketStatus: s.statusName,
        reason: `market ${marketId} is already ${s.statusName}`,
        ...who,
      };
    }
    throw new ChainError(
      "precondition",
      `market ${marketId} is ${s.statusName}, not ResolutionRequested: request resolution first`,
    );
  }

  async function readConfig(marketId: bigint): Promise<ProposeConfig> {
    const [config, info, isResolver] = await Promise.all([
      readView(
        ctx,
        viewCall(market, resolutionMarketAbi, "getMarketConfig", [marketId]),
        "ResolutionMarket.getMarketConfig",
      ),
      readView(ctx, viewCall(market, resolutionMarketAbi, "getMarket", [marketId]), "ResolutionMarket.getMarket"),
      ctx.account
        ? readView(
            ctx,
            viewCall(market, resolutionMarketAbi, "isResolverFor", [ctx.account.address, marketId]),
            "ResolutionMarket.isResolverFor",
          )
        : Promise.resolve(false),
    ]);
    if (!ctx.account) throw new ChainError("precondition", "proposing needs the resolver's key");
    if (!isResolver)
      throw new ChainError(
        "precondition",
        `${ctx.account.address} is not a resolver active for market ${marketId} on ${market} (a resolver added after the market was created must wait for its timelock)`,
      );
    return { bond: BigInt(config.bond), arbiter: config.arbiter, workerCount: Number(info.workerCount) };
  }

  async function sendOnce(input: ProposalInput, attempt: number): Promise<SettleResult> {
    const gate = await statusGate(input.marketId);
    if (gate) return gate;
    const { bond, arbiter, workerCount } = await readConfig(input.marketId);
    await checkMarketGuard(ctx, market, input.marketId, { bond, arbiter }, options);
    const problem = reportProblem(input.verdict, input.reports, workerCount);
    if (problem !== undefined) throw new ChainError("precondition", `market ${input.marketId}: ${problem}`);
    const uri = uriFor(input);
    const uriBytes = Buffer.byteLength(uri, "utf8");
    if (uriBytes > MAX_BUNDLE_URI_BYTES)
      throw new ChainError(
        "precondition",
        `bundle URI is ${uriBytes} bytes, the market accepts at most ${MAX_BUNDLE_URI_BYTES}`,
      );
    const ceiling = await txGasCeiling(ctx);
    await options.beforeSend?.({ ...input, bundleURI: uri, bond });
    const label = "ResolutionMarket.proposeResolution";
    const { hash, receipt } = await sendContractTx(ctx, {
      address: market,
      abi: resolutionMarketAbi,
      functionName: "proposeResolution",
      args: [input.marketId, VERDICT_CODE[input.verdict], input.reports.map(encodeReport), input.bundleHash, uri],
      value: bond,
      label,
      gas: (estimate) => cappedGas(label, estimate, withHeadroom(estimate), ceiling),
      ...(input.onSent !== undefined ? { onSent: input.onSent } : {}),
    });
    const [event] = parseEventLogs({ abi: resolutionMarketAbi, eventName: "ResolutionProposed", logs: receipt.logs });
    return {
      status: "proposed",
      txHash: hash,
      blockNumber: receipt.blockNumber,
      gasUsed: receipt.gasUsed,
      bond,
      disputeEndsAt: event ? BigInt(event.args.disputeEndsAt) : 0n,
      attempts: attempt,
    };
  }

  return {
    async propose(input) {
      let used = 0;
      const firstLine = (error: unknown) =>
        (error instanceof Error ? error.message.split("\n")[0] : undefined) ?? String(error);
      try {
        return await retry(
          async (attempt) => {
            used = attempt;
            try {
              return await sendOnce(input, attempt);
            } catch (error) {
              // Someone else's proposal (or our own lost one) landed first: that is not a failure.
              const gate = await statusGate(input.marketId).catch(() => undefined);
              if (gate) return gate;
              throw error;
            }
          },
          {
            attempts,
            delayMs: { baseMs: backoff },
            retryable: isRetryable,
            sleep,
            onRetry: ({ attempt, error, delayMs }) =>
              options.onRetry?.({ marketId: input.marketId, attempt, error: firstLine(error), delayMs }),
          },
        );
      } catch (last) {
        const message = firstLine(last);
        throw new SettleError(message, { retryable: isRetryable(last), attempts: used, cause: last });
      }
    },
  };
}
