/**
 * ABI-typed reads. The public signatures take viem's types from the generated ABIs (workflow/chain/abis.ts), so a
 * misspelled function or a wrong argument does not compile and results carry the ABI's decoded type; the
 * implementations hand viem the ABI as a plain `Abi` because its conditional types do not resolve for a generic ABI.
 */
import type { Abi, Address, ContractFunctionArgs, ContractFunctionName, ContractFunctionReturnType } from "viem";
import type { ChainContext } from "./clients.js";
import { toChainError } from "./errors.js";

/** Read-only functions of `A`. */
export type ViewFunctionName<A extends Abi> = ContractFunctionName<A, "view" | "pure">;
export type ViewArgs<A extends Abi, F extends ViewFunctionName<A>> = ContractFunctionArgs<A, "view" | "pure", F>;
export type ViewResult<A extends Abi, F extends ViewFunctionName<A>> = ContractFunctionReturnType<
  A,
  "view" | "pure",
  F
>;

/** One read, typed by its ABI (build it with `viewCall` so the function name stays a literal). */
export interface ViewCall<A extends Abi = Abi, F extends ViewFunctionName<A> = ViewFunctionName<A>> {
  address: Address;
  abi: A;
  functionName: F;
  args: ViewArgs<A, F>;
}

export function viewCall<const A extends Abi, F extends ViewFunctionName<A>>(
  address: Address,
  abi: A,
  functionName: F,
  args: ViewArgs<A, F>,
): ViewCall<A, F> {
  return { address, abi, functionName, args };
}

/** `functionName(args)` on `address`, optionally at `blockNumber`; failures become a ChainError labelled `label`. */
export function readView<const A extends Abi, F extends ViewFunctionName<A>>(
  ctx: ChainContext,
  call: ViewCall<A, F>,
  label: string,
  blockNumber?: bigint,
): Promise<ViewResult<A, F>>;
export async function readView(
  ctx: ChainContext,
  call: ViewCall,
  label: string,
  blockNumber?: bigint,
): Promise<unknown> {
  try {
    return await ctx.publicClient.readContract({ ...call, ...(blockNumber !== undefined ? { blockNumber } : {}) });
  } catch (error) {
    throw toChainError(error, label);
  }
}
