/**
 * Gas limits of our writes. EIP-7825 (Osaka/Fusaka: mainnet, Sepolia, Hardhat's default hardfork) refuses any
 * transaction whose gas limit exceeds 2^24 = 16,777,216, whatever the block gas limit; a node answers such a send
 * with "Missing or invalid parameters". So a limit is never derived from the block gas limit alone.
 */
import type { ChainContext } from "./clients.js";
import { ChainError, toChainError } from "./errors.js";

/** EIP-7825's per-transaction gas cap. */
export const PROTOCOL_TX_GAS_CAP = 16_777_216n;

/** Head room over the node's estimate (20 %): storage refunds and warm/cold access may differ when mined. */
export function withHeadroom(estimate: bigint): bigint {
  return estimate + estimate / 5n;
}

/** The highest gas limit a transaction may have on this chain: min(2^24, the latest block's gas limit). */
export async function txGasCeiling(ctx: ChainContext): Promise<bigint> {
  const block = await ctx.publicClient.getBlock({ blockTag: "latest" }).catch((e: unknown) => {
    throw toChainError(e, "eth_getBlockByNumber");
  });
  return block.gasLimit < PROTOCOL_TX_GAS_CAP ? block.gasLimit : PROTOCOL_TX_GAS_CAP;
}

/**
 * `want` capped at `ceiling`; a transaction whose bare estimate is already above the ceiling can never be mined,
 * which is a precondition error naming the numbers (never a reason to fall back to another transaction).
 */
export function cappedGas(label: string, estimate: bigint, want: bigint, ceiling: bigint): bigint {
  if (estimate > ceiling) {
    throw new ChainError(
      "precondition",
      `${label} needs ${estimate} gas, above the per-transaction cap of ${ceiling} on this chain (EIP-7825: 16,777,216): the market has too many seats for one transaction here`,
    );
  }
  return want < ceiling ? want : ceiling;
}
