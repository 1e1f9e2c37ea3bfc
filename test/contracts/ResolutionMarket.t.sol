// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IdentityRegistry} from "../../contracts/erc8004/IdentityRegistry.sol";
import {ReputationRegistry} from "../../contracts/erc8004/ReputationRegistry.sol";
import {IIdentityRegistry} from "../../contracts/erc8004/interfaces/IIdentityRegistry.sol";
import {IReputationRegistry} from "../../contracts/erc8004/interfaces/IReputationRegistry.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {ResolutionMarket} from "../../contracts/market/ResolutionMarket.sol";
import {ReputationFeedback} from "../../contracts/market/ReputationFeedback.sol";
import {SettlementMath} from "../../contracts/market/libraries/SettlementMath.sol";
import {MarketFixture, VmExtra} from "./market/MarketFixture.sol";
import {SimpleIdentityRegistry, ResolutionMarketHarness} from "./market/MarketMocks.sol";

/// @notice Unit tests: every external function, every revert path, the events.
contract ResolutionMarketTest is MarketFixture {
    // ------------------------------------------------------------------ construction & admin

    function testConstructorDefaults() public {
        ResolutionMarket m = new ResolutionMarket(identity, reputation, owner);
        assertEq(address(m.identityRegistry()), address(identity), "identity");
        assertEq(address(m.reputationRegistry()), address(reputation), "reputation");
        assertEq(m.owner(), owner, "owner");
        assertEq(m.minStake(), m.DEFAULT_MIN_STAKE(), "minStake");
        assertEq(uint256(m.maxWorkers()), 10, "maxWorkers");
        assertEq(uint256(m.gracePeriod()), 3 days, "grace");
        assertEq(m.marketCount(), 0, "count");
        assertTrue(!m.isResolver(resolver), "no resolver yet");
    }

    function testConstructorRejectsNonContracts() public {
        vm.expectRevert(abi.encodeWithSelector(ReputationFeedback.NotAContract.selector, address(0x1234)));
        new ResolutionMarket(IIdentityRegistry(address(0x1234)), reputation, owner);
        vm.expectRevert(abi.encodeWithSelector(ReputationFeedback.NotAContract.selector, address(0x5678)));
        new ResolutionMarket(identity, IReputationRegistry(address(0x5678)), owner);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableInvalidOwner.selector, address(0)));
        new ResolutionMarket(identity, reputation, address(0));
    }

    function testResolverAdmin() public {
        address r = address(0x1111);
        vm.expectEmit(address(market));
        emit ResolutionMarket.ResolverAdded(r);
        vm.prank(owner);
        market.addResolver(r);
        assertTrue(market.isResolver(r), "added");
        vm.prank(owner);
        market.addResolver(r); // idempotent, no event needed
        vm.expectEmit(address(market));
        emit ResolutionMarket.ResolverRemoved(r);
        vm.prank(owner);
        market.removeResolver(r);
        assertTrue(!market.isResolver(r), "removed");
        vm.prank(owner);
        market.removeResolver(r); // idempotent

        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.ZeroAddress.selector));
        vm.prank(owner);
        market.addResolver(address(0));
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger));
        vm.prank(stranger);
        market.addResolver(stranger);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger));
        vm.prank(stranger);
        market.removeResolver(resolver);
    }

    function testSetMinStake() public {
        vm.expectEmit(address(market));
        emit ResolutionMarket.MinStakeUpdated(0.5 ether);
        vm.prank(owner);
        market.setMinStake(0.5 ether);
        assertEq(market.minStake(), 0.5 ether, "minStake");
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.MinStakeTooLarge.selector, uint256(type(uint96).max) + 1));
        vm.prank(owner);
        market.setMinStake(uint256(type(uint96).max) + 1);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger));
        vm.prank(stranger);
        market.setMinStake(0);
    }

    function testSetMaxWorkers() public {
        vm.expectEmit(address(market));
        emit ResolutionMarket.MaxWorkersUpdated(7);
        vm.prank(owner);
        market.setMaxWorkers(7);
        assertEq(uint256(market.maxWorkers()), 7, "maxWorkers");
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.MaxWorkersOutOfRange.selector, 0));
        vm.prank(owner);
        market.setMaxWorkers(0);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.MaxWorkersOutOfRange.selector, 101));
        vm.prank(owner);
        market.setMaxWorkers(101);
        vm.prank(owner);
        market.setMaxWorkers(100);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger));
        vm.prank(stranger);
        market.setMaxWorkers(5);
    }

    function testSetGracePeriod() public {
        vm.expectEmit(address(market));
        emit ResolutionMarket.GracePeriodUpdated(1 hours);
        vm.prank(owner);
        market.setGracePeriod(1 hours);
        vm.prank(owner);
        market.setGracePeriod(30 days);
        assertEq(uint256(market.gracePeriod()), 30 days, "grace");
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.GracePeriodOutOfRange.selector, 1 hours - 1));
        vm.prank(owner);
        market.setGracePeriod(1 hours - 1);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.GracePeriodOutOfRange.selector, 30 days + 1));
        vm.prank(owner);
        market.setGracePeriod(30 days + 1);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger));
        vm.prank(stranger);
        market.setGracePeriod(2 days);
    }

    function testTwoStepOwnership() public {
        vm.prank(owner);
        market.transferOwnership(stranger);
        assertEq(market.owner(), owner, "still owner until accepted");
        vm.prank(stranger);
        market.acceptOwnership();
        assertEq(market.owner(), stranger, "accepted");
    }

    // ------------------------------------------------------------------ createMarket

    function testCreateMarket() public {
        uint64 deadline = uint64(block.timestamp + 2 days);
        vm.expectEmit(address(market));
        emit IResolutionMarket.MarketCreated(1, creator, QUESTION, deadline, 3 ether);
        vm.prank(creator);
        uint256 id = market.createMarket{value: 3 ether}(QUESTION, deadline);
        assertEq(id, 1, "id");
        assertEq(market.marketCount(), 1, "count");
        IResolutionMarket.MarketInfo memory info = market.getMarket(id);
        assertEq(info.creator, creator, "creator");
        assertEq(uint256(info.deadline), deadline, "deadline");
        assertEq(uint256(info.status), uint256(IResolutionMarket.Status.Open), "status");
        assertEq(info.rewardPool, 3 ether, "pool");
        assertEq(info.totalStake, 0, "stake");
        assertEq(uint256(info.workerCount), 0, "workers");
        assertEq(info.question, QUESTION, "question");
        assertEq(address(market).balance, 3 ether, "balance");
        (uint8 seats, uint32 grace) = market.marketLimits(id);
        assertEq(uint256(seats), 100, "seat limit snapshot");
        assertEq(uint256(grace), 3 days, "grace snapshot");
    }

    function testCreateMarketValidation() public {
        uint64 deadline = uint64(block.timestamp + 1 days);
        vm.startPrank(creator);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.EmptyRewardPool.selector));
        market.createMarket(QUESTION, deadline);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.EmptyQuestion.selector));
        market.createMarket{value: 1}("", deadline);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.QuestionTooLong.selector, 1025));
        market.createMarket{value: 1}(string(new bytes(1025)), deadline);
        market.createMarket{value: 1}(string(new bytes(1024)), deadline);
        vm.expectRevert(
            abi.encodeWithSelector(ResolutionMarket.DeadlineNotInFuture.selector, uint64(block.timestamp))
        );
        market.createMarket{value: 1}(QUESTION, uint64(block.timestamp));
        uint64 far = uint64(block.timestamp + 365 days + 1);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.DeadlineTooFar.selector, far));
        market.createMarket{value: 1}(QUESTION, far);
        market.createMarket{value: 1}(QUESTION, far - 1);
        vm.stopPrank();

        uint256 huge = uint256(type(uint96).max) + 1;
        vm.deal(creator, huge);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.RewardPoolTooLarge.selector, huge));
        vm.prank(creator);
        market.createMarket{value: huge}(QUESTION, deadline);
    }

    // ------------------------------------------------------------------ joinMarket

    function testJoinMarket() public {
        uint256 id = _createMarket();
        address w = _worker(1);
        vm.deal(w, 1 ether);
        uint256 agentId = _registerAgent(w);
        vm.expectEmit(address(market));
        emit IResolutionMarket.WorkerJoined(id, agentId, w, 0.02 ether);
        vm.prank(w);
        market.joinMarket{value: 0.02 ether}(id, agentId);

        (address[] memory ws, uint256[] memory ids, uint256[] memory stakes) = market.getWorkers(id);
        assertEq(ws.length, 1, "one worker");
        assertEq(ws[0], w, "worker");
        assertEq(ids[0], agentId, "agent id");
        assertEq(stakes[0], 0.02 ether, "stake");
        IResolutionMarket.MarketInfo memory info = market.getMarket(id);
        assertEq(info.totalStake, 0.02 ether, "total stake");
        assertEq(uint256(info.workerCount), 1, "count");
        (bool agentSeated, bool addressSeated) = market.hasJoined(id, agentId, w);
        assertTrue(agentSeated && addressSeated, "seated");
    }

    function testJoinAsOperatorAndAsAgentWallet() public {
        uint256 id = _createMarket();
        address agentOwner = _worker(1);
        address operator = _worker(2);
        vm.deal(operator, 1 ether);
        uint256 agentId = _registerAgent(agentOwner);
        vm.prank(agentOwner);
        IdentityRegistry(address(identity)).setApprovalForAll(operator, true);
        vm.prank(operator);
        market.joinMarket{value: STAKE}(id, agentId);
        (address[] memory ws,,) = market.getWorkers(id);
        assertEq(ws[0], operator, "operator holds the seat");

        // Agent wallet path (simple identity registry whose wallet binding we control).
        SimpleIdentityRegistry simple = new SimpleIdentityRegistry();
        ResolutionMarket m2 = _deployMarket(IIdentityRegistry(address(simple)), reputation);
        address agentWallet = _worker(3);
        vm.deal(agentWallet, 1 ether);
        simple.setController(7, _worker(4));
        simple.setWallet(7, agentWallet);
        uint256 id2 = _createMarketOn(m2, 1 ether);
        vm.prank(agentWallet);
        m2.joinMarket{value: STAKE}(id2, 7);
        (ws,,) = m2.getWorkers(id2);
        assertEq(ws[0], agentWallet, "agent wallet holds the seat");
    }

    function testJoinRevertPaths() public {
        uint256 id = _createMarket();
        address w = _worker(1);
        vm.deal(w, 100 ether);
        uint256 agentId = _registerAgent(w);

        vm.startPrank(w);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.MarketNotFound.selector, 99));
        market.joinMarket{value: STAKE}(99, agentId);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.StakeTooLow.selector, STAKE / 100, STAKE / 10));
        market.joinMarket{value: STAKE / 100}(id, agentId);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.AgentNotFound.selector, 12345));
        market.joinMarket{value: STAKE}(id, 12345);
        vm.stopPrank();

        uint256 otherAgent = _registerAgent(_worker(2));
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.NotAgentOperator.selector, w, otherAgent));
        vm.prank(w);
        market.joinMarket{value: STAKE}(id, otherAgent);

        vm.prank(w);
        market.joinMarket{value: STAKE}(id, agentId);
        // Same address, second agent.
        uint256 second = _registerAgent(w);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.AddressAlreadyJoined.selector, id, w));
        vm.prank(w);
        market.joinMarket{value: STAKE}(id, second);
        // Same agent, second (authorized) address.
        address op = _worker(3);
        vm.deal(op, 1 ether);
        vm.prank(w);
        IdentityRegistry(address(identity)).setApprovalForAll(op, true);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.AgentAlreadyJoined.selector, id, agentId));
        vm.prank(op);
        market.joinMarket{value: STAKE}(id, agentId);

        // Joining closes at the deadline.
        vm.warp(market.getMarket(id).deadline);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.JoiningClosed.selector, id));
        vm.prank(op);
        market.joinMarket{value: STAKE}(id, second);

        market.requestResolution(id);
        vm.expectRevert(
            abi.encodeWithSelector(
                ResolutionMarket.WrongStatus.selector, id, IResolutionMarket.Status.ResolutionRequested
            )
        );
        vm.prank(op);
        market.joinMarket{value: STAKE}(id, second);
    }

    function testJoinStakeTooLarge() public {
        uint256 id = _createMarket();
        address w = _worker(1);
        uint256 agentId = _registerAgent(w);
        uint256 huge = uint256(type(uint96).max) + 1;
        vm.deal(w, huge);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.StakeTooLarge.selector, huge));
        vm.prank(w);
        market.joinMarket{value: huge}(id, agentId);
        // The running total is bounded too.
        vm.prank(w);
        market.joinMarket{value: type(uint96).max}(id, agentId);
        address w2 = _worker(2);
        uint256 agent2 = _registerAgent(w2);
        vm.deal(w2, 1 ether);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.StakeTooLarge.selector, 0.5 ether));
        vm.prank(w2);
        market.joinMarket{value: 0.5 ether}(id, agent2);
    }

    function testSeatLimitIsSnapshotted() public {
        vm.prank(owner);
        market.setMaxWorkers(2);
        uint256 id = _createMarket();
        vm.prank(owner);
        market.setMaxWorkers(50); // later change: no effect on `id`
        _joinFresh(id, 2, 0);
        address w = _worker(10);
        vm.deal(w, 1 ether);
        uint256 agentId = _registerAgent(w);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.MarketFull.selector, id, 2));
        vm.prank(w);
        market.joinMarket{value: STAKE}(id, agentId);
    }

    // ------------------------------------------------------------------ requestResolution

    function testRequestResolution() public {
        uint256 id = _createMarket();
        _joinFresh(id, 2, 0);
        uint64 deadline = market.getMarket(id).deadline;
        vm.warp(deadline - 1);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.DeadlineNotReached.selector, id, deadline));
        market.requestResolution(id);
        vm.warp(deadline);
        vm.expectEmit(address(market));
        emit IResolutionMarket.ResolutionRequested(id, QUESTION);
        vm.prank(stranger);
        market.requestResolution(id);
        IResolutionMarket.MarketInfo memory info = market.getMarket(id);
        assertEq(uint256(info.status), uint256(IResolutionMarket.Status.ResolutionRequested), "status");
        assertEq(uint256(info.requestedAt), deadline, "requestedAt");
        // Only once.
        vm.expectRevert(
            abi.encodeWithSelector(
                ResolutionMarket.WrongStatus.selector, id, IResolutionMarket.Status.ResolutionRequested
            )
        );
        market.requestResolution(id);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.MarketNotFound.selector, 42));
        market.requestResolution(42);
    }

    function testRequestResolutionOfEmptyMarketRefundsCreator() public {
        uint256 id = _createMarket();
        vm.warp(block.timestamp + 1 days);
        vm.expectEmit(address(market));
        emit IResolutionMarket.MarketCancelled(id, stranger);
        vm.expectEmit(address(market));
        emit ResolutionMarket.CreatorRefunded(id, creator, POOL);
        vm.prank(stranger);
        market.requestResolution(id);
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Cancelled), "cancelled");
        assertEq(market.pendingWithdrawal(creator), POOL, "credited");
        uint256 before = creator.balance;
        vm.prank(creator);
        market.withdraw();
        assertEq(creator.balance - before, POOL, "paid");
        assertEq(address(market).balance, 0, "empty");
    }

    // ------------------------------------------------------------------ resolveMarket

    function testResolveMarketPaysSplitsAndRecordsEverything() public {
        uint256 id = _createMarketOn(market, 100); // 100 wei: rounding is visible
        (address[] memory ws, uint256[] memory ids) = _joinFresh(id, 3, 0);
        _request(market, id);
        uint256[] memory weights = new uint256[](3);
        weights[0] = 1;
        weights[1] = 1;
        weights[2] = 1;
        uint8[] memory scores = new uint8[](9);
        for (uint256 i; i < 9; ++i) scores[i] = uint8(10 * (i + 1)); // 10..90

        vm.expectEmit(address(market));
        emit IResolutionMarket.MarketResolved(id, false, HASH, URI);
        vm.expectEmit(address(market));
        emit ResolutionMarket.WorkerSettled(id, ids[0], ws[0], 34, STAKE, 10, 20, 30);
        vm.prank(resolver);
        market.resolveMarket(id, ws, weights, scores, false, HASH, URI);

        // 100 / 3 = 33 each, remainder 1 to the largest weight, lowest index on ties: worker 0.
        assertEq(market.pendingWithdrawal(ws[0]), STAKE + 34, "w0");
        assertEq(market.pendingWithdrawal(ws[1]), STAKE + 33, "w1");
        assertEq(market.pendingWithdrawal(ws[2]), STAKE + 33, "w2");
        assertEq(market.pendingWithdrawal(creator), 0, "creator");

        IResolutionMarket.MarketInfo memory info = market.getMarket(id);
        assertEq(uint256(info.status), uint256(IResolutionMarket.Status.Resolved), "resolved");
        assertEq(info.outcome, false, "outcome");
        assertEq(info.bundleHash, HASH, "hash");

        (uint64 count, uint8 r, uint8 s, uint8 d) = market.getReputation(ids[1]);
        assertEq(uint256(count), 1, "rep count");
        assertEq(uint256(r), 40, "res");
        assertEq(uint256(s), 50, "src");
        assertEq(uint256(d), 60, "depth");

        // ERC-8004 feedback landed in the real registry.
        for (uint256 i; i < 3; ++i) {
            assertEq(uint256(reputation.getLastIndex(ids[i], address(market))), 3, "three records");
        }
        _checkFeedbackRecords(ids[2]);
        _checkDoneAndFinal(id, ws, weights, scores);
    }

    function _checkDoneAndFinal(uint256 id, address[] memory ws, uint256[] memory weights, uint8[] memory scores)
        internal
    {
        (uint256 cursor, uint256 pending) = market.feedbackStatus(id);
        assertEq(cursor, 3, "cursor");
        assertEq(pending, 0, "pending");
        assertEq(market.publishFeedback(id, 10), 0, "nothing left");

        // Second settlement impossible.
        vm.expectRevert(
            abi.encodeWithSelector(ResolutionMarket.WrongStatus.selector, id, IResolutionMarket.Status.Resolved)
        );
        vm.prank(resolver);
        market.resolveMarket(id, ws, weights, scores, true, HASH, URI);
    }

    function _checkFeedbackRecords(uint256 agentId) internal view {
        (int128 value, uint8 decimals, string memory tag1, string memory tag2, bool revoked) =
            reputation.readFeedback(agentId, address(market), 2);
        assertEq(int256(value), 80, "source score of worker 2");
        assertEq(uint256(decimals), 0, "decimals");
        assertEq(tag1, "source_quality", "tag1");
        assertEq(tag2, "cresolver", "tag2");
        assertTrue(!revoked, "not revoked");
        (, tag1,) = _tags(agentId, 1);
        assertEq(tag1, "resolution_quality", "tag1 #1");
        (, tag1,) = _tags(agentId, 3);
        assertEq(tag1, "analysis_depth", "tag1 #3");
    }

    function _tags(uint256 agentId, uint64 index) internal view returns (int128 v, string memory t1, string memory t2) {
        (v,, t1, t2,) = reputation.readFeedback(agentId, address(market), index);
    }

    function testRemainderGoesToLargestWeightLowestIndex() public {
        uint256 id = _createMarketOn(market, 10);
        (address[] memory ws,) = _joinFresh(id, 4, 0);
        _request(market, id);
        uint256[] memory weights = new uint256[](4);
        weights[0] = 1;
        weights[1] = 3;
        weights[2] = 3;
        weights[3] = 2; // total 9: shares 1,3,3,2 = 9, remainder 1 -> index 1 (first of the tied 3s)
        _resolve(market, id, ws, weights);
        assertEq(market.pendingWithdrawal(ws[0]) - STAKE, 1, "w0");
        assertEq(market.pendingWithdrawal(ws[1]) - STAKE, 4, "w1 gets remainder");
        assertEq(market.pendingWithdrawal(ws[2]) - STAKE, 3, "w2");
        assertEq(market.pendingWithdrawal(ws[3]) - STAKE, 2, "w3");
    }

    function testAllZeroWeightsReturnPoolToCreator() public {
        uint256 id = _createMarket();
        (address[] memory ws,) = _joinFresh(id, 3, 0);
        _request(market, id);
        vm.expectEmit(address(market));
        emit ResolutionMarket.CreatorRefunded(id, creator, POOL);
        _resolve(market, id, ws, new uint256[](3));
        assertEq(market.pendingWithdrawal(creator), POOL, "creator refunded");
        for (uint256 i; i < 3; ++i) assertEq(market.pendingWithdrawal(ws[i]), STAKE, "stake back");
    }

    function testResolveRevertPaths() public {
        uint256 id = _createMarket();
        (address[] memory ws,) = _joinFresh(id, 3, 0);
        uint256[] memory w3 = _ones(3);
        uint8[] memory s3 = _scores(3, 1, 2, 3);

        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.NotResolver.selector, stranger));
        vm.prank(stranger);
        market.resolveMarket(id, ws, w3, s3, true, HASH, URI);

        vm.startPrank(resolver);
        vm.expectRevert(
            abi.encodeWithSelector(ResolutionMarket.WrongStatus.selector, id, IResolutionMarket.Status.Open)
        );
        market.resolveMarket(id, ws, w3, s3, true, HASH, URI);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.MarketNotFound.selector, 77));
        market.resolveMarket(77, ws, w3, s3, true, HASH, URI);
        vm.stopPrank();

        _request(market, id);
        vm.startPrank(resolver);
        address[] memory two = new address[](2);
        two[0] = ws[0];
        two[1] = ws[1];
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.WorkerCountMismatch.selector, 3, 2));
        market.resolveMarket(id, two, w3, s3, true, HASH, URI);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.WeightsLengthMismatch.selector, 3, 2));
        market.resolveMarket(id, ws, _ones(2), s3, true, HASH, URI);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.ScoresLengthMismatch.selector, 9, 6));
        market.resolveMarket(id, ws, w3, _scores(2, 1, 2, 3), true, HASH, URI);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.BundleURITooLong.selector, 513));
        market.resolveMarket(id, ws, w3, s3, true, HASH, string(new bytes(513)));

        address[] memory swapped = new address[](3);
        swapped[0] = ws[1];
        swapped[1] = ws[0];
        swapped[2] = ws[2];
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.WorkerMismatch.selector, 0, ws[0], ws[1]));
        market.resolveMarket(id, swapped, w3, s3, true, HASH, URI);

        uint8[] memory bad = _scores(3, 1, 2, 3);
        bad[7] = 101;
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.ScoreOutOfRange.selector, 7, 101));
        market.resolveMarket(id, ws, w3, bad, true, HASH, URI);
        bad[7] = 3;
        bad[3] = 200;
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.ScoreOutOfRange.selector, 3, 200));
        market.resolveMarket(id, ws, w3, bad, true, HASH, URI);
        bad[3] = 1;
        bad[5] = 255;
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.ScoreOutOfRange.selector, 5, 255));
        market.resolveMarket(id, ws, w3, bad, true, HASH, URI);

        uint256[] memory heavy = _ones(3);
        heavy[2] = uint256(type(uint128).max) + 1;
        vm.expectRevert(abi.encodeWithSelector(SettlementMath.WeightTooLarge.selector, 2, heavy[2]));
        market.resolveMarket(id, ws, heavy, s3, true, HASH, URI);
        heavy[2] = type(uint128).max; // the largest accepted weight settles fine
        market.resolveMarket(id, ws, heavy, s3, true, HASH, URI);
        vm.stopPrank();
    }

    // ------------------------------------------------------------------ publishFeedback

    function testPublishFeedbackInBatches() public {
        uint256 id = _createMarket();
        (address[] memory ws, uint256[] memory ids) = _joinFresh(id, 25, 0);
        _request(market, id);
        vm.expectEmit(address(market));
        emit ResolutionMarket.FeedbackProgress(id, 10, 25);
        _resolve(market, id, ws, _ones(25));
        assertEq(_pending(id), 15, "inline part done");
        assertEq(uint256(reputation.getLastIndex(ids[9], address(market))), 3, "inline worker");
        assertEq(uint256(reputation.getLastIndex(ids[10], address(market))), 0, "deferred worker");

        assertEq(market.publishFeedback(id, 0), 0, "zero batch");
        vm.expectEmit(address(market));
        emit ResolutionMarket.FeedbackProgress(id, 17, 25);
        vm.prank(stranger);
        assertEq(market.publishFeedback(id, 7), 7, "batch of 7");
        assertEq(_pending(id), 8, "8 left");
        assertEq(market.publishFeedback(id, 100), 8, "the rest");
        assertEq(_pending(id), 0, "done");
        assertEq(market.publishFeedback(id, 100), 0, "idempotent");
        for (uint256 i; i < 25; ++i) {
            assertEq(uint256(reputation.getLastIndex(ids[i], address(market))), 3, "all workers");
            (int128 v,,) = _tags(ids[i], 3);
            assertEq(int256(v), 60, "depth score from stored scores");
        }
    }

    function testPublishFeedbackRequiresResolvedMarket() public {
        uint256 id = _createMarket();
        vm.expectRevert(
            abi.encodeWithSelector(ResolutionMarket.WrongStatus.selector, id, IResolutionMarket.Status.Open)
        );
        market.publishFeedback(id, 1);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.MarketNotFound.selector, 5));
        market.publishFeedback(5, 1);
    }

    // ------------------------------------------------------------------ settleInvalid / cancelStale

    function testSettleInvalidRefundsEveryone() public {
        uint256 id = _createMarket();
        (address[] memory ws, uint256[] memory ids) = _joinFresh(id, 3, 0);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.NotResolver.selector, stranger));
        vm.prank(stranger);
        market.settleInvalid(id, HASH, URI);
        vm.expectRevert(
            abi.encodeWithSelector(ResolutionMarket.WrongStatus.selector, id, IResolutionMarket.Status.Open)
        );
        vm.prank(resolver);
        market.settleInvalid(id, HASH, URI);
        _request(market, id);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.BundleURITooLong.selector, 600));
        vm.prank(resolver);
        market.settleInvalid(id, HASH, string(new bytes(600)));

        vm.expectEmit(address(market));
        emit IResolutionMarket.MarketInvalidated(id, HASH, URI);
        vm.expectEmit(address(market));
        emit ResolutionMarket.CreatorRefunded(id, creator, POOL);
        vm.expectEmit(address(market));
        emit ResolutionMarket.StakeRefunded(id, ids[0], ws[0], STAKE);
        vm.prank(resolver);
        market.settleInvalid(id, HASH, URI);
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Invalid), "invalid");
        assertEq(market.getMarket(id).bundleHash, HASH, "hash kept");
        (, uint32 grace) = market.marketLimits(id);
        assertEq(uint256(grace), 0, "grace no longer applies");
        assertEq(market.pendingWithdrawal(creator), POOL, "pool back");
        for (uint256 i; i < 3; ++i) assertEq(market.pendingWithdrawal(ws[i]), STAKE, "stake back");
        (uint64 count,,,) = market.getReputation(ids[0]);
        assertEq(uint256(count), 0, "no reputation for invalid markets");
        (, uint256 pending) = market.feedbackStatus(id);
        assertEq(pending, 0, "no feedback for invalid markets");
        vm.expectRevert(
            abi.encodeWithSelector(ResolutionMarket.WrongStatus.selector, id, IResolutionMarket.Status.Invalid)
        );
        market.publishFeedback(id, 1);
    }

    function testCancelStaleUsesSnapshottedGrace() public {
        uint256 id = _createMarket(); // grace snapshot: 3 days
        vm.prank(owner);
        market.setGracePeriod(30 days); // no effect on `id`
        (address[] memory ws,) = _joinFresh(id, 2, 0);
        vm.expectRevert(
            abi.encodeWithSelector(ResolutionMarket.WrongStatus.selector, id, IResolutionMarket.Status.Open)
        );
        market.cancelStale(id);
        _request(market, id);
        uint256 endsAt = block.timestamp + 3 days;
        vm.warp(endsAt - 1);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.GracePeriodNotOver.selector, id, endsAt));
        market.cancelStale(id);
        vm.warp(endsAt);
        vm.expectEmit(address(market));
        emit IResolutionMarket.MarketCancelled(id, stranger);
        vm.prank(stranger);
        market.cancelStale(id);
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Cancelled), "cancelled");
        assertEq(market.getMarket(id).bundleHash, bytes32(0), "no bundle for a cancelled market");
        assertEq(market.pendingWithdrawal(creator), POOL, "pool back");
        for (uint256 i; i < 2; ++i) assertEq(market.pendingWithdrawal(ws[i]), STAKE, "stake back");
        vm.expectRevert(
            abi.encodeWithSelector(ResolutionMarket.WrongStatus.selector, id, IResolutionMarket.Status.Cancelled)
        );
        market.cancelStale(id);
        vm.expectRevert(
            abi.encodeWithSelector(ResolutionMarket.WrongStatus.selector, id, IResolutionMarket.Status.Cancelled)
        );
        vm.prank(resolver);
        market.resolveMarket(id, ws, _ones(2), _scores(2, 1, 1, 1), true, HASH, URI);
    }

    function testResolverMayStillSettleAfterGraceIfNobodyCancelled() public {
        uint256 id = _createMarket();
        (address[] memory ws,) = _joinFresh(id, 1, 0);
        _request(market, id);
        vm.warp(block.timestamp + 10 days);
        _resolve(market, id, ws, _ones(1));
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Resolved), "resolved");
    }

    // ------------------------------------------------------------------ withdraw

    function testWithdraw() public {
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.NothingToWithdraw.selector));
        vm.prank(stranger);
        market.withdraw();

        uint256 id = _createMarket();
        (address[] memory ws,) = _joinFresh(id, 2, 0);
        _request(market, id);
        _resolve(market, id, ws, _ones(2));
        uint256 owed = market.pendingWithdrawal(ws[0]);
        assertEq(owed, STAKE + POOL / 2, "owed");
        uint256 before = ws[0].balance;
        vm.expectEmit(address(market));
        emit ResolutionMarket.Withdrawal(ws[0], owed);
        vm.prank(ws[0]);
        market.withdraw();
        assertEq(ws[0].balance - before, owed, "paid");
        assertEq(market.pendingWithdrawal(ws[0]), 0, "zeroed");
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.NothingToWithdraw.selector));
        vm.prank(ws[0]);
        market.withdraw();
    }

    // ------------------------------------------------------------------ views

    function testViewsOfUnknownMarket() public {
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.MarketNotFound.selector, 3));
        market.getMarket(3);
        vm.expectRevert(abi.encodeWithSelector(ResolutionMarket.MarketNotFound.selector, 3));
        market.getWorkers(3);
        (uint64 c, uint8 a, uint8 b, uint8 d) = market.getReputation(999);
        assertEq(uint256(c) + a + b + d, 0, "empty reputation");
        (uint256 cursor, uint256 pending) = market.feedbackStatus(3);
        assertEq(cursor + pending, 0, "no feedback");
        assertEq(market.pendingWithdrawal(stranger), 0, "nothing owed");
        assertTrue(market.isResolver(resolver), "resolver");
    }

    function testReputationAveragesAcrossMarkets() public {
        uint256 id1 = _createMarket();
        (address[] memory ws, uint256[] memory ids) = _joinFresh(id1, 1, 0);
        _request(market, id1);
        vm.prank(resolver);
        market.resolveMarket(id1, ws, _ones(1), _scores(1, 100, 0, 51), true, HASH, URI);
        uint256 id2 = _createMarket();
        vm.prank(ws[0]);
        market.joinMarket{value: STAKE}(id2, ids[0]);
        _request(market, id2);
        vm.prank(resolver);
        market.resolveMarket(id2, ws, _ones(1), _scores(1, 50, 100, 50), true, HASH, URI);
        (uint64 count, uint8 r, uint8 s, uint8 d) = market.getReputation(ids[0]);
        assertEq(uint256(count), 2, "count");
        assertEq(uint256(r), 75, "res avg");
        assertEq(uint256(s), 50, "src avg");
        assertEq(uint256(d), 50, "depth avg floors 50.5");
    }

    // ------------------------------------------------------------------ EIP-150 guard

    function testFeedbackCallRefusesToRunWithoutItsFullGasCap() public {
        ResolutionMarketHarness h = new ResolutionMarketHarness(address(identity), address(reputation), owner);
        vm.expectRevert(abi.encodeWithSelector(ReputationFeedback.FeedbackGasTooLow.selector));
        h.exposedGiveFeedback{gas: 250_000}(1);
        // With enough gas the call is made (and fails inside the registry: agent 1 does not exist).
        vmx.recordLogs();
        h.exposedGiveFeedback{gas: 1_000_000}(1);
        assertEq(_countFeedbackFailed(vmx.getRecordedLogs()), 1, "made and failed gracefully");
    }
}
