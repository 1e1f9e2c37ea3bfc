/**
 * Contract writes: a balance check and a simulation (the return value, the decoded revert), then the one send path
 * (send.ts: gas never above EIP-7825's 2^24, nonces serialised per key, reverts decoded and explained). Proposals go through
 * workflow/settle/, the rest of the lifecycle through workflow/chain/lifecycle.ts.
 */
import {
  encodeFunctionData,
  formatEther,
  type Abi,
  type Address,
  type ContractFunctionArgs,
  type ContractFunctionName,
  type ContractFunctionReturnType,
  type Hex,
  type TransactionReceipt,
} from "viem";
import { requireWallet, type ChainContext } from "./clients.js";
import { ChainError, toChainError, withAllErrors } from "./errors.js";
import { explainedError, sendTx, type RevertExplanations } from "./send.js";

/** State-changing functions of `A` (what a transaction can call). */
export type WriteFunctionName<A extends Abi> = ContractFunctionName<A, "nonpayable" | "payable">;
export type WriteArgs<A extends Abi, F extends WriteFunctionName<A>> = ContractFunctionArgs<
  A,
  "nonpayable" | "payable",
  F
>;
export type WriteReturn<A extends Abi, F extends WriteFunctionName<A>> = ContractFunctionReturnType<
  A,
  "nonpayable" | "payable",
  F
>;

/** One write, typed by its ABI: a misspelled function or a wrong argument does not compile. */
export interface ContractWrite<A extends Abi, F extends WriteFunctionName<A>> {
  address: Address;
  abi: A;
  functionName: F;
  args: WriteArgs<A, F>;
  value?: bigint;
  /** Explicit gas limit, or a function of the estimate. Default: the estimate + 20 %, at most 2^24 (EIP-7825). */
  gas?: bigint | ((estimate: bigint) => bigint);
  /** Label for errors, e.g. "ResolutionMarket.joinMarket". Default: the function name. */
  label?: string;
  /** Reverts the caller can say in words (send.ts), by custom error name. */
  explain?: RevertExplanations;
  /** Called with the hash as soon as the node accepted the transaction, before waiting for its receipt. */
  onSent?: (hash: Hex) => void;
}

export interface WriteResult<R = unknown> {
  hash: Hex;
  receipt: TransactionReceipt;
  /** Return value seen by the simulation (e.g. the new market id). */
  result: R;
}

/**
 * simulate → send (nonce-serialised) → wait. Throws a ChainError with the decoded revert. The signature is typed by
 * the ABI; the implementation hands viem the ABI as a plain `Abi` (its conditional types do not resolve for a generic
 * one) and `result` is what viem decoded with that same ABI.
 */
export function sendContractTx<const A extends Abi, F extends WriteFunctionName<A>>(
  ctx: ChainContext,
  write: ContractWrite<A, F>,
): Promise<WriteResult<WriteReturn<A, F>>>;
export async function sendContractTx(ctx: ChainContext, write: ContractWrite<Abi, string>): Promise<WriteResult> {
  const { account } = requireWallet(ctx);
  const label = write.label ?? write.functionName;
  const abi = withAllErrors(write.abi);
  if (write.value !== undefined && write.value > 0n) {
    const balance = await ctx.publicClient.getBalance({ address: account.address }).catch((e: unknown) => {
      throw toChainError(e, "eth_getBalance");
    });
    if (balance < write.value) {
      throw new ChainError(
        "precondition",
        `${label}: insufficient funds, ${account.address} holds ${formatEther(balance)} ETH and this needs ${formatEther(write.value)} ETH plus gas`,
      );
    }
  }
  let simulated: { result: unknown };
  try {
    simulated = await ctx.publicClient.simulateContract({
      address: write.address,
      abi,
      functionName: write.functionName,
      args: write.args,
      account,
      ...(write.value !== undefined ? { value: write.value } : {}),
    });
  } catch (error) {
    throw explainedError(error, label, write.explain);
  }
  const { hash, receipt } = await sendTx(ctx, {
    to: write.address,
    data: encodeFunctionData({ abi, functionName: write.functionName, args: write.args }),
    label,
    ...(write.value !== undefined ? { value: write.value } : {}),
    ...(write.gas !== undefined ? { gas: write.gas } : {}),
    ...(write.explain !== undefined ? { explain: write.explain } : {}),
    ...(write.onSent !== undefined ? { onSent: write.onSent } : {}),
  });
  return { hash, receipt, result: simulated.result };
}
