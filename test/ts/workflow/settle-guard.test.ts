/**
 * Issue 21, "the creator picks the judge": the contracts refuse to create a market naming an arbiter off the
 * deployment's allow-list (the creator's own one-member committee) or a bond outside the deployment's range; the
 * settler refuses, with one line and no transaction, a market whose arbiter is no longer allowed or whose bond
 * exceeds its own cap. On 15142af the settler proposed on both and paid the bond. Hardhat in-process chain.
 */
import { network } from "hardhat";
import { beforeAll, describe, expect, it } from "vitest";
import { parseEther, type Address, type Hex } from "viem";
import {
  createMarket,
  joinMarket,
  registerAgent,
  requestResolution,
  type MarketParamsInput,
} from "../../../workflow/chain/actions.js";
import { committeeArbiterAbi, marketGovernanceAbi, resolutionMarketAbi } from "../../../workflow/chain/abis.js";
import { connectProvider, withKey, type ChainContext } from "../../../workflow/chain/clients.js";
import { deployAll, deployContract } from "../../../workflow/chain/deploy.js";
import { getDefaults } from "../../../workflow/chain/lifecycle.js";
import type { WorkerReport } from "../../../workflow/core/types.js";
import { createSettler, DEFAULT_MAX_BOND } from "../../../workflow/settle/index.js";
import { deploymentAllowsArbiter } from "../../../workflow/settle/guard.js";
import { hardhatKey } from "../cli/helpers/keys.js";

type Provider = { request(args: { method: string; params?: unknown[] }): Promise<unknown> };

let provider: Provider;
let resolver: ChainContext;
let creator: ChainContext;
let market: Address;
let identity: Address;
let creatorsCommittee: Address;
let governance: Address;
/** A committee the owner allowed at deployment and removes later (e.g. once a member key leaked). */
let laterRemoved: Address;
const HASH = `0x${"cd".repeat(32)}` as Hex;
const yes: WorkerReport = { answer: "yes", confidenceBps: 9000, resQuality: 70, srcQuality: 60, analysisDepth: 50 };

const now = async () => (await resolver.publicClient.getBlock({ blockTag: "latest" })).timestamp;

async function requestedMarket(params: MarketParamsInput): Promise<bigint> {
  const { marketId } = await createMarket(creator, market, `Bent ${Math.random()}?`, (await now()) + 600n, 10n ** 15n, {
    disputeWindow: 600,
    ...params,
  });
  const worker = withKey(resolver, hardhatKey(3));
  const { agentId } = await registerAgent(worker, identity, `data:application/json,{"name":"w"}`);
  await joinMarket(worker, market, marketId, agentId, parseEther("0.01"));
  await provider.request({ method: "evm_increaseTime", params: [601] });
  await provider.request({ method: "evm_mine", params: [] });
  await requestResolution(creator, market, marketId);
  return marketId;
}

const nonceOf = (ctx: ChainContext) => ctx.publicClient.getTransactionCount({ address: ctx.account!.address });

beforeAll(async () => {
  provider = (await network.create()).provider as unknown as Provider;
  resolver = await connectProvider({ provider, privateKey: hardhatKey(0) });
  creator = withKey(resolver, hardhatKey(5));
  const deployment = await deployAll(resolver, { network: "hardhat" });
  market = deployment.contracts.ResolutionMarket.address;
  identity = deployment.contracts.IdentityRegistry.address;
  // The attacker's judge: a committee whose only member is the creator (it passes the committee sanity checks).
  creatorsCommittee = (
    await deployContract(creator, "CommitteeArbiter", committeeArbiterAbi, [[creator.account!.address], 1n, [market]])
  ).address;
  laterRemoved = (
    await deployContract(resolver, "CommitteeArbiter", committeeArbiterAbi, [[resolver.account!.address], 1n, [market]])
  ).address;
  governance = await resolver.publicClient.readContract({
    address: market,
    abi: resolutionMarketAbi,
    functionName: "governance",
  });
  // Still the bootstrap (no market yet): both apply at once.
  await ownerTx({ functionName: "queueArbiter", args: [laterRemoved] });
  await ownerTx({ functionName: "setBondRange", args: [10n ** 15n, parseEther("50")] });
}, 60_000);

