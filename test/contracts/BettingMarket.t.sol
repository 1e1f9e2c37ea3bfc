// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TestBase} from "./utils/Vm.sol";
import {TestMath} from "./utils/BettingTestUtils.sol";
import {MockResolutionMarket} from "./mocks/MockResolutionMarket.sol";
import {BettingMarket} from "../../contracts/market/BettingMarket.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";

/// @notice A bettor contract that tries to re-enter the betting market when it receives ETH.
contract ReentrantBettor {
    enum Attack {
        None,
        Claim,
        ClaimTo,
        Bet,
        RevertOnReceive
    }

    BettingMarket public immutable betting;
    uint256 public marketId;
    Attack public attack;
    bool public reentered;
    bytes public reentryError;
    uint256 public received;

    constructor(BettingMarket betting_) {
        betting = betting_;
    }

    function setAttack(Attack attack_) external {
        attack = attack_;
    }

    function placeBet(uint256 marketId_, BettingMarket.Side side) external payable {
        marketId = marketId_;
        betting.bet{value: msg.value}(marketId_, side);
    }

    function doClaim() external returns (uint256) {
        return betting.claim(marketId);
    }

    function doClaimTo(address recipient) external returns (uint256) {
        return betting.claimTo(marketId, recipient);
    }

    receive() external payable {
        received += msg.value;
        Attack a = attack;
        if (a == Attack.RevertOnReceive) revert("no ETH please");
        if (a == Attack.None) return;
        bool ok;
        bytes memory err;
        if (a == Attack.Claim) {
            (ok, err) = address(betting).call(abi.encodeCall(BettingMarket.claim, (marketId)));
        } else if (a == Attack.ClaimTo) {
            (ok, err) = address(betting).call(abi.encodeCall(BettingMarket.claimTo, (marketId, address(this))));
        } else {
            (ok, err) = address(betting).call{value: 0}(
                abi.encodeCall(BettingMarket.bet, (marketId, BettingMarket.Side.Yes))
            );
        }
        reentered = ok;
        reentryError = err;
    }
}

