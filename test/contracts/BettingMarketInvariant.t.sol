// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TestBase, Vm} from "./utils/Vm.sol";
import {TestMath} from "./utils/BettingTestUtils.sol";
import {MockResolutionMarket} from "./mocks/MockResolutionMarket.sol";
import {BettingMarket} from "../../contracts/market/BettingMarket.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";

/// @notice Drives random bets, settlements and claims over two markets and a few bettors.
contract BettingHandler {
    using TestMath for uint256;

    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));
    uint64 internal constant DEADLINE = 2_000_000;

    MockResolutionMarket public immutable rm;
    BettingMarket public immutable betting;
    address[] public actors;
    uint256[2] public markets = [uint256(1), uint256(2)];

    uint256 public ghostBet;
    uint256 public ghostPaid;
    mapping(uint256 => uint256) public ghostMarketBet;
    mapping(uint256 => uint256) public ghostMarketPaid;

    constructor(MockResolutionMarket rm_, BettingMarket betting_) {
        rm = rm_;
        betting = betting_;
        for (uint256 i = 0; i < 5; ++i) {
            actors.push(address(uint160(0x40000 + i)));
        }
    }

    function actorCount() external view returns (uint256) {
        return actors.length;
    }

    function bet(uint256 actorSeed, uint256 marketSeed, bool yes, uint256 amount) external {
        uint256 marketId = markets[marketSeed % 2];
        IResolutionMarket.MarketInfo memory info = rm.getMarket(marketId);
        if (info.status != IResolutionMarket.Status.Open || block.timestamp >= DEADLINE) return;
        address who = actors[actorSeed % actors.length];
        amount = amount.bound(1, 50 ether);
        vm.deal(who, who.balance + amount);
        vm.prank(who);
        betting.bet{value: amount}(marketId, yes ? BettingMarket.Side.Yes : BettingMarket.Side.No);
        ghostBet += amount;
        ghostMarketBet[marketId] += amount;
    }

    function finalize(uint256 marketSeed, uint256 statusSeed, bool outcome) external {
        uint256 marketId = markets[marketSeed % 2];
        IResolutionMarket.MarketInfo memory info = rm.getMarket(marketId);
        if (info.status != IResolutionMarket.Status.Open) return;
        uint256 s = statusSeed % 3;
        IResolutionMarket.Status status = s == 0
            ? IResolutionMarket.Status.Resolved
            : (s == 1 ? IResolutionMarket.Status.Invalid : IResolutionMarket.Status.Cancelled);
        rm.setMarket(marketId, status, DEADLINE, outcome);
    }

    function claim(uint256 actorSeed, uint256 marketSeed) external {
        uint256 marketId = markets[marketSeed % 2];
        address who = actors[actorSeed % actors.length];
        uint256 expected = betting.claimable(marketId, who);
        if (expected == 0) return;
        vm.prank(who);
        uint256 got = betting.claim(marketId);
        require(got == expected, "claim != claimable");
        ghostPaid += got;
        ghostMarketPaid[marketId] += got;
    }
}

contract BettingMarketInvariantTest is TestBase {
    MockResolutionMarket internal rm;
    BettingMarket internal betting;
    BettingHandler internal handler;

    function setUp() public {
        vm.warp(1_000_000);
        rm = new MockResolutionMarket();
        betting = new BettingMarket(IResolutionMarket(address(rm)));
        handler = new BettingHandler(rm, betting);
        rm.setMarket(1, IResolutionMarket.Status.Open, 2_000_000, false);
        rm.setMarket(2, IResolutionMarket.Status.Open, 2_000_000, false);
    }

    /// @dev Only the handler is fuzzed (read by the invariant runner).
    function targetContracts() public view returns (address[] memory targets) {
        targets = new address[](1);
        targets[0] = address(handler);
    }

    /// forge-config: default.invariant.runs = 48
    /// forge-config: default.invariant.depth = 40
    function invariantBalanceEqualsOwed() public view {
        assertEq(address(betting).balance, betting.totalOwed(), "balance == totalOwed");
        assertEq(betting.totalOwed(), handler.ghostBet() - handler.ghostPaid(), "owed == bets - paid");
    }

    /// forge-config: default.invariant.runs = 48
    /// forge-config: default.invariant.depth = 40
    function invariantNoMarketPaysMoreThanItHolds() public view {
        for (uint256 m = 1; m <= 2; ++m) {
            uint256 total = handler.ghostMarketBet(m);
            uint256 paid = handler.ghostMarketPaid(m);
            assertTrue(paid <= total, "paid <= bet");
            uint256 outstanding;
            for (uint256 i = 0; i < handler.actorCount(); ++i) {
                outstanding += betting.claimable(m, handler.actors(i));
            }
            assertTrue(outstanding <= total - paid, "claimable never exceeds what is left");
            (uint256 yesPool, uint256 noPool,,) = betting.getPool(m);
            assertEq(yesPool + noPool, total, "pools == bets");
        }
    }
}
