/**
 * The one send path (workflow/chain/send.ts) on Hardhat's in-process chain: the gas limit is the estimate plus head
 * room and never above EIP-7825's 2^24, an explicit limit above it is refused before anything is sent, constructor
 * and call reverts are decoded, and a caller's words replace a known revert. Deployments go through it too.
 */
import { network } from "hardhat";
import { encodeDeployData, encodeFunctionData, getAddress, zeroAddress, type Address } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { committeeArbiterAbi, identityRegistryAbi } from "../../../workflow/chain/abis.js";
import { loadArtifact } from "../../../workflow/chain/artifacts.js";
import { connectProvider, type ChainContext } from "../../../workflow/chain/clients.js";
import { deployContract } from "../../../workflow/chain/deploy.js";
import { ChainError } from "../../../workflow/chain/errors.js";
import { PROTOCOL_TX_GAS_CAP } from "../../../workflow/chain/gas.js";
import { explainedError, sendCreation, sendTx } from "../../../workflow/chain/send.js";
import { hardhatKey } from "../cli/helpers/keys.js";

let ctx: ChainContext;
let identity: Address;

async function nonce(): Promise<number> {
  return ctx.publicClient.getTransactionCount({ address: ctx.account?.address ?? zeroAddress, blockTag: "pending" });
}

async function rejection(promise: Promise<unknown>): Promise<ChainError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ChainError)) throw new Error(`expected a ChainError, got ${String(error)}`);
  return error;
}

beforeAll(async () => {
  const connection = await network.create();
  ctx = await connectProvider({ provider: connection.provider, privateKey: hardhatKey(0) });
  identity = (await deployContract(ctx, "IdentityRegistry", identityRegistryAbi, [])).address;
});

describe("sendTx / sendCreation", () => {
  it("sends a creation with the estimate + 20 % as its gas limit and returns the new contract", async () => {
    const data = encodeDeployData({
      abi: identityRegistryAbi,
      bytecode: loadArtifact("IdentityRegistry").bytecode,
      args: [],
    });
    const estimate = await ctx.publicClient.estimateGas({ account: ctx.account, data });
    const sent = await sendCreation(ctx, { data, label: "deploy IdentityRegistry" });
    const tx = await ctx.publicClient.getTransaction({ hash: sent.hash });
    expect(tx.gas).toBe(estimate + estimate / 5n);
    expect(tx.gas).toBeLessThanOrEqual(PROTOCOL_TX_GAS_CAP);
    expect(sent.address).toBe(getAddress(sent.receipt.contractAddress ?? zeroAddress));
    expect(await ctx.publicClient.getCode({ address: sent.address })).not.toBe("0x");
  });

  it("refuses an explicit gas limit above 2^24 before sending anything", async () => {
    const before = await nonce();
    const error = await rejection(
      sendTx(ctx, {
        to: identity,
        data: encodeFunctionData({ abi: identityRegistryAbi, functionName: "register", args: [] }),
        gas: PROTOCOL_TX_GAS_CAP + 1n,
        label: "IdentityRegistry.register",
      }),
    );
    expect(error.kind).toBe("precondition");
    expect(error.message).toMatch(/IdentityRegistry\.register needs 16777217 gas, above the per-transaction cap/);
    expect(await nonce()).toBe(before);
  });

  it("caps a caller's gas function at 2^24", async () => {
    const sent = await sendTx(ctx, {
      to: identity,
      data: encodeFunctionData({ abi: identityRegistryAbi, functionName: "register", args: [] }),
      gas: () => 1n << 40n,
      label: "IdentityRegistry.register",
    });
    expect((await ctx.publicClient.getTransaction({ hash: sent.hash })).gas).toBe(PROTOCOL_TX_GAS_CAP);
  });

  it("decodes a constructor revert, labelled, and sends nothing", async () => {
    const before = await nonce();
    const error = await rejection(deployContract(ctx, "CommitteeArbiter", committeeArbiterAbi, [[], 1n, [identity]]));
    expect(error.kind).toBe("revert");
    expect(error.errorName).toBe("NoMembers");
    expect(error.message).toMatch(/^deploy CommitteeArbiter reverted: NoMembers/);
    expect(await nonce()).toBe(before);
  });

  it("says a known revert in the caller's words, with the decoded arguments, keeping the revert as cause", async () => {
    const data = encodeDeployData({
      abi: committeeArbiterAbi,
      bytecode: loadArtifact("CommitteeArbiter").bytecode,
      args: [[identity], 2n, [identity]],
    });
    const error = await rejection(
      sendCreation(ctx, {
        data,
        label: "deploy committee",
        explain: { ThresholdOutOfRange: (a) => `a threshold of ${String(a.threshold)} needs more members` },
      }),
    );
    expect(error.kind).toBe("precondition");
    expect(error.message).toBe("deploy committee: a threshold of 2 needs more members");
    expect(error.errorName).toBe("ThresholdOutOfRange");
    expect(error.cause).toBeInstanceOf(ChainError);
  });

  it("leaves reverts the caller has no words for, and non-reverts, as they are", () => {
    const revert = new ChainError("revert", "x reverted: NoMembers()", { errorName: "NoMembers" });
    expect(explainedError(revert, "x", { ThresholdOutOfRange: () => "never" })).toBe(revert);
    const rpc = new ChainError("rpc", "x failed: timeout", { errorName: "NoMembers" });
    expect(explainedError(rpc, "x", { NoMembers: () => "never" })).toBe(rpc);
  });
});