contract BettingMarketTest is TestBase {
    using TestMath for uint256;

    MockResolutionMarket internal rm;
    BettingMarket internal betting;

    uint256 internal constant MARKET = 7;
    uint64 internal constant DEADLINE = 2_000_000;

    address internal alice = address(0xA11CE);
    address internal bob = address(0xB0B);
    address internal carol = address(0xCA201);
    address internal dave = address(0xDA7E);

    event BetPlaced(
        uint256 indexed marketId,
        address indexed bettor,
        BettingMarket.Side indexed side,
        uint256 amount,
        uint256 positionOnSide,
        uint256 poolOnSide
    );
    event Claimed(
        uint256 indexed marketId, address indexed bettor, address indexed recipient, uint256 amount, bool refund
    );

    function setUp() public {
        vm.warp(1_000_000);
        rm = new MockResolutionMarket();
        betting = new BettingMarket(IResolutionMarket(address(rm)));
        rm.setMarket(MARKET, IResolutionMarket.Status.Open, DEADLINE, false);
        vm.deal(alice, 1_000 ether);
        vm.deal(bob, 1_000 ether);
        vm.deal(carol, 1_000 ether);
        vm.deal(dave, 1_000 ether);
    }

    // ---------------------------------------------------------------- helpers

    function _bet(address who, BettingMarket.Side side, uint256 amount) internal {
        vm.prank(who);
        betting.bet{value: amount}(MARKET, side);
    }

    function _finalize(IResolutionMarket.Status status, bool outcome) internal {
        rm.setMarket(MARKET, status, DEADLINE, outcome);
    }

    function _claim(address who) internal returns (uint256 amount) {
        uint256 before = who.balance;
        vm.prank(who);
        amount = betting.claim(MARKET);
        assertEq(who.balance - before, amount, "claim sent what it returned");
    }

    function _assertDrained() internal view {
        assertEq(address(betting).balance, 0, "contract drained");
        assertEq(betting.totalOwed(), 0, "nothing owed");
    }

    // ---------------------------------------------------------------- constructor

    function testConstructorStoresMarket() public view {
        assertEq(address(betting.resolutionMarket()), address(rm), "market");
        assertEq(betting.totalOwed(), 0, "owed");
    }

    function testConstructorRejectsMarketWithoutCode() public {
        vm.expectRevert(abi.encodeWithSelector(BettingMarket.InvalidResolutionMarket.selector, address(0)));
        new BettingMarket(IResolutionMarket(address(0)));
        vm.expectRevert(abi.encodeWithSelector(BettingMarket.InvalidResolutionMarket.selector, alice));
        new BettingMarket(IResolutionMarket(alice));
    }

    // ---------------------------------------------------------------- bet

    function testBetAccumulatesAndEmits() public {
        vm.expectEmit(address(betting));
        emit BetPlaced(MARKET, alice, BettingMarket.Side.Yes, 1 ether, 1 ether, 1 ether);
        _bet(alice, BettingMarket.Side.Yes, 1 ether);

        vm.expectEmit(address(betting));
        emit BetPlaced(MARKET, alice, BettingMarket.Side.Yes, 2 ether, 3 ether, 3 ether);
        _bet(alice, BettingMarket.Side.Yes, 2 ether);

        vm.expectEmit(address(betting));
        emit BetPlaced(MARKET, bob, BettingMarket.Side.Yes, 5, 5, 3 ether + 5);
        _bet(bob, BettingMarket.Side.Yes, 5);

        vm.expectEmit(address(betting));
        emit BetPlaced(MARKET, alice, BettingMarket.Side.No, 4 ether, 4 ether, 4 ether);
        _bet(alice, BettingMarket.Side.No, 4 ether);

        (uint256 yesPool, uint256 noPool, uint256 claimedStake, uint256 paid) = betting.getPool(MARKET);
        assertEq(yesPool, 3 ether + 5, "yes pool");
        assertEq(noPool, 4 ether, "no pool");
        assertEq(claimedStake, 0, "claimed stake");
        assertEq(paid, 0, "paid");
        (uint256 y, uint256 n, bool claimed) = betting.getPosition(MARKET, alice);
        assertEq(y, 3 ether, "alice yes");
        assertEq(n, 4 ether, "alice no");
        assertTrue(!claimed, "not claimed");
        assertEq(betting.totalOwed(), 7 ether + 5, "owed");
        assertEq(address(betting).balance, 7 ether + 5, "balance");
    }

    function testBetRejectsZeroValue() public {
        vm.prank(alice);
        vm.expectRevert(BettingMarket.ZeroBet.selector);
        betting.bet(MARKET, BettingMarket.Side.Yes);
    }

    function testBetRejectsUnknownMarket() public {
        vm.prank(alice);
        vm.expectRevert(
            abi.encodeWithSelector(BettingMarket.MarketNotOpen.selector, 99, IResolutionMarket.Status.None)
        );
        betting.bet{value: 1}(99, BettingMarket.Side.Yes);
    }

    function testBetRejectsNonOpenStatuses() public {
        IResolutionMarket.Status[4] memory statuses = [
            IResolutionMarket.Status.ResolutionRequested,
            IResolutionMarket.Status.Resolved,
            IResolutionMarket.Status.Invalid,
            IResolutionMarket.Status.Cancelled
        ];
        for (uint256 i = 0; i < statuses.length; ++i) {
            _finalize(statuses[i], true);
            vm.prank(alice);
            vm.expectRevert(abi.encodeWithSelector(BettingMarket.MarketNotOpen.selector, MARKET, statuses[i]));
            betting.bet{value: 1}(MARKET, BettingMarket.Side.No);
        }
    }

    function testBetRejectsSideOutOfRange() public {
        vm.prank(alice);
        (bool ok,) = address(betting).call{value: 1}(
            abi.encodeWithSelector(BettingMarket.bet.selector, MARKET, uint256(2))
        );
        assertTrue(!ok, "side 2 is not a Side");
        assertEq(betting.totalOwed(), 0, "nothing taken");
    }

    function testBetRefusedAtAndAfterDeadline() public {
        vm.warp(DEADLINE - 1);
        _bet(alice, BettingMarket.Side.Yes, 1); // last second is fine
        vm.warp(DEADLINE);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(BettingMarket.BettingClosed.selector, MARKET, DEADLINE));
        betting.bet{value: 1}(MARKET, BettingMarket.Side.Yes);
        vm.warp(DEADLINE + 1 days);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(BettingMarket.BettingClosed.selector, MARKET, DEADLINE));
        betting.bet{value: 1}(MARKET, BettingMarket.Side.No);
    }

    function testFuzzBetAfterDeadlineRefused(uint256 late, uint256 amount, bool yes) public {
        late = late.bound(DEADLINE, type(uint64).max);
        amount = amount.bound(1, 100 ether);
        vm.warp(late);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(BettingMarket.BettingClosed.selector, MARKET, DEADLINE));
        betting.bet{value: amount}(MARKET, yes ? BettingMarket.Side.Yes : BettingMarket.Side.No);
    }

    // ---------------------------------------------------------------- claim: payout

    function testWinnersShareLosingPoolInProportion() public {
        _bet(alice, BettingMarket.Side.Yes, 1 ether);
        _bet(bob, BettingMarket.Side.Yes, 3 ether);
        _bet(carol, BettingMarket.Side.No, 2 ether);
        _bet(dave, BettingMarket.Side.No, 2 ether);
        _finalize(IResolutionMarket.Status.Resolved, true);

        (BettingMarket.Settlement s, bool outcome) = betting.settlementOf(MARKET);
        assertEq(uint256(s), uint256(BettingMarket.Settlement.Payout), "payout");
        assertTrue(outcome, "yes won");
        assertEq(betting.claimable(MARKET, alice), 2 ether, "alice claimable");
        assertEq(betting.claimable(MARKET, bob), 6 ether, "bob claimable");
        assertEq(betting.claimable(MARKET, carol), 0, "carol lost");

        vm.expectEmit(address(betting));
        emit Claimed(MARKET, bob, bob, 6 ether, false);
        assertEq(_claim(bob), 6 ether, "bob");
        assertEq(_claim(alice), 2 ether, "alice");
        (,, uint256 claimedStake, uint256 paid) = betting.getPool(MARKET);
        assertEq(claimedStake, 4 ether, "claimed stake");
        assertEq(paid, 8 ether, "paid");
        _assertDrained();
    }

    function testNoSideCanWin() public {
        _bet(alice, BettingMarket.Side.Yes, 1 ether);
        _bet(bob, BettingMarket.Side.No, 1 ether);
        _finalize(IResolutionMarket.Status.Resolved, false);
        assertEq(_claim(bob), 2 ether, "bob wins");
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(BettingMarket.NothingToClaim.selector, MARKET, alice));
        betting.claim(MARKET);
        _assertDrained();
    }

    function testDustGoesToTheClaimCompletingTheWinningStake() public {
        // 3 winners of 1 wei each share a 3-wei winning pool + 2-wei losing pool: 5 / 3 each.
        _bet(alice, BettingMarket.Side.Yes, 1);
        _bet(bob, BettingMarket.Side.Yes, 1);
        _bet(carol, BettingMarket.Side.Yes, 1);
        _bet(dave, BettingMarket.Side.No, 2);
        _finalize(IResolutionMarket.Status.Resolved, true);
        assertEq(betting.claimable(MARKET, carol), 1, "floor share before others claim");
        assertEq(_claim(carol), 1, "carol floor");
        assertEq(_claim(alice), 1, "alice floor");
        assertEq(betting.claimable(MARKET, bob), 3, "bob's claim completes: share + dust");
        assertEq(_claim(bob), 3, "bob remainder");
        _assertDrained();
    }

    function testBettorOnBothSidesKeepsOnlyWinningShare() public {
        _bet(alice, BettingMarket.Side.Yes, 1 ether);
        _bet(alice, BettingMarket.Side.No, 1 ether);
        _bet(bob, BettingMarket.Side.No, 2 ether);
        _finalize(IResolutionMarket.Status.Resolved, true);
        assertEq(_claim(alice), 4 ether, "alice takes the whole pool");
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(BettingMarket.NothingToClaim.selector, MARKET, bob));
        betting.claim(MARKET);
        _assertDrained();
    }

    function testEveryoneOnWinningSideGetsStakeBack() public {
        _bet(alice, BettingMarket.Side.Yes, 3);
        _bet(bob, BettingMarket.Side.Yes, 7);
        _finalize(IResolutionMarket.Status.Resolved, true);
        assertEq(_claim(alice), 3, "alice");
        assertEq(_claim(bob), 7, "bob");
        _assertDrained();
    }

    // ---------------------------------------------------------------- claim: refunds

    function testNobodyOnWinningSideRefundsEveryone() public {
        _bet(alice, BettingMarket.Side.No, 1 ether);
        _bet(bob, BettingMarket.Side.No, 2 ether + 1);
        _bet(bob, BettingMarket.Side.No, 3);
        _finalize(IResolutionMarket.Status.Resolved, true);
        (BettingMarket.Settlement s,) = betting.settlementOf(MARKET);
        assertEq(uint256(s), uint256(BettingMarket.Settlement.Refund), "refund");
        vm.expectEmit(address(betting));
        emit Claimed(MARKET, alice, alice, 1 ether, true);
        assertEq(_claim(alice), 1 ether, "alice refund");
        assertEq(_claim(bob), 2 ether + 4, "bob refund");
        _assertDrained();
    }

    function testInvalidMarketRefundsEveryBet() public {
        _refundScenario(IResolutionMarket.Status.Invalid);
    }

    function testCancelledMarketRefundsEveryBet() public {
        _refundScenario(IResolutionMarket.Status.Cancelled);
    }

    function _refundScenario(IResolutionMarket.Status status) internal {
        _bet(alice, BettingMarket.Side.Yes, 1 ether);
        _bet(alice, BettingMarket.Side.No, 5);
        _bet(bob, BettingMarket.Side.No, 2 ether);
        _finalize(status, true);
        (BettingMarket.Settlement s,) = betting.settlementOf(MARKET);
        assertEq(uint256(s), uint256(BettingMarket.Settlement.Refund), "refund");
        assertEq(betting.claimable(MARKET, alice), 1 ether + 5, "alice claimable");
        assertEq(_claim(alice), 1 ether + 5, "alice both sides back");
        assertEq(_claim(bob), 2 ether, "bob back");
        vm.prank(carol);
        vm.expectRevert(abi.encodeWithSelector(BettingMarket.NothingToClaim.selector, MARKET, carol));
        betting.claim(MARKET);
        _assertDrained();
    }

    // ---------------------------------------------------------------- claim: reverts

    function testClaimBeforeFinalReverts() public {
        _bet(alice, BettingMarket.Side.Yes, 1 ether);
        vm.prank(alice);
        vm.expectRevert(
            abi.encodeWithSelector(BettingMarket.MarketNotFinal.selector, MARKET, IResolutionMarket.Status.Open)
        );
        betting.claim(MARKET);

        _finalize(IResolutionMarket.Status.ResolutionRequested, false);
        vm.prank(alice);
        vm.expectRevert(
            abi.encodeWithSelector(
                BettingMarket.MarketNotFinal.selector, MARKET, IResolutionMarket.Status.ResolutionRequested
            )
        );
        betting.claim(MARKET);

        vm.prank(alice);
        vm.expectRevert(
            abi.encodeWithSelector(BettingMarket.MarketNotFinal.selector, 99, IResolutionMarket.Status.None)
        );
        betting.claim(99);

        assertEq(betting.claimable(MARKET, alice), 0, "pending claimable");
        (BettingMarket.Settlement s,) = betting.settlementOf(MARKET);
        assertEq(uint256(s), uint256(BettingMarket.Settlement.Pending), "pending");
    }

    function testDoubleClaimRefused() public {
        _bet(alice, BettingMarket.Side.Yes, 1 ether);
        _bet(bob, BettingMarket.Side.No, 1 ether);
        _finalize(IResolutionMarket.Status.Resolved, true);
        _claim(alice);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(BettingMarket.AlreadyClaimed.selector, MARKET, alice));
        betting.claim(MARKET);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(BettingMarket.AlreadyClaimed.selector, MARKET, alice));
        betting.claimTo(MARKET, carol);
        assertEq(betting.claimable(MARKET, alice), 0, "claimed -> 0");
        (,, bool claimed) = betting.getPosition(MARKET, alice);
        assertTrue(claimed, "flag");
    }

    function testDoubleRefundRefused() public {
        _bet(alice, BettingMarket.Side.Yes, 1 ether);
        _finalize(IResolutionMarket.Status.Cancelled, false);
        _claim(alice);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(BettingMarket.AlreadyClaimed.selector, MARKET, alice));
        betting.claim(MARKET);
    }

    function testClaimToSendsToRecipient() public {
        _bet(alice, BettingMarket.Side.Yes, 1 ether);
        _bet(bob, BettingMarket.Side.No, 1 ether);
        _finalize(IResolutionMarket.Status.Resolved, true);
        uint256 before = carol.balance;
        vm.expectEmit(address(betting));
        emit Claimed(MARKET, alice, carol, 2 ether, false);
        vm.prank(alice);
        assertEq(betting.claimTo(MARKET, carol), 2 ether, "returned");
        assertEq(carol.balance - before, 2 ether, "carol received");
        _assertDrained();
    }

    function testClaimToZeroRecipientRefused() public {
        _bet(alice, BettingMarket.Side.Yes, 1 ether);
        _finalize(IResolutionMarket.Status.Resolved, true);
        vm.prank(alice);
        vm.expectRevert(BettingMarket.ZeroRecipient.selector);
        betting.claimTo(MARKET, address(0));
    }

    function testRecipientRejectingEthRollsBackAndCanRetryElsewhere() public {
        ReentrantBettor b = new ReentrantBettor(betting);
        b.placeBet{value: 1 ether}(MARKET, BettingMarket.Side.Yes);
        _bet(bob, BettingMarket.Side.No, 1 ether);
        _finalize(IResolutionMarket.Status.Resolved, true);
        b.setAttack(ReentrantBettor.Attack.RevertOnReceive);
        vm.expectRevert(abi.encodeWithSelector(BettingMarket.TransferFailed.selector, address(b), 2 ether));
        b.doClaim();
        (,, bool claimed) = betting.getPosition(MARKET, address(b));
        assertTrue(!claimed, "rolled back");
        assertEq(betting.totalOwed(), 2 ether, "still owed");
        assertEq(b.doClaimTo(carol), 2 ether, "redirected");
        _assertDrained();
    }

    // ---------------------------------------------------------------- reentrancy

    function testReentrantClaimFails() public {
        _reentrancyScenario(ReentrantBettor.Attack.Claim);
    }

    function testReentrantClaimToFails() public {
        _reentrancyScenario(ReentrantBettor.Attack.ClaimTo);
    }

    function testReentrantBetFails() public {
        _reentrancyScenario(ReentrantBettor.Attack.Bet);
    }

    function _reentrancyScenario(ReentrantBettor.Attack attack) internal {
        ReentrantBettor b = new ReentrantBettor(betting);
        b.placeBet{value: 1 ether}(MARKET, BettingMarket.Side.Yes);
        _bet(alice, BettingMarket.Side.Yes, 1 ether);
        _bet(bob, BettingMarket.Side.No, 2 ether);
        _finalize(IResolutionMarket.Status.Resolved, true);
        b.setAttack(attack);
        assertEq(b.doClaim(), 2 ether, "only its own share");
        assertTrue(!b.reentered(), "re-entry failed");
        assertEq(
            b.reentryError(),
            abi.encodeWithSelector(ReentrancyGuard.ReentrancyGuardReentrantCall.selector),
            "stopped by the guard"
        );
        assertEq(b.received(), 2 ether, "received once");
        assertEq(_claim(alice), 2 ether, "alice unaffected");
        _assertDrained();
    }

    // ---------------------------------------------------------------- fuzz: conservation of wei

    struct FuzzState {
        address[] bettors;
        uint256 total;
        uint256 paid;
    }

    /// @dev Random bettors (1..12), random repeated bets on both sides (tiny amounts to force dust, or large
    ///      ones), random final status and outcome, claims in a random order: everything bet comes back out,
    ///      to the wei, and each claim equals `claimable` just before it.
    function testFuzzClaimsAndRefundsSumToTotalBets(uint256 seed, uint8 nRaw, uint8 statusRaw, bool outcome) public {
        FuzzState memory st;
        uint256 n = uint256(nRaw).bound(1, 12);
        st.bettors = new address[](n);
        bool tiny = seed % 2 == 0;
        for (uint256 i = 0; i < n; ++i) {
            address who = address(uint160(0x10000 + i));
            st.bettors[i] = who;
            vm.deal(who, 1_000_000 ether);
            uint256 bets = seed.rand(i) % 3 + 1;
            for (uint256 k = 0; k < bets; ++k) {
                uint256 r = seed.rand(i * 100 + k);
                uint256 amount = tiny ? r % 997 + 1 : r % 1_000 ether + 1;
                BettingMarket.Side side = (r >> 128) % 2 == 0 ? BettingMarket.Side.Yes : BettingMarket.Side.No;
                _bet(who, side, amount);
                st.total += amount;
            }
        }
        assertEq(address(betting).balance, st.total, "balance == bets");
        assertEq(betting.totalOwed(), st.total, "owed == bets");

        uint256 s = uint256(statusRaw) % 3;
        IResolutionMarket.Status status = s == 0
            ? IResolutionMarket.Status.Resolved
            : (s == 1 ? IResolutionMarket.Status.Invalid : IResolutionMarket.Status.Cancelled);
        _finalize(status, outcome);

        uint256[] memory order = TestMath.permutation(n, seed);
        for (uint256 i = 0; i < n; ++i) {
            address who = st.bettors[order[i]];
            uint256 expected = betting.claimable(MARKET, who);
            if (expected == 0) {
                vm.prank(who);
                vm.expectRevert(abi.encodeWithSelector(BettingMarket.NothingToClaim.selector, MARKET, who));
                betting.claim(MARKET);
            } else {
                assertEq(_claim(who), expected, "claim == claimable");
                st.paid += expected;
            }
            assertEq(address(betting).balance, betting.totalOwed(), "balance == owed after each claim");
        }
        assertEq(st.paid, st.total, "sum of claims == total bets");
        _assertDrained();
    }

    /// @dev Nobody backed the winning side: every bettor gets exactly their stakes back.
    function testFuzzNobodyOnWinningSideFullRefunds(uint256 seed, uint8 nRaw, bool outcome) public {
        uint256 n = uint256(nRaw).bound(1, 10);
        BettingMarket.Side losing = outcome ? BettingMarket.Side.No : BettingMarket.Side.Yes;
        uint256[] memory staked = new uint256[](n);
        for (uint256 i = 0; i < n; ++i) {
            address who = address(uint160(0x20000 + i));
            vm.deal(who, 1_000 ether);
            staked[i] = seed.rand(i) % 100 ether + 1;
            _bet(who, losing, staked[i]);
        }
        _finalize(IResolutionMarket.Status.Resolved, outcome);
        uint256[] memory order = TestMath.permutation(n, seed);
        for (uint256 i = 0; i < n; ++i) {
            address who = address(uint160(0x20000 + order[i]));
            assertEq(_claim(who), staked[order[i]], "full refund");
        }
        _assertDrained();
    }

    /// @dev Payout bounds: every claim but the completing one is exactly floor(s * T / W); the completing one
    ///      is at least its exact share and exceeds it by less than the number of winners.
    function testFuzzPayoutBounds(uint256 seed, uint8 nRaw) public {
        uint256 n = uint256(nRaw).bound(2, 10);
        uint256 total;
        uint256 winning;
        uint256[] memory stakes = new uint256[](n);
        for (uint256 i = 0; i < n; ++i) {
            address who = address(uint160(0x30000 + i));
            vm.deal(who, 1_000 ether);
            stakes[i] = seed.rand(i) % 10_007 + 1;
            _bet(who, BettingMarket.Side.Yes, stakes[i]);
            winning += stakes[i];
        }
        uint256 loserStake = seed.rand(999) % 99_991 + 1;
        _bet(alice, BettingMarket.Side.No, loserStake);
        total = winning + loserStake;
        _finalize(IResolutionMarket.Status.Resolved, true);

        uint256[] memory order = TestMath.permutation(n, seed);
        for (uint256 i = 0; i < n; ++i) {
            uint256 idx = order[i];
            uint256 got = _claim(address(uint160(0x30000 + idx)));
            uint256 floorShare = stakes[idx] * total / winning;
            if (i + 1 < n) {
                assertEq(got, floorShare, "floor share");
            } else {
                assertTrue(got >= floorShare && got < floorShare + n, "last: share + dust < n");
            }
        }
        _assertDrained();
    }
}
