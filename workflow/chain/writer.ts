/**
 * Writes: simulate → send → wait for the receipt, with nonces serialised per key (NonceQueue) and
 * reverts decoded to their custom error. The resolution writer re-reads the market first and skips
 * markets that are already settled.
 */
import { encodeFunctionData, formatEther, type Abi, type Address, type Hex, type TransactionReceipt } from "viem";
import { resolutionMarketAbi } from "./abis.js";
import { requireWallet, type ChainContext } from "./clients.js";
import { ChainError, STATUS_NAMES, toChainError, withAllErrors } from "./errors.js";
import { isTerminalStatus, readMarketStatus } from "./snapshot.js";

export interface ContractWrite {
  address: Address;
  abi: Abi;
  functionName: string;
  args?: readonly unknown[];
  value?: bigint;
  /** Explicit gas limit, or a function of the estimate. Default: the node's estimate (from the simulation). */
  gas?: bigint | ((estimate: bigint) => bigint);
  /** Label for errors, e.g. "ResolutionMarket.joinMarket". Default: the function name. */
  label?: string;
}

export interface WriteResult<R = unknown> {
  hash: Hex;
  receipt: TransactionReceipt;
  /** Return value seen by the simulation (e.g. the new market id). */
  result: R;
}

/** simulate → send (nonce-serialised) → wait. Throws a ChainError with the decoded revert. */
export async function sendContractTx<R = unknown>(ctx: ChainContext, write: ContractWrite): Promise<WriteResult<R>> {
  const { walletClient, account } = requireWallet(ctx);
  const label = write.label ?? write.functionName;
  const abi = withAllErrors(write.abi);
  if (write.value !== undefined && write.value > 0n) {
    const balance = await ctx.publicClient.getBalance({ address: account.address }).catch((e: unknown) => {
      throw toChainError(e, "eth_getBalance");
    });
    if (balance < write.value) {
      throw new ChainError("precondition", `${label}: insufficient funds, ${account.address} holds ${formatEther(balance)} ETH and this needs ${formatEther(write.value)} ETH plus gas`);
    }
  }
  let simulated: { result: unknown };
  try {
    simulated = await ctx.publicClient.simulateContract({
      address: write.address,
      abi,
      functionName: write.functionName,
      args: write.args ?? [],
      account,
      ...(write.value !== undefined ? { value: write.value } : {}),
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
    } as any);
  } catch (error) {
    throw toChainError(error, label);
  }
  const data = encodeFunctionData({ abi, functionName: write.functionName, args: write.args ?? [] } as never);
  let gas: bigint;
  try {
    if (typeof write.gas === "bigint") gas = write.gas;
    else {
      const estimate = await ctx.publicClient.estimateGas({ account, to: write.address, data, ...(write.value !== undefined ? { value: write.value } : {}) });
      gas = write.gas ? write.gas(estimate) : estimate + estimate / 5n;
    }
  } catch (error) {
    throw toChainError(error, label);
  }
  let hash: Hex;
  try {
    hash = await ctx.nonces.run(
      account.address,
      (address) => ctx.publicClient.getTransactionCount({ address, blockTag: "pending" }),
      (nonce) =>
        walletClient.sendTransaction({
          account,
          chain: ctx.chain,
          to: write.address,
          data,
          gas,
          nonce,
          ...(write.value !== undefined ? { value: write.value } : {}),
        }),
    );
  } catch (error) {
    throw toChainError(error, label);
  }
  let receipt: TransactionReceipt;
  try {
    receipt = await ctx.publicClient.waitForTransactionReceipt({ hash });
  } catch (error) {
    throw toChainError(error, `${label} (waiting for ${hash})`);
  }
  if (receipt.status !== "success") {
    throw new ChainError("revert", `${label} reverted on-chain in transaction ${hash} (block ${receipt.blockNumber})`);
  }
  return { hash, receipt, result: simulated.result as R };
}

/** Matches IResolutionMarket.resolveMarket (workflow/core/types.ts SettlementPlan). */
export interface SettlementPlanLike {
  marketId: bigint;
  workers: readonly Address[];
  weights: readonly bigint[];
  scores: readonly number[];
  resolution: boolean;
  bundleHash: Hex;
}

export type ResolutionWrite =
  | { status: "written"; txHash: Hex; blockNumber: bigint; gasUsed: bigint }
  | { status: "skipped"; reason: string; marketStatus: string };

