/**
 * The CRE workflow calls the market and the identity registry through a small hand-written ABI (the WASM bundle
 * should not carry every contract's ABI): it must match the generated ABIs of the real contracts exactly.
 */
import { toEventSelector, toFunctionSignature, type AbiFunction, type AbiParameter } from "viem";
import { describe, expect, it } from "vitest";
import { identityReadAbi, marketReadAbi, RESOLUTION_REQUESTED_TOPIC } from "../../../cre/resolution/abi.js";
import { identityRegistryAbi, resolutionMarketAbi } from "../../../workflow/chain/abis.js";

/** Type layout only (names and internal types are documentation). */
const shape = (p: AbiParameter): unknown => ({
  type: p.type,
  ...("components" in p ? { components: p.components.map(shape) } : {}),
});
const fn = (abi: readonly unknown[], name: string) =>
  (abi as AbiFunction[]).find((i) => i.type === "function" && i.name === name);

describe("CRE workflow ABI fragment", () => {
  it("matches IResolutionMarket and IIdentityRegistry (names, inputs, outputs, tuple layout)", () => {
    for (const [mine, real] of [
      [marketReadAbi, resolutionMarketAbi],
      [identityReadAbi, identityRegistryAbi],
    ] as const) {
      for (const item of mine) {
        if (item.type !== "function") continue;
        const theirs = fn(real, item.name);
        expect(theirs, item.name).toBeDefined();
        expect(toFunctionSignature(item)).toBe(toFunctionSignature(theirs!));
        expect(item.outputs.map(shape)).toEqual(theirs!.outputs.map(shape));
      }
    }
  });

  it("triggers on the market's ResolutionRequested event", () => {
    const event = (resolutionMarketAbi as readonly { type: string; name?: string }[]).find(
      (i) => i.type === "event" && i.name === "ResolutionRequested",
    );
    expect(toEventSelector(event as never)).toBe(RESOLUTION_REQUESTED_TOPIC);
  });
});
