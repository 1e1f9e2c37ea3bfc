/**
 * Whether a deployment allows an arbiter (docs/RECORDS.md §2): `MarketGovernance.isArbiterAllowed` of the market's
 * `governance()`; on the round-2 layout (no such views) the owner's timelocked default arbiter. Used by the settler
 * guard (workflow/settle/guard.ts) and for trusted rulings (trusted-rulings.ts).
 */
import { getAddress, type Address } from "viem";
import { marketGovernanceAbi, resolutionMarketAbi } from "./abis.js";
import type { ChainContext } from "./clients.js";
import { toChainError } from "./errors.js";
import { getDefaults } from "./market-reads.js";

/** true / false as the deployment's allow-list says, undefined when the market has no such list to ask. */
export async function deploymentAllowsArbiter(
  ctx: ChainContext,
  market: Address,
  arbiter: Address,
): Promise<boolean | undefined> {
  const view = async <T>(read: () => Promise<T>, label: string): Promise<T | undefined> => {
    try {
      return await read();
    } catch (error) {
      const e = toChainError(error, label);
      // A revert (no such function) means "not this layout"; a transport error is not an answer.
      if (e.kind === "revert") return undefined;
      throw e;
    }
  };
  const governance = await view(
    () => ctx.publicClient.readContract({ address: market, abi: resolutionMarketAbi, functionName: "governance" }),
    "ResolutionMarket.governance",
  );
  if (governance !== undefined) {
    const allowed = await view(
      () =>
        ctx.publicClient.readContract({
          address: governance,
          abi: marketGovernanceAbi,
          functionName: "isArbiterAllowed",
          args: [arbiter],
        }),
      "MarketGovernance.isArbiterAllowed",
    );
    if (allowed !== undefined) return allowed;
  }
  // Round-2 layout: the governance is the market itself; its default arbiter is the one the owner timelocked.
  const defaults = await view(() => getDefaults(ctx, market), "ResolutionMarket.getDefaults");
  if (defaults === undefined) return undefined;
  return getAddress(defaults.arbiter) === getAddress(arbiter) ? true : undefined;
}
