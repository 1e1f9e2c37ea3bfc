/**
 * UMA's own OOv3 stack from `@uma/contracts-node` on Hardhat's in-process chain (workflow/chain/uma.ts): wiring, the
 * minimum bond, and an assertion's two endings (unchallenged; countered and decided by the mock DVM) with
 * the bonds where UMA's rules put them. No cresolver contract is involved here (see uma-arbiter.test.ts).
 */
import { network } from "hardhat";
import { beforeAll, describe, expect, it } from "vitest";
import {
  parseAbi,
  parseEventLogs,
  stringToHex,
  toFunctionSelector,
  toEventSelector,
  type Abi,
  type AbiEvent,
  type AbiFunction,
  type Hex,
} from "viem";
import { connectProvider, withKey, type ChainContext } from "../../../workflow/chain/clients.js";
import { localDevKey } from "../../../workflow/chain/dev-accounts.js";
import { ChainError } from "../../../workflow/chain/errors.js";
import { sendContractTx } from "../../../workflow/chain/writer.js";
import { umaArbiterAbi } from "../../../workflow/chain/abis.js";
import {
  ASSERT_TRUTH,
  UMA_ARTIFACTS,
  currencyBalance,
  deployUmaStack,
  disputeAssertion,
  getAssertion,
  loadUmaArtifact,
  mintCurrency,
  approveCurrency,
  assertionIdOf,
  deployUmaArbiter,
  pushMockPrice,
  settleAssertion,
  umaAbis,
  type UmaContractName,
  type UmaStack,
} from "../../../workflow/chain/uma.js";

type Provider = { request(args: { method: string; params?: unknown[] }): Promise<unknown> };
const E18 = 10n ** 18n;
const assertAbi = parseAbi(["function assertTruthWithDefaults(bytes claim, address asserter) returns (bytes32)"]);

let provider: Provider;
let owner: ChainContext;
let asserter: ChainContext;
let counter: ChainContext;
let uma: UmaStack;

async function increaseTime(seconds: number): Promise<void> {
  await provider.request({ method: "evm_increaseTime", params: [seconds] });
  await provider.request({ method: "evm_mine", params: [] });
}

async function assertClaim(claim: string): Promise<Hex> {
  const minBond = 2n * uma.finalFee;
  await approveCurrency(asserter, uma, uma.optimisticOracle, minBond);
  const { receipt } = await sendContractTx(asserter, {
    address: uma.optimisticOracle,
    abi: assertAbi,
    functionName: "assertTruthWithDefaults",
    args: [stringToHex(claim), asserter.account!.address],
  });
  const [made] = parseEventLogs({ abi: umaAbis.optimisticOracle, logs: receipt.logs, eventName: "AssertionMade" });
  return made!.args.assertionId;
}

beforeAll(async () => {
  provider = (await network.create()).provider as unknown as Provider;
  owner = await connectProvider({ provider, privateKey: localDevKey(0) });
  asserter = withKey(owner, localDevKey(1));
  counter = withKey(owner, localDevKey(2));
  uma = await deployUmaStack(owner, { finalFee: 50n * E18 });
  for (const who of [asserter, counter]) await mintCurrency(owner, uma, who.account!.address, 1_000n * E18);
});