/** The owner (the deployer) edits the arbiter allow-list or the bond range of the deployment's governance. */
async function ownerTx(
  call:
    | { functionName: "queueArbiter" | "removeArbiter"; args: readonly [Address] }
    | { functionName: "setBondRange"; args: readonly [bigint, bigint] },
): Promise<void> {
  const wallet = resolver.walletClient!;
  const hash =
    call.functionName === "setBondRange"
      ? await wallet.writeContract({ address: governance, abi: marketGovernanceAbi, ...call })
      : await wallet.writeContract({ address: governance, abi: marketGovernanceAbi, ...call });
  await resolver.publicClient.waitForTransactionReceipt({ hash });
}

describe("the settler refuses a bent market", () => {
  it("the deployment allows its own arbiter and not the creator's committee", async () => {
    const { arbiter } = await getDefaults(resolver, market);
    expect(await deploymentAllowsArbiter(resolver, market, arbiter)).toBe(true);
    expect(await deploymentAllowsArbiter(resolver, market, creatorsCommittee)).toBe(false);
  });

  it("creator-chosen arbiter: the market cannot even be created", async () => {
    await expect(requestedMarket({ arbiter: creatorsCommittee })).rejects.toThrow(/ArbiterNotAllowed/);
  });

  it("an arbiter removed after creation: one clear line, no transaction, no bond paid", async () => {
    const marketId = await requestedMarket({ arbiter: laterRemoved });
    await ownerTx({ functionName: "removeArbiter", args: [laterRemoved] });
    const before = await nonceOf(resolver);
    const balance = await resolver.publicClient.getBalance({ address: resolver.account!.address });
    await expect(
      createSettler(resolver, market).propose({ marketId, verdict: "yes", reports: [yes], bundleHash: HASH }),
    ).rejects.toMatchObject({
      name: "SettleError",
      retryable: false,
      message: `market ${marketId}: its arbiter ${laterRemoved} is not on the deployment's arbiter allow-list; not proposing`,
    });
    expect(await nonceOf(resolver)).toBe(before);
    expect(await resolver.publicClient.getBalance({ address: resolver.account!.address })).toBe(balance);
    // An arbiter the deployment took off its list is refused even if the operator passed it: the list wins.
    await expect(
      createSettler(resolver, market, { trustedArbiters: [laterRemoved] }).propose({
        marketId,
        verdict: "yes",
        reports: [yes],
        bundleHash: HASH,
      }),
    ).rejects.toMatchObject({ name: "SettleError", retryable: false });
    expect(await nonceOf(resolver)).toBe(before);
  });

  it("a bond above the deployment's range cannot be created", async () => {
    await expect(requestedMarket({ bond: parseEther("51") })).rejects.toThrow(/BondOutOfRange/);
  });

  it("oversized bond: a 50 ETH bond (inside this deployment's range) is refused under the default 1 ETH cap, paid only under a raised cap", async () => {
    const marketId = await requestedMarket({ bond: parseEther("50") });
    expect(DEFAULT_MAX_BOND).toBe(parseEther("1"));
    const before = await nonceOf(resolver);
    await expect(
      createSettler(resolver, market).propose({ marketId, verdict: "yes", reports: [yes], bundleHash: HASH }),
    ).rejects.toMatchObject({
      name: "SettleError",
      retryable: false,
      message: `market ${marketId}: its bond ${parseEther("50")} wei exceeds this settler's cap ${parseEther("1")} wei (raise it with --max-bond if you mean to pay it)`,
    });
    expect(await nonceOf(resolver)).toBe(before);
    const paid = await createSettler(resolver, market, { maxBond: parseEther("50") }).propose({
      marketId,
      verdict: "yes",
      reports: [yes],
      bundleHash: HASH,
    });
    expect(paid).toMatchObject({ status: "proposed", bond: parseEther("50") });
  });
});
