/**
 * What a settler refuses before it pays a bond (issue 21): a market whose arbiter the deployment does not allow, or
 * whose bond exceeds the settler's cap. A creator picks both at creation; without this check a creator-chosen
 * arbiter (the creator itself) takes the resolver's bond and flips the verdict.
 *
 * Allowed arbiter: `MarketGovernance.isArbiterAllowed(arbiter)` of the market's `governance()` (docs/RECORDS.md §2).
 * On a market contract without those views (the round-2 layout) the deployment's default arbiter (`getDefaults`, the
 * owner's timelocked choice) is the one it vouches for; `trustedArbiters` adds arbiters the operator vouches for
 * itself. Anything else is refused. The allow-list read lives in workflow/chain/arbiters.ts (also used for trusted
 * rulings).
 */
export { deploymentAllowsArbiter } from "../chain/arbiters.js";
import { getAddress, type Address } from "viem";
import type { ChainContext } from "../chain/clients.js";
import { deploymentAllowsArbiter } from "../chain/arbiters.js";
import { ChainError } from "../chain/errors.js";

/** Default cap on the bond a settler pays for one proposal. */
export const DEFAULT_MAX_BOND = 10n ** 18n;

export interface MarketGuardOptions {
  /** Largest bond (wei) this settler pays; a market asking more is refused. Default 1 ETH. */
  maxBond?: bigint;
  /** Arbiters this operator trusts besides the deployment's allow-list (e.g. while governance cannot be read). */
  trustedArbiters?: readonly Address[];
}

/** Throws a one-line precondition ChainError when the settler must not propose on this market. */
export async function checkMarketGuard(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  config: { bond: bigint; arbiter: Address },
  options: MarketGuardOptions,
): Promise<void> {
  const maxBond = options.maxBond ?? DEFAULT_MAX_BOND;
  if (config.bond > maxBond)
    throw new ChainError(
      "precondition",
      `market ${marketId}: its bond ${config.bond} wei exceeds this settler's cap ${maxBond} wei (raise it with --max-bond if you mean to pay it)`,
    );
  const arbiter = getAddress(config.arbiter);
  const allowed = await deploymentAllowsArbiter(ctx, market, arbiter);
  if (allowed === false)
    throw new ChainError(
      "precondition",
      `market ${marketId}: its arbiter ${arbiter} is not on the deployment's arbiter allow-list; not proposing`,
    );
  if (allowed === true) return;
  if ((options.trustedArbiters ?? []).some((a) => getAddress(a) === arbiter)) return;
  throw new ChainError(
    "precondition",
    `market ${marketId}: its arbiter ${arbiter} is not one the deployment allows (nor one passed with --trusted-arbiter); not proposing`,
  );
}
