// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IdentityRegistry} from "../../contracts/erc8004/IdentityRegistry.sol";
import {ReputationRegistry} from "../../contracts/erc8004/ReputationRegistry.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {IMarketReputation} from "../../contracts/market/interfaces/IMarketReputation.sol";
import {MarketFixture} from "./market/MarketFixture.sol";
import {_gov, _rep} from "./market/Split.sol";

/// @notice The attacks of issue 12 / 11, written as tests.
contract ResolutionMarketAttacksTest is MarketFixture {
    IResolutionMarket.Answer internal constant YES = IResolutionMarket.Answer.Yes;
    IResolutionMarket.Answer internal constant NO = IResolutionMarket.Answer.No;
    IResolutionMarket.Verdict internal constant V_YES = IResolutionMarket.Verdict.Yes;
    IResolutionMarket.Verdict internal constant V_NO = IResolutionMarket.Verdict.No;

    IResolutionMarket.MarketParams internal params;

    /// @notice (a) A flood of fresh agents cannot take the seats of a track-record market; on an open market the
    ///         same flood fills every seat first-come.
    function testSeatFloodByFreshAgentsRefusedUnderTrackRecord() public {
        // 5 established agents: 3 settled markets each, answering right with 0.9 (correctness 99).
        (address[] memory honest, uint256[] memory honestIds) = _joinFresh(_createMarket(), 5, 0);
        _request(market, 1);
        _settle(market, 1, V_YES, _uniform(5, YES));
        writer.countAdmission(1); // admission counts a market once someone counts it (RECORDS §5)
        for (uint256 k; k < 2; ++k) {
            uint256 m = _createMarket();
            _joinAgents(m, honest, honestIds);
            _request(market, m);
            _settle(market, m, V_NO, _uniform(5, NO));
            writer.countAdmission(m);
        }

        params.admission = IResolutionMarket.Admission.TrackRecord;
        params.minSettled = 3;
        params.minCorrectness = 80;
        params.maxWorkers = 10;
        uint256 id = _createWith(params);
        // 20 fresh agents try first: every one is refused.
        for (uint256 i; i < 20; ++i) {
            address sybil = _worker(1_000 + i);
            vm.deal(sybil, 1 ether);
            uint256 agentId = _registerAgent(sybil);
            vm.prank(sybil);
            vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.AgentNotAdmitted.selector, id, agentId));
            market.joinMarket{value: STAKE}(id, agentId);
        }
        _joinAgents(id, honest, honestIds);
        assertEq(market.getMarket(id).workerCount, 5, "the established agents hold the seats");

        // Contrast: an open market with 10 seats is filled by the flood, honest agents get MarketFull.
        params.admission = IResolutionMarket.Admission.Open;
        uint256 open = _createWith(params);
        _joinFresh(open, 10, 2_000);
        vm.prank(honest[0]);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.MarketFull.selector, open, 10));
        market.joinMarket{value: STAKE}(open, honestIds[0]);
    }

    /// @notice (b) An attacker holds every seat and writes the outcome it wants (YES, the truth is NO); the
    ///         proposal is disputed and overturned: each captured seat loses its stake to the disputer, the
    ///         proposer loses its bond, the pool goes back to the creator (no right answer to pay).
    function testCapturedPanelIsOverturnedAndLosesBondAndStakes() public {
        uint256 id = _createMarket();
        (address[] memory captured,) = _joinFresh(id, 4, 0);
        _request(market, id);
        _propose(market, id, V_YES, _uniform(4, YES)); // the captured panel's confident wrong answer
        uint256 disputerBefore = disputer.balance;
        _dispute(id, V_NO);
        arbiter.rule(market, id, V_NO);

        IResolutionMarket.MarketInfo memory info = market.getMarket(id);
        assertEq(uint256(info.status), uint256(IResolutionMarket.Status.Resolved), "resolved");
        assertTrue(!info.outcome, "the truth (NO) stands");
        for (uint256 i; i < 4; ++i) {
            assertEq(market.pendingWithdrawal(captured[i]), 0, "captured seat lost its stake, no reward");
            assertEq(uint256(market.getReputation(i).correctness), 19, "confidently wrong on the record");
        }
        assertEq(market.pendingWithdrawal(resolver), 0, "proposer lost its bond");
        assertEq(market.pendingWithdrawal(disputer), BOND + gov.disputeBond(id) + 4 * STAKE, "disputer: both bonds + 4 stakes");
        assertEq(market.pendingWithdrawal(creator), POOL, "nobody answered right: pool back");
        vm.prank(disputer);
        market.withdraw();
        assertEq(disputer.balance - disputerBefore, BOND + 4 * STAKE, "net gain: the proposer's bond + stakes");
        assertEq(address(market).balance, POOL, "only the creator's refund is left");
    }

    /// @notice (c) A resolver the owner adds today cannot settle a market that already exists, not even after
    ///         the timelock; it applies only to markets created 2 days after queueing.
    function testImmediatelyQueuedResolverCannotProposeOnAnExistingMarket() public {
        uint256 id = _createMarket();
        _joinFresh(id, 2, 0);
        _request(market, id);
        address rogue = address(0x0BAD0);
        vm.deal(rogue, 1 ether);
        vm.prank(owner);
        gov.queueResolver(rogue);
        vm.prank(rogue);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.NotResolver.selector, rogue, id));
        market.proposeResolution{value: BOND}(id, V_YES, _uniform(2, YES), HASH, URI);
        // Still refused at the last second of the grace period (afterwards anyone may propose, bonded: no owner stall).
        vm.warp(uint256(market.getMarket(id).requestedAt) + market.getMarketConfig(id).gracePeriod - 1);
        vm.prank(rogue);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.NotResolver.selector, rogue, id));
        market.proposeResolution{value: BOND}(id, V_YES, _uniform(2, YES), HASH, URI);
        // The legitimate resolver still can.
        _propose(market, id, V_YES, _uniform(2, YES));
    }

    /// @notice (d) part 1: an agent that approves the market as its operator is refused at join.
    function testOperatorApprovalRefusedAtJoin() public {
        uint256 id = _createMarket();
        address w = _worker(1);
        vm.deal(w, 1 ether);
        uint256 agentId = _registerAgent(w);
        vm.prank(w);
        IdentityRegistry(address(identity)).approve(address(writer), agentId);
        vm.prank(w);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.MarketIsAgentOperator.selector, agentId));
        market.joinMarket{value: STAKE}(id, agentId);
    }

    /// @notice (d) part 2: an agent that approves the market after joining (to keep its bad records off the
    ///         registry) is refused at finalization: no reward (stake back), its records stay pending, and
    ///         `retryFeedback` writes them once it revokes the approval.
    function testOperatorApprovalAfterJoinKeepsRecordsPendingUntilRetried() public {
        uint256 id = _createMarket();
        (address[] memory ws, uint256[] memory ids) = _joinFresh(id, 12, 0);
        _request(market, id);
        // Seat 0 (inline feedback) and seat 11 (publishFeedback) try to censor their wrong answers.
        IResolutionMarket.WorkerReport[] memory r = _uniform(12, YES);
        r[0] = _report(NO, 10_000, 90, 90, 90);
        r[11] = _report(NO, 10_000, 90, 90, 90);
        vm.prank(ws[0]);
        IdentityRegistry(address(identity)).setApprovalForAll(address(writer), true);
        vm.prank(ws[11]);
        IdentityRegistry(address(identity)).approve(address(writer), ids[11]);
        _propose(market, id, V_YES, r);
        _warpPastWindow(market, id);
        bytes memory reason = abi.encodeWithSelector(IResolutionMarket.MarketIsAgentOperator.selector, ids[0]);
        vm.expectEmit(address(writer));
        emit IMarketReputation.FeedbackFailed(id, ids[0], "correctness", reason);
        vm.expectEmit(address(writer));
        emit IMarketReputation.FeedbackFailed(id, ids[0], "quality", reason);
        market.finalize(id);
        writer.publishFeedback(id, 10);

        assertEq(market.pendingWithdrawal(ws[0]), STAKE, "refused seat: stake only");
        assertEq(market.pendingWithdrawal(ws[11]), STAKE, "refused seat: stake only");
        assertEq(market.pendingWithdrawal(ws[1]), STAKE + POOL / 10, "others share the pool");
        assertEq(uint256(reputation.getLastIndex(ids[0], address(writer))), 0, "nothing written");
        assertEq(uint256(reputation.getLastIndex(ids[11], address(writer))), 0, "nothing written");
        (bool c, bool q) = writer.pendingFeedback(id, 0);
        assertTrue(c && q, "both records pending");
        (c, q) = writer.pendingFeedback(id, 11);
        assertTrue(c && q, "both records pending (publish path)");
        assertEq(uint256(market.getReputation(ids[0]).settled), 1, "the contract's own record is kept");

        // While the approval stands, a retry writes nothing and keeps them pending.
        vm.expectEmit(address(writer));
        emit IMarketReputation.FeedbackRetried(id, 0, 0, 2);
        assertEq(writer.retryFeedback(id, 0), 0, "still refused");
        // It revokes (or gives up the agent): anyone writes the records.
        vm.prank(ws[0]);
        IdentityRegistry(address(identity)).setApprovalForAll(address(writer), false);
        vm.prank(ws[11]);
        IdentityRegistry(address(identity)).approve(address(0), ids[11]);
        vm.expectEmit(address(writer));
        emit IMarketReputation.FeedbackRetried(id, 0, 2, 0);
        vm.prank(stranger);
        assertEq(writer.retryFeedback(id, 0), 2, "written");
        assertEq(writer.retryFeedback(id, 11), 2, "written");
        (int128 v,, string memory tag1,,) = reputation.readFeedback(ids[0], address(writer), 1);
        assertEq(int256(v), 0, "confidently wrong: correctness 0 on the registry");
        assertEq(tag1, "correctness", "tag");
        assertEq(uint256(reputation.getLastIndex(ids[11], address(writer))), 2, "both records");
        (c, q) = writer.pendingFeedback(id, 0);
        assertTrue(!c && !q, "nothing pending");
        vm.expectRevert(abi.encodeWithSelector(IMarketReputation.NothingPending.selector, id, 0));
        writer.retryFeedback(id, 0);
    }

    /// @notice (e) A losing bettor cannot front-run a late proposal with cancelStale: after requestCancel a
    ///         resolver still has CANCEL_WINDOW to propose, and a proposal ends the cancellation.
    function testCancelStaleCannotFrontRunAProposal() public {
        uint256 id = _createMarket();
        _joinFresh(id, 2, 0);
        _request(market, id);
        vm.warp(block.timestamp + market.getMarketConfig(id).gracePeriod);
        vm.prank(stranger);
        market.requestCancel(id);
        // In the same block, the attacker cannot cancel.
        vm.prank(stranger);
        vm.expectRevert(
            abi.encodeWithSelector(IResolutionMarket.CancelWindowOpen.selector, id, block.timestamp + 1 days)
        );
        market.cancelStale(id);
        vm.warp(block.timestamp + 1 days - 1);
        _propose(market, id, V_YES, _uniform(2, YES));
        vm.warp(block.timestamp + 1);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.WrongStatus.selector, id, IResolutionMarket.Status.Proposed));
        market.cancelStale(id);
        _warpPastWindow(market, id);
        market.finalize(id);
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Resolved), "resolved");
    }
}
