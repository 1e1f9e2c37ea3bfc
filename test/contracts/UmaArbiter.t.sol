// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TestBase} from "./utils/Vm.sol";
import {MockMarketV2} from "./mocks/MockMarketV2.sol";
import {MockOptimisticOracleV3, TestToken} from "./mocks/MockOptimisticOracleV3.sol";
import {UmaArbiter} from "../../contracts/arbiter/UmaArbiter.sol";
import {IUmaArbiter} from "../../contracts/arbiter/interfaces/IUmaArbiter.sol";
import {IOptimisticOracleV3} from "../../contracts/arbiter/interfaces/IOptimisticOracleV3.sol";
import {IArbiter} from "../../contracts/market/interfaces/IArbiter.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IArbiterMarkets} from "../../contracts/arbiter/interfaces/IArbiterMarkets.sol";

/// @dev The 5-argument expectEmit, declared here to keep the shared Vm interface untouched.
interface VmExpectEmit {
    function expectEmit(bool checkTopic1, bool checkTopic2, bool checkTopic3, bool checkData, address emitter) external;
}

contract UmaArbiterTest is TestBase {
    MockMarketV2 internal market;
    MockOptimisticOracleV3 internal oo;
    TestToken internal token;
    UmaArbiter internal arbiter;
    address internal proposer = address(0xB0);
    address internal disputer = address(0xD0);
    bytes32 internal constant HASH = keccak256("bundle");
    uint256 internal constant BOND = 500e18;
    uint64 internal constant LIVENESS = 2 hours;

    event ClaimAsserted(
        address indexed market, uint256 indexed marketId, bytes32 indexed assertionId, address disputer, uint256 umaBond, uint64 expiresAt, bytes claim
    );
    event AssertionEscalated(address indexed market, uint256 indexed marketId, bytes32 indexed assertionId);
    event AssertionSettled(
        address indexed market, uint256 indexed marketId, bytes32 indexed assertionId, bool assertedTruthfully, IResolutionMarket.Verdict ruling
    );
    event RulingDelivered(address indexed market, uint256 indexed marketId, IResolutionMarket.Verdict ruling);
    event RulingDeliveryFailed(address indexed market, uint256 indexed marketId, bytes reason);

    function setUp() public {
        market = new MockMarketV2();
        oo = new MockOptimisticOracleV3();
        token = new TestToken();
        oo.setMinimumBond(100e18);
        arbiter = new UmaArbiter(IOptimisticOracleV3(address(oo)), IERC20(address(token)), BOND, LIVENESS, _one(address(market)));
        market.setArbiter(IArbiter(address(arbiter)));
        market.setQuestion(1, "Will it rain in Paris on 2026-12-01?");
        token.mint(disputer, 10_000e18);
        vm.prank(disputer);
        token.approve(address(arbiter), type(uint256).max);
    }

    function _one(address a) internal pure returns (address[] memory m) {
        m = new address[](1);
        m[0] = a;
    }

    function _open(uint256 id) internal returns (bytes32) {
        market.openDispute(id, IResolutionMarket.Verdict.Yes, IResolutionMarket.Verdict.No, proposer, disputer, HASH, "ipfs://bundle");
        return arbiter.assertionIdOf(address(market), id);
    }

    // ---------------------------------------------------------------- construction

    function testConstructor() public view {
        assertEq(address(arbiter.oracle()), address(oo), "oracle");
        assertEq(address(arbiter.currency()), address(token), "currency");
        assertEq(arbiter.bond(), BOND, "bond");
        assertEq(uint256(arbiter.liveness()), LIVENESS, "liveness");
        assertEq(arbiter.identifier(), bytes32("ASSERT_TRUTH"), "identifier from OOv3");
        assertTrue(arbiter.isMarket(address(market)), "market");
        assertEq(arbiter.getMarkets().length, 1, "markets");
    }

    function testConstructorRejects() public {
        IOptimisticOracleV3 o = IOptimisticOracleV3(address(oo));
        IERC20 t = IERC20(address(token));
        address[] memory ms = _one(address(market));
        vm.expectRevert(IArbiterMarkets.ZeroAddress.selector);
        new UmaArbiter(IOptimisticOracleV3(address(0)), t, BOND, LIVENESS, ms);
        vm.expectRevert(IArbiterMarkets.ZeroAddress.selector);
        new UmaArbiter(o, IERC20(address(0)), BOND, LIVENESS, ms);
        vm.expectRevert(abi.encodeWithSelector(IUmaArbiter.LivenessOutOfRange.selector, uint64(599), uint64(600), uint64(7 days)));
        new UmaArbiter(o, t, BOND, 599, ms);
        vm.expectRevert(
            abi.encodeWithSelector(IUmaArbiter.LivenessOutOfRange.selector, uint64(7 days + 1), uint64(600), uint64(7 days))
        );
        new UmaArbiter(o, t, BOND, 7 days + 1, ms);
        vm.expectRevert(IArbiterMarkets.NoMarkets.selector);
        new UmaArbiter(o, t, BOND, LIVENESS, new address[](0));
        address[] memory many = new address[](21);
        for (uint256 i = 0; i < 21; ++i) {
            many[i] = address(uint160(0x2000 + i));
        }
        vm.expectRevert(abi.encodeWithSelector(IArbiterMarkets.TooManyMarkets.selector, 21, 20));
        new UmaArbiter(o, t, BOND, LIVENESS, many);
        vm.expectRevert(IArbiterMarkets.ZeroAddress.selector);
        new UmaArbiter(o, t, BOND, LIVENESS, _one(address(0)));
        address[] memory dup = new address[](2);
        (dup[0], dup[1]) = (address(market), address(market));
        vm.expectRevert(abi.encodeWithSelector(IArbiterMarkets.DuplicateMarket.selector, address(market)));
        new UmaArbiter(o, t, BOND, LIVENESS, dup);
    }

    function testConstructorRefusesWhatOOv3Refuses() public {
        // Otherwise every dispute would revert and proposals on its markets could not be challenged.
        address[] memory ms = _one(address(market));
        uint256 syncsBefore = oo.syncs();
        oo.setUnsupported(address(token), true);
        vm.expectRevert(abi.encodeWithSelector(IUmaArbiter.CurrencyNotSupported.selector, address(token)));
        new UmaArbiter(IOptimisticOracleV3(address(oo)), IERC20(address(token)), BOND, LIVENESS, ms);
        oo.setUnsupported(address(token), false);
        oo.setIdentifierUnsupported(true);
        vm.expectRevert(abi.encodeWithSelector(IUmaArbiter.IdentifierNotSupported.selector, bytes32("ASSERT_TRUTH")));
        new UmaArbiter(IOptimisticOracleV3(address(oo)), IERC20(address(token)), BOND, LIVENESS, ms);
        oo.setIdentifierUnsupported(false);
        new UmaArbiter(IOptimisticOracleV3(address(oo)), IERC20(address(token)), BOND, LIVENESS, ms);
        assertEq(oo.syncs(), syncsBefore + 1, "synced OOv3's cache before checking");
    }

    // ---------------------------------------------------------------- bond

    function testDisputeBondIsMaxOfConfiguredAndMinimum() public {
        assertEq(arbiter.disputeBond(), BOND, "configured above minimum");
        oo.setMinimumBond(800e18);
        assertEq(arbiter.disputeBond(), 800e18, "minimum above configured");
        UmaArbiter zero = new UmaArbiter(IOptimisticOracleV3(address(oo)), IERC20(address(token)), 0, LIVENESS, _one(address(market)));
        assertEq(zero.disputeBond(), 800e18, "0 = OOv3 minimum");
    }

    function testFuzzDisputeBond(uint128 configured, uint128 minimum) public {
        oo.setMinimumBond(minimum);
        UmaArbiter a =
            new UmaArbiter(IOptimisticOracleV3(address(oo)), IERC20(address(token)), configured, LIVENESS, _one(address(market)));
        assertEq(a.disputeBond(), configured > minimum ? configured : minimum, "max");
    }

    // ---------------------------------------------------------------- onDispute

    function testOnDisputeAssertsTheDisputersClaim() public {
        uint256 before = token.balanceOf(disputer);
        bytes memory expectedClaim = arbiter.claimText(
            address(market), 1, IResolutionMarket.Verdict.Yes, IResolutionMarket.Verdict.No, HASH, "ipfs://bundle"
        );
        VmExpectEmit(address(vm)).expectEmit(true, true, false, true, address(arbiter));
        emit ClaimAsserted(address(market), 1, bytes32(0), disputer, BOND, uint64(block.timestamp) + LIVENESS, expectedClaim);
        bytes32 id = _open(1);
        assertTrue(id != bytes32(0), "assertion id");
        assertEq(id, oo.lastId(), "the OOv3 id");
        assertEq(token.balanceOf(disputer), before - BOND, "bond pulled from the disputer");
        assertEq(token.balanceOf(address(oo)), BOND, "bond on OOv3");
        assertEq(token.balanceOf(address(arbiter)), 0, "nothing left here");
        assertEq(token.allowance(address(arbiter), address(oo)), 0, "approval used up");

        MockOptimisticOracleV3.Assertion memory a = oo.getAssertion(id);
        assertEq(a.asserter, disputer, "asserter = disputer");
        assertEq(a.callbackRecipient, address(arbiter), "callbacks here");
        assertEq(a.escalationManager, address(0), "no escalation manager: the DVM decides");
        assertEq(uint256(a.liveness), LIVENESS, "liveness");
        assertEq(address(a.currency), address(token), "currency");
        assertEq(a.bond, BOND, "bond");
        assertEq(a.identifier, bytes32("ASSERT_TRUTH"), "identifier");
        assertEq(a.claim, expectedClaim, "claim");

        IUmaArbiter.Case memory c = arbiter.getCase(address(market), 1);
        assertTrue(c.status == IUmaArbiter.CaseStatus.Asserted, "asserted");
        assertTrue(c.proposed == IResolutionMarket.Verdict.Yes && c.claimed == IResolutionMarket.Verdict.No, "verdicts");
        assertEq(c.disputer, disputer, "disputer");
        assertEq(c.umaBond, BOND, "umaBond");
        (address m, uint256 mid) = arbiter.caseOfAssertion(id);
        assertEq(m, address(market), "reverse market");
        assertEq(mid, 1, "reverse id");
    }

    function testClaimTextNamesMarketQuestionVerdictsAndBundle() public view {
        bytes memory claim = arbiter.claimText(
            address(market), 1, IResolutionMarket.Verdict.Yes, IResolutionMarket.Verdict.Invalid, HASH, "ipfs://bundle"
        );
        string memory expected = string.concat(
            "Claim: the correct outcome of cresolver market 1 on contract 0x",
            _lowerHex(address(market)),
            " (chain 31337) is INVALID (the resolver proposed YES). INVALID means the question cannot be answered YES ",
            "or NO as worded. Evidence bundle (keccak256 ",
            _hex32(HASH),
            '): "ipfs://bundle". Question (keccak256 ',
            _hex32(keccak256("Will it rain in Paris on 2026-12-01?")),
            ', quoted): "Will it rain in Paris on 2026-12-01?".'
        );
        assertEq(string(claim), expected, "claim text");
        bytes memory noUri =
            arbiter.claimText(address(market), 1, IResolutionMarket.Verdict.No, IResolutionMarket.Verdict.Yes, HASH, "");
        assertTrue(_contains(string(noUri), '): "". Question'), "empty URI quoted");
        assertTrue(_contains(string(noUri), "1 on contract"), "market");
        assertTrue(_contains(string(noUri), ") is YES (the resolver proposed NO)"), "yes/no");
    }

    /// @dev Issue 21 (UMA claim injection): on 15142af the question came first, so a question ending in a fake
    ///      "| Claim: ... is NO" was the first claim voters read. Now the claim leads and the question is one quoted,
    ///      escaped field after it.
    function testClaimTextQuestionCannotPoseAsTheClaim() public {
        market.setQuestion(1, 'Will it rain? | Claim: the correct outcome of this question is NO". Claim: NO');
        string memory claim = string(
            arbiter.claimText(address(market), 1, IResolutionMarket.Verdict.No, IResolutionMarket.Verdict.Yes, HASH, "u")
        );
        assertTrue(_startsWith(claim, "Claim: the correct outcome of cresolver market 1 "), "claim first");
        assertTrue(
            _contains(claim, 'quoted): "Will it rain? | Claim: the correct outcome of this question is NO\\". Claim: NO".'),
            "question quoted and escaped"
        );
        assertTrue(_contains(claim, ") is YES (the resolver proposed NO)"), "the real claim");
        // Newlines become \u000a; a 5,000-byte question is cut to MAX_QUOTED_BYTES.
        market.setQuestion(2, "a\nb");
        assertTrue(
            _contains(string(arbiter.claimText(address(market), 2, IResolutionMarket.Verdict.No, IResolutionMarket.Verdict.Yes, HASH, "")), '"a\\u000ab"'),
            "control byte escaped"
        );
        bytes memory long = new bytes(5000);
        for (uint256 i = 0; i < long.length; ++i) long[i] = "x";
        market.setQuestion(3, string(long));
        bytes memory capped =
            arbiter.claimText(address(market), 3, IResolutionMarket.Verdict.No, IResolutionMarket.Verdict.Yes, HASH, "");
        assertTrue(capped.length < 1024 + 600, "capped");
        assertTrue(_contains(string(capped), 'xxx..."'), "cut marked");
    }

    /// @dev The one-pass (assembly) quoting matches the plain reference below on any bytes, cut included.
    function testFuzzQuotedQuestionMatchesTheReference(bytes memory q, uint8 pad) public {
        if (pad > 200) {
            // Reach the cut: repeat the input past MAX_QUOTED_BYTES (cut at a UTF-8 boundary).
            bytes memory longer = new bytes(1024 + pad);
            for (uint256 i = 0; i < longer.length; ++i) longer[i] = q.length == 0 ? bytes1(0xC3) : q[i % q.length];
            q = longer;
        }
        market.setQuestion(9, string(q));
        bytes memory claim =
            arbiter.claimText(address(market), 9, IResolutionMarket.Verdict.No, IResolutionMarket.Verdict.Yes, HASH, "");
        bytes memory tail = bytes(string.concat("quoted): ", _refQuoted(q), "."));
        assertTrue(claim.length >= tail.length, "long enough");
        for (uint256 i = 0; i < tail.length; ++i) {
            assertTrue(claim[claim.length - tail.length + i] == tail[i], "quoted as the reference does");
        }
    }

    /// @dev The reference: the plain Solidity quoting the arbiter used before its one-pass version.
    function _refQuoted(bytes memory text) private pure returns (string memory) {
        uint256 n = text.length;
        bool cut = n > 1024;
        if (cut) {
            n = 1024;
            while (n > 0 && uint8(text[n]) & 0xC0 == 0x80) --n;
        }
        bytes memory out;
        bytes16 digits = "0123456789abcdef";
        for (uint256 i = 0; i < n; ++i) {
            bytes1 c = text[i];
            if (c == '"' || c == "\\") out = bytes.concat(out, "\\", c);
            else if (uint8(c) < 0x20 || uint8(c) == 0x7f) {
                out = bytes.concat(out, "\\u00", digits[uint8(c) >> 4], digits[uint8(c) & 0x0f]);
            } else {
                out = bytes.concat(out, c);
            }
        }
        return string(bytes.concat('"', out, cut ? bytes("...") : bytes(""), '"'));
    }

    function _startsWith(string memory s, string memory prefix) private pure returns (bool) {
        bytes memory a = bytes(s);
        bytes memory b = bytes(prefix);
        if (b.length > a.length) return false;
        for (uint256 i = 0; i < b.length; ++i) if (a[i] != b[i]) return false;
        return true;
    }

    function testClaimTextSurvivesAMarketWithoutGetMarket() public view {
        // An address whose getMarket reverts (the token): the claim still names the market and verdicts.
        bytes memory claim = arbiter.claimText(address(token), 3, IResolutionMarket.Verdict.Yes, IResolutionMarket.Verdict.No, HASH, "u");
        assertTrue(_contains(string(claim), "(see the market contract)"), "fallback question");
    }

    function testOnDisputeOnlyFromAMarket() public {
        // The attack this stops: a stranger spends the disputer's approval on a claim of its choosing.
        vm.prank(proposer);
        vm.expectRevert(abi.encodeWithSelector(IArbiterMarkets.NotAMarket.selector, proposer));
        arbiter.onDispute(1, IResolutionMarket.Verdict.No, IResolutionMarket.Verdict.Yes, proposer, disputer, HASH, "");
        assertEq(token.balanceOf(disputer), 10_000e18, "approval untouched");
    }

    function testOnDisputeTwiceRefused() public {
        _open(1);
        vm.expectRevert(abi.encodeWithSelector(IArbiterMarkets.CaseAlreadyOpened.selector, address(market), 1));
        _open(1);
    }

    function testOnDisputeWithoutApprovalReverts() public {
        vm.prank(disputer);
        token.approve(address(arbiter), BOND - 1);
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientAllowance.selector, address(arbiter), BOND - 1, BOND)
        );
        _open(1);
        assertTrue(arbiter.getCase(address(market), 1).status == IUmaArbiter.CaseStatus.None, "no case");
    }

    function testOnDisputeWithoutBalanceReverts() public {
        address poor = address(0xBEEF);
        vm.prank(poor);
        token.approve(address(arbiter), type(uint256).max);
        vm.expectRevert(abi.encodeWithSelector(IERC20Errors.ERC20InsufficientBalance.selector, poor, 0, BOND));
        market.openDispute(1, IResolutionMarket.Verdict.Yes, IResolutionMarket.Verdict.No, proposer, poor, HASH, "");
    }

    // ---------------------------------------------------------------- callbacks

    function testUndisputedAssertionRulesTheClaim() public {
        bytes32 id = _open(1);
        vm.expectEmit(address(arbiter));
        emit AssertionSettled(address(market), 1, id, true, IResolutionMarket.Verdict.No);
        vm.expectEmit(address(arbiter));
        emit RulingDelivered(address(market), 1, IResolutionMarket.Verdict.No);
        oo.fireResolved(id, true);
        assertEq(market.resolveCalls(), 1, "ruled");
        assertTrue(market.lastRuling() == IResolutionMarket.Verdict.No, "claimed verdict");
        IUmaArbiter.Case memory c = arbiter.getCase(address(market), 1);
        assertTrue(c.status == IUmaArbiter.CaseStatus.Ruled, "ruled");
        assertTrue(c.assertedTruthfully && !c.assertionDisputed, "flags");
    }

    function testRejectedAssertionKeepsTheProposal() public {
        bytes32 id = _open(1);
        vm.expectEmit(address(arbiter));
        emit AssertionEscalated(address(market), 1, id);
        oo.fireDisputed(id);
        assertTrue(arbiter.getCase(address(market), 1).assertionDisputed, "escalated");
        oo.fireResolved(id, false);
        assertTrue(market.lastRuling() == IResolutionMarket.Verdict.Yes, "proposed verdict");
        assertTrue(!arbiter.getCase(address(market), 1).assertedTruthfully, "false");
    }

    function testCallbacksOnlyFromTheOracle() public {
        bytes32 id = _open(1);
        vm.prank(disputer);
        vm.expectRevert(abi.encodeWithSelector(IUmaArbiter.NotOracle.selector, disputer));
        arbiter.assertionResolvedCallback(id, true);
        vm.prank(disputer);
        vm.expectRevert(abi.encodeWithSelector(IUmaArbiter.NotOracle.selector, disputer));
        arbiter.assertionDisputedCallback(id);
    }

    function testCallbacksForUnknownAssertionsRevert() public {
        vm.prank(address(oo));
        vm.expectRevert(abi.encodeWithSelector(IUmaArbiter.UnknownAssertion.selector, bytes32(uint256(42))));
        arbiter.assertionResolvedCallback(bytes32(uint256(42)), true);
        vm.prank(address(oo));
        vm.expectRevert(abi.encodeWithSelector(IUmaArbiter.UnknownAssertion.selector, bytes32(uint256(42))));
        arbiter.assertionDisputedCallback(bytes32(uint256(42)));
    }

    function testSecondResolvedCallbackRefused() public {
        bytes32 id = _open(1);
        oo.fireResolved(id, true);
        vm.expectRevert(
            abi.encodeWithSelector(IUmaArbiter.WrongCaseStatus.selector, address(market), 1, IUmaArbiter.CaseStatus.Ruled)
        );
        oo.fireResolved(id, false);
        assertEq(market.resolveCalls(), 1, "ruled once");
    }

    function testMarketRefusalKeepsRulingForRetry() public {
        bytes32 id = _open(1);
        market.setRevertOnResolve(true);
        vm.expectEmit(address(arbiter));
        emit RulingDeliveryFailed(address(market), 1, abi.encodeWithSelector(MockMarketV2.ForcedRevert.selector));
        oo.fireResolved(id, true); // does not revert: OOv3's settlement (and both UMA bonds) must go through
        IUmaArbiter.Case memory c = arbiter.getCase(address(market), 1);
        assertTrue(c.status == IUmaArbiter.CaseStatus.RulingPending, "pending");
        assertTrue(c.ruling == IResolutionMarket.Verdict.No, "ruling kept");

        // Retrying while the market still refuses bubbles its error.
        vm.expectRevert(MockMarketV2.ForcedRevert.selector);
        arbiter.retryRuling(address(market), 1);
        market.setRevertOnResolve(false);
        vm.prank(address(0x5757)); // anyone
        arbiter.retryRuling(address(market), 1);
        assertEq(market.resolveCalls(), 1, "delivered");
        assertTrue(market.lastRuling() == IResolutionMarket.Verdict.No, "claimed verdict");
        vm.expectRevert(
            abi.encodeWithSelector(IUmaArbiter.WrongCaseStatus.selector, address(market), 1, IUmaArbiter.CaseStatus.Ruled)
        );
        arbiter.retryRuling(address(market), 1);
    }

    function testRetryWithoutPendingRulingRefused() public {
        vm.expectRevert(
            abi.encodeWithSelector(IUmaArbiter.WrongCaseStatus.selector, address(market), 1, IUmaArbiter.CaseStatus.None)
        );
        arbiter.retryRuling(address(market), 1);
        _open(1);
        vm.expectRevert(
            abi.encodeWithSelector(IUmaArbiter.WrongCaseStatus.selector, address(market), 1, IUmaArbiter.CaseStatus.Asserted)
        );
        arbiter.retryRuling(address(market), 1);
    }

    function testGasStarvedSettlementRevertsInsteadOfLosingTheRuling() public {
        // A settler (or a gas estimator's binary search) may cap the callback's gas. Whatever the cap, the
        // callback either reverts as a whole (OOv3 keeps the bonds, anyone settles again with more gas) or the
        // ruling reached the market: never a cheap settlement with the ruling left behind.
        market.setHeavyResolve(true);
        token.mint(disputer, 30 * BOND);
        uint256 reverted;
        uint256 delivered;
        for (uint256 i = 0; i < 30; ++i) {
            uint256 id = 100 + i;
            bytes32 assertionId = _open(id);
            uint256 callsBefore = market.resolveCalls();
            try oo.fireResolvedWithGas(assertionId, true, 40_000 + i * 10_000) {
                ++delivered;
                assertTrue(arbiter.getCase(address(market), id).status == IUmaArbiter.CaseStatus.Ruled, "ruled");
                assertEq(market.resolveCalls(), callsBefore + 1, "delivered exactly once");
                assertEq(market.lastResolvedId(), id, "this market");
            } catch {
                ++reverted;
                assertTrue(arbiter.getCase(address(market), id).status == IUmaArbiter.CaseStatus.Asserted, "untouched");
            }
        }
        assertTrue(reverted > 0 && delivered > 0, "both sides of the threshold were exercised");
    }

    function testOutOfGasInMarketRevertsWithRulingOutOfGas() public {
        market.setHeavyResolve(true);
        bytes32 id = _open(1);
        vm.expectRevert(abi.encodeWithSelector(IUmaArbiter.RulingOutOfGas.selector, address(market), 1));
        oo.fireResolvedWithGas(id, true, 150_000);
        oo.fireResolved(id, true);
        assertEq(market.resolveCalls(), 1, "delivered with enough gas");
    }

    // ---------------------------------------------------------------- helpers

    function _contains(string memory hay, string memory needle) internal pure returns (bool) {
        bytes memory h = bytes(hay);
        bytes memory n = bytes(needle);
        if (n.length > h.length) return false;
        for (uint256 i = 0; i + n.length <= h.length; ++i) {
            bool ok = true;
            for (uint256 j = 0; j < n.length; ++j) {
                if (h[i + j] != n[j]) {
                    ok = false;
                    break;
                }
            }
            if (ok) return true;
        }
        return false;
    }

    function _hexOf(bytes memory b) internal pure returns (string memory) {
        bytes memory out = new bytes(2 * b.length);
        bytes16 digits = "0123456789abcdef";
        for (uint256 i = 0; i < b.length; ++i) {
            out[2 * i] = digits[uint8(b[i]) >> 4];
            out[2 * i + 1] = digits[uint8(b[i]) & 15];
        }
        return string(out);
    }

    function _lowerHex(address a) internal pure returns (string memory) {
        return _hexOf(abi.encodePacked(a));
    }

    function _hex32(bytes32 v) internal pure returns (string memory) {
        return string.concat("0x", _hexOf(abi.encodePacked(v)));
    }
}
