/**
 * Which rulings are known truth (docs/RECORDS.md §4): a disputed market's ruling counts as truth only when its
 * arbiter is one the deployment allows (`deploymentAllowsArbiter`: the governance allow-list, or on a deployment
 * without one its default arbiter) or one the operator trusts. `chainAllowList` is the RPC side of
 * workflow/allowed-rulings.ts, which marks them for the daemon, `cresolver resolve` and (over its own read) the DON.
 */
import { getAddress, type Address } from "viem";
import type { ArbiterAllowList } from "../allowed-rulings.js";
import type { HistoryMarket } from "../core/types.js";
import { deploymentAllowsArbiter } from "./arbiters.js";
import type { ChainContext } from "./clients.js";
import { getMarketConfig } from "./lifecycle.js";

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

/** The logs' record with each disputed market's arbiter (its config's) and whether its ruling is trusted. */
export async function markTrustedRulings(
  ctx: ChainContext,
  market: Address,
  history: HistoryMarket[],
  options: { trustedArbiters?: readonly Address[] } = {},
): Promise<HistoryMarket[]> {
  const arbiterOf = new Map<string, Address>();
  for (const m of history) {
    if (!m.disputed) continue;
    const id = m.key.split(":").at(-1);
    if (id === undefined || !/^[0-9]+$/.test(id)) continue;
    arbiterOf.set(m.key, getAddress((await getMarketConfig(ctx, market, BigInt(id))).arbiter));
  }
  const trusted = await trustedArbitersOf(ctx, market, arbiterOf.values(), options.trustedArbiters);
  return history.map((m) => {
    const arbiter = arbiterOf.get(m.key);
    return arbiter === undefined ? m : { ...m, arbiter, trustedRuling: trusted.has(arbiter.toLowerCase()) };
  });
}

/** The deployment's allow-list over RPC (`deploymentAllowsArbiter` per arbiter) for `withAllowedRulings`. */
export function chainAllowList(ctx: ChainContext, market: Address): ArbiterAllowList {
  return { allowed: (arbiters) => trustedArbitersOf(ctx, market, arbiters) };
}
