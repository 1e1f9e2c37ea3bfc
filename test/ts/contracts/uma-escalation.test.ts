/**
 * An UmaArbiter as the deployment's fallback arbiter, on UMA's real OOv3 (@uma/contracts-node, MockOracleAncillary
 * as the DVM) and the real ResolutionMarket (issue 21 item 3). The market's committee stays silent 30 days, so
 * `expireDispute` hands the dispute to the UmaArbiter:
 *  - the attack: the disputer never approved UMA's bond. The hand-off used to revert and the market ended Invalid
 *    with both ETH bonds back; now the claim awaits its bond, nobody funds it and the proposal stands: the disputer
 *    loses its dispute bond;
 *  - a third party funds the claim in the window: it becomes the asserter, the proposer's side counters, the DVM
 *    backs the claim and OOv3's settlement rules the market (the funder is paid UMA's bonds);
 *  - a disputer that approved is asserted at the hand-off, within ESCALATION_GAS.
 * Needs `npx hardhat build`.
 */
import { describe, expect, it } from "vitest";
import { parseEventLogs } from "viem";
import {
  approveCurrency,
  currencyBalance,
  deployUmaStack,
  disputeAssertion,
  getAssertion,
  mintCurrency,
  pushMockPrice,
  settleAssertion,
} from "../../../workflow/chain/uma.js";
import { MARKET_BOND, STATUS, VERDICT, startStack } from "./dispute-fixture.js";

const E18 = 10n ** 18n;
const LIVENESS = 3600;
const FINAL_FEE = 50n * E18; // OOv3 minimum bond = 100e18
const UMA_BOND = 2n * FINAL_FEE;
const DAY = 24 * 3600;
const AWAITING_BOND = 4; // UmaArbiter.CaseStatus.AwaitingBond
const RULED = 3;

/** A silent committee judges the market, an UmaArbiter is the fallback; a wrong NO is proposed and disputed (YES). */
async function escalationSetup(approveDisputer: boolean, question?: string) {
  const s = await startStack();
  const deployer = await s.ctx("deployer");
  const uma = await deployUmaStack(deployer, { finalFee: FINAL_FEE });
  const committee = await s.deployCommittee([s.addr("m1")], 1n);
  const fallback = await s.deployUmaArbiter(uma.optimisticOracle, uma.currency, 0n, LIVENESS);
  // Bootstrap (no market yet): the fallback applies at once.
  await s.wait(await s.governance.write.queueFallbackArbiter([fallback.address]));
  for (const who of ["disputer", "resolver", "yesBettor"] as const)
    await mintCurrency(deployer, uma, s.addr(who), 1_000n * E18);
  const { marketId } = await s.openMarket(committee.address, question);
  expect(await s.market.read.fallbackArbiterOf([marketId])).toBe(fallback.address);
  await s.proposeWrong(marketId);
  const disputerCtx = await s.ctx("disputer");
  if (approveDisputer) await approveCurrency(disputerCtx, uma, fallback.address, UMA_BOND);
  const disputeBond = await s.governance.read.disputeBond([marketId]);
  await s.wait(
    await s.market.write.dispute([marketId, VERDICT.yes], { account: s.addr("disputer"), value: disputeBond }),
  );
  await s.increaseTime(30 * DAY);
  const handOff = await s.wait(await s.market.write.expireDispute([marketId], { account: s.addr("noBettor") }));
  expect(parseEventLogs({ abi: s.market.abi, logs: handOff.logs, eventName: "DisputeEscalated" })).toHaveLength(1);
  expect(parseEventLogs({ abi: s.market.abi, logs: handOff.logs, eventName: "DisputeExpired" })).toHaveLength(0);
  expect((await s.market.read.getMarket([marketId])).status).toBe(STATUS.disputed);
  expect((await s.market.read.getMarketConfig([marketId])).arbiter).toBe(fallback.address);
  return { s, uma, deployer, disputerCtx, fallback, marketId, disputeBond, handOff };
}

