/**
 * What a dispute costs. In ETH: the governance's `disputeBond(marketId)` (the market's bond plus 10 % of its reward pool and
 * stakes; docs/DISPUTES.md "Bonds"), the `msg.value` of `dispute`. In the arbiter's token: an UmaArbiter pulls UMA's bond in its ERC-20 `currency`
 * from the disputer inside `market.dispute`, so the disputer approves it first. A CommitteeArbiter (or any arbiter
 * without `currency()`/`disputeBond()`) takes nothing. Checked before anything is sent: a missing balance is a
 * one-line precondition error, not a reverted dispute that already spent gas.
 */
import { erc20Abi, getAddress, type Address, type Hex } from "viem";
import { umaArbiterAbi } from "./abis.js";
import { requireWallet, type ChainContext } from "./clients.js";
import { ChainError, toChainError } from "./errors.js";
import { readGovernance } from "./market-reads.js";
import { sendContractTx } from "./writer.js";

/** The ETH a dispute of `marketId` must send (`governance().disputeBond`; the proposer's bond is less). */
export function marketDisputeBond(ctx: ChainContext, market: Address, marketId: bigint): Promise<bigint> {
  return readGovernance(ctx, market, "disputeBond", [marketId]);
}

export interface ArbiterBond {
  /** The ERC-20 the arbiter pulls. */
  currency: Address;
  /** What it pulls per dispute (UmaArbiter.disputeBond(): max(configured, OOv3's minimum)). */
  amount: bigint;
}

/** The ERC-20 bond `arbiter` pulls from a disputer, or undefined when it takes none (not an UmaArbiter). */
export async function arbiterBondOf(ctx: ChainContext, arbiter: Address): Promise<ArbiterBond | undefined> {
  const read = async <T>(fn: () => Promise<T>, label: string): Promise<T | undefined> => {
    try {
      return await fn();
    } catch (error) {
      const e = toChainError(error, label);
      if (e.kind === "revert") return undefined; // no such view: an arbiter without an ERC-20 bond
      throw e;
    }
  };
  const address = getAddress(arbiter);
  const currency = await read(
    () => ctx.publicClient.readContract({ address, abi: umaArbiterAbi, functionName: "currency" }),
    "UmaArbiter.currency",
  );
  if (currency === undefined) return undefined;
  const amount = await read(
    () => ctx.publicClient.readContract({ address, abi: umaArbiterAbi, functionName: "disputeBond" }),
    "UmaArbiter.disputeBond",
  );
  if (amount === undefined) return undefined;
  return { currency: getAddress(currency), amount };
}

export interface BondApproval {
  /** The arbiter allowed to pull the bond. */
  arbiter: Address;
  bond: ArbiterBond;
  /** The approval transaction, absent when the allowance already covered the bond. */
  txHash?: Hex;
  /** The wallet's balance of `bond.currency` when approved. */
  balance: bigint;
}

/**
 * Makes sure `arbiter` may pull its dispute bond from the wallet: checks the balance (precondition error when short,
 * unless `allowShortBalance`: a fallback arbiter pulls only if the first one stays silent, and anyone may fund it
 * then) and approves exactly the bond when the allowance is lower. Returns undefined for an arbiter that takes no bond.
 */
export async function approveArbiterBond(
  ctx: ChainContext,
  arbiter: Address,
  options: { allowShortBalance?: boolean } = {},
): Promise<BondApproval | undefined> {
  const { account } = requireWallet(ctx);
  const bond = await arbiterBondOf(ctx, arbiter);
  if (bond === undefined || bond.amount === 0n) return undefined;
  const reading = async <T>(fn: () => Promise<T>, label: string): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      throw toChainError(error, label);
    }
  };
  const token = { address: bond.currency, abi: erc20Abi } as const;
  const balance = await reading(
    () => ctx.publicClient.readContract({ ...token, functionName: "balanceOf", args: [account.address] }),
    "ERC20.balanceOf",
  );
  if (balance < bond.amount && options.allowShortBalance !== true)
    throw new ChainError(
      "precondition",
      `the arbiter ${getAddress(arbiter)} pulls a dispute bond of ${bond.amount} of token ${bond.currency}; ${account.address} holds ${balance}`,
    );
  const allowance = await reading(
    () =>
      ctx.publicClient.readContract({
        ...token,
        functionName: "allowance",
        args: [account.address, getAddress(arbiter)],
      }),
    "ERC20.allowance",
  );
  if (allowance >= bond.amount) return { arbiter: getAddress(arbiter), bond, balance };
  const sent = await sendContractTx(ctx, {
    address: bond.currency,
    abi: erc20Abi,
    functionName: "approve",
    args: [getAddress(arbiter), bond.amount],
    label: "ERC20.approve (arbiter's dispute bond)",
  });
  return { arbiter: getAddress(arbiter), bond, txHash: sent.hash, balance };
}