export interface ResolutionWriterOptions {
  /** bundleURI argument (≤ 512 bytes). Default "". */
  bundleURI?: string | ((marketId: bigint) => string);
  /** Gas for resolveMarket. Default: estimate + 1.05M per inline-feedback worker (≤ 10), capped at 90% of the block gas limit. */
  gas?: bigint;
}

/** Gas of one worker's inline ERC-8004 feedback (the market's FEEDBACK_WORKER_MIN_GAS, rounded up). */
const FEEDBACK_GAS_PER_WORKER = 1_050_000n;
const INLINE_FEEDBACK_WORKERS = 10n;

/**
 * Settles markets through IResolutionMarket. Compatible with the pipeline's ResolutionWriter port
 * (`writeResolution(plan)` resolves with `txHash` when written).
 */
export function createResolutionWriter(ctx: ChainContext, market: Address, options: ResolutionWriterOptions = {}) {
  const uriFor = (marketId: bigint) => (typeof options.bundleURI === "function" ? options.bundleURI(marketId) : (options.bundleURI ?? ""));

  /** Re-reads the status: a terminal market is skipped; anything but ResolutionRequested is an error. */
  async function precheck(marketId: bigint): Promise<ResolutionWrite | undefined> {
    const state = await readMarketStatus(ctx, market, marketId);
    if (isTerminalStatus(state.status)) {
      return { status: "skipped", reason: `market ${marketId} is already ${state.statusName}`, marketStatus: state.statusName };
    }
    if (state.statusName !== "ResolutionRequested") {
      throw new ChainError("precondition", `market ${marketId} is ${state.statusName}, not ResolutionRequested: request resolution first`);
    }
    return undefined;
  }

  /**
   * Someone else settled the market between our check and our transaction: the simulation says
   * WrongStatus, or our transaction reverted on-chain. Either way, if the market is now settled,
   * report a skip instead of an error.
   */
  async function raced(error: unknown, marketId: bigint): Promise<ResolutionWrite | undefined> {
    if (!(error instanceof ChainError) || error.kind !== "revert") return undefined;
    if (error.errorName !== undefined && error.errorName !== "WrongStatus") return undefined;
    const state = await readMarketStatus(ctx, market, marketId).catch(() => undefined);
    if (state && isTerminalStatus(state.status)) {
      return { status: "skipped", reason: `market ${marketId} was settled concurrently (now ${state.statusName})`, marketStatus: STATUS_NAMES[state.status] ?? state.statusName };
    }
    return undefined;
  }

  async function blockGasCap(): Promise<bigint> {
    const block = await ctx.publicClient.getBlock({ blockTag: "latest" });
    return (block.gasLimit * 9n) / 10n;
  }

  return {
    async writeResolution(plan: SettlementPlanLike): Promise<ResolutionWrite & { txHash?: Hex }> {
      const skip = await precheck(plan.marketId);
      if (skip) return skip;
      const n = BigInt(plan.workers.length);
      const inline = n < INLINE_FEEDBACK_WORKERS ? n : INLINE_FEEDBACK_WORKERS;
      const cap = options.gas === undefined ? await blockGasCap() : 0n;
      try {
        const { hash, receipt } = await sendContractTx(ctx, {
          address: market,
          abi: resolutionMarketAbi,
          functionName: "resolveMarket",
          args: [plan.marketId, plan.workers, plan.weights, plan.scores, plan.resolution, plan.bundleHash, uriFor(plan.marketId)],
          label: "ResolutionMarket.resolveMarket",
          gas: options.gas ?? ((estimate) => {
            const want = estimate + inline * FEEDBACK_GAS_PER_WORKER;
            return want < cap ? want : cap;
          }),
        });
        return { status: "written", txHash: hash, blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed };
      } catch (error) {
        const skipped = await raced(error, plan.marketId);
        if (skipped) return skipped;
        throw error;
      }
    },

    /** The resolver's "cannot be resolved" verdict (no quorum / no margin): full refunds. */
    async settleInvalid(marketId: bigint, bundleHash: Hex): Promise<ResolutionWrite & { txHash?: Hex }> {
      const skip = await precheck(marketId);
      if (skip) return skip;
      try {
        const { hash, receipt } = await sendContractTx(ctx, {
          address: market,
          abi: resolutionMarketAbi,
          functionName: "settleInvalid",
          args: [marketId, bundleHash, uriFor(marketId)],
          label: "ResolutionMarket.settleInvalid",
        });
        return { status: "written", txHash: hash, blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed };
      } catch (error) {
        const skipped = await raced(error, marketId);
        if (skipped) return skipped;
        throw error;
      }
    },
  };
}

export type ResolutionWriter = ReturnType<typeof createResolutionWriter>;
