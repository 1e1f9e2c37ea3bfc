/**
 * Compile-time checks of the ABI-typed chain layer. The bodies are never run against a chain: `tsc --noEmit` (part
 * of `npm test`) fails when one of the `@ts-expect-error` lines stops being an error, i.e. when a helper goes back
 * to accepting any function name or any arguments, or when a result type loosens.
 */
import type { Address, Hex } from "viem";
import { describe, expect, expectTypeOf, it } from "vitest";
import { bettingMarketAbi, marketReputationAbi, resolutionMarketAbi } from "../../../workflow/chain/abis.js";
import type { ChainContext } from "../../../workflow/chain/clients.js";
import { deployContract } from "../../../workflow/chain/deploy.js";
import { readGovernance, readMarket } from "../../../workflow/chain/lifecycle.js";
import { readContractLogs, readLogs } from "../../../workflow/chain/logs.js";
import { readView, viewCall } from "../../../workflow/chain/reads.js";
import { readMany } from "../../../workflow/chain/snapshot.js";
import { sendContractTx } from "../../../workflow/chain/writer.js";

/** Type assertions only; never called. */
function typedReads(ctx: ChainContext, market: Address): void {
  // @ts-expect-error misspelled view
  void readMarket(ctx, market, "getMarkt", [1n]);
  // @ts-expect-error marketId is a uint256 (bigint), not a string
  void readMarket(ctx, market, "getMarket", ["1"]);
  // @ts-expect-error a write is not a view
  void readMarket(ctx, market, "finalize", [1n]);
  // @ts-expect-error getWorkers takes a marketId
  void readMarket(ctx, market, "getWorkers", []);
  // @ts-expect-error misspelled view on another ABI
  viewCall(market, bettingMarketAbi, "claimables", [1n, market]);
  // @ts-expect-error claimable takes (marketId, bettor)
  void readView(ctx, viewCall(market, bettingMarketAbi, "claimable", [market, 1n]), "BettingMarket.claimable");

  expectTypeOf(readMarket(ctx, market, "getWorkers", [1n])).resolves.toEqualTypeOf<
    readonly [readonly Address[], readonly bigint[], readonly bigint[]]
  >();
  expectTypeOf(readGovernance(ctx, market, "resolverActiveFrom", [market])).resolves.toEqualTypeOf<bigint>();
  expectTypeOf(readMarket(ctx, market, "getMarket", [1n]))
    .resolves.toHaveProperty("bundleHash")
    .toEqualTypeOf<Hex>();
}

function typedMulticall(ctx: ChainContext, market: Address): void {
  const read = readMany(
    ctx,
    [
      viewCall(market, marketReputationAbi, "feedbackStatus", [1n]),
      viewCall(market, bettingMarketAbi, "claimable", [1n, market]),
    ],
    0n,
  );
  type Results = Awaited<typeof read>["results"];
  // @ts-expect-error a plain call object is checked against its ABI too (misspelled name)
  void readMany(ctx, [{ address: market, abi: resolutionMarketAbi, functionName: "getMarkt", args: [1n] }], 0n);
  // @ts-expect-error ... and its arguments
  void readMany(ctx, [{ address: market, abi: resolutionMarketAbi, functionName: "getMarket", args: [true] }], 0n);
  expectTypeOf<Extract<Results[0], { status: "success" }>["result"]>().toEqualTypeOf<readonly [bigint, bigint]>();
  expectTypeOf<Extract<Results[1], { status: "success" }>["result"]>().toEqualTypeOf<bigint>();
}

function typedWrites(ctx: ChainContext, market: Address): void {
  // @ts-expect-error misspelled write
  void sendContractTx(ctx, { address: market, abi: resolutionMarketAbi, functionName: "finalise", args: [1n] });
  // @ts-expect-error joinMarket takes (marketId, agentId), both uint256
  void sendContractTx(ctx, { address: market, abi: resolutionMarketAbi, functionName: "joinMarket", args: [1n, "7"] });
  // @ts-expect-error a view is not a write
  void sendContractTx(ctx, { address: market, abi: resolutionMarketAbi, functionName: "getMarket", args: [1n] });
  // @ts-expect-error the ResolutionMarket constructor takes (identity, reputation, owner)
  void deployContract(ctx, "ResolutionMarket", resolutionMarketAbi, [market]);

  expectTypeOf(
    sendContractTx(ctx, { address: market, abi: marketReputationAbi, functionName: "publishFeedback", args: [1n, 2n] }),
  )
    .resolves.toHaveProperty("result")
    .toEqualTypeOf<bigint>();
}

function typedLogs(ctx: ChainContext, market: Address): void {
  // @ts-expect-error misspelled event
  void readLogs(ctx, market, "MarketFinalised");
  // @ts-expect-error marketId filters on a uint256
  void readLogs(ctx, market, "WorkerSettled", {}, { marketId: "1" });
  expectTypeOf(readContractLogs(ctx, market, bettingMarketAbi, "BetPlaced"))
    .resolves.items.toHaveProperty("args")
    .toHaveProperty("positionOnSide")
    .toEqualTypeOf<bigint>();
}

describe("ABI-typed chain layer", () => {
  it("is checked by tsc (see the @ts-expect-error lines above)", () => {
    expect([typedReads, typedMulticall, typedWrites, typedLogs].every((f) => typeof f === "function")).toBe(true);
  });
});
