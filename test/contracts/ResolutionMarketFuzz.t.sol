// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IIdentityRegistry} from "../../contracts/erc8004/interfaces/IIdentityRegistry.sol";
import {IReputationRegistry} from "../../contracts/erc8004/interfaces/IReputationRegistry.sol";
import {ReportCodec} from "../../contracts/market/libraries/ReportCodec.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {ResolutionMarket} from "../../contracts/market/ResolutionMarket.sol";
import {MarketFixture} from "./market/MarketFixture.sol";
import {TestArbiter} from "./market/TestArbiter.sol";
import {MarketGovernance} from "../../contracts/market/MarketGovernance.sol";
import {SettlementMathHarness, SimpleIdentityRegistry, GasRecordingReputationRegistry} from "./market/MarketMocks.sol";
import {_gov, _rep} from "./market/Split.sol";

/// @notice Fuzz tests of the settlement math, alone and through the market (every path, slashing included).
contract ResolutionMarketFuzzTest is MarketFixture {
    SettlementMathHarness internal math;
    SimpleIdentityRegistry internal simple;
    ResolutionMarket internal cheap; // simple identity + a no-op reputation registry: fast fuzzing
    TestArbiter internal fallbackArbiter; // cheap's fallback: rules a dispute its arbiter left silent

    function setUp() public override {
        super.setUp();
        math = new SettlementMathHarness();
        simple = new SimpleIdentityRegistry();
        GasRecordingReputationRegistry sink = new GasRecordingReputationRegistry(0, 0);
        cheap = _deployMarket(IIdentityRegistry(address(simple)), IReputationRegistry(address(sink)));
        fallbackArbiter = new TestArbiter();
        MarketGovernance cheapGov = _gov(cheap);
        vm.prank(owner);
        cheapGov.queueFallbackArbiter(address(fallbackArbiter)); // bootstrap: at once
        for (uint256 i = 1; i <= 30; ++i) {
            simple.setController(i, _worker(i));
            simple.setWallet(i, _worker(i)); // the fixture signs the seats it does not leave attested
            vm.deal(_worker(i), 1_000_000 ether);
        }
    }

    function _rand(uint256 seed, uint256 i) internal pure returns (uint256) {
        return uint256(keccak256(abi.encode(seed, i)));
    }

    // ------------------------------------------------------------------ SettlementMath alone

    function testFuzzSplitConservesPoolToTheWei(uint256 pool, uint256 seed, uint8 nRaw) public view {
        pool = pool % (uint256(1) << 96);
        uint256 n = 1 + (uint256(nRaw) % 100);
        uint256[] memory w = new uint256[](n);
        for (uint256 i; i < n; ++i) {
            uint256 r = _rand(seed, i);
            w[i] = r % 4 == 0 ? 0 : (r >> 8) % 90_001; // the range of rewardWeight
        }
        (uint256[] memory payouts, uint256 total) = math.split(pool, w);
        uint256 sumW;
        uint256 lead;
        for (uint256 i; i < n; ++i) {
            sumW += w[i];
            if (w[i] > w[lead]) lead = i;
        }
        assertEq(total, sumW, "total weight");
        uint256 sum;
        for (uint256 i; i < n; ++i) {
            sum += payouts[i];
            uint256 fair = total == 0 ? 0 : (pool * w[i]) / total;
            if (i == lead && total != 0) assertTrue(payouts[i] >= fair && payouts[i] - fair < n, "lead: fair + dust");
            else assertEq(payouts[i], fair, "floor share");
        }
        assertEq(sum, total == 0 ? 0 : pool, "sum == pool to the wei");
    }

    /// @notice The correctness formula against an independent derivation: q = probability the answer gave the
    ///         actual outcome, Brier = (1 − q)², correctness = round(100 · (1 − Brier)).
    function testFuzzCorrectnessMatchesBrier(uint16 conf, bool yes, bool outcome) public view {
        uint256 c = 5_000 + (uint256(conf) % 5_001);
        IResolutionMarket.Answer a = yes ? IResolutionMarket.Answer.Yes : IResolutionMarket.Answer.No;
        uint256 q = (yes == outcome) ? c : 10_000 - c;
        uint256 miss = 10_000 - q; // 1 - q in bps
        uint256 expected = (100 * (100_000_000 - miss * miss) + 50_000_000) / 100_000_000;
        uint256 got = writer.correctnessOf(a, uint16(c), outcome);
        assertEq(got, expected, "100(1 - Brier) rounded");
        if (yes == outcome) assertTrue(got >= 75, "a right answer scores >= 75");
        else assertTrue(got <= 75, "a wrong answer scores <= 75");
    }

    function testFuzzPackReportRoundTrip(uint8 answerRaw, uint16 conf, uint8 a, uint8 b, uint8 d, bool signed)
        public
        view
    {
        IResolutionMarket.Answer answer = IResolutionMarket.Answer(answerRaw % 4);
        IResolutionMarket.WorkerReport memory r;
        r.answer = answer;
        if (answer == IResolutionMarket.Answer.Yes || answer == IResolutionMarket.Answer.No) {
            r.confidenceBps = uint16(5_000 + conf % 5_001);
            r.resQuality = a % 101;
            r.srcQuality = b % 101;
            r.analysisDepth = d % 101;
        }
        ReportCodec.Report memory back = math.decodeReport(math.packReport(r, 0, signed));
        assertEq(back.signed, signed, "signed");
        assertTrue(!back.refused, "flags clear");
        assertEq(uint256(back.answer), uint256(r.answer), "answer");
        assertEq(uint256(back.confidenceBps), r.confidenceBps, "conf");
        assertEq(uint256(back.resQuality), r.resQuality, "res");
        assertEq(uint256(back.srcQuality), r.srcQuality, "src");
        assertEq(uint256(back.analysisDepth), r.analysisDepth, "depth");
    }

    /// @notice Every named field survives encode/decode, flags included, and no field bleeds into another.
    function testFuzzReportCodecRoundTrip(
        uint8 answerRaw,
        uint16 conf,
        uint8 a,
        uint8 b,
        uint8 d,
        bool refused,
        bool signed
    ) public view {
        ReportCodec.Report memory r = ReportCodec.Report(
            IResolutionMarket.Answer(answerRaw % 4), conf, a, b, d, refused, signed
        );
        ReportCodec.Report memory back = math.decodeReport(math.encodeReport(r));
        assertEq(uint256(back.answer), uint256(r.answer), "answer");
        assertEq(uint256(back.confidenceBps), conf, "conf");
        assertEq(uint256(back.resQuality), a, "res");
        assertEq(uint256(back.srcQuality), b, "src");
        assertEq(uint256(back.analysisDepth), d, "depth");
        assertEq(back.refused, refused, "refused");
        assertEq(back.signed, signed, "signed");
    }

    // ------------------------------------------------------------------ through the market

    struct Run {
        uint256 id;
        uint256 n;
        uint256 pool;
        uint256 stakes;
        uint256 bonds;
        uint256 path;
        IResolutionMarket.WorkerReport[] reports;
    }

    function _randomReports(uint256 seed, uint256 n, IResolutionMarket.Verdict verdict)
        internal
        pure
        returns (IResolutionMarket.WorkerReport[] memory r)
    {
        r = new IResolutionMarket.WorkerReport[](n);
        bool answered;
        for (uint256 i; i < n; ++i) {
            uint256 x = uint256(keccak256(abi.encode(seed, "report", i)));
            IResolutionMarket.Answer a = IResolutionMarket.Answer(x % 4);
            if (a == IResolutionMarket.Answer.Yes || a == IResolutionMarket.Answer.No) {
                answered = true;
                r[i] = IResolutionMarket.WorkerReport(
                    a, uint16(5_000 + (x >> 8) % 5_001), uint8((x >> 24) % 101), uint8((x >> 32) % 101), uint8((x >> 40) % 101)
                , bytes32(0), "");
            } else {
                r[i].answer = a;
            }
        }
        if (!answered && verdict != IResolutionMarket.Verdict.Invalid) {
            r[0] = IResolutionMarket.WorkerReport(IResolutionMarket.Answer.Yes, 10_000, 0, 0, 0, bytes32(0), "");
        }
    }

    /// @notice Random pool, stakes, reports, refusals, proposer (the resolver, or anyone once the grace period is
    ///         over) and a random final path (undisputed finalize, dispute ruled Yes/No/Invalid with slashing,
    ///         escalation to the fallback arbiter which rules, refuses or stays silent, two-step cancel): every wei
    ///         that came in (pool + stakes + both bonds) is credited to someone, the balance equals the credits, and
    ///         each seat gets stake + reward unless slashed (then its stake is the dispute winner's); a random subset of
    ///         the seats is attested (unsigned) and is never slashed.
    function testFuzzFundsConservation(uint256 seed, uint8 nRaw, uint8 pathRaw) public {
        Run memory run;
        run.n = 1 + (uint256(nRaw) % 30);
        run.path = uint256(pathRaw) % 8;
        run.pool = _gov(cheap).MIN_REWARD_POOL() + _rand(seed, 1) % 1_000 ether;
        vm.prank(creator);
        run.id = cheap.createMarket{value: run.pool}(QUESTION, uint64(block.timestamp + 1 days));
        for (uint256 i; i < run.n; ++i) {
            uint256 stake = 0.001 ether + _rand(seed, 100 + i) % 5 ether;
            vm.prank(_worker(i + 1));
            cheap.joinMarket{value: stake}(run.id, i + 1);
            run.stakes += stake;
            // Some agents make the market their operator after joining: refused at finalization.
            if (_rand(seed, 200 + i) % 7 == 0) simple.setController(i + 1, address(cheap));
        }
        _request(cheap, run.id);
        IResolutionMarket.Verdict verdict = IResolutionMarket.Verdict(_rand(seed, 2) % 3);
        IResolutionMarket.WorkerReport[] memory reports = _randomReports(seed, run.n, verdict);
        run.reports = reports;
        // A random subset of the seats is attested (no signature): never slashed.
        _attestMask = _rand(seed, 6);

        if (run.path == 5) {
            vm.warp(block.timestamp + 3 days);
            cheap.requestCancel(run.id);
            vm.warp(block.timestamp + 1 days);
            cheap.cancelStale(run.id);
        } else {
            if (_rand(seed, 5) % 2 == 0) {
                _propose(cheap, run.id, verdict, reports);
            } else {
                // No owner stall: after the grace period anyone proposes with the bond.
                vm.warp(block.timestamp + 3 days);
                _signReports(cheap, run.id, reports); // the agents' signatures travel with any proposer's report
                vm.prank(stranger);
                cheap.proposeResolution{value: BOND}(run.id, verdict, reports, HASH, URI);
            }
            run.bonds = BOND;
            if (run.path <= 1) {
                _warpPastWindow(cheap, run.id);
                cheap.finalize(run.id);
            } else {
                _disputeAndEnd(run, seed, verdict);
            }
        }
        _checkConservation(run);
    }

    /// @dev Paths 2-3: the arbiter rules; 4: it stays silent, the fallback refuses; 5 is cancel; 6: the fallback
    ///      rules; 7: the fallback stays silent too.
    function _disputeAndEnd(Run memory run, uint256 seed, IResolutionMarket.Verdict verdict) internal {
        IResolutionMarket.Verdict claimed = IResolutionMarket.Verdict((uint256(verdict) + 1 + _rand(seed, 3) % 2) % 3);
        uint256 disputeBond = _gov(cheap).disputeBond(run.id);
        assertTrue(disputeBond * 10 >= run.pool + run.stakes, "the dispute bond covers 10 % of pool + stakes");
        vm.prank(disputer);
        cheap.dispute{value: disputeBond}(run.id, claimed);
        run.bonds = BOND + disputeBond;
        IResolutionMarket.Verdict ruling = IResolutionMarket.Verdict(_rand(seed, 4) % 3);
        if (run.path <= 3) {
            arbiter.rule(cheap, run.id, ruling);
            return;
        }
        vm.warp(block.timestamp + 30 days);
        fallbackArbiter.setRefuse(run.path == 4);
        cheap.expireDispute(run.id);
        if (run.path == 4) return; // refused hand-off: Invalid, bonds back
        assertEq(uint256(cheap.getMarket(run.id).status), uint256(IResolutionMarket.Status.Disputed), "escalated");
        if (run.path == 6) {
            fallbackArbiter.rule(cheap, run.id, ruling);
        } else {
            vm.warp(block.timestamp + 30 days);
            cheap.expireDispute(run.id);
        }
    }

    function _checkConservation(Run memory run) internal {
        IResolutionMarket.Status status = cheap.getMarket(run.id).status;
        assertTrue(
            status == IResolutionMarket.Status.Resolved || status == IResolutionMarket.Status.Invalid
                || status == IResolutionMarket.Status.Cancelled,
            "final"
        );
        uint256 credits = cheap.pendingWithdrawal(creator) + cheap.pendingWithdrawal(resolver)
            + cheap.pendingWithdrawal(disputer) + cheap.pendingWithdrawal(stranger);
        uint256 workerCredits;
        for (uint256 i; i < run.n; ++i) workerCredits += cheap.pendingWithdrawal(_worker(i + 1));
        credits += workerCredits;
        assertEq(credits, run.pool + run.stakes + run.bonds, "sum of all credits == pool + stakes + bonds");
        assertEq(address(cheap).balance, credits, "balance == what it owes");
        if (status != IResolutionMarket.Status.Resolved) {
            assertEq(workerCredits, run.stakes, "no slashing outside a Resolved market");
        } else {
            bool outcome = cheap.getMarket(run.id).outcome;
            bool arbitrated = run.path == 2 || run.path == 3 || run.path == 6;
            for (uint256 i; i < run.n; ++i) {
                IResolutionMarket.Answer a = run.reports[i].answer;
                bool wrong = (a == IResolutionMarket.Answer.Yes && !outcome) || (a == IResolutionMarket.Answer.No && outcome);
                bool signed = (_attestMask >> i) & 1 == 0;
                uint256 credit = cheap.pendingWithdrawal(_worker(i + 1));
                if (arbitrated && wrong && signed) {
                    assertEq(credit, 0, "signed wrong seat of an arbitrated market: slashed, no reward");
                }
                else assertTrue(credit > 0, "stake back (+ reward) otherwise");
            }
        }
        // Everyone withdraws: nothing is left behind.
        address[] memory all = new address[](run.n + 4);
        for (uint256 i; i < run.n; ++i) all[i] = _worker(i + 1);
        (all[run.n], all[run.n + 1], all[run.n + 2], all[run.n + 3]) = (creator, resolver, disputer, stranger);
        for (uint256 i; i < all.length; ++i) {
            if (cheap.pendingWithdrawal(all[i]) == 0) continue;
            vm.prank(all[i]);
            cheap.withdraw();
        }
        assertEq(address(cheap).balance, 0, "drained");
    }
}
