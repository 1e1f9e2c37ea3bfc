/**
 * Disputes ruled by a 2-of-3 CommitteeArbiter through ResolutionMarket v2 on Hardhat's in-process chain: the
 * captured panel's wrong NO is disputed, two members vote YES, the market is finalized YES with the bonds and
 * the wrong seats' stakes moved to the disputer, and the betting pool pays YES. Needs `npx hardhat build`.
 */
import { describe, expect, it } from "vitest";
import { parseEventLogs } from "viem";
import { MARKET_BOND, POOL, STATUS, VERDICT, startStack } from "./dispute-fixture.js";

async function committeeSetup() {
  const s = await startStack();
  const members = [s.addr("m1"), s.addr("m2"), s.addr("m3")];
  const arbiter = await s.deployCommittee(members, 2n);
  const { marketId, stake, workers } = await s.openMarket(arbiter.address);
  await s.proposeWrong(marketId);
  await s.wait(
    await s.market.write.dispute([marketId, VERDICT.yes], {
      account: s.addr("disputer"),
      value: await s.governance.read.disputeBond([marketId]),
    }),
  );
  return { s, arbiter, marketId, stake, workers };
}

describe("CommitteeArbiter (2 of 3) end to end", () => {
  it("two YES votes overturn the wrong proposal: bonds and wrong stakes to the disputer, pool to the right seat, betting pays YES", async () => {
    const { s, arbiter, marketId, stake, workers } = await committeeSetup();
    const opened = await arbiter.read.getCase([s.market.address, marketId]);
    expect(opened.status).toBe(1);
    expect(opened.proposed).toBe(VERDICT.no);
    expect(opened.claimed).toBe(VERDICT.yes);
    expect(opened.disputer).toBe(s.addr("disputer"));

    await s.wait(await arbiter.write.vote([s.market.address, marketId, VERDICT.yes], { account: s.addr("m1") }));
    await s.wait(await arbiter.write.vote([s.market.address, marketId, VERDICT.no], { account: s.addr("m3") }));
    expect((await s.market.read.getMarket([marketId])).status).toBe(STATUS.disputed);
    const receipt = await s.wait(
      await arbiter.write.vote([s.market.address, marketId, VERDICT.yes], { account: s.addr("m2") }),
    );
    const [final] = parseEventLogs({ abi: s.market.abi, logs: receipt.logs, eventName: "MarketFinalized" });
    expect(final!.args.disputed).toBe(true);

    const info = await s.market.read.getMarket([marketId]);
    expect(info.status).toBe(STATUS.resolved);
    expect(info.outcome).toBe(true);
    expect(await s.market.read.pendingWithdrawal([s.addr("disputer")])).toBe(
      MARKET_BOND + (await s.governance.read.disputeBond([marketId])) + 2n * stake,
    );
    expect(await s.market.read.pendingWithdrawal([s.addr("resolver")])).toBe(0n);
    expect(await s.market.read.pendingWithdrawal([workers[1]!.address])).toBe(POOL + stake);
    await s.expectMarketOwes([
      s.addr("disputer"),
      s.addr("resolver"),
      s.addr("creator"),
      ...workers.map((w) => w.address),
    ]);
    await s.expectBettingPaysYes(marketId);

    // The case is closed: a late vote is refused.
    await expect(
      arbiter.write.vote([s.market.address, marketId, VERDICT.no], { account: s.addr("m3") }),
    ).rejects.toThrow(/CaseNotOpen|AlreadyVoted/);
  });

  it("only a member votes, and a committee vote cannot reach a market that is not disputed", async () => {
    const { s, arbiter, marketId } = await committeeSetup();
    await expect(
      arbiter.write.vote([s.market.address, marketId, VERDICT.yes], { account: s.addr("disputer") }),
    ).rejects.toThrow(/NotAMember/);
    await expect(
      arbiter.write.vote([s.market.address, marketId + 1n, VERDICT.yes], { account: s.addr("m1") }),
    ).rejects.toThrow(/CaseNotOpen/);
    // Nobody but the arbiter may rule on the market.
    await expect(s.market.write.resolveDispute([marketId, VERDICT.yes], { account: s.addr("m1") })).rejects.toThrow(
      /NotArbiter/,
    );
  });

  it("a split committee that never reaches the threshold: after 30 days anyone expires the dispute, Invalid, both bonds back", async () => {
    const { s, arbiter, marketId, stake, workers } = await committeeSetup();
    await s.wait(await arbiter.write.vote([s.market.address, marketId, VERDICT.yes], { account: s.addr("m1") }));
    await s.wait(await arbiter.write.vote([s.market.address, marketId, VERDICT.no], { account: s.addr("m2") }));
    await expect(s.market.write.expireDispute([marketId], { account: s.addr("yesBettor") })).rejects.toThrow(
      /ArbitrationNotExpired/,
    );
    await s.increaseTime(30 * 24 * 3600);
    await s.wait(await s.market.write.expireDispute([marketId], { account: s.addr("yesBettor") }));
    expect((await s.market.read.getMarket([marketId])).status).toBe(STATUS.invalid);
    expect(await s.market.read.pendingWithdrawal([s.addr("disputer")])).toBe(
      await s.governance.read.disputeBond([marketId]),
    );
    expect(await s.market.read.pendingWithdrawal([s.addr("resolver")])).toBe(MARKET_BOND);
    for (const w of workers) expect(await s.market.read.pendingWithdrawal([w.address])).toBe(stake);
    expect(await s.market.read.pendingWithdrawal([s.addr("creator")])).toBe(POOL);
    await s.expectMarketOwes([
      s.addr("disputer"),
      s.addr("resolver"),
      s.addr("creator"),
      ...workers.map((w) => w.address),
    ]);
    // The deciding vote now arrives too late: the market refuses it, so the vote reverts and the case stays open.
    await expect(
      arbiter.write.vote([s.market.address, marketId, VERDICT.yes], { account: s.addr("m3") }),
    ).rejects.toThrow(/WrongStatus/);
    expect((await arbiter.read.getCase([s.market.address, marketId])).status).toBe(1);
    // Bettors are refunded on Invalid.
    expect(await s.betting.read.claimable([marketId, s.addr("noBettor")])).toBe(2n * 10n ** 18n);
  });
});
