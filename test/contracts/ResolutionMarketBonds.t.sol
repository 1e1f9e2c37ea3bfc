// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BettingMarket} from "../../contracts/market/BettingMarket.sol";
import {IArbiter} from "../../contracts/market/interfaces/IArbiter.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {MarketFixture} from "./market/MarketFixture.sol";
import {TestArbiter} from "./market/TestArbiter.sol";

/// @notice Issue 21 items 3 and 7: a dispute bond that covers what the dispute moves (reward pool, stakes and the
///         betting pool, which BettingMarket caps against the bond), escalation of a silent or split arbiter to
///         the deployment's fallback arbiter, and a track-record cut-off count that never wraps.
contract ResolutionMarketBondsTest is MarketFixture {
    IResolutionMarket.Verdict internal constant V_NO = IResolutionMarket.Verdict.No;
    IResolutionMarket.Verdict internal constant V_YES = IResolutionMarket.Verdict.Yes;
    IResolutionMarket.Verdict internal constant V_INVALID = IResolutionMarket.Verdict.Invalid;
    IResolutionMarket.Answer internal constant YES = IResolutionMarket.Answer.Yes;

    TestArbiter internal fallbackArbiter;
    BettingMarket internal betting;
    address internal yesBettor = address(0xBE7A);
    address internal noBettor = address(0xBE7B);

    function setUp() public override {
        super.setUp();
        fallbackArbiter = new TestArbiter();
        vm.prank(owner);
        gov.queueFallbackArbiter(address(fallbackArbiter)); // bootstrap: applies at once
        betting = new BettingMarket(market);
        vm.deal(yesBettor, 10 ether);
        vm.deal(noBettor, 10 ether);
    }

    /// @dev A market with 4 seats (stake STAKE each), proposed Yes by the resolver (the truth in these tests).
    function _proposedMarket() internal returns (uint256 id) {
        id = _createMarket();
        _joinFresh(id, 4, 0);
        _request(market, id);
        _propose(market, id, V_YES, _uniform(4, YES));
    }

    // ------------------------------------------------------------------ the dispute bond

    function testDisputeBondCoversTenPercentOfPoolAndStakes() public {
        uint256 id = _proposedMarket();
        // BOND + ceil(10 % of (1 ETH + 4 × 0.01 ETH)) = 0.01 + 0.104 ETH
        assertEq(gov.disputeBond(id), BOND + 0.104 ether, "dispute bond");
        assertEq(market.getProposal(id).bond, BOND, "the proposer's bond is the market's bond");
        vm.prank(disputer);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.WrongBond.selector, BOND, BOND + 0.104 ether));
        market.dispute{value: BOND}(id, V_NO);
        vm.prank(disputer);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.WrongBond.selector, BOND + 0.104 ether + 1, BOND + 0.104 ether));
        market.dispute{value: BOND + 0.104 ether + 1}(id, V_NO);
        _dispute(id, V_NO);
        assertEq(address(market).balance, POOL + 4 * STAKE + 2 * BOND + 0.104 ether, "both bonds held");
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.MarketNotFound.selector, 99));
        gov.disputeBond(99);
    }

    function testDisputeBondRoundsUp() public {
        vm.prank(creator);
        uint256 id = market.createMarket{value: 0.001 ether + 1}(QUESTION, uint64(block.timestamp + 1 days));
        // 10 % of 0.001 ETH + 1 wei is 0.0001 ETH + 0.1 wei: rounded up to the next wei.
        assertEq(gov.disputeBond(id), BOND + 0.0001 ether + 1, "rounded up");
    }

    function testWinnerGetsBothUnequalBonds() public {
        uint256 id = _proposedMarket();
        uint256 disputeBond = gov.disputeBond(id);
        _dispute(id, V_NO);
        vm.expectEmit(address(market));
        emit IResolutionMarket.DisputeResolved(id, V_YES, resolver, BOND + disputeBond);
        arbiter.rule(market, id, V_YES);
        assertEq(market.pendingWithdrawal(resolver), BOND + disputeBond, "the proposer wins both bonds");
        assertEq(market.pendingWithdrawal(disputer), 0, "the disputer loses its bond");
    }

    // ------------------------------------------------------------------ the betting pool cap

    function testBettingPoolIsCappedAtTenTimesTheBond() public {
        uint256 id = _createMarket();
        uint256 cap = 10 * BOND;
        assertEq(betting.poolCap(id), cap, "cap");
        vm.prank(yesBettor);
        betting.bet{value: cap - 1}(id, BettingMarket.Side.Yes);
        vm.prank(noBettor);
        vm.expectRevert(abi.encodeWithSelector(BettingMarket.PoolCapExceeded.selector, id, cap));
        betting.bet{value: 2}(id, BettingMarket.Side.No);
        vm.prank(noBettor);
        betting.bet{value: 1}(id, BettingMarket.Side.No);
        (uint256 yesPool, uint256 noPool,,) = betting.getPool(id);
        assertEq(yesPool + noPool, cap, "filled to the cap exactly");
        // What a dispute can move, bets included, is covered at 10 % by the dispute bond.
        _joinFresh(id, 4, 0);
        uint256 atStake = POOL + 4 * STAKE + cap;
        assertTrue(gov.disputeBond(id) * 10 >= atStake, "bond >= 10 % of pool + stakes + bets");
        assertEq(betting.poolCap(99), 0, "unknown market: no cap, no bets");
    }

    function testALargerBondAllowsALargerPool() public {
        IResolutionMarket.MarketParams memory p;
        p.bond = 0.5 ether;
        uint256 id = _createWith(p);
        assertEq(betting.poolCap(id), 5 ether, "ten times the market's own bond");
        vm.prank(yesBettor);
        betting.bet{value: 5 ether}(id, BettingMarket.Side.Yes);
    }

    // ------------------------------------------------------------------ escalation to the fallback arbiter

    function testFallbackIsSnapshottedAtCreation() public {
        uint256 id = _createMarket();
        assertEq(address(market.fallbackArbiterOf(id)), address(fallbackArbiter), "snapshotted");
        assertEq(gov.fallbackFor(address(arbiter)), address(fallbackArbiter), "fallback for the arbiter");
        assertEq(gov.fallbackFor(address(fallbackArbiter)), address(0), "no escalation to the same arbiter");
        // A market whose arbiter is the fallback itself has none.
        IResolutionMarket.MarketParams memory p;
        p.arbiter = IArbiter(address(fallbackArbiter));
        uint256 same = _createWith(p);
        assertEq(address(market.fallbackArbiterOf(same)), address(0), "same as the arbiter: none");
        // Removed from the allow-list: new markets get none, the live one keeps its snapshot.
        vm.prank(owner);
        gov.removeArbiter(address(fallbackArbiter));
        assertEq(gov.fallbackFor(address(arbiter)), address(0), "no longer allowed: none");
        uint256 later = _createMarket();
        assertEq(address(market.fallbackArbiterOf(later)), address(0), "created after the removal");
        assertEq(address(market.fallbackArbiterOf(id)), address(fallbackArbiter), "live market keeps it");
    }

    function testSilentArbiterEscalatesToTheFallbackWhichRules() public {
        uint256 id = _proposedMarket();
        uint256 disputeBond = gov.disputeBond(id);
        _dispute(id, V_NO);
        uint256 disputedAt = block.timestamp;
        vm.warp(disputedAt + 30 days - 1);
        vm.expectRevert(
            abi.encodeWithSelector(IResolutionMarket.ArbitrationNotExpired.selector, id, disputedAt + 30 days)
        );
        market.expireDispute(id);
        vm.warp(disputedAt + 30 days);
        vm.expectEmit(address(market));
        emit IResolutionMarket.DisputeEscalated(id, IArbiter(address(fallbackArbiter)));
        market.expireDispute(id);
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Disputed), "still disputed");
        assertEq(fallbackArbiter.disputes(), 1, "the fallback has the case");
        (IResolutionMarket.Verdict proposed, IResolutionMarket.Verdict claimed, address proposer, address d,,) =
            fallbackArbiter.cases(address(market), id);
        assertEq(uint256(proposed), uint256(V_YES), "proposed");
        assertEq(uint256(claimed), uint256(V_NO), "claimed");
        assertEq(proposer, resolver, "proposer");
        assertEq(d, disputer, "disputer");
        assertEq(uint256(market.getProposal(id).disputedAt), block.timestamp, "the fallback's clock starts now");
        assertEq(address(market.getMarketConfig(id).arbiter), address(fallbackArbiter), "the arbiter in charge");
        // The first arbiter can no longer rule; the fallback can.
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.NotArbiter.selector, address(arbiter), id));
        arbiter.rule(market, id, V_NO);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.ArbitrationNotExpired.selector, id, block.timestamp + 30 days));
        market.expireDispute(id);
        fallbackArbiter.rule(market, id, V_YES);
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Resolved), "resolved");
        assertEq(market.pendingWithdrawal(resolver), BOND + disputeBond, "proposer: both bonds");
        assertEq(market.pendingWithdrawal(disputer), 0, "disputer: nothing");
    }

    function testSilentFallbackEndsInvalidWithBondsReturned() public {
        uint256 id = _proposedMarket();
        uint256 disputeBond = gov.disputeBond(id);
        _dispute(id, V_NO);
        vm.warp(block.timestamp + 30 days);
        market.expireDispute(id);
        vm.warp(block.timestamp + 30 days);
        vm.expectEmit(address(market));
        emit IResolutionMarket.DisputeExpired(id);
        market.expireDispute(id);
        assertEq(fallbackArbiter.disputes(), 1, "escalated once only");
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Invalid), "invalid");
        assertEq(market.pendingWithdrawal(resolver), BOND, "proposer's bond back");
        assertEq(market.pendingWithdrawal(disputer), disputeBond, "disputer's bond back");
    }

    function testRefusedHandOffEndsInvalidWithBondsReturned() public {
        uint256 id = _proposedMarket();
        uint256 disputeBond = gov.disputeBond(id);
        _dispute(id, V_NO);
        fallbackArbiter.setRefuse(true);
        vm.warp(block.timestamp + 30 days);
        vm.expectEmit(address(market));
        emit IResolutionMarket.DisputeExpired(id);
        market.expireDispute(id);
        assertEq(address(market.getMarketConfig(id).arbiter), address(arbiter), "not handed over");
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Invalid), "invalid");
        assertEq(market.pendingWithdrawal(resolver), BOND, "proposer's bond back");
        assertEq(market.pendingWithdrawal(disputer), disputeBond, "disputer's bond back");
        assertEq(market.pendingWithdrawal(creator), POOL, "pool back to the creator");
    }

    function testNoFallbackEndsInvalidAtTheFirstTimeout() public {
        IResolutionMarket.MarketParams memory p;
        p.arbiter = IArbiter(address(fallbackArbiter)); // its own fallback: none
        uint256 id = _createWith(p);
        _joinFresh(id, 2, 0);
        _request(market, id);
        _propose(market, id, V_YES, _uniform(2, YES));
        _dispute(id, V_NO);
        vm.warp(block.timestamp + 30 days);
        vm.expectEmit(address(market));
        emit IResolutionMarket.DisputeExpired(id);
        market.expireDispute(id);
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Invalid), "invalid");
    }

    /// @dev A caller cannot starve the hand-off into a refusal by sending too little gas.
    function testStarvedHandOffReverts() public {
        uint256 id = _proposedMarket();
        _dispute(id, V_NO);
        vm.warp(block.timestamp + 30 days);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.EscalationNeedsGas.selector, 2_000_000));
        market.expireDispute{gas: 1_500_000}(id);
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Disputed), "unchanged");
    }

    /// @dev The attack that worked on 15142af: a losing NO bettor disputes the true YES with a silent arbiter to
    ///      force Invalid and a refund of its bet. Now the fallback rules for the truth: the disputer loses its
    ///      bond and its bet.
    function testLosingBettorCannotForceARefundThroughASilentArbiter() public {
        uint256 id = _createMarket();
        vm.prank(yesBettor);
        betting.bet{value: 0.02 ether}(id, BettingMarket.Side.Yes);
        vm.prank(noBettor);
        betting.bet{value: 0.08 ether}(id, BettingMarket.Side.No);
        _joinFresh(id, 4, 0);
        _request(market, id);
        _propose(market, id, V_YES, _uniform(4, YES));

        uint256 bond = gov.disputeBond(id);
        vm.deal(noBettor, noBettor.balance + bond);
        uint256 before = noBettor.balance;
        vm.prank(noBettor);
        market.dispute{value: bond}(id, V_INVALID); // the arbiter never answers
        vm.warp(block.timestamp + 30 days);
        market.expireDispute(id);
        fallbackArbiter.rule(market, id, V_YES);

        assertEq(market.pendingWithdrawal(noBettor), 0, "the disputer's bond is lost");
        vm.prank(noBettor);
        vm.expectRevert(abi.encodeWithSelector(BettingMarket.NothingToClaim.selector, id, noBettor));
        betting.claim(id);
        assertEq(noBettor.balance, before - bond, "no refund: the bet and the bond are gone");
        vm.prank(yesBettor);
        assertEq(betting.claim(id), 0.1 ether, "the YES side takes the whole betting pool");
        assertEq(market.pendingWithdrawal(resolver), BOND + bond, "the proposer takes both bonds");
    }

    // ------------------------------------------------------------------ the record cut-off width

    /// @dev `_recordCount` is slot 1 (after `marketCount`); past 2^24 entries (the old width) the cut-off must not
    ///      wrap: it is kept whole up to 2^32 - 1.
    function testRecordCountCutOffDoesNotWrap() public {
        uint256 big = (uint256(1) << 32) - 1;
        vm.store(address(market), bytes32(uint256(1)), bytes32(big));
        (uint256 count,) = market.recordHead();
        assertEq(count, big, "slot 1 is the record count");
        uint256 id = _createMarket();
        _joinFresh(id, 1, 0);
        _request(market, id);
        assertEq(market.getMarket(id).recordCount, big, "cut-off count kept whole");
        _propose(market, id, V_YES, _uniform(1, YES));
        _warpPastWindow(market, id);
        market.finalize(id);
        (count,) = market.recordHead();
        assertEq(count, big + 1, "the chain goes on");
    }
}
