// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TestBase} from "./utils/Vm.sol";
import {MockMarketV2} from "./mocks/MockMarketV2.sol";
import {CommitteeArbiter} from "../../contracts/arbiter/CommitteeArbiter.sol";
import {ICommitteeArbiter} from "../../contracts/arbiter/interfaces/ICommitteeArbiter.sol";
import {IArbiter} from "../../contracts/market/interfaces/IArbiter.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {IArbiterMarkets} from "../../contracts/arbiter/interfaces/IArbiterMarkets.sol";

/// @notice Re-enters `vote` from inside `resolveDispute` (a hostile market must not get a second ruling).
contract ReenteringMarket {
    CommitteeArbiter public arbiter;
    bool public reentryFailed;

    function setArbiter(CommitteeArbiter a) external {
        arbiter = a;
    }

    function open(uint256 marketId) external {
        arbiter.onDispute(marketId, IResolutionMarket.Verdict.Yes, IResolutionMarket.Verdict.No, address(1), address(2), bytes32(0), "");
    }

    function resolveDispute(uint256 marketId, IResolutionMarket.Verdict) external {
        try arbiter.vote(address(this), marketId, IResolutionMarket.Verdict.Invalid) {}
        catch {
            reentryFailed = true;
        }
    }
}

contract CommitteeArbiterTest is TestBase {
    MockMarketV2 internal market;
    CommitteeArbiter internal arbiter;
    address internal a1 = address(0xA1);
    address internal a2 = address(0xA2);
    address internal a3 = address(0xA3);
    address internal proposer = address(0xB0);
    address internal disputer = address(0xD0);
    bytes32 internal constant HASH = keccak256("bundle");

    event CaseOpened(
        address indexed market,
        uint256 indexed marketId,
        IResolutionMarket.Verdict proposed,
        IResolutionMarket.Verdict claimed,
        address proposer,
        address disputer,
        bytes32 bundleHash,
        string bundleURI
    );
    event Voted(address indexed market, uint256 indexed marketId, address indexed member, IResolutionMarket.Verdict verdict);
    event CaseDecided(address indexed market, uint256 indexed marketId, IResolutionMarket.Verdict verdict, uint256 votes);

    function setUp() public {
        market = new MockMarketV2();
        arbiter = new CommitteeArbiter(_three(), 2, _one(address(market)));
        market.setArbiter(IArbiter(address(arbiter)));
    }

    function _three() internal view returns (address[] memory m) {
        m = new address[](3);
        (m[0], m[1], m[2]) = (a1, a2, a3);
    }

    function _one(address a) internal pure returns (address[] memory m) {
        m = new address[](1);
        m[0] = a;
    }

    function _open(uint256 id) internal {
        market.openDispute(id, IResolutionMarket.Verdict.Yes, IResolutionMarket.Verdict.No, proposer, disputer, HASH, "ipfs://b");
    }

    function _vote(address member, uint256 id, IResolutionMarket.Verdict v) internal {
        vm.prank(member);
        arbiter.vote(address(market), id, v);
    }

    // ---------------------------------------------------------------- construction

    function testConstructor() public view {
        assertEq(arbiter.threshold(), 2, "threshold");
        address[] memory m = arbiter.getMembers();
        assertEq(m.length, 3, "members");
        assertEq(m[2], a3, "member 3");
        assertTrue(arbiter.isMember(a1) && arbiter.isMember(a2) && arbiter.isMember(a3), "isMember");
        assertTrue(!arbiter.isMember(proposer), "not member");
        assertTrue(arbiter.isMarket(address(market)), "isMarket");
        assertEq(arbiter.getMarkets()[0], address(market), "markets");
    }

    function testConstructorRejectsBadCommittees() public {
        address[] memory none = new address[](0);
        vm.expectRevert(ICommitteeArbiter.NoMembers.selector);
        new CommitteeArbiter(none, 1, _one(address(market)));

        address[] memory many = new address[](51);
        for (uint256 i = 0; i < 51; ++i) {
            many[i] = address(uint160(0x1000 + i));
        }
        vm.expectRevert(abi.encodeWithSelector(ICommitteeArbiter.TooManyMembers.selector, 51, 50));
        new CommitteeArbiter(many, 1, _one(address(market)));

        vm.expectRevert(abi.encodeWithSelector(ICommitteeArbiter.ThresholdOutOfRange.selector, 0, 3));
        new CommitteeArbiter(_three(), 0, _one(address(market)));
        vm.expectRevert(abi.encodeWithSelector(ICommitteeArbiter.ThresholdOutOfRange.selector, 4, 3));
        new CommitteeArbiter(_three(), 4, _one(address(market)));

        address[] memory dup = _three();
        dup[2] = a1;
        vm.expectRevert(abi.encodeWithSelector(ICommitteeArbiter.DuplicateMember.selector, a1));
        new CommitteeArbiter(dup, 2, _one(address(market)));

        address[] memory zero = _three();
        zero[1] = address(0);
        vm.expectRevert(IArbiterMarkets.ZeroAddress.selector);
        new CommitteeArbiter(zero, 2, _one(address(market)));
    }

    function testConstructorRejectsBadMarkets() public {
        vm.expectRevert(IArbiterMarkets.NoMarkets.selector);
        new CommitteeArbiter(_three(), 2, new address[](0));

        address[] memory many = new address[](21);
        for (uint256 i = 0; i < 21; ++i) {
            many[i] = address(uint160(0x2000 + i));
        }
        vm.expectRevert(abi.encodeWithSelector(IArbiterMarkets.TooManyMarkets.selector, 21, 20));
        new CommitteeArbiter(_three(), 2, many);

        vm.expectRevert(IArbiterMarkets.ZeroAddress.selector);
        new CommitteeArbiter(_three(), 2, _one(address(0)));

        address[] memory dup = new address[](2);
        (dup[0], dup[1]) = (address(market), address(market));
        vm.expectRevert(abi.encodeWithSelector(IArbiterMarkets.DuplicateMarket.selector, address(market)));
        new CommitteeArbiter(_three(), 2, dup);
    }

    // ---------------------------------------------------------------- onDispute

    function testOnDisputeOpensCase() public {
        vm.expectEmit(address(arbiter));
        emit CaseOpened(address(market), 7, IResolutionMarket.Verdict.Yes, IResolutionMarket.Verdict.No, proposer, disputer, HASH, "ipfs://b");
        _open(7);
        ICommitteeArbiter.Case memory c = arbiter.getCase(address(market), 7);
        assertTrue(c.status == ICommitteeArbiter.CaseStatus.Open, "open");
        assertTrue(c.proposed == IResolutionMarket.Verdict.Yes, "proposed");
        assertTrue(c.claimed == IResolutionMarket.Verdict.No, "claimed");
        assertEq(c.proposer, proposer, "proposer");
        assertEq(c.disputer, disputer, "disputer");
        assertEq(c.bundleHash, HASH, "hash");
        assertEq(uint256(c.openedAt), block.timestamp, "openedAt");
    }

    function testOnDisputeOnlyFromAMarket() public {
        vm.prank(a1);
        vm.expectRevert(abi.encodeWithSelector(IArbiterMarkets.NotAMarket.selector, a1));
        arbiter.onDispute(1, IResolutionMarket.Verdict.Yes, IResolutionMarket.Verdict.No, proposer, disputer, HASH, "");
        // Another market contract that was not named at deployment is refused too.
        MockMarketV2 other = new MockMarketV2();
        other.setArbiter(IArbiter(address(arbiter)));
        vm.expectRevert(abi.encodeWithSelector(IArbiterMarkets.NotAMarket.selector, address(other)));
        other.openDispute(1, IResolutionMarket.Verdict.Yes, IResolutionMarket.Verdict.No, proposer, disputer, HASH, "");
    }

    function testOnDisputeTwiceRefused() public {
        _open(7);
        vm.expectRevert(abi.encodeWithSelector(IArbiterMarkets.CaseAlreadyOpened.selector, address(market), 7));
        _open(7);
        // Decided cases cannot be reopened either.
        _vote(a1, 7, IResolutionMarket.Verdict.No);
        _vote(a2, 7, IResolutionMarket.Verdict.No);
        vm.expectRevert(abi.encodeWithSelector(IArbiterMarkets.CaseAlreadyOpened.selector, address(market), 7));
        _open(7);
    }

    // ---------------------------------------------------------------- voting

    function testThresholdReachedResolves() public {
        _open(3);
        vm.expectEmit(address(arbiter));
        emit Voted(address(market), 3, a1, IResolutionMarket.Verdict.No);
        _vote(a1, 3, IResolutionMarket.Verdict.No);
        assertEq(market.resolveCalls(), 0, "one vote is not enough");
        _vote(a3, 3, IResolutionMarket.Verdict.Yes);
        assertEq(market.resolveCalls(), 0, "split");
        vm.expectEmit(address(arbiter));
        emit CaseDecided(address(market), 3, IResolutionMarket.Verdict.No, 2);
        _vote(a2, 3, IResolutionMarket.Verdict.No);
        assertEq(market.resolveCalls(), 1, "resolved");
        assertEq(market.lastResolvedId(), 3, "id");
        assertTrue(market.lastRuling() == IResolutionMarket.Verdict.No, "ruling");
        ICommitteeArbiter.Case memory c = arbiter.getCase(address(market), 3);
        assertTrue(c.status == ICommitteeArbiter.CaseStatus.Decided, "decided");
        assertTrue(c.ruling == IResolutionMarket.Verdict.No, "stored ruling");
        assertEq(uint256(c.votes[0]), 2, "no votes");
        assertEq(uint256(c.votes[1]), 1, "yes votes");
        assertTrue(arbiter.hasVoted(address(market), 3, a3), "a3 voted");
    }

    function testAnyVerdictCanWin() public {
        _open(4);
        _vote(a1, 4, IResolutionMarket.Verdict.Invalid);
        _vote(a2, 4, IResolutionMarket.Verdict.Invalid);
        assertTrue(market.lastRuling() == IResolutionMarket.Verdict.Invalid, "invalid ruling");
    }

    function testOneOfOneExecutor() public {
        CommitteeArbiter solo = new CommitteeArbiter(_one(a1), 1, _one(address(market)));
        market.setArbiter(IArbiter(address(solo)));
        _open(9);
        vm.prank(a1);
        solo.vote(address(market), 9, IResolutionMarket.Verdict.Yes);
        assertEq(market.resolveCalls(), 1, "one vote decides");
        assertTrue(market.lastRuling() == IResolutionMarket.Verdict.Yes, "yes");
    }

    function testNonMemberCannotVote() public {
        _open(1);
        vm.prank(disputer);
        vm.expectRevert(abi.encodeWithSelector(ICommitteeArbiter.NotAMember.selector, disputer));
        arbiter.vote(address(market), 1, IResolutionMarket.Verdict.No);
    }

    function testVoteTwiceRefused() public {
        _open(1);
        _vote(a1, 1, IResolutionMarket.Verdict.No);
        vm.prank(a1);
        vm.expectRevert(abi.encodeWithSelector(ICommitteeArbiter.AlreadyVoted.selector, address(market), 1, a1));
        arbiter.vote(address(market), 1, IResolutionMarket.Verdict.Yes);
    }

    function testVoteOnUnknownCaseRefused() public {
        vm.prank(a1);
        vm.expectRevert(
            abi.encodeWithSelector(ICommitteeArbiter.CaseNotOpen.selector, address(market), 5, ICommitteeArbiter.CaseStatus.None)
        );
        arbiter.vote(address(market), 5, IResolutionMarket.Verdict.No);
    }

    function testVoteAfterDecisionRefused() public {
        _open(1);
        _vote(a1, 1, IResolutionMarket.Verdict.No);
        _vote(a2, 1, IResolutionMarket.Verdict.No);
        vm.prank(a3);
        vm.expectRevert(
            abi.encodeWithSelector(ICommitteeArbiter.CaseNotOpen.selector, address(market), 1, ICommitteeArbiter.CaseStatus.Decided)
        );
        arbiter.vote(address(market), 1, IResolutionMarket.Verdict.Yes);
        assertEq(market.resolveCalls(), 1, "ruled once");
    }

    function testMarketRefusalRevertsTheDecidingVote() public {
        _open(1);
        _vote(a1, 1, IResolutionMarket.Verdict.No);
        market.setRevertOnResolve(true);
        vm.prank(a2);
        vm.expectRevert(MockMarketV2.ForcedRevert.selector);
        arbiter.vote(address(market), 1, IResolutionMarket.Verdict.No);
        // Nothing was recorded: the case is still open and a2 can vote again once the market accepts.
        assertTrue(arbiter.getCase(address(market), 1).status == ICommitteeArbiter.CaseStatus.Open, "still open");
        assertTrue(!arbiter.hasVoted(address(market), 1, a2), "vote rolled back");
        market.setRevertOnResolve(false);
        _vote(a2, 1, IResolutionMarket.Verdict.No);
        assertEq(market.resolveCalls(), 1, "resolved");
    }

    function testCasesAreIndependentPerMarketAndId() public {
        MockMarketV2 m2 = new MockMarketV2();
        address[] memory markets = new address[](2);
        (markets[0], markets[1]) = (address(market), address(m2));
        CommitteeArbiter arb = new CommitteeArbiter(_three(), 2, markets);
        market.setArbiter(IArbiter(address(arb)));
        m2.setArbiter(IArbiter(address(arb)));
        _open(1);
        m2.openDispute(1, IResolutionMarket.Verdict.No, IResolutionMarket.Verdict.Yes, proposer, disputer, HASH, "");
        vm.prank(a1);
        arb.vote(address(m2), 1, IResolutionMarket.Verdict.Yes);
        vm.prank(a2);
        arb.vote(address(m2), 1, IResolutionMarket.Verdict.Yes);
        assertEq(m2.resolveCalls(), 1, "m2 ruled");
        assertEq(market.resolveCalls(), 0, "market untouched");
        assertTrue(arb.getCase(address(market), 1).status == ICommitteeArbiter.CaseStatus.Open, "other case open");
        assertTrue(!arb.hasVoted(address(market), 1, a1), "votes are per case");
    }

    function testReentrantVoteFromMarketFails() public {
        ReenteringMarket evil = new ReenteringMarket();
        address[] memory members = new address[](2);
        (members[0], members[1]) = (a1, address(evil));
        CommitteeArbiter arb = new CommitteeArbiter(members, 1, _one(address(evil)));
        evil.setArbiter(arb);
        evil.open(1);
        vm.prank(a1);
        arb.vote(address(evil), 1, IResolutionMarket.Verdict.No);
        assertTrue(evil.reentryFailed(), "re-entrant vote refused");
        ICommitteeArbiter.Case memory c = arb.getCase(address(evil), 1);
        assertTrue(c.ruling == IResolutionMarket.Verdict.No, "first ruling kept");
        assertEq(uint256(c.votes[2]), 0, "no invalid vote counted");
    }

    function testFuzzFirstVerdictToThresholdWins(uint8[6] memory raw) public {
        address[] memory members = new address[](6);
        for (uint256 i = 0; i < 6; ++i) {
            members[i] = address(uint160(0x3000 + i));
        }
        CommitteeArbiter arb = new CommitteeArbiter(members, 3, _one(address(market)));
        market.setArbiter(IArbiter(address(arb)));
        _open(1);
        uint256[3] memory tally;
        for (uint256 i = 0; i < 6; ++i) {
            IResolutionMarket.Verdict v = IResolutionMarket.Verdict(raw[i] % 3);
            bool decided = arb.getCase(address(market), 1).status == ICommitteeArbiter.CaseStatus.Decided;
            vm.prank(members[i]);
            if (decided) {
                vm.expectRevert();
                arb.vote(address(market), 1, v);
                continue;
            }
            arb.vote(address(market), 1, v);
            if (++tally[uint8(v)] == 3) {
                assertEq(market.resolveCalls(), 1, "ruled at threshold");
                assertTrue(market.lastRuling() == v, "the verdict that reached it");
            }
        }
        bool anyThree = tally[0] >= 3 || tally[1] >= 3 || tally[2] >= 3;
        assertEq(market.resolveCalls(), anyThree ? 1 : 0, "ruled iff some verdict reached 3");
    }
}