describe("UMA stack from @uma/contracts-node", () => {
  it("our typed call fragments exist, byte for byte, in the artifacts' ABIs", () => {
    const pairs: [UmaContractName, Abi][] = [
      ["Finder", umaAbis.finder],
      ["Store", umaAbis.store],
      ["IdentifierWhitelist", umaAbis.identifierWhitelist],
      ["AddressWhitelist", umaAbis.addressWhitelist],
      ["TestnetERC20", umaAbis.currency],
      ["MockOracleAncillary", umaAbis.mockOracle],
      ["OptimisticOracleV3", umaAbis.optimisticOracle],
    ];
    for (const [name, typed] of pairs) {
      const real = loadUmaArtifact(name).abi;
      const realFns = new Set(
        real.filter((x): x is AbiFunction => x.type === "function").map((f) => toFunctionSelector(f)),
      );
      const realEvents = new Set(real.filter((x): x is AbiEvent => x.type === "event").map((e) => toEventSelector(e)));
      for (const item of typed) {
        if (item.type === "function") expect(realFns.has(toFunctionSelector(item)), `${name}.${item.name}`).toBe(true);
        if (item.type === "event")
          expect(realEvents.has(toEventSelector(item)), `${name} event ${item.name}`).toBe(true);
      }
    }
    expect(Object.keys(UMA_ARTIFACTS)).toHaveLength(7);
  });

  it("wires the Finder, whitelists and final fee; OOv3's minimum bond is twice the final fee", async () => {
    const read = owner.publicClient.readContract;
    for (const [name, address] of [
      ["Store", uma.store],
      ["IdentifierWhitelist", uma.identifierWhitelist],
      ["CollateralWhitelist", uma.addressWhitelist],
      ["Oracle", uma.mockOracle],
    ] as const) {
      expect(
        await read({
          address: uma.finder,
          abi: umaAbis.finder,
          functionName: "getImplementationAddress",
          args: [stringToHex(name, { size: 32 })],
        }),
      ).toBe(address);
    }
    expect(
      await read({
        address: uma.identifierWhitelist,
        abi: umaAbis.identifierWhitelist,
        functionName: "isIdentifierSupported",
        args: [ASSERT_TRUTH],
      }),
    ).toBe(true);
    expect(
      await read({
        address: uma.addressWhitelist,
        abi: umaAbis.addressWhitelist,
        functionName: "isOnWhitelist",
        args: [uma.currency],
      }),
    ).toBe(true);
    expect(
      (await read({ address: uma.store, abi: umaAbis.store, functionName: "computeFinalFee", args: [uma.currency] }))
        .rawValue,
    ).toBe(50n * E18);
    expect(
      await read({ address: uma.optimisticOracle, abi: umaAbis.optimisticOracle, functionName: "defaultIdentifier" }),
    ).toBe(ASSERT_TRUTH);
    expect(
      await read({
        address: uma.optimisticOracle,
        abi: umaAbis.optimisticOracle,
        functionName: "getMinimumBond",
        args: [uma.currency],
      }),
    ).toBe(100n * E18);
  });

  it("an unchallenged assertion settles true after liveness and returns the asserter's bond", async () => {
    const before = await currencyBalance(owner, uma, asserter.account!.address);
    const id = await assertClaim("the sky is blue");
    expect(await currencyBalance(owner, uma, asserter.account!.address)).toBe(before - 100n * E18);
    await expect(settleAssertion(owner, uma, id)).rejects.toThrow(/Assertion not expired/);
    await increaseTime(7200);
    await settleAssertion(owner, uma, id);
    const a = await getAssertion(owner, uma, id);
    expect(a.settled).toBe(true);
    expect(a.settlementResolution).toBe(true);
    expect(await currencyBalance(owner, uma, asserter.account!.address)).toBe(before);
  });

  it("a countered assertion goes to the mock DVM; a false verdict pays the counter-party 2 bonds minus UMA's burn", async () => {
    const id = await assertClaim("the sky is green");
    const counterBefore = await currencyBalance(owner, uma, counter.account!.address);
    const storeBefore = await currencyBalance(owner, uma, uma.store);
    await expect(pushMockPrice(owner, uma, id, false)).rejects.toThrow(ChainError);
    await disputeAssertion(counter, uma, id);
    expect((await getAssertion(owner, uma, id)).disputer).toBe(counter.account!.address);
    await expect(settleAssertion(owner, uma, id)).rejects.toThrow(); // the DVM has not answered
    await pushMockPrice(owner, uma, id, false);
    await settleAssertion(owner, uma, id);
    expect((await getAssertion(owner, uma, id)).settlementResolution).toBe(false);
    // 2 x 100 bonded, half of one bond (50) burned to the Store: the counter-party nets +50.
    expect(await currencyBalance(owner, uma, counter.account!.address)).toBe(counterBefore + 50n * E18);
    expect(await currencyBalance(owner, uma, uma.store)).toBe(storeBefore + 50n * E18);
    expect(await currencyBalance(owner, uma, uma.optimisticOracle)).toBe(0n);
  });

  it("deploys our UmaArbiter against the stack: OOv3's identifier and minimum bond, no case yet", async () => {
    const market = "0x000000000000000000000000000000000000dEaD";
    const arbiter = await deployUmaArbiter(owner, uma, { markets: [market], liveness: 3600 });
    const read = owner.publicClient.readContract;
    expect(await read({ address: arbiter.address, abi: umaArbiterAbi, functionName: "identifier" })).toBe(ASSERT_TRUTH);
    expect(await read({ address: arbiter.address, abi: umaArbiterAbi, functionName: "disputeBond" })).toBe(100n * E18);
    expect(await read({ address: arbiter.address, abi: umaArbiterAbi, functionName: "liveness" })).toBe(3600n);
    expect(await read({ address: arbiter.address, abi: umaArbiterAbi, functionName: "isMarket", args: [market] })).toBe(
      true,
    );
    expect(await assertionIdOf(owner, arbiter.address, market, 1n)).toBeUndefined();
    await expect(deployUmaArbiter(owner, uma, { markets: [market], liveness: 60 })).rejects.toThrow(
      /LivenessOutOfRange/,
    );
    // A currency OOv3 does not accept would make every dispute revert: refused at deployment.
    await expect(
      deployUmaArbiter(owner, { optimisticOracle: uma.optimisticOracle, currency: uma.finder }, { markets: [market] }),
    ).rejects.toThrow(/CurrencyNotSupported/);
  });
});
