// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {IdentityRegistry} from "../../contracts/erc8004/IdentityRegistry.sol";
import {ReputationRegistry} from "../../contracts/erc8004/ReputationRegistry.sol";
import {IIdentityRegistry} from "../../contracts/erc8004/interfaces/IIdentityRegistry.sol";
import {IReputationRegistry} from "../../contracts/erc8004/interfaces/IReputationRegistry.sol";
import {IMarketReputation} from "../../contracts/market/interfaces/IMarketReputation.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {ResolutionMarket} from "../../contracts/market/ResolutionMarket.sol";
import {MarketFixture, VmExtra} from "./market/MarketFixture.sol";
import {_gov, _rep} from "./market/Split.sol";
import {
    FeedbackSink,
    RevertingReputationRegistry,
    GasBurningReputationRegistry,
    ReturnBombReputationRegistry,
    GasRecordingReputationRegistry,
    ReentrantReputationRegistry,
    SimpleIdentityRegistry,
    MarketReputationHarness
} from "./market/MarketMocks.sol";

/// @notice ERC-8004 feedback must never block finalization: hostile registries, starving callers, 100 seats.
contract ResolutionMarketFeedbackTest is MarketFixture {
    SimpleIdentityRegistry internal simple;
    IResolutionMarket.Answer internal constant YES = IResolutionMarket.Answer.Yes;
    IResolutionMarket.Verdict internal constant V_YES = IResolutionMarket.Verdict.Yes;

    function setUp() public override {
        super.setUp();
        simple = new SimpleIdentityRegistry();
    }

    /// @dev A market on `rep` with `n` seats (agent ids 1..n of the simple identity registry), proposed YES
    ///      with every seat answering YES, window over (ready to finalize).
    function _hostile(FeedbackSink rep, uint256 n) internal returns (ResolutionMarket m, uint256 id, address[] memory ws) {
        m = _deployMarket(IIdentityRegistry(address(simple)), IReputationRegistry(address(rep)));
        id = _createMarketOn(m, POOL);
        ws = _joinSimple(m, id, n);
        _request(m, id);
        _propose(m, id, V_YES, _uniform(n, YES));
        _warpPastWindow(m, id);
    }

    function _joinSimple(ResolutionMarket m, uint256 id, uint256 n) internal returns (address[] memory ws) {
        ws = new address[](n);
        for (uint256 i; i < n; ++i) {
            address w = _worker(500 + i);
            simple.setController(i + 1, w);
            simple.setWallet(i + 1, w); // its answers are signed (`_propose` signs them): records are written
            _workerKeys[w] = _workerKey(500 + i);
            vm.deal(w, 10 ether);
            vm.prank(w);
            m.joinMarket{value: STAKE}(id, i + 1);
            ws[i] = w;
        }
    }

    function _assertFullySettled(ResolutionMarket m, address[] memory ws, uint256 pool) internal view {
        uint256 sum = m.pendingWithdrawal(creator) + m.pendingWithdrawal(resolver);
        for (uint256 i; i < ws.length; ++i) {
            assertTrue(m.pendingWithdrawal(ws[i]) >= STAKE, "stake back");
            sum += m.pendingWithdrawal(ws[i]);
        }
        assertEq(sum, pool + STAKE * ws.length + BOND, "everything credited");
        assertEq(address(m).balance, sum, "balance == owed");
    }

    function testRevertingRegistryDoesNotBlockFinalization() public {
        RevertingReputationRegistry rep = new RevertingReputationRegistry();
        (ResolutionMarket m, uint256 id, address[] memory ws) = _hostile(rep, 3);
        vm.expectEmit(address(_rep(m)));
        emit IMarketReputation.FeedbackFailed(
            id, 1, "correctness", abi.encodeWithSelector(RevertingReputationRegistry.Nope.selector, 1)
        );
        vmx.recordLogs();
        m.finalize(id);
        assertEq(_countFeedbackFailed(vmx.getRecordedLogs()), 6, "every record failed, each reported");
        assertEq(uint256(m.getMarket(id).status), uint256(IResolutionMarket.Status.Resolved), "resolved");
        (uint256 cursor, uint256 pending) = m.reputation().feedbackStatus(id);
        assertEq(cursor, 3, "cursor advanced past failures");
        assertEq(pending, 0, "nothing waiting for publishFeedback");
        (bool c, bool q) = m.reputation().pendingFeedback(id, 0);
        assertTrue(c && q, "failed records stay pending for retryFeedback");
        _assertFullySettled(m, ws, POOL);
        for (uint256 i; i < 3; ++i) {
            vm.prank(ws[i]);
            m.withdraw();
        }
        // Retrying against a registry that still refuses keeps them pending.
        assertEq(m.reputation().retryFeedback(id, 1), 0, "nothing written");
        (c, q) = m.reputation().pendingFeedback(id, 1);
        assertTrue(c && q, "still pending");
    }

    function testGasBurningRegistryDoesNotBlockFinalization() public {
        GasBurningReputationRegistry rep = new GasBurningReputationRegistry();
        (ResolutionMarket m, uint256 id, address[] memory ws) = _hostile(rep, 12);
        vmx.recordLogs();
        m.finalize{gas: 5_000_000}(id);
        (uint256 cursor, uint256 pending) = m.reputation().feedbackStatus(id);
        assertTrue(cursor > 0 && cursor < 10, "inline loop stopped early for lack of gas");
        assertEq(_countFeedbackFailed(vmx.getRecordedLogs()), 2 * cursor, "each burnt call reported");
        assertEq(pending, 12 - cursor, "rest pending");
        _assertFullySettled(m, ws, POOL);
        uint256 rounds;
        while (pending > 0) {
            uint256 before = gasleft();
            m.reputation().publishFeedback{gas: 10_000_000}(id, 100);
            assertTrue(before - gasleft() < 10_000_000, "publish tx under 10M");
            (, pending) = m.reputation().feedbackStatus(id);
            ++rounds;
        }
        assertTrue(rounds >= 1, "published later");
    }

    function testReturnDataBombIsTruncated() public {
        ReturnBombReputationRegistry rep = new ReturnBombReputationRegistry();
        (ResolutionMarket m, uint256 id, address[] memory ws) = _hostile(rep, 1);
        vm.expectEmit(address(_rep(m)));
        emit IMarketReputation.FeedbackFailed(id, 1, "correctness", new bytes(256));
        m.finalize(id);
        _assertFullySettled(m, ws, POOL);
    }

    function testReentrantRegistryIsBlockedAndReported() public {
        ReentrantReputationRegistry rep = new ReentrantReputationRegistry();
        (ResolutionMarket m, uint256 id, address[] memory ws) = _hostile(rep, 2);
        rep.arm(m, id);
        vm.expectEmit(address(_rep(m)));
        emit IMarketReputation.FeedbackFailed(
            id, 1, "correctness", abi.encodeWithSelector(ReentrancyGuardTransient.ReentrancyGuardReentrantCall.selector)
        );
        m.finalize(id);
        assertTrue(!rep.reentered(), "re-entry failed");
        _assertFullySettled(m, ws, POOL);
    }

    /// @notice A caller that sends just enough gas to finalize cannot turn feedback into failures: every call
    ///         that is made receives the full cap, the rest stays pending for publishFeedback.
    function testStarvingCallerCannotForceFeedbackFailures() public {
        uint256 cap = writer.FEEDBACK_CALL_GAS();
        // The callee reads gasleft() after its dispatcher and ABI decoding (~1.4k gas after the CALL).
        GasRecordingReputationRegistry rep = new GasRecordingReputationRegistry(cap - 2_500, 150_000);
        ResolutionMarket m = _deployMarket(IIdentityRegistry(address(simple)), IReputationRegistry(address(rep)));
        uint256 partial_;
        uint256 full;
        uint256 reverted;
        uint256 expectedCalls;
        for (uint256 g = 250_000; g < 5_000_000; g += 150_001) {
            uint256 id = _createMarketOn(m, POOL);
            _joinSimple(m, id, 10);
            _request(m, id);
            _propose(m, id, V_YES, _uniform(10, YES));
            _warpPastWindow(m, id);
            try m.finalize{gas: g}(id) {
                (uint256 cursor,) = m.reputation().feedbackStatus(id);
                expectedCalls += 2 * cursor;
                if (cursor == 10) ++full;
                else ++partial_;
                while (true) {
                    (, uint256 pending) = m.reputation().feedbackStatus(id);
                    if (pending == 0) break;
                    uint256 done = m.reputation().publishFeedback{gas: 2_000_000}(id, 100);
                    expectedCalls += 2 * done;
                }
            } catch {
                ++reverted; // out of gas before anything was written: the market stays Proposed
                assertEq(uint256(m.getMarket(id).status), uint256(IResolutionMarket.Status.Proposed), "untouched");
                m.finalize(id);
                (uint256 cursor,) = m.reputation().feedbackStatus(id);
                expectedCalls += 2 * cursor;
            }
            assertEq(rep.starvedCalls(), 0, "no call ever got less than its cap");
            assertEq(rep.calls(), expectedCalls, "every processed record made exactly one call");
        }
        assertTrue(partial_ > 0 && full > 0 && reverted > 0, "all three regimes exercised");
        assertTrue(rep.minGasSeen() >= cap - 2_500, "min gas at entry");
    }

    /// @notice Starving publishFeedback: also never a failure, and the cursor only moves over made calls.
    function testStarvingPublishFeedback() public {
        GasRecordingReputationRegistry rep = new GasRecordingReputationRegistry(writer.FEEDBACK_CALL_GAS() - 2_500, 100_000);
        (ResolutionMarket m, uint256 id,) = _hostile(rep, 30);
        m.finalize{gas: 2_500_000}(id);
        (uint256 cursor, uint256 pending) = m.reputation().feedbackStatus(id);
        assertTrue(cursor < 2, "starved finalize: feedback deferred");
        assertEq(pending, 30 - cursor, "pending");
        uint256 total = cursor;
        for (uint256 g = 150_000; total < 30; g += 200_000) {
            try m.reputation().publishFeedback{gas: g}(id, 30) returns (uint256 done) {
                total += done;
            } catch {}
            assertEq(rep.starvedCalls(), 0, "never starved");
            assertEq(rep.calls(), 2 * total, "calls match the cursor");
        }
        for (uint256 i = 1; i <= 30; ++i) assertEq(rep.perAgent(i), 2, "two records per answered seat");
    }

    /// @notice The defensive guard inside the single call: a direct call without the full cap reverts.
    function testFeedbackCallGuardReverts() public {
        MarketReputationHarness h = new MarketReputationHarness(address(reputation));
        uint256 needed = writer.FEEDBACK_CALL_GAS() + writer.FEEDBACK_CALL_GAS() / 63 + 3_600;
        vm.expectRevert(IMarketReputation.FeedbackGasTooLow.selector);
        h.exposedGiveFeedback{gas: needed - 10_000}(1);
    }

    /// @notice retryFeedback refuses a starving caller instead of turning a retry into a failure.
    function testRetryFeedbackNeedsFullGas() public {
        RevertingReputationRegistry rep = new RevertingReputationRegistry();
        (ResolutionMarket m, uint256 id,) = _hostile(rep, 1);
        m.finalize(id);
        IMarketReputation w = m.reputation();
        vm.expectRevert(IMarketReputation.FeedbackGasTooLow.selector);
        w.retryFeedback{gas: 300_000}(id, 0);
    }

    /// @notice 100 seats on the real registries: propose and finalize each < 2^24 gas (EIP-7825), every
    ///         publish < 10M, 2 records per seat, reputation and conservation exact.
    function testHundredWorkersProposeFinalizeAndPublish() public {
        uint256 id = _createMarket();
        (address[] memory ws, uint256[] memory ids) = _joinFresh(id, 100, 0);
        _request(market, id);
        IResolutionMarket.WorkerReport[] memory reports = new IResolutionMarket.WorkerReport[](100);
        for (uint256 i; i < 100; ++i) {
            reports[i] = _report(
                i % 4 == 0 ? IResolutionMarket.Answer.No : YES,
                uint16(5_000 + (i * 97) % 5_001),
                uint8((i * 31) % 101),
                uint8((i * 17) % 101),
                uint8((i * 53) % 101)
            );
        }
        _signReports(market, id, reports); // every seat signed by its agent (the records' path)
        uint256 before = gasleft();
        vm.prank(resolver);
        market.proposeResolution{value: BOND, gas: 16_777_216}(id, V_YES, reports, HASH, URI);
        uint256 proposeGas = before - gasleft();
        assertTrue(proposeGas < 16_777_216, "propose < 2^24");
        _warpPastWindow(market, id);
        before = gasleft();
        market.finalize{gas: 16_777_216}(id);
        uint256 finalizeGas = before - gasleft();
        assertTrue(finalizeGas < 16_777_216, "finalize < 2^24");
        (uint256 cursor, uint256 pending) = market.reputation().feedbackStatus(id);
        assertEq(cursor, 10, "inline feedback done");
        while (pending > 0) {
            before = gasleft();
            market.reputation().publishFeedback{gas: 10_000_000}(id, 40);
            assertTrue(before - gasleft() < 10_000_000, "publish < 10M");
            (, pending) = market.reputation().feedbackStatus(id);
        }
        for (uint256 i; i < 100; ++i) {
            assertEq(uint256(reputation.getLastIndex(ids[i], address(writer))), 2, "2 records each");
            IResolutionMarket.Reputation memory r = market.getReputation(ids[i]);
            assertEq(uint256(r.settled), 1, "settled");
            assertEq(
                uint256(r.correctness),
                writer.correctnessOf(reports[i].answer, reports[i].confidenceBps, true),
                "correctness"
            );
            assertEq(uint256(r.resQuality), uint256(r.correctness), "resQuality = correctness");
        }
        uint256 sum = market.pendingWithdrawal(creator) + market.pendingWithdrawal(resolver);
        for (uint256 i; i < 100; ++i) sum += market.pendingWithdrawal(ws[i]);
        assertEq(sum, POOL + 100 * STAKE + BOND, "conservation");
        assertEq(address(market).balance, sum, "balance");
    }
}
