/**
 * Disputes escalated to UMA's real Optimistic Oracle V3 (from `@uma/contracts-node`, MockOracleAncillary as the DVM) on
 * Hardhat's in-process chain, through ResolutionMarket v2 and UmaArbiter:
 *  - a captured panel proposes NO on a YES question, a disputer claims YES, the proposer's side counters the
 *    assertion on OOv3, the mock DVM says the claim is true, settlement finalizes the market YES (overturned):
 *    the disputer takes both market bonds and the stakes of the seats that answered NO, UMA's bonds follow
 *    UMA's rules, the betting pool pays YES;
 *  - nobody counters the assertion: after liveness the claim stands;
 *  - the DVM rejects the claim: the proposal stands and the proposer takes both market bonds.
 * Needs `npx hardhat build`.
 */
import { describe, expect, it } from "vitest";
import { parseEventLogs, type Hex } from "viem";
import {
  approveCurrency,
  currencyBalance,
  deployUmaStack,
  disputeAssertion,
  getAssertion,
  mintCurrency,
  pushMockPrice,
  settleAssertion,
  type UmaStack,
} from "../../../workflow/chain/uma.js";
import { MARKET_BOND, POOL, STATUS, VERDICT, startStack, type Stack } from "./dispute-fixture.js";

const E18 = 10n ** 18n;
const LIVENESS = 3600;
const FINAL_FEE = 50n * E18; // OOv3 minimum bond = 100e18

async function umaSetup() {
  const s = await startStack();
  const deployer = await s.ctx("deployer");
  const uma: UmaStack = await deployUmaStack(deployer, { finalFee: FINAL_FEE });
  const arbiter = await s.deployUmaArbiter(uma.optimisticOracle, uma.currency, 0n, LIVENESS);
  const disputerCtx = await s.ctx("disputer");
  const resolverCtx = await s.ctx("resolver");
  for (const who of ["disputer", "resolver"] as const) await mintCurrency(deployer, uma, s.addr(who), 1_000n * E18);
  const { marketId, stake, workers } = await s.openMarket(arbiter.address);
  await s.proposeWrong(marketId);
  return { s, uma, arbiter, deployer, disputerCtx, resolverCtx, marketId, stake, workers };
}

/** The disputer approves UMA's bond to the arbiter and disputes with the market bond, claiming YES. */
async function disputeYes(
  s: Stack,
  arbiter: Awaited<ReturnType<Stack["deployUmaArbiter"]>>,
  uma: UmaStack,
  disputerCtx: Awaited<ReturnType<Stack["ctx"]>>,
  marketId: bigint,
) {
  const umaBond = await arbiter.read.disputeBond();
  expect(umaBond).toBe(2n * FINAL_FEE);
  await approveCurrency(disputerCtx, uma, arbiter.address, umaBond);
  const receipt = await s.wait(
    await s.market.write.dispute([marketId, VERDICT.yes], {
      account: s.addr("disputer"),
      value: await s.governance.read.disputeBond([marketId]),
    }),
  );
  expect((await s.market.read.getMarket([marketId])).status).toBe(STATUS.disputed);
  const assertionId: Hex = await arbiter.read.assertionIdOf([s.market.address, marketId]);
  expect(assertionId).not.toBe(`0x${"0".repeat(64)}`);
  return { umaBond, assertionId, receipt };
}

