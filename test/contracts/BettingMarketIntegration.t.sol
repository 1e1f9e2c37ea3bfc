// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {RealStackFixture} from "./betting/RealStackFixture.sol";
import {ResolutionMarket} from "../../contracts/market/ResolutionMarket.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {BettingMarket} from "../../contracts/market/BettingMarket.sol";
import {TestMath} from "./utils/BettingTestUtils.sol";
import {_gov} from "./market/Split.sol";

/// @notice BettingMarket on the real ResolutionMarket: every terminal path of the market pays bettors out.
contract BettingMarketIntegrationTest is RealStackFixture {
    address internal alice = address(0xA11CE);
    address internal bob = address(0xB0B);

    function setUp() public {
        _deployStack();
        vm.deal(alice, 100 ether);
        vm.deal(bob, 100 ether);
    }

    function _bets(uint256 id) internal {
        vm.prank(alice);
        betting.bet{value: 1 ether + 1}(id, BettingMarket.Side.Yes);
        vm.prank(alice);
        betting.bet{value: 2}(id, BettingMarket.Side.No);
        vm.prank(bob);
        betting.bet{value: 2 ether}(id, BettingMarket.Side.No);
    }

    function _claimAll(uint256 id, uint256 aliceExpected, uint256 bobExpected) internal {
        uint256 a0 = alice.balance;
        uint256 b0 = bob.balance;
        if (aliceExpected != 0) {
            vm.prank(alice);
            betting.claim(id);
        }
        if (bobExpected != 0) {
            vm.prank(bob);
            betting.claim(id);
        }
        assertEq(alice.balance - a0, aliceExpected, "alice");
        assertEq(bob.balance - b0, bobExpected, "bob");
        assertEq(address(betting).balance, 0, "drained");
        assertEq(betting.totalOwed(), 0, "owed");
    }

    function testBettingClosesExactlyWhenJoiningCloses() public {
        (uint256 id, uint64 deadline) = _createMarket();
        vm.warp(deadline - 1);
        _joinWorkers(id, 1);
        vm.prank(alice);
        betting.bet{value: 1}(id, BettingMarket.Side.Yes);
        vm.warp(deadline);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(BettingMarket.BettingClosed.selector, id, deadline));
        betting.bet{value: 1}(id, BettingMarket.Side.Yes);
        vm.prank(_worker(9));
        uint256 agentId = identity.register("ipfs://late");
        vm.deal(_worker(9), 1 ether);
        vm.prank(_worker(9));
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.JoiningClosed.selector, id));
        market.joinMarket{value: STAKE}(id, agentId);
        // Once requested, the status check refuses too.
        market.requestResolution(id);
        vm.prank(alice);
        vm.expectRevert(
            abi.encodeWithSelector(
                BettingMarket.MarketNotOpen.selector, id, IResolutionMarket.Status.ResolutionRequested
            )
        );
        betting.bet{value: 1}(id, BettingMarket.Side.Yes);
        vm.prank(alice);
        vm.expectRevert(
            abi.encodeWithSelector(
                BettingMarket.MarketNotFinal.selector, id, IResolutionMarket.Status.ResolutionRequested
            )
        );
        betting.claim(id);
    }

    function testUnknownMarketReadsAsNone() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(BettingMarket.MarketNotOpen.selector, 42, IResolutionMarket.Status.None));
        betting.bet{value: 1}(42, BettingMarket.Side.Yes);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(BettingMarket.MarketNotFinal.selector, 42, IResolutionMarket.Status.None));
        betting.claim(42);
        assertEq(betting.claimable(42, alice), 0, "claimable 0");
        (BettingMarket.Settlement s,) = betting.settlementOf(42);
        assertEq(uint256(s), uint256(BettingMarket.Settlement.Pending), "pending");
    }

    function testResolvedByResolverPaysWinners() public {
        (uint256 id, uint64 deadline) = _createMarket();
        _joinWorkers(id, 2);
        _bets(id);
        _request(id, deadline);
        _settle(id, IResolutionMarket.Verdict.No, 2);
        // NO won: pool 3 ether + 3 wei, NO stakes alice 2 wei, bob 2 ether.
        uint256 total = 3 ether + 3;
        uint256 aliceShare = uint256(2) * total / (2 ether + 2);
        _claimAll(id, aliceShare, total - aliceShare);
    }

    function testProposedAndDisputedAreNotFinal() public {
        (uint256 id, uint64 deadline) = _createMarket();
        _joinWorkers(id, 2);
        _bets(id);
        _request(id, deadline);
        _propose(id, IResolutionMarket.Verdict.Yes, 2);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(BettingMarket.MarketNotFinal.selector, id, IResolutionMarket.Status.Proposed));
        betting.claim(id);
        assertEq(betting.claimable(id, alice), 0, "nothing claimable while proposed");
        uint256 bond = _gov(market).disputeBond(id);
        vm.prank(bob);
        market.dispute{value: bond}(id, IResolutionMarket.Verdict.No);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(BettingMarket.MarketNotFinal.selector, id, IResolutionMarket.Status.Disputed));
        betting.claim(id);
        (BettingMarket.Settlement s,) = betting.settlementOf(id);
        assertEq(uint256(s), uint256(BettingMarket.Settlement.Pending), "pending while disputed");
    }

    /// @dev A wrong YES proposal is disputed and overturned: betting pays the true (NO) side.
    function testOverturnedDisputePaysTheTrueSide() public {
        (uint256 id, uint64 deadline) = _createMarket();
        _joinWorkers(id, 2);
        _bets(id);
        _request(id, deadline);
        _propose(id, IResolutionMarket.Verdict.Yes, 2);
        uint256 bond = _gov(market).disputeBond(id);
        vm.prank(bob);
        market.dispute{value: bond}(id, IResolutionMarket.Verdict.No);
        arbiter.rule(market, id, IResolutionMarket.Verdict.No);
        uint256 total = 3 ether + 3;
        uint256 aliceShare = uint256(2) * total / (2 ether + 2);
        _claimAll(id, aliceShare, total - aliceShare);
    }

    function testNobodyJoinedCancelsAndRefunds() public {
        (uint256 id, uint64 deadline) = _createMarket();
        _bets(id);
        _request(id, deadline); // no workers: Cancelled at once
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Cancelled), "cancelled");
        _claimAll(id, 1 ether + 3, 2 ether);
    }

    function testInvalidRefunds() public {
        (uint256 id, uint64 deadline) = _createMarket();
        _joinWorkers(id, 2);
        _bets(id);
        _request(id, deadline);
        _settle(id, IResolutionMarket.Verdict.Invalid, 2);
        _claimAll(id, 1 ether + 3, 2 ether);
    }

    function testStaleCancelRefunds() public {
        (uint256 id, uint64 deadline) = _createMarket();
        _joinWorkers(id, 2);
        _bets(id);
        _request(id, deadline);
        vm.warp(uint256(deadline) + market.getMarketConfig(id).gracePeriod);
        market.requestCancel(id);
        vm.warp(block.timestamp + market.CANCEL_WINDOW());
        market.cancelStale(id);
        _claimAll(id, 1 ether + 3, 2 ether);
    }

    function testResolvedWithEmptyWinningSideRefunds() public {
        (uint256 id, uint64 deadline) = _createMarket();
        _joinWorkers(id, 2);
        vm.prank(bob);
        betting.bet{value: 2 ether}(id, BettingMarket.Side.No);
        vm.prank(alice);
        betting.bet{value: 5}(id, BettingMarket.Side.No);
        _request(id, deadline);
        _settle(id, IResolutionMarket.Verdict.Yes, 2); // YES wins, nobody bet YES
        (BettingMarket.Settlement s,) = betting.settlementOf(id);
        assertEq(uint256(s), uint256(BettingMarket.Settlement.Refund), "refund");
        _claimAll(id, 5, 2 ether);
    }

    /// @dev Random bettors and bets on the real market, then a random terminal path (YES, NO, invalid,
    ///      stale cancel, nobody joined); claims in random order return every wei that was bet.
    function testFuzzEveryTerminalPathPaysOutEverything(uint256 seed, uint8 nRaw, uint8 pathRaw) public {
        uint256 path = pathRaw % 5;
        uint256 n = TestMath.bound(nRaw, 1, 6);
        (uint256 id, uint64 deadline) = _createMarket();
        if (path != 4) _joinWorkers(id, 2);
        uint256 total;
        for (uint256 i = 0; i < n; ++i) {
            address who = address(uint160(0x50000 + i));
            vm.deal(who, 100 ether);
            uint256 r = TestMath.rand(seed, i);
            uint256 amount = r % 10 ether + 1;
            vm.prank(who);
            betting.bet{value: amount}(id, (r >> 200) % 2 == 0 ? BettingMarket.Side.Yes : BettingMarket.Side.No);
            total += amount;
        }
        _request(id, deadline);
        if (path <= 1) {
            _settle(id, path == 0 ? IResolutionMarket.Verdict.Yes : IResolutionMarket.Verdict.No, 2);
        } else if (path == 2) {
            _settle(id, IResolutionMarket.Verdict.Invalid, 2);
        } else if (path == 3) {
            vm.warp(uint256(deadline) + market.getMarketConfig(id).gracePeriod);
            market.requestCancel(id);
            vm.warp(block.timestamp + market.CANCEL_WINDOW());
            market.cancelStale(id);
        }
        (BettingMarket.Settlement settlement,) = betting.settlementOf(id);
        assertTrue(settlement != BettingMarket.Settlement.Pending, "final");

        uint256 paid;
        uint256[] memory order = TestMath.permutation(n, seed);
        for (uint256 i = 0; i < n; ++i) {
            address who = address(uint160(0x50000 + order[i]));
            uint256 expected = betting.claimable(id, who);
            if (expected == 0) continue;
            uint256 before = who.balance;
            vm.prank(who);
            betting.claim(id);
            assertEq(who.balance - before, expected, "claim == claimable");
            paid += expected;
        }
        assertEq(paid, total, "every wei bet is paid out");
        assertEq(address(betting).balance, 0, "drained");
    }
}
