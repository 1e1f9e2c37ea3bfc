// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IdentityRegistry} from "../../contracts/erc8004/IdentityRegistry.sol";
import {IIdentityRegistry} from "../../contracts/erc8004/interfaces/IIdentityRegistry.sol";
import {IReputationRegistry} from "../../contracts/erc8004/interfaces/IReputationRegistry.sol";
import {IArbiter} from "../../contracts/market/interfaces/IArbiter.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {BettingMarket} from "../../contracts/market/BettingMarket.sol";
import {IMarketGovernance} from "../../contracts/market/interfaces/IMarketGovernance.sol";
import {ResolutionMarket} from "../../contracts/market/ResolutionMarket.sol";
import {MarketFixture} from "./market/MarketFixture.sol";
import {TestArbiter} from "./market/TestArbiter.sol";
import {_gov, _rep} from "./market/Split.sol";
import {IMarketBoundErrors} from "../../contracts/market/interfaces/IMarketBoundErrors.sol";

/// @notice Creation, joining, admission, the bounded owner, views and the deployed size.
contract ResolutionMarketTest is MarketFixture {
    IResolutionMarket.MarketParams internal params;

    function _expectWrongStatus(uint256 id, IResolutionMarket.Status status) internal {
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.WrongStatus.selector, id, status));
    }

    // ------------------------------------------------------------------ deployment and size

    /// @notice docs/RECORDS.md §1: every contract of the layout keeps at least 2 KB of room under EIP-170.
    function testEveryDeployedContractHasTwoKilobytesOfRoom() public {
        uint256 limit = 24_576 - 2_048;
        // ResolutionMarket itself is built for deployment with optimizer runs 1 (hardhat.config.ts override), which
        // this test's compilation (runs 200 for every test root) does not reproduce: its artifact's size and initcode
        // are asserted by test/ts/contracts/contract-sizes.test.ts.
        assertTrue(address(gov).code.length <= limit, "MarketGovernance <= 22,528 bytes");
        assertTrue(address(writer).code.length <= limit, "MarketReputation <= 22,528 bytes");
        BettingMarket betting = new BettingMarket(market);
        assertTrue(address(betting).code.length <= limit, "BettingMarket <= 22,528 bytes");
        assertEq(gov.market(), address(market), "governance bound to its market");
        assertEq(writer.market(), address(market), "writer bound to its market");
        address verifier = address(market.answerVerifier());
        assertTrue(verifier.code.length <= limit, "AnswerVerifier <= 22,528 bytes");
        assertEq(market.answerVerifier().market(), address(market), "verifier bound to its market");
    }

    function testConstructorRejectsNonContracts() public {
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.NotAContract.selector, address(0x1234)));
        new ResolutionMarket(IIdentityRegistry(address(0x1234)), reputation, owner);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.NotAContract.selector, address(0x1234)));
        new ResolutionMarket(identity, IReputationRegistry(address(0x1234)), owner);
    }

    function testDefaultsAtDeployment() public {
        ResolutionMarket m = new ResolutionMarket(identity, reputation, owner);
        IResolutionMarket.MarketConfig memory d = _gov(m).getDefaults();
        assertEq(uint256(d.minStake), 0.001 ether, "minStake");
        assertEq(uint256(d.maxWorkers), 10, "maxWorkers");
        assertEq(uint256(d.gracePeriod), 3 days, "grace");
        assertEq(uint256(d.disputeWindow), 1 days, "window");
        assertEq(uint256(d.bond), 0.01 ether, "bond");
        assertEq(address(d.arbiter), address(0), "no arbiter yet");
        // Without an arbiter no market can be created (a market must always be disputable).
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(IMarketBoundErrors.ArbiterNotAContract.selector, address(0)));
        m.createMarket{value: POOL}(QUESTION, uint64(block.timestamp + 1 days));
    }

    // ------------------------------------------------------------------ creation

    function testCreateMarketSnapshotsDefaultsAndEmits() public {
        vm.expectEmit(address(market));
        emit IResolutionMarket.MarketCreated(1, creator, QUESTION, uint64(block.timestamp + 1 days), POOL);
        uint256 id = _createMarket();
        IResolutionMarket.MarketInfo memory info = market.getMarket(id);
        assertEq(info.creator, creator, "creator");
        assertEq(uint256(info.status), uint256(IResolutionMarket.Status.Open), "open");
        assertEq(info.rewardPool, POOL, "pool");
        assertEq(info.question, QUESTION, "question");
        IResolutionMarket.MarketConfig memory c = market.getMarketConfig(id);
        assertEq(uint256(c.createdAt), block.timestamp, "createdAt");
        assertEq(uint256(c.admission), uint256(IResolutionMarket.Admission.Open), "open admission");
        assertEq(uint256(c.maxWorkers), 100, "maxWorkers");
        assertEq(uint256(c.bond), BOND, "bond");
        assertEq(address(c.arbiter), address(arbiter), "arbiter");
        // Later default changes do not touch it.
        vm.prank(owner);
        gov.setDefaults(0.002 ether, 5, 1 days, 2 hours, 0.05 ether);
        c = market.getMarketConfig(id);
        assertEq(uint256(c.maxWorkers), 100, "snapshot kept");
        assertEq(uint256(c.bond), BOND, "bond kept");
        // Queued, not applied: the bootstrap closed with the first market, so defaults wait RESOLVER_DELAY.
        assertEq(uint256(market.getMarketConfig(_createMarket()).bond), BOND, "old defaults inside the delay");
        vm.warp(block.timestamp + 2 days);
        IResolutionMarket.MarketConfig memory c2 = market.getMarketConfig(_createMarket());
        assertEq(uint256(c2.bond), 0.05 ether, "new default applies to new markets");
        assertEq(uint256(c2.gracePeriod), 1 days, "grace");
    }

    function testCreateMarketWithParams() public {
        TestArbiter other = new TestArbiter();
        vm.prank(owner);
        gov.queueArbiter(address(other)); // bootstrap: allowed at once
        params.admission = IResolutionMarket.Admission.AllowList;
        params.minStake = 0.5 ether;
        params.maxWorkers = 3;
        params.disputeWindow = 10 minutes;
        params.bond = 0.2 ether;
        params.arbiter = other;
        params.allowedAgents = new uint256[](2);
        params.allowedAgents[0] = 7;
        params.allowedAgents[1] = 9;
        IResolutionMarket.MarketConfig memory expected = IResolutionMarket.MarketConfig({
            createdAt: uint64(block.timestamp),
            admission: IResolutionMarket.Admission.AllowList,
            minCorrectness: 0,
            minSettled: 0,
            minStake: 0.5 ether,
            maxWorkers: 3,
            gracePeriod: 3 days,
            disputeWindow: 10 minutes,
            bond: 0.2 ether,
            arbiter: other
        });
        vm.expectEmit(address(market));
        emit IResolutionMarket.MarketConfigured(1, expected, params.allowedAgents);
        uint256 id = _createWith(params);
        IResolutionMarket.MarketConfig memory c = market.getMarketConfig(id);
        assertEq(address(c.arbiter), address(other), "explicit arbiter");
        assertEq(uint256(c.minStake), 0.5 ether, "minStake");
    }

    function testCreateRevertsOnBadInput() public {
        uint64 d = uint64(block.timestamp + 1 days);
        vm.startPrank(creator);
        uint256 minPool = gov.MIN_REWARD_POOL();
        vm.expectRevert(abi.encodeWithSelector(IMarketBoundErrors.RewardPoolTooSmall.selector, minPool - 1, minPool));
        market.createMarket{value: minPool - 1}(QUESTION, d);
        uint256 huge = uint256(type(uint96).max) + 1;
        vm.deal(creator, huge + 1 ether);
        vm.expectRevert(abi.encodeWithSelector(IMarketBoundErrors.RewardPoolTooLarge.selector, huge));
        market.createMarket{value: huge}(QUESTION, d);
        vm.expectRevert(IMarketBoundErrors.EmptyQuestion.selector);
        market.createMarket{value: POOL}("", d);
        vm.expectRevert(abi.encodeWithSelector(IMarketBoundErrors.QuestionTooLong.selector, 1025));
        market.createMarket{value: POOL}(string(new bytes(1025)), d);
        vm.expectRevert(abi.encodeWithSelector(IMarketBoundErrors.DeadlineNotInFuture.selector, uint64(block.timestamp)));
        market.createMarket{value: POOL}(QUESTION, uint64(block.timestamp));
        uint64 far = uint64(block.timestamp + 365 days + 1);
        vm.expectRevert(abi.encodeWithSelector(IMarketBoundErrors.DeadlineTooFar.selector, far));
        market.createMarket{value: POOL}(QUESTION, far);
        vm.stopPrank();
    }

    function testCreateWithRevertsOnBadParams() public {
        uint64 d = uint64(block.timestamp + 1 days);
        IResolutionMarket.MarketParams memory p;
        p.minStake = 1;
        _expectCreateWith(p, d, abi.encodeWithSelector(IMarketBoundErrors.MinStakeOutOfRange.selector, 1));
        p.minStake = 0;
        p.maxWorkers = 101;
        _expectCreateWith(p, d, abi.encodeWithSelector(IMarketBoundErrors.MaxWorkersOutOfRange.selector, 101));
        p.maxWorkers = 0;
        p.disputeWindow = 10 minutes - 1;
        _expectCreateWith(p, d, abi.encodeWithSelector(IMarketBoundErrors.DisputeWindowOutOfRange.selector, 599));
        p.disputeWindow = 30 days + 1;
        _expectCreateWith(p, d, abi.encodeWithSelector(IMarketBoundErrors.DisputeWindowOutOfRange.selector, 30 days + 1));
        p.disputeWindow = 0;
        p.bond = 0.001 ether - 1;
        _expectCreateWith(p, d, abi.encodeWithSelector(IMarketBoundErrors.BondOutOfRange.selector, 0.001 ether - 1));
        p.bond = 0;
        p.arbiter = IArbiter(address(0xE0A));
        _expectCreateWith(p, d, abi.encodeWithSelector(IMarketBoundErrors.ArbiterNotAContract.selector, address(0xE0A)));
        p.arbiter = IArbiter(address(0));
        p.admission = IResolutionMarket.Admission.AllowList;
        p.allowedAgents = new uint256[](101);
        _expectCreateWith(p, d, abi.encodeWithSelector(IMarketBoundErrors.AllowListTooLong.selector, 101));
        // A long list is ignored unless the admission is AllowList.
        p.admission = IResolutionMarket.Admission.Open;
        vm.prank(creator);
        market.createMarketWith{value: POOL}(QUESTION, d, p);
    }

    function _expectCreateWith(IResolutionMarket.MarketParams memory p, uint64 d, bytes memory err) internal {
        vm.prank(creator);
        vm.expectRevert(err);
        market.createMarketWith{value: POOL}(QUESTION, d, p);
    }

    // ------------------------------------------------------------------ joining

    function testJoinRecordsSeat() public {
        uint256 id = _createMarket();
        address w = _worker(1);
        vm.deal(w, 1 ether);
        uint256 agentId = _registerAgent(w);
        vm.expectEmit(address(market));
        emit IResolutionMarket.WorkerJoined(id, agentId, w, STAKE);
        vm.prank(w);
        market.joinMarket{value: STAKE}(id, agentId);
        (address[] memory ws, uint256[] memory ids, uint256[] memory stakes) = market.getWorkers(id);
        assertEq(ws[0], w, "worker");
        assertEq(ids[0], agentId, "agent");
        assertEq(stakes[0], STAKE, "stake");
        assertEq(market.getMarket(id).totalStake, STAKE, "total");
    }

    function testJoinByAgentWalletAndOperator() public {
        uint256 id = _createMarket();
        address agentOwner = _worker(1);
        uint256 agentId = _registerAgent(agentOwner);
        address operator = _worker(2);
        vm.prank(agentOwner);
        IdentityRegistry(address(identity)).approve(operator, agentId);
        vm.deal(operator, 1 ether);
        vm.prank(operator);
        market.joinMarket{value: STAKE}(id, agentId);
        assertEq(market.getMarket(id).workerCount, 1, "operator joined");
    }

    function testJoinReverts() public {
        uint256 id = _createMarket();
        address w = _worker(1);
        vm.deal(w, 10 ether);
        uint256 agentId = _registerAgent(w);
        vm.startPrank(w);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.MarketNotFound.selector, 99));
        market.joinMarket{value: STAKE}(99, agentId);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.StakeTooLow.selector, 1, 0.001 ether));
        market.joinMarket{value: 1}(id, agentId);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.AgentNotFound.selector, 4242));
        market.joinMarket{value: STAKE}(id, 4242);
        uint256 big = uint256(type(uint192).max) + 1;
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.AgentIdTooLarge.selector, big));
        market.joinMarket{value: STAKE}(id, big);
        market.joinMarket{value: STAKE}(id, agentId);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.AgentAlreadyJoined.selector, id, agentId));
        market.joinMarket{value: STAKE}(id, agentId);
        vm.stopPrank();
        // Same address, another agent it owns.
        uint256 second = _registerAgent(w);
        vm.prank(w);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.AddressAlreadyJoined.selector, id, w));
        market.joinMarket{value: STAKE}(id, second);
        // Someone else's agent.
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.NotAgentOperator.selector, stranger, second));
        market.joinMarket{value: STAKE}(id, second);
        // After the deadline.
        vm.warp(market.getMarket(id).deadline);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.JoiningClosed.selector, id));
        market.joinMarket{value: STAKE}(id, second);
        market.requestResolution(id);
        vm.prank(w);
        _expectWrongStatus(id, IResolutionMarket.Status.ResolutionRequested);
        market.joinMarket{value: STAKE}(id, second);
    }

    function testJoinMarketFullAndStakeTooLarge() public {
        params.maxWorkers = 2;
        uint256 id = _createWith(params);
        _joinFresh(id, 2, 0);
        address w = _worker(50);
        vm.deal(w, 1 ether);
        uint256 agentId = _registerAgent(w);
        vm.prank(w);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.MarketFull.selector, id, 2));
        market.joinMarket{value: STAKE}(id, agentId);

        uint256 id2 = _createMarket();
        uint256 huge = uint256(type(uint96).max);
        vm.deal(w, huge + 1 ether);
        vm.prank(w);
        market.joinMarket{value: huge - STAKE}(id2, agentId);
        address w2 = _worker(51);
        vm.deal(w2, 1 ether);
        uint256 a2 = _registerAgent(w2);
        vm.prank(w2);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.StakeTooLarge.selector, 2 * STAKE));
        market.joinMarket{value: 2 * STAKE}(id2, a2);
    }

    function testPerMarketMinStake() public {
        params.minStake = 0.3 ether;
        uint256 id = _createWith(params);
        address w = _worker(1);
        vm.deal(w, 1 ether);
        uint256 agentId = _registerAgent(w);
        vm.prank(w);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.StakeTooLow.selector, 0.2 ether, 0.3 ether));
        market.joinMarket{value: 0.2 ether}(id, agentId);
        vm.prank(w);
        market.joinMarket{value: 0.3 ether}(id, agentId);
    }

    function testAllowListAdmission() public {
        address w1 = _worker(1);
        address w2 = _worker(2);
        vm.deal(w1, 1 ether);
        vm.deal(w2, 1 ether);
        uint256 a1 = _registerAgent(w1);
        uint256 a2 = _registerAgent(w2);
        params.admission = IResolutionMarket.Admission.AllowList;
        params.allowedAgents = new uint256[](1);
        params.allowedAgents[0] = a1;
        uint256 id = _createWith(params);
        vm.prank(w2);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.AgentNotAdmitted.selector, id, a2));
        market.joinMarket{value: STAKE}(id, a2);
        vm.prank(w1);
        market.joinMarket{value: STAKE}(id, a1);
    }

    function testTrackRecordAdmission() public {
        // Agent a settles two markets answering right with 90 % confidence (correctness 99 each), next to an agent
        // of another owner (a market counts for admission only with an independent seat, RECORDS §5).
        address w = _worker(1);
        vm.deal(w, 10 ether);
        vm.deal(_worker(2), 10 ether);
        uint256 a = _registerAgent(w);
        address[] memory ws = new address[](2);
        uint256[] memory ids = new uint256[](2);
        (ws[0], ws[1]) = (w, _worker(2));
        (ids[0], ids[1]) = (a, _registerAgent(_worker(2)));
        for (uint256 k; k < 2; ++k) {
            uint256 m = _createMarket();
            _joinAgents(m, ws, ids);
            _request(market, m);
            _settle(market, m, IResolutionMarket.Verdict.Yes, _uniform(2, IResolutionMarket.Answer.Yes));
            market.reputation().countAdmission(m); // admission counts a market once someone counts it
        }
        IResolutionMarket.Reputation memory r = market.getReputation(a);
        assertEq(uint256(r.settled), 2, "settled");
        assertEq(uint256(r.correctness), 99, "correctness");

        params.admission = IResolutionMarket.Admission.TrackRecord;
        params.minSettled = 2;
        params.minCorrectness = 99;
        uint256 id = _createWith(params);
        _joinAgents(id, ws, ids);
        params.minSettled = 3;
        uint256 id2 = _createWith(params);
        vm.prank(w);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.AgentNotAdmitted.selector, id2, a));
        market.joinMarket{value: STAKE}(id2, a);
        params.minSettled = 1;
        params.minCorrectness = 100;
        uint256 id3 = _createWith(params);
        vm.prank(w);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.AgentNotAdmitted.selector, id3, a));
        market.joinMarket{value: STAKE}(id3, a);
    }

    function testJoinRefusedWhenMarketIsAgentOperator() public {
        uint256 id = _createMarket();
        address w = _worker(1);
        vm.deal(w, 1 ether);
        uint256 agentId = _registerAgent(w);
        vm.prank(w);
        IdentityRegistry(address(identity)).setApprovalForAll(address(writer), true);
        vm.prank(w);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.MarketIsAgentOperator.selector, agentId));
        market.joinMarket{value: STAKE}(id, agentId);
    }

    // ------------------------------------------------------------------ request resolution

    function testRequestResolution() public {
        uint256 id = _createMarket();
        _joinFresh(id, 1, 0);
        vm.expectRevert(
            abi.encodeWithSelector(IResolutionMarket.DeadlineNotReached.selector, id, market.getMarket(id).deadline)
        );
        market.requestResolution(id);
        vm.warp(market.getMarket(id).deadline);
        vm.expectEmit(address(market));
        emit IResolutionMarket.ResolutionRequested(id, QUESTION);
        market.requestResolution(id);
        assertEq(market.getMarket(id).requestedAt, block.timestamp, "requestedAt");
        _expectWrongStatus(id, IResolutionMarket.Status.ResolutionRequested);
        market.requestResolution(id);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.MarketNotFound.selector, 7));
        market.requestResolution(7);
    }

    function testRequestWithoutWorkersCancelsAndRefundsCreator() public {
        uint256 id = _createMarket();
        vm.warp(market.getMarket(id).deadline);
        vm.expectEmit(address(market));
        emit IResolutionMarket.MarketCancelled(id, address(this));
        vm.expectEmit(address(market));
        emit IResolutionMarket.CreatorRefunded(id, creator, POOL);
        market.requestResolution(id);
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Cancelled), "cancelled");
        assertEq(market.pendingWithdrawal(creator), POOL, "refund");
    }

    // ------------------------------------------------------------------ bounded owner

    function testOwnerFunctionsAreOwnerOnly() public {
        bytes memory err = abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger);
        vm.startPrank(stranger);
        vm.expectRevert(err);
        gov.queueResolver(stranger);
        vm.expectRevert(err);
        gov.removeResolver(resolver);
        vm.expectRevert(err);
        gov.queueDefaultArbiter(arbiter);
        vm.expectRevert(err);
        gov.setDefaults(0.001 ether, 10, 1 days, 1 days, 0.01 ether);
        vm.expectRevert(err);
        gov.renounceOwnership();
        vm.stopPrank();
        vm.prank(owner);
        vm.expectRevert(IMarketGovernance.RenounceOwnershipDisabled.selector);
        gov.renounceOwnership();
    }

    function testQueueResolverTimelock() public {
        uint256 before = _createMarket(); // a market exists: no more bootstrap
        address r2 = address(0x2222);
        uint64 from = uint64(block.timestamp + 2 days);
        vm.expectEmit(address(gov));
        emit IMarketGovernance.ResolverQueued(r2, from);
        vm.prank(owner);
        gov.queueResolver(r2);
        assertEq(uint256(gov.resolverActiveFrom(r2)), from, "activeFrom");
        assertTrue(!market.isResolverFor(r2, before), "not for an existing market");
        vm.warp(from - 1);
        assertTrue(!market.isResolverFor(r2, _createMarket()), "not for a market created inside the delay");
        vm.warp(from);
        assertTrue(market.isResolverFor(r2, _createMarket()), "active for markets created after the delay");
        assertTrue(!market.isResolverFor(r2, before), "still not for the old one");
        // Re-queueing is a no-op (it cannot push an active resolver back).
        vm.prank(owner);
        gov.queueResolver(r2);
        assertEq(uint256(gov.resolverActiveFrom(r2)), from, "unchanged");
        vm.prank(owner);
        vm.expectRevert(IMarketBoundErrors.ZeroAddress.selector);
        gov.queueResolver(address(0));
    }

    function testRemoveResolverIsImmediate() public {
        uint256 id = _createMarket();
        assertTrue(market.isResolverFor(resolver, id), "bootstrap resolver");
        vm.expectEmit(address(gov));
        emit IMarketGovernance.ResolverRemoved(resolver);
        vm.prank(owner);
        gov.removeResolver(resolver);
        assertTrue(!market.isResolverFor(resolver, id), "removed");
        assertEq(uint256(gov.resolverActiveFrom(resolver)), 0, "cleared");
        vm.prank(owner);
        gov.removeResolver(resolver); // no-op
    }

    /// @notice Removing the only resolver can only stall a market, and a stalled market cancels with refunds.
    function testRemovedResolverStallsAndTheMarketCancelsWithRefunds() public {
        uint256 id = _createMarket();
        (address[] memory ws,) = _joinFresh(id, 2, 0);
        _request(market, id);
        vm.prank(owner);
        gov.removeResolver(resolver);
        vm.prank(resolver);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.NotResolver.selector, resolver, id));
        market.proposeResolution{value: BOND}(id, IResolutionMarket.Verdict.Yes, _uniform(2, IResolutionMarket.Answer.Yes), HASH, URI);
        vm.warp(block.timestamp + 3 days);
        market.requestCancel(id);
        vm.warp(block.timestamp + 1 days);
        market.cancelStale(id);
        assertEq(market.pendingWithdrawal(creator), POOL, "pool back");
        assertEq(market.pendingWithdrawal(ws[0]) + market.pendingWithdrawal(ws[1]), 2 * STAKE, "stakes back");
        assertEq(address(market).balance, POOL + 2 * STAKE, "all owed");
    }

    /// @notice The per-market dispute window and bond are what the proposal and the dispute use.
    function testPerMarketWindowAndBond() public {
        params.disputeWindow = 10 minutes;
        params.bond = 0.5 ether;
        uint256 id = _createWith(params);
        _joinFresh(id, 1, 0);
        _request(market, id);
        vm.prank(resolver);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.WrongBond.selector, BOND, 0.5 ether));
        market.proposeResolution{value: BOND}(id, IResolutionMarket.Verdict.Yes, _uniform(1, IResolutionMarket.Answer.Yes), HASH, URI);
        assertEq(market.getMarket(id).bundleHash, bytes32(0), "no bundle before a proposal");
        _propose(market, id, IResolutionMarket.Verdict.Yes, _uniform(1, IResolutionMarket.Answer.Yes));
        IResolutionMarket.Proposal memory p = market.getProposal(id);
        assertEq(uint256(p.disputeEndsAt), block.timestamp + 10 minutes, "10-minute window");
        assertEq(uint256(p.bond), 0.5 ether, "bond");
        vm.warp(block.timestamp + 10 minutes);
        market.finalize(id);
        assertEq(market.pendingWithdrawal(resolver), 0.5 ether, "bond back");
    }

    function testDefaultArbiterTimelock() public {
        _createMarket();
        TestArbiter next = new TestArbiter();
        uint64 at = uint64(block.timestamp + 2 days);
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(IMarketBoundErrors.ArbiterNotAContract.selector, address(0xAB)));
        gov.queueDefaultArbiter(IArbiter(address(0xAB)));
        vm.expectRevert(IMarketGovernance.NothingQueued.selector);
        gov.applyDefaultArbiter();
        vm.expectEmit(address(gov));
        emit IMarketGovernance.DefaultArbiterQueued(address(next), at);
        vm.prank(owner);
        gov.queueDefaultArbiter(next);
        (IArbiter pending, uint64 effectiveAt) = gov.pendingDefaultArbiter();
        assertEq(address(pending), address(next), "pending");
        assertEq(uint256(effectiveAt), at, "effectiveAt");
        vm.expectRevert(abi.encodeWithSelector(IMarketGovernance.TimelockNotOver.selector, at));
        gov.applyDefaultArbiter();
        assertEq(address(market.getMarketConfig(_createMarket()).arbiter), address(arbiter), "old one inside the delay");
        vm.warp(at);
        vm.expectEmit(address(gov));
        emit IMarketGovernance.DefaultArbiterUpdated(address(next));
        gov.applyDefaultArbiter();
        assertEq(address(gov.getDefaults().arbiter), address(next), "applied");
    }

    function testDefaultArbiterAppliesLazilyAtCreation() public {
        uint256 old = _createMarket();
        TestArbiter next = new TestArbiter();
        vm.prank(owner);
        gov.queueDefaultArbiter(next);
        vm.warp(block.timestamp + 2 days);
        uint256 id = _createMarket();
        assertEq(address(market.getMarketConfig(id).arbiter), address(next), "lazy apply");
        assertEq(address(market.getMarketConfig(old).arbiter), address(arbiter), "snapshot kept");
        (IArbiter pending,) = gov.pendingDefaultArbiter();
        assertEq(address(pending), address(0), "queue cleared");
    }

    function testSetDefaultsBoundsAndEvent() public {
        vm.startPrank(owner);
        vm.expectEmit(address(gov));
        emit IMarketGovernance.DefaultsUpdated(0.002 ether, 7, 2 hours, 1 hours, 0.02 ether);
        gov.setDefaults(0.002 ether, 7, 2 hours, 1 hours, 0.02 ether);
        vm.expectRevert(abi.encodeWithSelector(IMarketBoundErrors.MinStakeOutOfRange.selector, 0));
        gov.setDefaults(0, 7, 2 hours, 1 hours, 0.02 ether);
        vm.expectRevert(abi.encodeWithSelector(IMarketBoundErrors.MaxWorkersOutOfRange.selector, 0));
        gov.setDefaults(0.002 ether, 0, 2 hours, 1 hours, 0.02 ether);
        vm.expectRevert(abi.encodeWithSelector(IMarketGovernance.GracePeriodOutOfRange.selector, 59 minutes));
        gov.setDefaults(0.002 ether, 7, 59 minutes, 1 hours, 0.02 ether);
        vm.expectRevert(abi.encodeWithSelector(IMarketGovernance.GracePeriodOutOfRange.selector, 31 days));
        gov.setDefaults(0.002 ether, 7, 31 days, 1 hours, 0.02 ether);
        vm.expectRevert(abi.encodeWithSelector(IMarketBoundErrors.DisputeWindowOutOfRange.selector, 0));
        gov.setDefaults(0.002 ether, 7, 2 hours, 0, 0.02 ether);
        vm.expectRevert(abi.encodeWithSelector(IMarketBoundErrors.BondOutOfRange.selector, 0));
        gov.setDefaults(0.002 ether, 7, 2 hours, 1 hours, 0);
        vm.stopPrank();
    }

    // ------------------------------------------------------------------ views

    function testViewsRevertForUnknownMarkets() public {
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.MarketNotFound.selector, 5));
        market.getMarket(5);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.MarketNotFound.selector, 5));
        market.getMarketConfig(5);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.MarketNotFound.selector, 5));
        market.getProposal(5);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.MarketNotFound.selector, 5));
        market.getWorkers(5);
        (uint256 cursor, uint256 pending) = writer.feedbackStatus(5);
        assertEq(cursor + pending, 0, "no feedback");
        (bool c, bool q) = writer.pendingFeedback(5, 0);
        assertTrue(!c && !q, "nothing pending");
    }

    /// @notice Hand-checked values of 100·(1 − Brier), rounded half up.
    function testCorrectnessOfByHand() public view {
        IResolutionMarket.Answer yes = IResolutionMarket.Answer.Yes;
        IResolutionMarket.Answer no = IResolutionMarket.Answer.No;
        assertEq(writer.correctnessOf(yes, 10_000, true), 100, "certain and right");
        assertEq(writer.correctnessOf(yes, 10_000, false), 0, "certain and wrong");
        assertEq(writer.correctnessOf(yes, 5_000, true), 75, "coin flip, right: 100 - 25");
        assertEq(writer.correctnessOf(no, 5_000, true), 75, "coin flip, wrong: 100 - 25");
        // right with 0.9: d = 1000, d² = 1e6 -> (1e6 + 5e5) / 1e6 = 1 -> 99
        assertEq(writer.correctnessOf(yes, 9_000, true), 99, "0.9 right");
        // wrong with 0.9: d = 9000, d² = 81e6 -> 81 -> 19
        assertEq(writer.correctnessOf(no, 9_000, true), 19, "0.9 wrong");
        // right with 0.7: d = 3000 -> 9e6 -> 9 -> 91; wrong with 0.7: d = 7000 -> 49e6 -> 49 -> 51
        assertEq(writer.correctnessOf(no, 7_000, false), 91, "0.7 right");
        assertEq(writer.correctnessOf(yes, 7_000, false), 51, "0.7 wrong");
        // half-up rounding: d = 7071 -> d² = 49_999_041 -> (+5e5) / 1e6 = 50 -> 50
        assertEq(writer.correctnessOf(yes, 7_071, false), 50, "rounded half up");
        assertEq(writer.correctnessOf(IResolutionMarket.Answer.None, 0, true), 0, "failure");
        assertEq(writer.correctnessOf(IResolutionMarket.Answer.Abstained, 0, true), 0, "abstention");
    }

    function testCorrectnessOfRejectsConfidenceAboveOne() public {
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.InvalidReport.selector, 0));
        writer.correctnessOf(IResolutionMarket.Answer.Yes, 10_001, true);
    }
}
