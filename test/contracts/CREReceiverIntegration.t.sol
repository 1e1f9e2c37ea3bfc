// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {RealStackFixture} from "./betting/RealStackFixture.sol";
import {ResolutionMarket} from "../../contracts/market/ResolutionMarket.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {BettingMarket} from "../../contracts/market/BettingMarket.sol";
import {CREReceiver} from "../../contracts/cre/CREReceiver.sol";

/// @notice End to end: a DON report delivered Keystone-style settles the real ResolutionMarket (real ERC-8004
///         registries), pays the workers and lets bettors claim.
contract CREReceiverIntegrationTest is RealStackFixture {
    address internal yesBettor = address(0xBE7A);
    address internal noBettor = address(0xBE7B);

    function setUp() public {
        _deployStack();
        vm.deal(yesBettor, 10 ether);
        vm.deal(noBettor, 10 ether);
    }

    function _weights() internal pure returns (uint256[] memory w) {
        w = new uint256[](3);
        w[0] = 1;
        w[1] = 2;
        w[2] = 3;
    }

    function testFullReportSettlesMarketPaysWorkersAndBettors() public {
        (uint256 id, uint64 deadline) = _createMarket();
        address[] memory workers = _joinWorkers(id, 3);
        vm.prank(yesBettor);
        betting.bet{value: 1 ether}(id, BettingMarket.Side.Yes);
        vm.prank(noBettor);
        betting.bet{value: 3 ether}(id, BettingMarket.Side.No);
        _request(id, deadline);

        bytes memory report = _reportFor(id, workers, _weights(), true);
        _deliver(report);

        IResolutionMarket.MarketInfo memory info = market.getMarket(id);
        assertEq(uint256(info.status), uint256(IResolutionMarket.Status.Resolved), "resolved");
        assertTrue(info.outcome, "YES");
        assertEq(info.bundleHash, keccak256(report), "bundleHash = keccak256(report)");

        // Workers: reward split 1:2:3 of 3 ether plus their stakes back, withdrawable.
        uint256 paid;
        for (uint256 i = 0; i < 3; ++i) {
            uint256 expected = REWARD * (i + 1) / 6 + STAKE;
            assertEq(market.pendingWithdrawal(workers[i]), expected, "worker credit");
            uint256 before = workers[i].balance;
            vm.prank(workers[i]);
            market.withdraw();
            assertEq(workers[i].balance - before, expected, "worker paid");
            paid += expected;
        }
        assertEq(paid, REWARD + 3 * STAKE, "pool + stakes paid out");

        // ERC-8004 feedback: three records per worker from the market, tagged cresolver.
        address[] memory clients = new address[](1);
        clients[0] = address(market);
        (uint64 count,,) = reputation.getSummary(0, clients, "resolution_quality", "cresolver");
        assertEq(count, 1, "resolution_quality feedback");
        (count,,) = reputation.getSummary(2, clients, "analysis_depth", "cresolver");
        assertEq(count, 1, "analysis_depth feedback");
        (uint64 repCount,,,) = market.getReputation(1);
        assertEq(repCount, 1, "market reputation average");

        // Bettors: YES won, takes the whole betting pool; NO has nothing.
        uint256 b0 = yesBettor.balance;
        vm.prank(yesBettor);
        assertEq(betting.claim(id), 4 ether, "winner");
        assertEq(yesBettor.balance - b0, 4 ether, "winner paid");
        vm.prank(noBettor);
        vm.expectRevert(abi.encodeWithSelector(BettingMarket.NothingToClaim.selector, id, noBettor));
        betting.claim(id);
        assertEq(address(betting).balance, 0, "betting drained");
    }

    function testReplayedReportRefused() public {
        (uint256 id, uint64 deadline) = _createMarket();
        address[] memory workers = _joinWorkers(id, 3);
        _request(id, deadline);
        bytes memory report = _reportFor(id, workers, _weights(), false);
        _deliver(report);
        vm.expectRevert(
            abi.encodeWithSelector(ResolutionMarket.WrongStatus.selector, id, IResolutionMarket.Status.Resolved)
        );
        _deliver(report);
    }

    function testReportBeforeRequestRefused() public {
        (uint256 id,) = _createMarket();
        address[] memory workers = _joinWorkers(id, 3);
        vm.expectRevert(
            abi.encodeWithSelector(ResolutionMarket.WrongStatus.selector, id, IResolutionMarket.Status.Open)
        );
        _deliver(_reportFor(id, workers, _weights(), true));
    }

    function testWrongWorkerListBubblesAndChangesNothing() public {
        (uint256 id, uint64 deadline) = _createMarket();
        address[] memory workers = _joinWorkers(id, 3);
        _request(id, deadline);
        address real = workers[1];
        workers[1] = address(0xBAD);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.WorkerMismatch.selector, 1, real, address(0xBAD)));
        _deliver(_reportFor(id, workers, _weights(), true));
        assertEq(
            uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.ResolutionRequested), "unchanged"
        );
    }

    function testReceiverMustBeResolver() public {
        market.removeResolver(address(receiver));
        (uint256 id, uint64 deadline) = _createMarket();
        address[] memory workers = _joinWorkers(id, 3);
        _request(id, deadline);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.NotResolver.selector, address(receiver)));
        _deliver(_reportFor(id, workers, _weights(), true));
    }

    function testWrongWorkflowRefusedOnRealStack() public {
        (uint256 id, uint64 deadline) = _createMarket();
        address[] memory workers = _joinWorkers(id, 3);
        _request(id, deadline);
        bytes memory report = _reportFor(id, workers, _weights(), true);
        bytes32 otherId = keccak256("attacker workflow");
        vm.expectRevert(abi.encodeWithSelector(CREReceiver.WorkflowIdNotAllowed.selector, otherId));
        forwarder.report(address(receiver), otherId, WF_NAME, WF_OWNER, report);
        vm.expectRevert(abi.encodeWithSelector(CREReceiver.WorkflowOwnerMismatch.selector, address(0xBAD), WF_OWNER));
        forwarder.report(address(receiver), WF_ID, WF_NAME, address(0xBAD), report);
        // Direct call, bypassing the forwarder.
        vm.expectRevert(abi.encodeWithSelector(CREReceiver.UnauthorizedForwarder.selector, address(this)));
        receiver.onReport(abi.encodePacked(WF_ID, WF_NAME, WF_OWNER), report);
        // The legitimate workflow still settles it afterwards.
        _deliver(report);
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Resolved), "resolved");
    }

    /// @dev 100 workers through CRE: bounded by the market's per-transaction design; the report is accepted.
    function testHundredWorkerReport() public {
        market.setMaxWorkers(100);
        (uint256 id, uint64 deadline) = _createMarket();
        address[] memory workers = _joinWorkers(id, 100);
        _request(id, deadline);
        uint256[] memory weights = new uint256[](100);
        for (uint256 i = 0; i < 100; ++i) {
            weights[i] = i % 7;
        }
        _deliver(_reportFor(id, workers, weights, true));
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Resolved), "resolved");
        uint256 total;
        for (uint256 i = 0; i < 100; ++i) {
            total += market.pendingWithdrawal(workers[i]);
        }
        assertEq(total + market.pendingWithdrawal(creator), REWARD + 100 * STAKE, "every wei credited");
    }
}