describe("an UmaArbiter fallback on UMA's OOv3 (real contracts)", () => {
  it("the attack: a disputer without UMA's approval no longer gets Invalid; unfunded, the proposal stands and it loses its bond", async () => {
    const { s, uma, disputerCtx, fallback, marketId, disputeBond } = await escalationSetup(false);
    const c = await fallback.read.getCase([s.market.address, marketId]);
    expect(c.status).toBe(AWAITING_BOND);
    expect(c.disputer).toBe(s.addr("disputer"));
    expect(await currencyBalance(disputerCtx, uma, s.addr("disputer"))).toBe(1_000n * E18);
    await expect(
      fallback.write.ruleAbandoned([s.market.address, marketId], { account: s.addr("yesBettor") }),
    ).rejects.toThrow(/FundingWindowOpen/);
    await s.increaseTime(7 * DAY);
    await s.wait(await fallback.write.ruleAbandoned([s.market.address, marketId], { account: s.addr("yesBettor") }));

    const info = await s.market.read.getMarket([marketId]);
    expect(info.status).toBe(STATUS.resolved);
    expect(info.outcome).toBe(false); // the proposal (NO) stands
    expect(await s.market.read.pendingWithdrawal([s.addr("disputer")])).toBe(0n);
    expect(await s.market.read.pendingWithdrawal([s.addr("resolver")])).toBeGreaterThanOrEqual(
      MARKET_BOND + disputeBond,
    );
    expect((await fallback.read.getCase([s.market.address, marketId])).status).toBe(RULED);
  });

  it("a third party funds the escalated claim; countered, the DVM backs it and OOv3's settlement rules the market YES", async () => {
    const { s, uma, deployer, fallback, marketId, disputeBond } = await escalationSetup(false);
    const funder = s.addr("yesBettor");
    const funderCtx = await s.ctx("yesBettor");
    await approveCurrency(funderCtx, uma, fallback.address, UMA_BOND);
    const funded = await s.wait(await fallback.write.fundAssertion([s.market.address, marketId], { account: funder }));
    const [asserted] = parseEventLogs({ abi: fallback.abi, logs: funded.logs, eventName: "ClaimAsserted" });
    expect(asserted?.args.asserter).toBe(funder);
    const assertionId = await fallback.read.assertionIdOf([s.market.address, marketId]);
    const assertion = await getAssertion(deployer, uma, assertionId);
    expect(assertion.asserter).toBe(funder);
    expect(assertion.callbackRecipient).toBe(fallback.address);
    const claim = Buffer.from((asserted?.args.claim ?? "0x").slice(2), "hex").toString("utf8");
    expect(claim).toContain(") is YES (the resolver proposed NO).");
    expect(await currencyBalance(deployer, uma, funder)).toBe(1_000n * E18 - UMA_BOND);

    await disputeAssertion(await s.ctx("resolver"), uma, assertionId);
    await pushMockPrice(deployer, uma, assertionId, true);
    await settleAssertion(deployer, uma, assertionId);
    const info = await s.market.read.getMarket([marketId]);
    expect(info.status).toBe(STATUS.resolved);
    expect(info.outcome).toBe(true);
    // The dispute was the disputer's: it wins both ETH bonds (and the NO seats' stakes); the funder gets UMA's bonds.
    expect(await s.market.read.pendingWithdrawal([s.addr("disputer")])).toBeGreaterThanOrEqual(
      MARKET_BOND + disputeBond,
    );
    expect(await s.market.read.pendingWithdrawal([s.addr("resolver")])).toBe(0n);
    expect(await currencyBalance(deployer, uma, funder)).toBe(1_000n * E18 + UMA_BOND - UMA_BOND / 2n);
    expect(await currencyBalance(deployer, uma, fallback.address)).toBe(0n);
  });

  it("a disputer that approved is asserted at the hand-off (within the market's 2M gas); uncountered, the claim stands", async () => {
    const { s, uma, deployer, fallback, marketId, handOff } = await escalationSetup(true);
    const [asserted] = parseEventLogs({ abi: fallback.abi, logs: handOff.logs, eventName: "ClaimAsserted" });
    expect(asserted?.args.asserter).toBe(s.addr("disputer"));
    expect(await currencyBalance(deployer, uma, s.addr("disputer"))).toBe(1_000n * E18 - UMA_BOND);
    if (process.env.GAS_REPORT) console.log(`expireDispute hand-off to UmaArbiter (asserted): ${handOff.gasUsed} gas`);
    await s.increaseTime(LIVENESS);
    await settleAssertion(deployer, uma, await fallback.read.assertionIdOf([s.market.address, marketId]));
    expect((await s.market.read.getMarket([marketId])).outcome).toBe(true);
    expect(await currencyBalance(deployer, uma, s.addr("disputer"))).toBe(1_000n * E18);
  });

  it("the longest claim (a 1,024-byte question of control bytes, each quoted as \\u00XX) still asserts within the hand-off's gas", async () => {
    const { s, fallback, marketId, handOff } = await escalationSetup(true, "\u0001".repeat(1024));
    const [asserted] = parseEventLogs({ abi: fallback.abi, logs: handOff.logs, eventName: "ClaimAsserted" });
    expect(asserted?.args.claim.length).toBeGreaterThan(2 * 6 * 1024);
    expect((await fallback.read.getCase([s.market.address, marketId])).status).toBe(1); // Asserted
    if (process.env.GAS_REPORT) console.log(`expireDispute hand-off, longest claim: ${handOff.gasUsed} gas`);
  });
});
