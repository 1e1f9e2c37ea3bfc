// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {MarketFixture} from "./market/MarketFixture.sol";
import {MaliciousWorker} from "./market/MarketMocks.sol";

/// @notice A worker contract that re-enters the market while being paid.
contract ResolutionMarketReentrancyTest is MarketFixture {
    MaliciousWorker internal evil;
    address[] internal ws;
    uint256 internal constant SHARE = POOL / 3; // three identical YES answers: equal weights
    uint256 internal id;
    uint256 internal openMarket;

    bytes internal constant REENTRANT = abi.encodeWithSelector(
        ReentrancyGuardTransient.ReentrancyGuardReentrantCall.selector
    );

    function setUp() public override {
        super.setUp();
        evil = new MaliciousWorker(market, identity);
        vm.deal(address(evil), 100 ether);
        evil.registerAgent();
        id = _createMarket();
        openMarket = _createMarket();
        evil.join{value: STAKE}(id);
        (address[] memory honest,) = _joinFresh(id, 2, 0);
        ws.push(address(evil));
        ws.push(honest[0]);
        ws.push(honest[1]);
        _request(market, id);
        _settle(market, id, IResolutionMarket.Verdict.Yes, _uniform(3, IResolutionMarket.Answer.Yes));
    }

    function _owed() internal view returns (uint256) {
        return market.pendingWithdrawal(address(evil));
    }

    function _withdrawWith(MaliciousWorker.Mode mode) internal returns (uint256 owed, uint256 gained) {
        evil.setMode(mode, openMarket);
        owed = _owed();
        uint256 before = address(evil).balance;
        uint256 marketBefore = address(market).balance;
        evil.withdraw();
        gained = address(evil).balance - before;
        assertEq(marketBefore - address(market).balance, owed, "market paid exactly the credit");
        assertEq(_owed(), 0, "credit consumed once");
        assertEq(evil.reentrySuccesses(), 0, "no re-entry succeeded");
        assertEq(evil.lastReentryError(), REENTRANT, "blocked by the guard");
    }

    function testReenterWithdrawFails() public {
        (uint256 owed, uint256 gained) = _withdrawWith(MaliciousWorker.Mode.ReenterWithdraw);
        assertEq(gained, owed, "paid once");
        assertEq(evil.reentryAttempts(), 1, "tried");
    }

    function testReenterJoinFails() public {
        (uint256 owed, uint256 gained) = _withdrawWith(MaliciousWorker.Mode.ReenterJoin);
        assertEq(gained, owed, "paid once, nothing staked");
        (address[] memory seated,,) = market.getWorkers(openMarket);
        assertEq(seated.length, 0, "no seat taken");
    }

    function testReenterCreateFails() public {
        uint256 count = market.marketCount();
        (uint256 owed, uint256 gained) = _withdrawWith(MaliciousWorker.Mode.ReenterCreate);
        assertEq(gained, owed, "paid once");
        assertEq(market.marketCount(), count, "no market created");
    }

    function testBubblingReentryRevertsWholeWithdrawAndKeepsCredit() public {
        evil.setMode(MaliciousWorker.Mode.RevertOnReceive, openMarket);
        uint256 owed = _owed();
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.TransferFailed.selector, address(evil), owed));
        evil.withdraw();
        assertEq(_owed(), owed, "credit intact after failed transfer");
        // Honest workers are unaffected.
        uint256 before = ws[1].balance;
        vm.prank(ws[1]);
        market.withdraw();
        assertEq(ws[1].balance - before, STAKE + SHARE, "honest worker paid");
        // Once it behaves, it gets its money.
        evil.setMode(MaliciousWorker.Mode.None, 0);
        evil.withdraw();
        assertEq(_owed(), 0, "paid");
    }

    function testEtherRejectingWorkerOnlyHurtsItself() public {
        evil.setMode(MaliciousWorker.Mode.RejectEther, 0);
        uint256 owed = _owed();
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.TransferFailed.selector, address(evil), owed));
        evil.withdraw();
        assertEq(_owed(), owed, "credit intact");
        vm.prank(ws[2]);
        market.withdraw();
        assertEq(market.pendingWithdrawal(ws[2]), 0, "others withdraw");
    }

    function testReentrancyDuringJoinOrFinalizeIsImpossibleToo() public {
        // The guard is shared: while `withdraw` is running no guarded entry point can run.
        evil.setMode(MaliciousWorker.Mode.ReenterWithdraw, openMarket);
        evil.withdraw();
        // A fresh join from the same contract outside a callback still works normally.
        evil.setMode(MaliciousWorker.Mode.None, 0);
        uint256 fresh = _createMarket();
        evil.join{value: STAKE}(fresh);
        (address[] memory seated,,) = market.getWorkers(fresh);
        assertEq(seated.length, 1, "normal join ok");
    }
}
