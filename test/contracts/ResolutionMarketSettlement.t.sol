// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {IMarketReputation} from "../../contracts/market/interfaces/IMarketReputation.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {ResolutionMarket} from "../../contracts/market/ResolutionMarket.sol";
import {MarketFixture, VmExtra} from "./market/MarketFixture.sol";
import {TestArbiter} from "./market/TestArbiter.sol";

/// @notice Proposal, dispute, arbitration, expiry, finalization, cancellation, feedback retry, withdrawals.
contract ResolutionMarketSettlementTest is MarketFixture {
    IResolutionMarket.Answer internal constant YES = IResolutionMarket.Answer.Yes;
    IResolutionMarket.Answer internal constant NO = IResolutionMarket.Answer.No;
    IResolutionMarket.Answer internal constant NONE = IResolutionMarket.Answer.None;
    IResolutionMarket.Answer internal constant ABSTAINED = IResolutionMarket.Answer.Abstained;
    IResolutionMarket.Verdict internal constant V_YES = IResolutionMarket.Verdict.Yes;
    IResolutionMarket.Verdict internal constant V_NO = IResolutionMarket.Verdict.No;
    IResolutionMarket.Verdict internal constant V_INVALID = IResolutionMarket.Verdict.Invalid;

    uint256 internal id;
    address[] internal ws;
    uint256[] internal ids;

    function setUp() public override {
        super.setUp();
        id = _createMarket();
        (ws, ids) = _joinFresh(id, 4, 0);
        _request(market, id);
    }

    function _status() internal view returns (IResolutionMarket.Status) {
        return market.getMarket(id).status;
    }

    function _expectWrongStatus(IResolutionMarket.Status status) internal {
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.WrongStatus.selector, id, status));
    }

    /// @dev seat 0 YES 90 % (80/70/60), seat 1 NO 70 % (50/50/50), seat 2 failed, seat 3 abstained.
    function _mixed() internal pure returns (IResolutionMarket.WorkerReport[] memory r) {
        r = new IResolutionMarket.WorkerReport[](4);
        r[0] = IResolutionMarket.WorkerReport(YES, 9_000, 80, 70, 60, bytes32(0), "");
        r[1] = IResolutionMarket.WorkerReport(NO, 7_000, 50, 50, 50, bytes32(0), "");
        r[2] = IResolutionMarket.WorkerReport(NONE, 0, 0, 0, 0, bytes32(0), "");
        r[3] = IResolutionMarket.WorkerReport(ABSTAINED, 0, 0, 0, 0, bytes32(0), "");
    }

    function _sumCredits() internal view returns (uint256 sum) {
        sum = market.pendingWithdrawal(creator) + market.pendingWithdrawal(resolver) + market.pendingWithdrawal(disputer);
        for (uint256 i; i < ws.length; ++i) sum += market.pendingWithdrawal(ws[i]);
    }

    /// @dev Bonds paid in by the test so far (one proposal bond by default, two once disputed, 0 if none).
    uint256 internal bondsPosted = BOND;

    /// @dev A final market owes everything it received, to the wei, as credits.
    function _assertConserved() internal view {
        assertEq(_sumCredits(), POOL + 4 * STAKE + bondsPosted, "credits == pool + stakes + bonds");
        assertEq(address(market).balance, _sumCredits(), "balance == credits");
    }

    // ------------------------------------------------------------------ proposal

    function testProposeRecordsAndEmits() public {
        IResolutionMarket.WorkerReport[] memory r = _mixed();
        _signReports(market, id, r); // the event carries each report's signature
        uint64 endsAt = uint64(block.timestamp + 1 days);
        vm.expectEmit(address(market));
        emit IResolutionMarket.ResolutionProposed(id, resolver, V_YES, HASH, URI, endsAt, r);
        _propose(market, id, V_YES, r);
        assertEq(uint256(_status()), uint256(IResolutionMarket.Status.Proposed), "proposed");
        IResolutionMarket.Proposal memory p = market.getProposal(id);
        assertEq(p.proposer, resolver, "proposer");
        assertEq(uint256(p.verdict), uint256(V_YES), "verdict");
        assertEq(uint256(p.proposedAt), block.timestamp, "proposedAt");
        assertEq(uint256(p.disputeEndsAt), endsAt, "endsAt");
        assertEq(uint256(p.bond), BOND, "bond");
        assertEq(p.disputer, address(0), "no disputer");
        assertEq(p.bundleHash, HASH, "hash");
        assertEq(p.bundleURI, URI, "uri");
        assertEq(market.getMarket(id).bundleHash, HASH, "hash in MarketInfo");
        assertEq(address(market).balance, POOL + 4 * STAKE + BOND, "bond held");
        // Nothing is paid or written before finalization.
        assertEq(_sumCredits(), 0, "no credits yet");
        assertEq(uint256(market.getReputation(ids[0]).settled), 0, "no reputation yet");
        assertEq(uint256(reputation.getLastIndex(ids[0], address(writer))), 0, "no records yet");
    }

    function testProposeReverts() public {
        IResolutionMarket.WorkerReport[] memory r = _mixed();
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.NotResolver.selector, stranger, id));
        market.proposeResolution{value: BOND}(id, V_YES, r, HASH, URI);
        vm.startPrank(resolver);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.WrongBond.selector, BOND - 1, BOND));
        market.proposeResolution{value: BOND - 1}(id, V_YES, r, HASH, URI);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.WrongBond.selector, 0, BOND));
        market.proposeResolution(id, V_YES, r, HASH, URI);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.ReportsLengthMismatch.selector, 4, 3));
        market.proposeResolution{value: BOND}(id, V_YES, _uniform(3, YES), HASH, URI);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.BundleURITooLong.selector, 513));
        market.proposeResolution{value: BOND}(id, V_YES, r, HASH, string(new bytes(513)));
        vm.stopPrank();
        uint256 other = _createMarket();
        vm.prank(resolver);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.WrongStatus.selector, other, IResolutionMarket.Status.Open));
        market.proposeResolution{value: BOND}(other, V_YES, r, HASH, URI);
        vm.prank(resolver);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.MarketNotFound.selector, 77));
        market.proposeResolution{value: BOND}(77, V_YES, r, HASH, URI);
    }

    function _expectInvalidReport(IResolutionMarket.WorkerReport memory bad, uint256 seat) internal {
        IResolutionMarket.WorkerReport[] memory r = _mixed();
        r[seat] = bad;
        vm.prank(resolver);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.InvalidReport.selector, seat));
        market.proposeResolution{value: BOND}(id, V_YES, r, HASH, URI);
    }

    function testProposeRejectsInvalidReports() public {
        _expectInvalidReport(IResolutionMarket.WorkerReport(YES, 4_999, 1, 1, 1, bytes32(0), ""), 0);
        _expectInvalidReport(IResolutionMarket.WorkerReport(NO, 10_001, 1, 1, 1, bytes32(0), ""), 1);
        _expectInvalidReport(IResolutionMarket.WorkerReport(YES, 6_000, 101, 1, 1, bytes32(0), ""), 2);
        _expectInvalidReport(IResolutionMarket.WorkerReport(YES, 6_000, 1, 101, 1, bytes32(0), ""), 3);
        _expectInvalidReport(IResolutionMarket.WorkerReport(NO, 6_000, 1, 1, 101, bytes32(0), ""), 0);
        _expectInvalidReport(IResolutionMarket.WorkerReport(NONE, 1, 0, 0, 0, bytes32(0), ""), 1);
        _expectInvalidReport(IResolutionMarket.WorkerReport(NONE, 0, 0, 0, 1, bytes32(0), ""), 2);
        _expectInvalidReport(IResolutionMarket.WorkerReport(ABSTAINED, 0, 1, 0, 0, bytes32(0), ""), 3);
        _expectInvalidReport(IResolutionMarket.WorkerReport(ABSTAINED, 5_000, 0, 0, 0, bytes32(0), ""), 0);
        // Boundaries are accepted.
        IResolutionMarket.WorkerReport[] memory r = _mixed();
        r[0] = IResolutionMarket.WorkerReport(YES, 5_000, 100, 100, 100, bytes32(0), "");
        r[1] = IResolutionMarket.WorkerReport(NO, 10_000, 0, 0, 0, bytes32(0), "");
        _propose(market, id, V_YES, r);
    }

    function testYesNoVerdictNeedsAnAnswer() public {
        IResolutionMarket.WorkerReport[] memory r = _uniform(4, NONE);
        r[3] = IResolutionMarket.WorkerReport(ABSTAINED, 0, 0, 0, 0, bytes32(0), "");
        vm.prank(resolver);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.NoAnswerForVerdict.selector, id));
        market.proposeResolution{value: BOND}(id, V_NO, r, HASH, URI);
        // An Invalid verdict needs none.
        _propose(market, id, V_INVALID, r);
    }

    // ------------------------------------------------------------------ undisputed finalization

    /// @notice The numbers by hand. Outcome YES; resQuality is the seat's correctness (the reported 80 / 50 are ignored).
    ///         seat 0: YES 0.9 -> d = 1000, correctness 100 - (1e6 + 5e5)/1e6 = 99; w = 99 × (600+99+70+60) = 82_071
    ///         seat 1: NO 0.7 (wrong) -> d = 7000, correctness 100 - 49 = 51; w = 51 × (600+51+50+50) = 38_301
    ///         seat 2: failed -> correctness 0, weight 0; seat 3: abstained -> not scored, weight 0
    ///         W = 120_372; pool 1e18: seat 1 gets floor(1e18 × 38_301 / 120_372) = 318_188_615_292_592_961;
    ///         seat 0 gets floor(1e18 × 82_071 / 120_372) = 681_811_384_707_407_038 + the 1 wei remainder.
    function testFinalizePaysRewardsByTheFormula() public {
        _propose(market, id, V_YES, _mixed());
        vm.expectRevert(
            abi.encodeWithSelector(IResolutionMarket.DisputeWindowOpen.selector, id, uint64(block.timestamp + 1 days))
        );
        market.finalize(id);
        _warpPastWindow(market, id);
        IResolutionMarket.WorkerResult memory r0 = IResolutionMarket.WorkerResult({
            answer: YES,
            confidenceBps: 9_000,
            scored: true,
            correctness: 99,
            resQuality: 99,
            srcQuality: 70,
            analysisDepth: 60,
            reward: 681_811_384_707_407_039,
            stakeReturned: STAKE,
            stakeSlashed: 0
        });
        vm.expectEmit(address(market));
        emit IResolutionMarket.MarketFinalized(id, IResolutionMarket.Status.Resolved, true, false);
        vm.expectEmit(address(market));
        emit IResolutionMarket.WorkerSettled(id, ids[0], ws[0], r0);
        vm.prank(stranger); // anyone
        market.finalize(id);

        assertEq(uint256(_status()), uint256(IResolutionMarket.Status.Resolved), "resolved");
        assertTrue(market.getMarket(id).outcome, "YES");
        assertEq(market.pendingWithdrawal(ws[0]), STAKE + 681_811_384_707_407_039, "seat 0");
        assertEq(market.pendingWithdrawal(ws[1]), STAKE + 318_188_615_292_592_961, "seat 1");
        assertEq(market.pendingWithdrawal(ws[2]), STAKE, "failed seat: stake only");
        assertEq(market.pendingWithdrawal(ws[3]), STAKE, "abstained: stake only");
        assertEq(market.pendingWithdrawal(resolver), BOND, "bond back");
        assertEq(market.pendingWithdrawal(creator), 0, "pool fully paid");
        _assertConserved();

        // Reputation.
        IResolutionMarket.Reputation memory rep = market.getReputation(ids[0]);
        assertEq(uint256(rep.settled), 1, "settled");
        assertEq(uint256(rep.correctness), 99, "c0");
        assertEq(uint256(rep.resQuality), 99, "res0 = correctness");
        assertEq(uint256(rep.srcQuality), 70, "src0");
        assertEq(uint256(rep.analysisDepth), 60, "depth0");
        assertEq(uint256(market.getReputation(ids[1]).correctness), 51, "c1");
        rep = market.getReputation(ids[2]);
        assertEq(uint256(rep.settled), 1, "failure counts as settled");
        assertEq(uint256(rep.correctness), 0, "failure scores 0");
        assertEq(uint256(rep.resQuality), 0, "no quality for a failure");
        assertEq(uint256(market.getReputation(ids[3]).settled), 0, "abstention not counted");

        // ERC-8004 records: 2 per answer, 1 per failure, none for an abstention.
        assertEq(uint256(reputation.getLastIndex(ids[0], address(writer))), 2, "two records");
        (int128 v, uint8 dec, string memory tag1, string memory tag2,) = reputation.readFeedback(ids[0], address(writer), 1);
        assertEq(int256(v), 99, "correctness value");
        assertEq(uint256(dec), 0, "decimals");
        assertEq(tag1, "correctness", "tag1");
        assertEq(tag2, "cresolver", "tag2");
        (v,, tag1,,) = reputation.readFeedback(ids[0], address(writer), 2);
        assertEq(int256(v), 76, "quality = floor((99+70+60)/3): resQuality = correctness");
        assertEq(tag1, "quality", "tag1 quality");
        (v,,,,) = reputation.readFeedback(ids[1], address(writer), 2);
        assertEq(int256(v), 50, "quality seat 1");
        assertEq(uint256(reputation.getLastIndex(ids[2], address(writer))), 1, "one record for a failure");
        (v,, tag1,,) = reputation.readFeedback(ids[2], address(writer), 1);
        assertEq(int256(v), 0, "failure correctness 0");
        assertEq(tag1, "correctness", "failure tag");
        assertEq(uint256(reputation.getLastIndex(ids[3], address(writer))), 0, "no record for an abstention");
        (uint256 cursor, uint256 pending) = writer.feedbackStatus(id);
        assertEq(cursor, 4, "cursor");
        assertEq(pending, 0, "nothing pending");

        _expectWrongStatus(IResolutionMarket.Status.Resolved);
        market.finalize(id);
    }

    function testAllZeroWeightsReturnThePoolToTheCreator() public {
        IResolutionMarket.WorkerReport[] memory r = _uniform(4, NONE);
        r[0] = IResolutionMarket.WorkerReport(NO, 10_000, 90, 90, 90, bytes32(0), ""); // certain and wrong: correctness 0
        _settle(market, id, V_YES, r);
        assertEq(market.pendingWithdrawal(creator), POOL, "pool back");
        for (uint256 i; i < 4; ++i) assertEq(market.pendingWithdrawal(ws[i]), STAKE, "stakes back");
        _assertConserved();
    }

    function testInvalidProposalFinalizesWithRefunds() public {
        IResolutionMarket.WorkerReport[] memory r = _mixed();
        _propose(market, id, V_INVALID, r);
        _warpPastWindow(market, id);
        IResolutionMarket.WorkerResult memory r1;
        r1.answer = NO;
        r1.confidenceBps = 7_000;
        r1.resQuality = 50;
        r1.srcQuality = 50;
        r1.analysisDepth = 50;
        r1.stakeReturned = STAKE;
        vm.expectEmit(address(market));
        emit IResolutionMarket.MarketFinalized(id, IResolutionMarket.Status.Invalid, false, false);
        vm.expectEmit(address(market));
        emit IResolutionMarket.CreatorRefunded(id, creator, POOL);
        vm.expectEmit(address(market));
        emit IResolutionMarket.WorkerSettled(id, ids[0], ws[0], _unscored(r[0]));
        vm.expectEmit(address(market));
        emit IResolutionMarket.WorkerSettled(id, ids[1], ws[1], r1);
        market.finalize(id);
        assertEq(uint256(_status()), uint256(IResolutionMarket.Status.Invalid), "invalid");
        assertEq(market.pendingWithdrawal(creator), POOL, "pool back");
        for (uint256 i; i < 4; ++i) assertEq(market.pendingWithdrawal(ws[i]), STAKE, "stakes back");
        assertEq(market.pendingWithdrawal(resolver), BOND, "bond back");
        assertEq(uint256(market.getReputation(ids[0]).settled), 0, "no reputation");
        assertEq(uint256(reputation.getLastIndex(ids[0], address(writer))), 0, "no records");
        _assertConserved();
        assertEq(writer.publishFeedback(id, 10), 0, "an Invalid market has no records to publish");
        (uint256 cursor, uint256 pending) = writer.feedbackStatus(id);
        assertEq(cursor + pending, 0, "no feedback progress");
    }

    function _unscored(IResolutionMarket.WorkerReport memory rep) internal pure returns (IResolutionMarket.WorkerResult memory r) {
        r.answer = rep.answer;
        r.confidenceBps = rep.confidenceBps;
        r.resQuality = rep.resQuality;
        r.srcQuality = rep.srcQuality;
        r.analysisDepth = rep.analysisDepth;
        r.stakeReturned = STAKE;
    }

    /// @notice The public track record: one ResolutionProposed with every report, one WorkerSettled per seat.
    function testLogsCarryTheTrackRecord() public {
        vmx.recordLogs();
        _settle(market, id, V_YES, _mixed());
        VmExtra.Log[] memory logs = vmx.getRecordedLogs();
        bytes32 proposedTopic = keccak256(
            "ResolutionProposed(uint256,address,uint8,bytes32,string,uint64,(uint8,uint16,uint8,uint8,uint8,bytes32,bytes)[])"
        );
        bytes32 settledTopic = keccak256(
            "WorkerSettled(uint256,uint256,address,(uint8,uint16,bool,uint8,uint8,uint8,uint8,uint256,uint256,uint256))"
        );
        uint256 proposed;
        uint256 settled;
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter != address(market)) continue;
            if (logs[i].topics[0] == proposedTopic) {
                ++proposed;
                (,,,, IResolutionMarket.WorkerReport[] memory r) =
                    abi.decode(logs[i].data, (IResolutionMarket.Verdict, bytes32, string, uint64, IResolutionMarket.WorkerReport[]));
                assertEq(r.length, 4, "every seat's report in the log");
                assertEq(uint256(r[1].confidenceBps), 7_000, "confidence in the log");
            }
            if (logs[i].topics[0] == settledTopic) {
                IResolutionMarket.WorkerResult memory res = abi.decode(logs[i].data, (IResolutionMarket.WorkerResult));
                if (settled == 1) assertEq(uint256(res.correctness), 51, "correctness in the log");
                ++settled;
            }
        }
        assertEq(proposed, 1, "one proposal event");
        assertEq(settled, 4, "one WorkerSettled per seat");
    }

    // ------------------------------------------------------------------ disputes

    /// @dev seats 0-1 answer YES, seats 2-3 answer NO (all 0.9, scores 80/70/60).
    function _split() internal pure returns (IResolutionMarket.WorkerReport[] memory r) {
        r = new IResolutionMarket.WorkerReport[](4);
        r[0] = IResolutionMarket.WorkerReport(YES, 9_000, 80, 70, 60, bytes32(0), "");
        r[1] = IResolutionMarket.WorkerReport(YES, 9_000, 80, 70, 60, bytes32(0), "");
        r[2] = IResolutionMarket.WorkerReport(NO, 9_000, 80, 70, 60, bytes32(0), "");
        r[3] = IResolutionMarket.WorkerReport(NO, 9_000, 80, 70, 60, bytes32(0), "");
    }

    /// @dev The proposer's bond plus the disputer's (which also covers 10 % of the pool and stakes).
    function _bonds() internal view returns (uint256) {
        return BOND + gov.disputeBond(id);
    }

    function testDisputeCallsTheArbiter() public {
        _propose(market, id, V_YES, _split());
        vm.expectEmit(address(market));
        emit IResolutionMarket.ProposalDisputed(id, disputer, V_NO, arbiter);
        _dispute(id, V_NO);
        bondsPosted = _bonds();
        assertEq(uint256(_status()), uint256(IResolutionMarket.Status.Disputed), "disputed");
        (IResolutionMarket.Verdict proposed, IResolutionMarket.Verdict claimed, address proposer, address who, bytes32 h, string memory u) =
            arbiter.cases(address(market), id);
        assertEq(uint256(proposed), uint256(V_YES), "proposed");
        assertEq(uint256(claimed), uint256(V_NO), "claimed");
        assertEq(proposer, resolver, "proposer");
        assertEq(who, disputer, "disputer");
        assertEq(h, HASH, "hash");
        assertEq(u, URI, "uri");
        IResolutionMarket.Proposal memory p = market.getProposal(id);
        assertEq(p.disputer, disputer, "disputer stored");
        assertEq(uint256(p.claimed), uint256(V_NO), "claim stored");
        assertEq(uint256(p.disputedAt), block.timestamp, "disputedAt");
        assertEq(address(market).balance, POOL + 4 * STAKE + _bonds(), "both bonds held");
        // Finalize is no longer possible, even after the window.
        _warpPastWindow(market, id);
        _expectWrongStatus(IResolutionMarket.Status.Disputed);
        market.finalize(id);
    }

    function testDisputeReverts() public {
        vm.prank(disputer);
        _expectWrongStatus(IResolutionMarket.Status.ResolutionRequested);
        market.dispute{value: BOND}(id, V_NO);
        _propose(market, id, V_YES, _split());
        uint256 db = gov.disputeBond(id);
        vm.startPrank(disputer);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.WrongBond.selector, BOND, db));
        market.dispute{value: BOND}(id, V_NO);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.WrongBond.selector, db + 1, db));
        market.dispute{value: db + 1}(id, V_NO);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.ClaimEqualsProposal.selector, id));
        market.dispute{value: db}(id, V_YES);
        vm.stopPrank();
        // An arbiter that cannot take the case makes the dispute revert: the market stays Proposed.
        arbiter.setRefuse(true);
        vm.prank(disputer);
        vm.expectRevert(TestArbiter.Refused.selector);
        market.dispute{value: db}(id, V_NO);
        arbiter.setRefuse(false);
        // An arbiter cannot rule from inside onDispute (re-entrancy guard): the dispute reverts.
        arbiter.setReenter(true);
        vm.prank(disputer);
        vm.expectRevert(ReentrancyGuardTransient.ReentrancyGuardReentrantCall.selector);
        market.dispute{value: db}(id, V_NO);
        arbiter.setReenter(false);
        assertEq(uint256(_status()), uint256(IResolutionMarket.Status.Proposed), "still proposed");
        uint64 endsAt = market.getProposal(id).disputeEndsAt;
        vm.warp(endsAt);
        vm.prank(disputer);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.DisputeWindowOver.selector, id, endsAt));
        market.dispute{value: db}(id, V_NO);
    }

    function testResolveDisputeReverts() public {
        _propose(market, id, V_YES, _split());
        _expectWrongStatus(IResolutionMarket.Status.Proposed);
        arbiter.rule(market, id, V_NO);
        _dispute(id, V_NO);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.NotArbiter.selector, stranger, id));
        market.resolveDispute(id, V_NO);
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.NotArbiter.selector, owner, id));
        market.resolveDispute(id, V_NO);
    }

    /// @notice Proposal upheld: the proposer wins both bonds; seats that answered NO lose their stakes to it.
    function testDisputeUpheldSlashesToTheProposer() public {
        _propose(market, id, V_YES, _split());
        _dispute(id, V_NO);
        bondsPosted = _bonds();
        vm.expectEmit(address(market));
        emit IResolutionMarket.DisputeResolved(id, V_YES, resolver, _bonds());
        vm.expectEmit(address(market));
        emit IResolutionMarket.MarketFinalized(id, IResolutionMarket.Status.Resolved, true, true);
        arbiter.rule(market, id, V_YES);
        assertEq(market.pendingWithdrawal(resolver), _bonds() + 2 * STAKE, "both bonds + two slashed stakes");
        assertEq(market.pendingWithdrawal(disputer), 0, "disputer lost its bond");
        assertEq(market.pendingWithdrawal(ws[0]), STAKE + POOL / 2, "right seat: stake + half");
        assertEq(market.pendingWithdrawal(ws[1]), STAKE + POOL / 2, "right seat");
        assertEq(market.pendingWithdrawal(ws[2]), 0, "slashed, no reward");
        assertEq(market.pendingWithdrawal(ws[3]), 0, "slashed");
        assertEq(uint256(market.getReputation(ids[2]).correctness), 19, "wrong answer scored");
        _assertConserved();
    }

    /// @notice Proposal overturned: the disputer wins both bonds and the stakes of the seats that answered YES;
    ///         the NO seats are re-weighted on-chain against the arbiter's outcome and share the pool.
    function testDisputeOverturnedSlashesToTheDisputer() public {
        _propose(market, id, V_YES, _split());
        _dispute(id, V_NO);
        bondsPosted = _bonds();
        vm.expectEmit(address(market));
        emit IResolutionMarket.StakeSlashed(id, ids[0], disputer, STAKE);
        arbiter.rule(market, id, V_NO);
        assertTrue(!market.getMarket(id).outcome, "NO");
        assertEq(market.pendingWithdrawal(disputer), _bonds() + 2 * STAKE, "bonds + slashed stakes");
        assertEq(market.pendingWithdrawal(resolver), 0, "proposer lost its bond");
        assertEq(market.pendingWithdrawal(ws[0]), 0, "slashed");
        assertEq(market.pendingWithdrawal(ws[2]), STAKE + POOL / 2, "re-weighted: right seat paid");
        assertEq(uint256(market.getReputation(ids[2]).correctness), 99, "scored against the arbiter outcome");
        _assertConserved();
    }

    /// @notice An arbiter verdict of Invalid: no slashing, refunds, the disputer wins the bonds.
    function testDisputeRuledInvalid() public {
        _propose(market, id, V_YES, _split());
        _dispute(id, V_INVALID);
        bondsPosted = _bonds();
        arbiter.rule(market, id, V_INVALID);
        assertEq(uint256(_status()), uint256(IResolutionMarket.Status.Invalid), "invalid");
        assertEq(market.pendingWithdrawal(disputer), _bonds(), "disputer wins");
        assertEq(market.pendingWithdrawal(creator), POOL, "pool back");
        for (uint256 i; i < 4; ++i) assertEq(market.pendingWithdrawal(ws[i]), STAKE, "no slashing");
        _assertConserved();
    }

    /// @notice The arbiter may pick a side neither party claimed: the proposer still loses (verdict != proposal).
    function testArbiterOutcomeOtherThanTheClaim() public {
        _propose(market, id, V_INVALID, _split());
        _dispute(id, V_YES);
        bondsPosted = _bonds();
        arbiter.rule(market, id, V_NO);
        assertEq(uint256(_status()), uint256(IResolutionMarket.Status.Resolved), "resolved NO");
        assertEq(market.pendingWithdrawal(disputer), _bonds() + 2 * STAKE, "disputer wins");
        _assertConserved();
    }

    function testExpireDispute() public {
        _propose(market, id, V_YES, _split());
        vm.prank(stranger);
        _expectWrongStatus(IResolutionMarket.Status.Proposed);
        market.expireDispute(id);
        _dispute(id, V_NO);
        bondsPosted = _bonds();
        uint256 expiresAt = block.timestamp + market.ARBITRATION_TIMEOUT();
        vm.warp(expiresAt - 1);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.ArbitrationNotExpired.selector, id, expiresAt));
        market.expireDispute(id);
        vm.warp(expiresAt);
        vm.expectEmit(address(market));
        emit IResolutionMarket.DisputeExpired(id);
        vm.expectEmit(address(market));
        emit IResolutionMarket.MarketFinalized(id, IResolutionMarket.Status.Invalid, false, false);
        vm.prank(stranger);
        market.expireDispute(id);
        assertEq(market.pendingWithdrawal(resolver), BOND, "proposer bond back");
        assertEq(market.pendingWithdrawal(disputer), gov.disputeBond(id), "disputer bond back");
        assertEq(market.pendingWithdrawal(creator), POOL, "pool back");
        for (uint256 i; i < 4; ++i) assertEq(market.pendingWithdrawal(ws[i]), STAKE, "stakes back");
        _assertConserved();
        // A late ruling finds the market final.
        _expectWrongStatus(IResolutionMarket.Status.Invalid);
        arbiter.rule(market, id, V_YES);
    }

    // ------------------------------------------------------------------ cancellation

    function testTwoStepCancel() public {
        uint256 graceEnd = market.getMarket(id).requestedAt + market.getMarketConfig(id).gracePeriod;
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.GracePeriodNotOver.selector, id, graceEnd));
        market.requestCancel(id);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.CancelNotRequested.selector, id));
        market.cancelStale(id);
        vm.warp(graceEnd);
        vm.expectEmit(address(market));
        emit IResolutionMarket.CancelRequested(id, stranger, uint64(graceEnd + 1 days));
        vm.prank(stranger);
        market.requestCancel(id);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.CancelAlreadyRequested.selector, id));
        market.requestCancel(id);
        vm.warp(graceEnd + 1 days - 1);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.CancelWindowOpen.selector, id, graceEnd + 1 days));
        market.cancelStale(id);
        vm.warp(graceEnd + 1 days);
        vm.expectEmit(address(market));
        emit IResolutionMarket.MarketCancelled(id, stranger);
        vm.expectEmit(address(market));
        emit IResolutionMarket.CreatorRefunded(id, creator, POOL);
        vm.expectEmit(address(market));
        emit IResolutionMarket.StakeRefunded(id, ids[0], ws[0], STAKE);
        vm.prank(stranger);
        market.cancelStale(id);
        assertEq(uint256(_status()), uint256(IResolutionMarket.Status.Cancelled), "cancelled");
        for (uint256 i; i < 4; ++i) assertEq(market.pendingWithdrawal(ws[i]), STAKE, "stakes back");
        assertEq(market.pendingWithdrawal(creator), POOL, "pool back");
        bondsPosted = 0;
        _assertConserved();
        _expectWrongStatus(IResolutionMarket.Status.Cancelled);
        market.cancelStale(id);
        _expectWrongStatus(IResolutionMarket.Status.Cancelled);
        market.requestCancel(id);
        vm.prank(resolver);
        _expectWrongStatus(IResolutionMarket.Status.Cancelled);
        market.proposeResolution{value: BOND}(id, V_YES, _mixed(), HASH, URI);
    }

    function testRequestCancelOnlyWhileRequested() public {
        uint256 open = _createMarket();
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.WrongStatus.selector, open, IResolutionMarket.Status.Open));
        market.requestCancel(open);
        _propose(market, id, V_YES, _mixed());
        _expectWrongStatus(IResolutionMarket.Status.Proposed);
        market.requestCancel(id);
    }

    // ------------------------------------------------------------------ feedback and withdrawals

    function testPublishAndRetryFeedbackReverts() public {
        assertEq(writer.publishFeedback(id, 1), 0, "nothing to publish before finalization");
        vm.expectRevert(abi.encodeWithSelector(IMarketReputation.NothingPending.selector, id, 0));
        writer.retryFeedback(id, 0);
        _expectWrongStatus(IResolutionMarket.Status.ResolutionRequested);
        market.seatWords(id, 0, 1);
        _settle(market, id, V_YES, _mixed());
        assertEq(writer.publishFeedback(id, 10), 0, "nothing left to publish");
        assertEq(writer.publishFeedback(id, 0), 0, "max 0");
        vm.expectRevert(abi.encodeWithSelector(IMarketReputation.NothingPending.selector, id, 4));
        writer.retryFeedback(id, 4);
        vm.expectRevert(abi.encodeWithSelector(IMarketReputation.NothingPending.selector, id, type(uint256).max));
        writer.retryFeedback(id, type(uint256).max);
        vm.expectRevert(abi.encodeWithSelector(IMarketReputation.NothingPending.selector, id, 0));
        writer.retryFeedback(id, 0);
    }

    function testRetryBeforeTheCursorHasNothingPending() public {
        uint256 big = _createMarket();
        _joinFresh(big, 12, 100);
        _request(market, big);
        _settle(market, big, V_YES, _uniform(12, YES));
        (uint256 cursor, uint256 pending) = writer.feedbackStatus(big);
        assertEq(cursor, 10, "inline");
        assertEq(pending, 2, "two waiting");
        vm.expectRevert(abi.encodeWithSelector(IMarketReputation.NothingPending.selector, big, 11));
        writer.retryFeedback(big, 11);
        vm.expectEmit(address(writer));
        emit IMarketReputation.FeedbackProgress(big, 12, 12);
        assertEq(writer.publishFeedback(big, 5), 2, "published the rest");
    }

    function testWithdraw() public {
        vm.prank(stranger);
        vm.expectRevert(IResolutionMarket.NothingToWithdraw.selector);
        market.withdraw();
        _settle(market, id, V_YES, _mixed());
        uint256 owed = market.pendingWithdrawal(ws[0]);
        uint256 before = ws[0].balance;
        vm.expectEmit(address(market));
        emit IResolutionMarket.Withdrawal(ws[0], owed);
        vm.prank(ws[0]);
        market.withdraw();
        assertEq(ws[0].balance - before, owed, "paid");
        vm.prank(ws[0]);
        vm.expectRevert(IResolutionMarket.NothingToWithdraw.selector);
        market.withdraw();
    }
}