describe("UmaArbiter on UMA's OOv3 (real contracts from @uma/contracts-node)", () => {
  it("counter-asserted, the DVM backs the claim: the wrong proposal is overturned, bonds and stakes move, betting pays YES", async () => {
    const { s, uma, arbiter, disputerCtx, resolverCtx, marketId, stake, workers } = await umaSetup();
    const disputer = s.addr("disputer");
    const resolver = s.addr("resolver");
    const disputerUmaBefore = await currencyBalance(disputerCtx, uma, disputer);
    const { umaBond, assertionId, receipt } = await disputeYes(s, arbiter, uma, disputerCtx, marketId);

    // The assertion is the disputer's claim, with the disputer as asserter and the arbiter as callback.
    const assertion = await getAssertion(disputerCtx, uma, assertionId);
    expect(assertion.asserter).toBe(disputer);
    expect(assertion.callbackRecipient).toBe(arbiter.address);
    expect(assertion.bond).toBe(umaBond);
    expect(await currencyBalance(disputerCtx, uma, disputer)).toBe(disputerUmaBefore - umaBond);
    const [claimed] = parseEventLogs({ abi: arbiter.abi, logs: receipt.logs, eventName: "ClaimAsserted" });
    const claim = Buffer.from(claimed!.args.claim.slice(2), "hex").toString("utf8");
    expect(claim).toContain(`cresolver market ${marketId} on contract ${s.market.address.toLowerCase()}`);
    // The claim comes first; the question follows as a quoted field read from the market mid-dispute (issue 21).
    expect(claim.startsWith("Claim: the correct outcome of cresolver market")).toBe(true);
    expect(claim).toContain(") is YES (the resolver proposed NO).");
    expect(claim).toContain('quoted): "Will the committee of the test be right?".');
    expect(claim).toContain("ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/bundle.json");

    // The proposer's side counters on OOv3; the DVM (mock) votes the claim true; anyone settles.
    await disputeAssertion(resolverCtx, uma, assertionId);
    expect((await arbiter.read.getCase([s.market.address, marketId])).assertionDisputed).toBe(true);
    await expect(disputeAssertion(disputerCtx, uma, assertionId)).rejects.toThrow(/already disputed/);
    await pushMockPrice(disputerCtx, uma, assertionId, true);
    const settled = await settleAssertion(await s.ctx("yesBettor"), uma, assertionId);
    expect(settled.receipt.gasUsed < 2n ** 24n).toBe(true);
    if (process.env.GAS_REPORT) console.log(`settleAssertion (DVM path, 3 seats): ${settled.receipt.gasUsed} gas`);
    const finals = parseEventLogs({ abi: s.market.abi, logs: settled.receipt.logs, eventName: "MarketFinalized" });
    expect(finals).toHaveLength(1);
    expect(finals[0]!.args.disputed).toBe(true);

    const info = await s.market.read.getMarket([marketId]);
    expect(info.status).toBe(STATUS.resolved);
    expect(info.outcome).toBe(true);
    const c = await arbiter.read.getCase([s.market.address, marketId]);
    expect(c.status).toBe(3); // Ruled
    expect(c.ruling).toBe(VERDICT.yes);

    // Market ETH: the disputer wins both bonds plus the stakes of w1 and w3 (they answered NO);
    // w2 (YES) takes the whole reward pool and its stake; the proposer gets nothing.
    expect(await s.market.read.pendingWithdrawal([disputer])).toBe(
      MARKET_BOND + (await s.governance.read.disputeBond([marketId])) + 2n * stake,
    );
    expect(await s.market.read.pendingWithdrawal([resolver])).toBe(0n);
    expect(await s.market.read.pendingWithdrawal([workers[1]!.address])).toBe(POOL + stake);
    expect(await s.market.read.pendingWithdrawal([workers[0]!.address])).toBe(0n);
    expect(await s.market.read.pendingWithdrawal([workers[2]!.address])).toBe(0n);
    await s.expectMarketOwes([disputer, resolver, s.addr("creator"), ...workers.map((w) => w.address)]);

    // UMA's bond: asserter (disputer) gets 2 x bond minus the 50 % burn of one bond; the counter-party lost its bond.
    expect(await currencyBalance(disputerCtx, uma, disputer)).toBe(
      disputerUmaBefore - umaBond + 2n * umaBond - umaBond / 2n,
    );
    expect(await currencyBalance(disputerCtx, uma, resolver)).toBe(1_000n * E18 - umaBond);
    expect(await currencyBalance(disputerCtx, uma, uma.store)).toBe(umaBond / 2n);

    await s.expectBettingPaysYes(marketId);
  });

  it("nobody counters the assertion: after liveness the claim stands and the disputer's UMA bond comes back", async () => {
    const { s, uma, arbiter, disputerCtx, marketId, stake } = await umaSetup();
    const disputer = s.addr("disputer");
    const before = await currencyBalance(disputerCtx, uma, disputer);
    const { assertionId } = await disputeYes(s, arbiter, uma, disputerCtx, marketId);
    await expect(settleAssertion(disputerCtx, uma, assertionId)).rejects.toThrow(/Assertion not expired/);
    await s.increaseTime(LIVENESS);
    await settleAssertion(disputerCtx, uma, assertionId);

    const info = await s.market.read.getMarket([marketId]);
    expect(info.status).toBe(STATUS.resolved);
    expect(info.outcome).toBe(true);
    expect((await arbiter.read.getCase([s.market.address, marketId])).assertionDisputed).toBe(false);
    expect(await currencyBalance(disputerCtx, uma, disputer)).toBe(before);
    expect(await s.market.read.pendingWithdrawal([disputer])).toBe(
      MARKET_BOND + (await s.governance.read.disputeBond([marketId])) + 2n * stake,
    );
  });

  it("the DVM rejects the claim: the proposal stands: the proposer takes both market bonds and the stake of the seat that answered YES", async () => {
    const { s, uma, arbiter, disputerCtx, resolverCtx, marketId, stake, workers } = await umaSetup();
    const { umaBond, assertionId } = await disputeYes(s, arbiter, uma, disputerCtx, marketId);
    await disputeAssertion(resolverCtx, uma, assertionId);
    await pushMockPrice(disputerCtx, uma, assertionId, false);
    await settleAssertion(resolverCtx, uma, assertionId);

    const info = await s.market.read.getMarket([marketId]);
    expect(info.status).toBe(STATUS.resolved);
    expect(info.outcome).toBe(false);
    // w2 answered YES against the final NO: its stake is slashed to the dispute's winner, the proposer.
    expect(await s.market.read.pendingWithdrawal([s.addr("resolver")])).toBe(
      MARKET_BOND + (await s.governance.read.disputeBond([marketId])) + stake,
    );
    expect(await s.market.read.pendingWithdrawal([s.addr("disputer")])).toBe(0n);
    expect(await s.market.read.pendingWithdrawal([workers[1]!.address])).toBe(0n);
    const w1 = await s.market.read.pendingWithdrawal([workers[0]!.address]);
    const w3 = await s.market.read.pendingWithdrawal([workers[2]!.address]);
    expect(w1 + w3).toBe(POOL + 2n * stake);
    await s.expectMarketOwes([
      s.addr("disputer"),
      s.addr("resolver"),
      s.addr("creator"),
      ...workers.map((w) => w.address),
    ]);
    expect(await currencyBalance(resolverCtx, uma, s.addr("resolver"))).toBe(1_000n * E18 + umaBond - umaBond / 2n);
  });

  it("a dispute without the UMA bond approved reverts as a whole (the market stays Proposed)", async () => {
    const { s, marketId } = await umaSetup();
    await expect(
      s.market.write.dispute([marketId, VERDICT.yes], {
        account: s.addr("disputer"),
        value: await s.governance.read.disputeBond([marketId]),
      }),
    ).rejects.toThrow(/ERC20|allowance/i);
    expect((await s.market.read.getMarket([marketId])).status).toBe(STATUS.proposed);
  });

  it("the DVM answers after the market expired the dispute: OOv3 still settles and pays UMA's bonds, the ruling stays pending", async () => {
    const { s, uma, arbiter, disputerCtx, resolverCtx, marketId } = await umaSetup();
    const { umaBond, assertionId } = await disputeYes(s, arbiter, uma, disputerCtx, marketId);
    await disputeAssertion(resolverCtx, uma, assertionId);
    await s.increaseTime(30 * 24 * 3600);
    await s.wait(await s.market.write.expireDispute([marketId], { account: s.addr("yesBettor") }));
    expect((await s.market.read.getMarket([marketId])).status).toBe(STATUS.invalid);

    await pushMockPrice(disputerCtx, uma, assertionId, true);
    const before = await currencyBalance(disputerCtx, uma, s.addr("disputer"));
    const settled = await settleAssertion(resolverCtx, uma, assertionId);
    const [failed] = parseEventLogs({
      abi: arbiter.abi,
      logs: settled.receipt.logs,
      eventName: "RulingDeliveryFailed",
    });
    expect(failed!.args.marketId).toBe(marketId);
    expect(await currencyBalance(disputerCtx, uma, s.addr("disputer"))).toBe(before + 2n * umaBond - umaBond / 2n);
    const c = await arbiter.read.getCase([s.market.address, marketId]);
    expect(c.status).toBe(2); // RulingPending
    expect(c.ruling).toBe(VERDICT.yes);
    await expect(
      arbiter.write.retryRuling([s.market.address, marketId], { account: s.addr("yesBettor") }),
    ).rejects.toThrow(/WrongStatus/);
    // The market stays as expired: both market bonds back.
    expect(await s.market.read.pendingWithdrawal([s.addr("disputer")])).toBe(
      await s.governance.read.disputeBond([marketId]),
    );
    expect(await s.market.read.pendingWithdrawal([s.addr("resolver")])).toBe(MARKET_BOND);
  });
});
