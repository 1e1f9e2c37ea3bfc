/**
 * Writes: simulate → send → wait for the receipt, with nonces serialised per key (NonceQueue), reverts decoded to
 * their custom error and gas limits never above EIP-7825's 2^24 (workflow/chain/gas.ts). Proposals go through
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
import { cappedGas, PROTOCOL_TX_GAS_CAP, withHeadroom } from "./gas.js";

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
  const { walletClient, account } = requireWallet(ctx);
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
    throw toChainError(error, label);
  }
  const data = encodeFunctionData({ abi, functionName: write.functionName, args: write.args });
  let gas: bigint;
  try {
    if (typeof write.gas === "bigint") gas = write.gas;
    else {
      const estimate = await ctx.publicClient.estimateGas({
        account,
        to: write.address,
        data,
        ...(write.value !== undefined ? { value: write.value } : {}),
      });
      gas = write.gas ? write.gas(estimate) : cappedGas(label, estimate, withHeadroom(estimate), PROTOCOL_TX_GAS_CAP);
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
  write.onSent?.(hash);
  let receipt: TransactionReceipt;
  try {
    receipt = await ctx.publicClient.waitForTransactionReceipt({ hash });
  } catch (error) {
    throw toChainError(error, `${label} (waiting for ${hash})`);
  }
  if (receipt.status !== "success") {
    throw new ChainError("revert", `${label} reverted on-chain in transaction ${hash} (block ${receipt.blockNumber})`);
  }
  return { hash, receipt, result: simulated.result };
}
