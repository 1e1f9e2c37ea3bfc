// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {IdentityRegistry} from "../../contracts/erc8004/IdentityRegistry.sol";
import {ReputationRegistry} from "../../contracts/erc8004/ReputationRegistry.sol";
import {IIdentityRegistry} from "../../contracts/erc8004/interfaces/IIdentityRegistry.sol";
import {IReputationRegistry} from "../../contracts/erc8004/interfaces/IReputationRegistry.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {ResolutionMarket} from "../../contracts/market/ResolutionMarket.sol";
import {ReputationFeedback} from "../../contracts/market/ReputationFeedback.sol";
import {MarketFixture, VmExtra} from "./market/MarketFixture.sol";
import {
    FeedbackSink,
    RevertingReputationRegistry,
    GasBurningReputationRegistry,
    ReturnBombReputationRegistry,
    GasRecordingReputationRegistry,
    ReentrantReputationRegistry,
    SimpleIdentityRegistry
} from "./market/MarketMocks.sol";

/// @notice ERC-8004 feedback must never block settlement: hostile registries, starving callers, 100 workers.
contract ResolutionMarketFeedbackTest is MarketFixture {
    SimpleIdentityRegistry internal simple;

    function setUp() public override {
        super.setUp();
        simple = new SimpleIdentityRegistry();
    }

    /// @dev A market on `rep` with `n` workers (agent ids 1..n of the simple identity registry), requested.
    function _hostile(FeedbackSink rep, uint256 n)
        internal
        returns (ResolutionMarket m, uint256 id, address[] memory ws)
    {
        m = _deployMarket(IIdentityRegistry(address(simple)), IReputationRegistry(address(rep)));
        id = _createMarketOn(m, POOL);
        ws = _joinSimple(m, id, n);
        _request(m, id);
    }

    function _joinSimple(ResolutionMarket m, uint256 id, uint256 n) internal returns (address[] memory ws) {
        ws = new address[](n);
        for (uint256 i; i < n; ++i) {
            address w = _worker(500 + i);
            simple.setController(i + 1, w);
            vm.deal(w, 10 ether);
            vm.prank(w);
            m.joinMarket{value: STAKE}(id, i + 1);
            ws[i] = w;
        }
    }

    function _assertFullySettled(ResolutionMarket m, address[] memory ws, uint256 pool) internal view {
        uint256 sum = m.pendingWithdrawal(creator);
        for (uint256 i; i < ws.length; ++i) {
            assertTrue(m.pendingWithdrawal(ws[i]) >= STAKE, "stake back");
            sum += m.pendingWithdrawal(ws[i]);
        }
        assertEq(sum, pool + STAKE * ws.length, "everything credited");
        assertEq(address(m).balance, sum, "balance == owed");
    }

    function testRevertingRegistryDoesNotBlockSettlement() public {
        RevertingReputationRegistry rep = new RevertingReputationRegistry();
        (ResolutionMarket m, uint256 id, address[] memory ws) = _hostile(rep, 3);
        vm.expectEmit(address(m));
        emit ReputationFeedback.FeedbackFailed(
            id, 1, "resolution_quality", abi.encodeWithSelector(RevertingReputationRegistry.Nope.selector, 1)
        );
        vmx.recordLogs();
        _resolve(m, id, ws, _ones(3));
        assertEq(_countFeedbackFailed(vmx.getRecordedLogs()), 9, "every record failed, each reported");
        assertEq(uint256(m.getMarket(id).status), uint256(IResolutionMarket.Status.Resolved), "resolved");
        (uint256 cursor, uint256 pending) = m.feedbackStatus(id);
        assertEq(cursor, 3, "cursor advanced past failures");
        assertEq(pending, 0, "nothing pending");
        _assertFullySettled(m, ws, POOL);
        // And everybody can withdraw.
        for (uint256 i; i < 3; ++i) {
            vm.prank(ws[i]);
            m.withdraw();
        }
    }

    function testGasBurningRegistryDoesNotBlockSettlement() public {
        GasBurningReputationRegistry rep = new GasBurningReputationRegistry();
        (ResolutionMarket m, uint256 id, address[] memory ws) = _hostile(rep, 12);
        vmx.recordLogs();
        vm.prank(resolver);
        m.resolveMarket{gas: 8_000_000}(id, ws, _ones(12), _scores(12, 1, 2, 3), true, HASH, URI);
        (uint256 cursor, uint256 pending) = m.feedbackStatus(id);
        assertTrue(cursor > 0 && cursor < 10, "inline loop stopped early for lack of gas");
        assertEq(_countFeedbackFailed(vmx.getRecordedLogs()), 3 * cursor, "each burnt call reported");
        assertEq(pending, 12 - cursor, "rest pending");
        _assertFullySettled(m, ws, POOL);

        uint256 rounds;
        while (pending > 0) {
            uint256 before = gasleft();
            m.publishFeedback{gas: 10_000_000}(id, 100);
            assertTrue(before - gasleft() < 10_000_000, "publish tx under 10M");
            (, pending) = m.feedbackStatus(id);
            ++rounds;
        }
        assertTrue(rounds >= 1, "published later");
    }

    function testReturnDataBombIsTruncated() public {
        ReturnBombReputationRegistry rep = new ReturnBombReputationRegistry();
        (ResolutionMarket m, uint256 id, address[] memory ws) = _hostile(rep, 1);
        vm.expectEmit(address(m));
        emit ReputationFeedback.FeedbackFailed(id, 1, "resolution_quality", new bytes(256));
        _resolve(m, id, ws, _ones(1));
        _assertFullySettled(m, ws, POOL);
    }

    function testReentrantRegistryIsBlockedAndReported() public {
        ReentrantReputationRegistry rep = new ReentrantReputationRegistry();
        (ResolutionMarket m, uint256 id, address[] memory ws) = _hostile(rep, 2);
        rep.arm(m, id);
        vm.expectEmit(address(m));
        emit ReputationFeedback.FeedbackFailed(
            id,
            1,
            "resolution_quality",
            abi.encodeWithSelector(ReentrancyGuardTransient.ReentrancyGuardReentrantCall.selector)
        );
        _resolve(m, id, ws, _ones(2));
        assertTrue(!rep.reentered(), "re-entry failed");
        _assertFullySettled(m, ws, POOL);
    }

    /// @notice A caller that sends just enough gas to settle cannot turn feedback into failures: every call
    ///         that is made receives the full cap, the rest stays pending.
    function testStarvingCallerCannotForceFeedbackFailures() public {
        uint256 cap = market.FEEDBACK_CALL_GAS();
        // The callee reads gasleft() after its dispatcher and ABI decoding (~1.4k gas after the CALL).
        GasRecordingReputationRegistry rep = new GasRecordingReputationRegistry(cap - 2_500, 150_000);
        ResolutionMarket m = _deployMarket(IIdentityRegistry(address(simple)), IReputationRegistry(address(rep)));
        uint256 partial_;
        uint256 full;
        uint256 reverted;
        uint256 expectedCalls;
        for (uint256 g = 250_000; g < 6_000_000; g += 111_111) {
            uint256 id = _createMarketOn(m, POOL);
            address[] memory ws = _joinSimple(m, id, 10);
            _request(m, id);
            vm.prank(resolver);
            try m.resolveMarket{gas: g}(id, ws, _ones(10), _scores(10, 5, 6, 7), true, HASH, URI) {
                (uint256 cursor,) = m.feedbackStatus(id);
                expectedCalls += 3 * cursor;
                if (cursor == 10) ++full;
                else ++partial_;
                // Deferred feedback is still published later, in full.
                while (true) {
                    (, uint256 pending) = m.feedbackStatus(id);
                    if (pending == 0) break;
                    uint256 done = m.publishFeedback{gas: 2_000_000}(id, 100);
                    expectedCalls += 3 * done;
                }
            } catch {
                ++reverted; // out of gas before the state was even written: nothing happened
                vm.prank(resolver);
                m.settleInvalid(id, HASH, URI);
            }
            assertEq(rep.starvedCalls(), 0, "no call ever got less than its cap");
            assertEq(rep.calls(), expectedCalls, "every processed record made exactly one call");
        }
        assertTrue(partial_ > 0 && full > 0 && reverted > 0, "all three regimes exercised");
        assertTrue(rep.minGasSeen() >= cap - 2_500, "min gas at entry");
    }

    /// @notice Starving publishFeedback: also never a failure, and the cursor only moves over made calls.
    function testStarvingPublishFeedback() public {
        GasRecordingReputationRegistry rep =
            new GasRecordingReputationRegistry(market.FEEDBACK_CALL_GAS() - 2_500, 100_000);
        (ResolutionMarket m, uint256 id, address[] memory ws) = _hostile(rep, 30);
        vm.prank(resolver);
        m.resolveMarket{gas: 2_000_000}(id, ws, _ones(30), _scores(30, 9, 9, 9), true, HASH, URI);
        (uint256 cursor, uint256 pending) = m.feedbackStatus(id);
        assertTrue(cursor < 2, "starved settle: feedback deferred");
        assertEq(pending, 30 - cursor, "pending");
        uint256 total = cursor;
        for (uint256 g = 150_000; total < 30; g += 200_000) {
            try m.publishFeedback{gas: g}(id, 30) returns (uint256 done) {
                total += done;
            } catch {}
            assertEq(rep.starvedCalls(), 0, "never starved");
            assertEq(rep.calls(), 3 * total, "calls match the cursor");
        }
        for (uint256 i = 1; i <= 30; ++i) assertEq(rep.perAgent(i), 3, "three records per agent");
    }

    function testSelfFeedbackRuleIsTolerated() public {
        uint256 id = _createMarket();
        (address[] memory ws, uint256[] memory ids) = _joinFresh(id, 2, 0);
        // Worker 0 makes the registry refuse our feedback by approving the market as its operator.
        vm.prank(ws[0]);
        IdentityRegistry(address(identity)).setApprovalForAll(address(market), true);
        _request(market, id);
        vm.expectEmit(address(market));
        emit ReputationFeedback.FeedbackFailed(
            id,
            ids[0],
            "resolution_quality",
            abi.encodeWithSelector(ReputationRegistry.SelfFeedbackNotAllowed.selector, ids[0], address(market))
        );
        _resolve(market, id, ws, _ones(2));
        assertEq(uint256(reputation.getLastIndex(ids[0], address(market))), 0, "refused");
        assertEq(uint256(reputation.getLastIndex(ids[1], address(market))), 3, "others unaffected");
        assertEq(market.pendingWithdrawal(ws[0]), STAKE + POOL / 2, "paid anyway");
    }

    /// @notice 100 workers on the real registries: every transaction below 10M gas, everything published.
    function testHundredWorkersSettleAndPublish() public {
        uint256 id = _createMarket();
        (address[] memory ws, uint256[] memory ids) = _joinFresh(id, 100, 0);
        _request(market, id);
        uint256[] memory weights = new uint256[](100);
        for (uint256 i; i < 100; ++i) weights[i] = (i * 7919) % 13;
        uint8[] memory scores = new uint8[](300);
        for (uint256 i; i < 300; ++i) scores[i] = uint8((i * 31) % 101);
        uint256 before = gasleft();
        vm.prank(resolver);
        market.resolveMarket{gas: 10_000_000}(id, ws, weights, scores, true, HASH, URI);
        uint256 settleGas = before - gasleft();
        assertTrue(settleGas < 10_000_000, "settle < 10M");
        (uint256 cursor, uint256 pending) = market.feedbackStatus(id);
        assertEq(cursor, 10, "inline feedback done");
        while (pending > 0) {
            before = gasleft();
            market.publishFeedback{gas: 10_000_000}(id, 40);
            assertTrue(before - gasleft() < 10_000_000, "publish < 10M");
            (, pending) = market.feedbackStatus(id);
        }
        for (uint256 i; i < 100; ++i) {
            assertEq(uint256(reputation.getLastIndex(ids[i], address(market))), 3, "3 records each");
            (uint64 count, uint8 r, uint8 s, uint8 d) = market.getReputation(ids[i]);
            assertEq(uint256(count), 1, "count");
            assertEq(uint256(r), scores[3 * i], "res");
            assertEq(uint256(s), scores[3 * i + 1], "src");
            assertEq(uint256(d), scores[3 * i + 2], "depth");
        }
        uint256 sum = market.pendingWithdrawal(creator);
        for (uint256 i; i < 100; ++i) sum += market.pendingWithdrawal(ws[i]);
        assertEq(sum, POOL + 100 * STAKE, "conservation");
        assertEq(address(market).balance, sum, "balance");
    }
}
