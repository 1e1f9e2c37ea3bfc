/**
 * Which rulings are known truth (docs/RECORDS.md §4): a disputed market's ruling counts as truth only when its
 * arbiter is one the deployment allows (`deploymentAllowsArbiter`: the governance allow-list, or on a deployment
 * without one its default arbiter) or one the operator trusts. `chainAllowList` is the RPC side of
 * workflow/allowed-rulings.ts, which marks them for the daemon, `cresolver resolve` and (over its own read) the DON.
 */
import { getAddress, type Address } from "viem";
import type { ArbiterAllowList } from "../allowed-rulings.js";
import { deploymentAllowsArbiter } from "./arbiters.js";
import type { ChainContext } from "./clients.js";

/** Trusted arbiters: the configured ones plus every arbiter of `entries` the deployment allows. */
export async function trustedArbitersOf(
  ctx: ChainContext,
  market: Address,
  arbiters: Iterable<string>,
  configured: readonly Address[] = [],
): Promise<Set<string>> {
  const trusted = new Set(configured.map((a) => a.toLowerCase()));
  const seen = new Set<string>();
  for (const a of arbiters) {
    const key = a.toLowerCase();
    if (trusted.has(key) || seen.has(key) || /^0x0{40}$/.test(key)) continue;
    seen.add(key);
    if ((await deploymentAllowsArbiter(ctx, market, getAddress(a))) === true) trusted.add(key);
  }
  return trusted;
}

/** The deployment's allow-list over RPC (`deploymentAllowsArbiter` per arbiter) for `withAllowedRulings`. */
export function chainAllowList(ctx: ChainContext, market: Address): ArbiterAllowList {
  return { allowed: (arbiters) => trustedArbitersOf(ctx, market, arbiters) };
}
