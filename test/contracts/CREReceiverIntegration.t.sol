// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {RealStackFixture} from "./betting/RealStackFixture.sol";
import {MockKeystoneForwarder} from "./mocks/MockKeystoneForwarder.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {IArbiter} from "../../contracts/market/interfaces/IArbiter.sol";
import {BettingMarket} from "../../contracts/market/BettingMarket.sol";
import {CREReceiver} from "../../contracts/cre/CREReceiver.sol";
import {ICREReceiver} from "../../contracts/cre/interfaces/ICREReceiver.sol";
import {CommitteeArbiter} from "../../contracts/arbiter/CommitteeArbiter.sol";
import {_gov, _rep} from "./market/Split.sol";

/// @notice End to end on the real v2 market: a DON report delivered Keystone-style becomes a bonded proposal paid
///         from the receiver's float; undisputed it finalizes and the bond comes back; a captured panel's wrong
///         report is disputed and overturned by a committee (the float loses the bond, the wrong seats their
///         stakes, betting pays the truth); reports for another chain or market are refused.
contract CREReceiverIntegrationTest is RealStackFixture {
    CREReceiver internal receiver;
    MockKeystoneForwarder internal forwarder;
    CommitteeArbiter internal committee;

    bytes32 internal constant WF_ID = keccak256("cresolver-workflow-v1");
    bytes10 internal constant WF_NAME = bytes10(0x63726573736f6c766572);
    address internal constant WF_OWNER = address(0x0DE2);
    address internal yesBettor = address(0xBE7A);
    address internal noBettor = address(0xBE7B);
    address internal disputer = address(0xD15);
    address internal m1 = address(0x3001);
    address internal m2 = address(0x3002);

    function setUp() public {
        _deployStack();
        forwarder = new MockKeystoneForwarder();
        bytes32[] memory ids = new bytes32[](1);
        ids[0] = WF_ID;
        receiver = new CREReceiver(
            IResolutionMarket(address(market)),
            address(forwarder),
            admin,
            ICREReceiver.WorkflowConfig({workflowIds: ids, workflowOwner: WF_OWNER, workflowName: WF_NAME, allowAnyWorkflow: false})
        );
        _gov(market).queueResolver(address(receiver)); // before the first market: active at once
        vm.deal(admin, 10 ether);
        vm.prank(admin);
        (bool ok,) = address(receiver).call{value: 1 ether}("");
        assertTrue(ok, "float funded");
        address[] memory members = new address[](2);
        (members[0], members[1]) = (m1, m2);
        address[] memory markets = new address[](1);
        markets[0] = address(market);
        committee = new CommitteeArbiter(members, 2, markets);
        _gov(market).queueArbiter(address(committee)); // bootstrap: allowed at once
        vm.deal(yesBettor, 10 ether);
        vm.deal(noBettor, 10 ether);
        vm.deal(disputer, 10 ether);
    }

    /// @dev Within the receiver's 1 ETH float and cap; covers the tests' 4 ETH of bets (ten times the bond).
    function _defaultBond() internal pure override returns (uint256) {
        return 0.5 ether;
    }

    function _committeeMarket() internal returns (uint256 id, uint64 deadline) {
        deadline = uint64(block.timestamp + 1 days);
        IResolutionMarket.MarketParams memory p;
        p.arbiter = IArbiter(address(committee));
        vm.prank(creator);
        id = market.createMarketWith{value: REWARD}("Will it rain in Lisbon tomorrow?", deadline, p);
    }

    function _report(uint256 id, uint256 chainId, address m, IResolutionMarket.Verdict v, uint256 n)
        internal
        pure
        returns (bytes memory)
    {
        return abi.encode(chainId, m, id, uint8(v), _reports(n, v == IResolutionMarket.Verdict.Yes), keccak256("b"), "ipfs://b");
    }

    function _deliver(bytes memory report) internal {
        forwarder.report(address(receiver), WF_ID, WF_NAME, WF_OWNER, report);
    }

    function _owed(address[] memory workers) internal view returns (uint256 owed) {
        owed = market.pendingWithdrawal(creator) + market.pendingWithdrawal(address(receiver))
            + market.pendingWithdrawal(disputer);
        for (uint256 i = 0; i < workers.length; ++i) {
            owed += market.pendingWithdrawal(workers[i]);
        }
    }

    function testUndisputedReportFinalizesAndTheBondComesBack() public {
        (uint256 id, uint64 deadline) = _createMarket();
        address[] memory workers = _joinWorkers(id, 3);
        vm.prank(yesBettor);
        betting.bet{value: 1 ether}(id, BettingMarket.Side.Yes);
        vm.prank(noBettor);
        betting.bet{value: 3 ether}(id, BettingMarket.Side.No);
        _request(id, deadline);
        uint256 bond = market.getMarketConfig(id).bond;

        _deliver(_report(id, block.chainid, address(market), IResolutionMarket.Verdict.Yes, 3));
        assertEq(address(receiver).balance, 1 ether - bond, "bond from the float");
        IResolutionMarket.Proposal memory p = market.getProposal(id);
        assertEq(p.proposer, address(receiver), "receiver proposed");
        assertEq(p.bundleHash, keccak256("b"), "bundle hash from the report");
        // Not final yet: bettors wait.
        assertEq(betting.claimable(id, yesBettor), 0, "nothing before finalization");

        vm.warp(p.disputeEndsAt);
        market.finalize(id);
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Resolved), "resolved");
        assertEq(market.pendingWithdrawal(address(receiver)), bond, "bond credited back");
        assertEq(receiver.pullMarketCredits(), bond, "pulled");
        assertEq(address(receiver).balance, 1 ether, "float whole again");
        assertEq(address(market).balance, _owed(workers), "market owes exactly its balance");

        vm.prank(yesBettor);
        assertEq(betting.claim(id), 4 ether, "YES takes the pool");
    }

    function testCapturedPanelReportIsOverturnedByTheCommittee() public {
        (uint256 id, uint64 deadline) = _committeeMarket();
        address[] memory workers = _joinWorkers(id, 3);
        vm.prank(yesBettor);
        betting.bet{value: 1 ether}(id, BettingMarket.Side.Yes);
        vm.prank(noBettor);
        betting.bet{value: 3 ether}(id, BettingMarket.Side.No);
        _request(id, deadline);
        uint256 bond = market.getMarketConfig(id).bond;

        // Every seat answers NO with 90 % confidence; the truth is YES.
        _deliver(_report(id, block.chainid, address(market), IResolutionMarket.Verdict.No, 3));
        uint256 disputeBond = _gov(market).disputeBond(id);
        vm.prank(disputer);
        market.dispute{value: disputeBond}(id, IResolutionMarket.Verdict.Yes);
        vm.prank(m1);
        committee.vote(address(market), id, IResolutionMarket.Verdict.Yes);
        vm.prank(m2);
        committee.vote(address(market), id, IResolutionMarket.Verdict.Yes);

        IResolutionMarket.MarketInfo memory info = market.getMarket(id);
        assertEq(uint256(info.status), uint256(IResolutionMarket.Status.Resolved), "resolved");
        assertTrue(info.outcome, "overturned to YES");
        assertEq(market.pendingWithdrawal(address(receiver)), 0, "the float's bond is lost");
        // The receiver's reports carry no agent signatures: attested seats are never slashed (docs/RECORDS.md §2).
        assertEq(market.pendingWithdrawal(disputer), bond + disputeBond, "both bonds, no slashed stakes");
        // Not slashed, the attested seats share the pool by their (low) correctness, as undisputed wrong seats do.
        assertEq(market.pendingWithdrawal(creator), 0, "the pool goes to the attested seats, not back to the creator");
        assertEq(address(market).balance, _owed(workers), "market owes exactly its balance");
        vm.prank(yesBettor);
        assertEq(betting.claim(id), 4 ether, "betting pays the true side");
    }

    function testReportForAnotherChainOrMarketRefusedOnRealStack() public {
        (uint256 id, uint64 deadline) = _createMarket();
        _joinWorkers(id, 2);
        _request(id, deadline);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.WrongChain.selector, 10, block.chainid));
        _deliver(_report(id, 10, address(market), IResolutionMarket.Verdict.Yes, 2));
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.WrongMarket.selector, address(betting), address(market)));
        _deliver(_report(id, block.chainid, address(betting), IResolutionMarket.Verdict.Yes, 2));
        assertEq(
            uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.ResolutionRequested), "untouched"
        );
        assertEq(address(receiver).balance, 1 ether, "float untouched");
    }

    function testReplayedReportRefusedAndBadSeatReportBubbles() public {
        (uint256 id, uint64 deadline) = _createMarket();
        _joinWorkers(id, 3);
        _request(id, deadline);
        // Wrong number of seats: the market's own check bubbles, nothing is spent.
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.ReportsLengthMismatch.selector, 3, 2));
        _deliver(_report(id, block.chainid, address(market), IResolutionMarket.Verdict.Yes, 2));
        assertEq(address(receiver).balance, 1 ether, "float untouched");
        bytes memory report = _report(id, block.chainid, address(market), IResolutionMarket.Verdict.Yes, 3);
        _deliver(report);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.WrongStatus.selector, id, IResolutionMarket.Status.Proposed));
        _deliver(report);
    }

    function testReceiverQueuedAfterTheFirstMarketWaitsForNewMarkets() public {
        (uint256 id, uint64 deadline) = _createMarket();
        _joinWorkers(id, 2);
        _request(id, deadline);
        bytes32[] memory ids = new bytes32[](1);
        ids[0] = WF_ID;
        CREReceiver late = new CREReceiver(
            IResolutionMarket(address(market)),
            address(forwarder),
            admin,
            ICREReceiver.WorkflowConfig({workflowIds: ids, workflowOwner: WF_OWNER, workflowName: WF_NAME, allowAnyWorkflow: false})
        );
        vm.deal(address(late), 1 ether);
        _gov(market).queueResolver(address(late));
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.NotResolver.selector, address(late), id));
        forwarder.report(address(late), WF_ID, WF_NAME, WF_OWNER, _report(id, block.chainid, address(market), IResolutionMarket.Verdict.Yes, 2));
    }

    /// @dev 100 seats through CRE: the delivery (forwarder -> receiver -> proposeResolution) and the later
    ///      finalization each stay below EIP-7825's 2^24 gas per transaction.
    function testHundredSeatReportFitsOneTransaction() public {
        uint64 deadline = uint64(block.timestamp + 1 days);
        IResolutionMarket.MarketParams memory p;
        p.maxWorkers = 100;
        vm.prank(creator);
        uint256 id = market.createMarketWith{value: REWARD}("Will it rain in Lisbon tomorrow?", deadline, p);
        address[] memory workers = _joinWorkers(id, 100);
        _request(id, deadline);
        bytes memory report = _report(id, block.chainid, address(market), IResolutionMarket.Verdict.Yes, 100);
        uint256 g = gasleft();
        _deliver(report);
        uint256 deliveryGas = g - gasleft();
        assertTrue(deliveryGas < 1 << 24, "delivery below 2^24 gas");
        vm.warp(market.getProposal(id).disputeEndsAt);
        g = gasleft();
        market.finalize(id);
        assertTrue(g - gasleft() < 1 << 24, "finalization below 2^24 gas");
        assertEq(address(market).balance, _owed(workers), "market owes exactly its balance");
    }
}
