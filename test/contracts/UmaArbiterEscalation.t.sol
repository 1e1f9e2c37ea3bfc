// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {UmaArbiter} from "../../contracts/arbiter/UmaArbiter.sol";
import {IUmaArbiter} from "../../contracts/arbiter/interfaces/IUmaArbiter.sol";
import {IOptimisticOracleV3} from "../../contracts/arbiter/interfaces/IOptimisticOracleV3.sol";
import {IArbiter} from "../../contracts/market/interfaces/IArbiter.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {MarketFixture} from "./market/MarketFixture.sol";
import {MockOptimisticOracleV3, TestToken} from "./mocks/MockOptimisticOracleV3.sol";

/// @notice Issue 21 item 3 with an UmaArbiter as the deployment's fallback arbiter, on the real ResolutionMarket
///         (OOv3 is the unit-test stand-in; UMA's real OOv3 runs in test/ts/contracts/uma-escalation.test.ts). A
///         disputer that revoked its UMA approval used to make the hand-off revert, so a silent first arbiter ended
///         the market Invalid with both ETH bonds back: a free forced refund. Now the escalated claim awaits its
///         bond; anyone may fund it, and unfunded it loses.
contract UmaArbiterEscalationTest is MarketFixture {
    IResolutionMarket.Verdict internal constant V_NO = IResolutionMarket.Verdict.No;
    IResolutionMarket.Verdict internal constant V_YES = IResolutionMarket.Verdict.Yes;
    IResolutionMarket.Answer internal constant YES = IResolutionMarket.Answer.Yes;
    uint256 internal constant UMA_BOND = 500e18;
    uint64 internal constant LIVENESS = 2 hours;

    MockOptimisticOracleV3 internal oo;
    TestToken internal token;
    UmaArbiter internal uma;
    address internal funder = address(0xF00D);

    function setUp() public override {
        super.setUp();
        oo = new MockOptimisticOracleV3();
        oo.setMinimumBond(100e18);
        token = new TestToken();
        address[] memory markets = new address[](1);
        markets[0] = address(market);
        uma = new UmaArbiter(IOptimisticOracleV3(address(oo)), IERC20(address(token)), UMA_BOND, LIVENESS, markets);
        vm.prank(owner);
        gov.queueFallbackArbiter(address(uma)); // bootstrap: allowed and the fallback at once
        token.mint(disputer, 10_000e18);
        token.mint(funder, 10_000e18);
    }

    /// @dev A market judged by the (silent) test arbiter with `uma` as fallback, 4 seats proposed Yes, disputed No.
    function _disputedMarket() internal returns (uint256 id) {
        id = _createMarket();
        assertEq(address(market.fallbackArbiterOf(id)), address(uma), "UMA is the fallback");
        _joinFresh(id, 4, 0);
        _request(market, id);
        _propose(market, id, V_YES, _uniform(4, YES));
        _dispute(id, V_NO);
    }

    function _approve(address who, uint256 amount) internal {
        vm.prank(who);
        token.approve(address(uma), amount);
    }

    function _escalate(uint256 id) internal {
        vm.warp(block.timestamp + 30 days);
        market.expireDispute(id);
        assertEq(address(market.getMarketConfig(id).arbiter), address(uma), "handed over");
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Disputed), "still disputed");
    }

    // ------------------------------------------------------------------ the attack

    /// @dev The attack: the disputer (e.g. a losing bettor) never approves UMA's bond, the first arbiter is silent.
    ///      The hand-off used to revert and the market ended Invalid with both bonds back. Now the hand-off
    ///      succeeds, the claim waits 7 days for a bond, and unfunded the proposal stands: the disputer loses.
    function testRevokedApprovalNoLongerForcesInvalid() public {
        _approve(disputer, 0);
        uint256 id = _disputedMarket();
        uint256 disputeBond = gov.disputeBond(id);
        vm.warp(block.timestamp + 30 days);
        vm.expectEmit(address(uma));
        emit IUmaArbiter.ClaimAwaitingBond(address(market), id, disputer, UMA_BOND, uint64(block.timestamp) + 7 days);
        vm.expectEmit(address(market));
        emit IResolutionMarket.DisputeEscalated(id, IArbiter(address(uma)));
        market.expireDispute(id);
        IUmaArbiter.Case memory c = uma.getCase(address(market), id);
        assertTrue(c.status == IUmaArbiter.CaseStatus.AwaitingBond, "awaiting its bond");
        assertEq(c.disputer, disputer, "disputer");
        assertEq(c.asserter, address(0), "no asserter yet");
        assertEq(uint256(c.fundingEndsAt), block.timestamp + 7 days, "window");
        assertEq(token.balanceOf(disputer), 10_000e18, "nothing pulled");

        vm.warp(c.fundingEndsAt - 1);
        vm.expectRevert(abi.encodeWithSelector(IUmaArbiter.FundingWindowOpen.selector, address(market), id, c.fundingEndsAt));
        uma.ruleAbandoned(address(market), id);
        vm.warp(c.fundingEndsAt);
        _approve(funder, UMA_BOND);
        vm.prank(funder);
        vm.expectRevert(abi.encodeWithSelector(IUmaArbiter.FundingWindowOver.selector, address(market), id, c.fundingEndsAt));
        uma.fundAssertion(address(market), id);

        vm.expectEmit(address(uma));
        emit IUmaArbiter.ClaimAbandoned(address(market), id, V_YES);
        vm.prank(stranger); // anyone
        uma.ruleAbandoned(address(market), id);
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Resolved), "resolved");
        assertTrue(market.getMarket(id).outcome, "the proposal (YES) stands");
        assertEq(market.pendingWithdrawal(disputer), 0, "the disputer loses its bond");
        assertEq(market.pendingWithdrawal(resolver), BOND + disputeBond, "the proposer takes both bonds");
        c = uma.getCase(address(market), id);
        assertTrue(c.status == IUmaArbiter.CaseStatus.Ruled && c.ruling == V_YES, "ruled for the proposal");
        vm.expectRevert(
            abi.encodeWithSelector(IUmaArbiter.WrongCaseStatus.selector, address(market), id, IUmaArbiter.CaseStatus.Ruled)
        );
        uma.ruleAbandoned(address(market), id);
    }

    /// @dev A balance too small for UMA's bond is the same dodge, met the same way.
    function testEmptyBalanceAtHandOffAwaitsTheBond() public {
        _approve(disputer, type(uint256).max);
        uint256 id = _disputedMarket();
        vm.prank(disputer);
        token.transfer(funder, 10_000e18);
        _escalate(id);
        assertTrue(uma.getCase(address(market), id).status == IUmaArbiter.CaseStatus.AwaitingBond, "awaiting");
    }

    // ------------------------------------------------------------------ funding

    function testDisputerWithApprovalIsAssertedAtTheHandOff() public {
        _approve(disputer, UMA_BOND);
        uint256 id = _disputedMarket();
        _escalate(id);
        IUmaArbiter.Case memory c = uma.getCase(address(market), id);
        assertTrue(c.status == IUmaArbiter.CaseStatus.Asserted, "asserted at once");
        assertEq(c.asserter, disputer, "the disputer asserts");
        assertEq(uint256(c.fundingEndsAt), 0, "no funding window");
        assertEq(token.balanceOf(disputer), 10_000e18 - UMA_BOND, "bond pulled");
        assertEq(oo.getAssertion(c.assertionId).asserter, disputer, "OOv3's asserter");
        oo.fireResolved(c.assertionId, true);
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Resolved), "resolved");
        assertTrue(!market.getMarket(id).outcome, "the claim (NO) stands");
    }

    function testThirdPartyFundsTheEscalatedClaimAndTheRulingSettlesTheMarket() public {
        uint256 id = _disputedMarket();
        uint256 disputeBond = gov.disputeBond(id);
        _escalate(id);
        _approve(funder, UMA_BOND);
        bytes memory expectedClaim = uma.claimText(address(market), id, V_YES, V_NO, HASH, URI);
        vm.expectEmit(true, true, false, true);
        emit IUmaArbiter.ClaimAsserted(
            address(market), id, bytes32(0), funder, UMA_BOND, uint64(block.timestamp) + LIVENESS, expectedClaim
        );
        vm.prank(funder);
        uma.fundAssertion(address(market), id);
        IUmaArbiter.Case memory c = uma.getCase(address(market), id);
        assertTrue(c.status == IUmaArbiter.CaseStatus.Asserted, "asserted");
        assertEq(c.asserter, funder, "the funder asserts");
        assertEq(c.disputer, disputer, "the dispute stays the disputer's");
        MockOptimisticOracleV3.Assertion memory a = oo.getAssertion(c.assertionId);
        assertEq(a.asserter, funder, "UMA returns the bond to the funder");
        assertEq(a.claim, expectedClaim, "the disputer's claim, unchanged");
        assertEq(token.balanceOf(funder), 10_000e18 - UMA_BOND, "pulled from the funder");
        assertEq(token.balanceOf(disputer), 10_000e18, "not from the disputer");
        assertEq(token.balanceOf(address(uma)), 0, "nothing stays in the arbiter");
        (address m, uint256 mid) = uma.caseOfAssertion(c.assertionId);
        assertTrue(m == address(market) && mid == id, "reverse lookup");

        vm.prank(funder);
        vm.expectRevert(
            abi.encodeWithSelector(IUmaArbiter.WrongCaseStatus.selector, address(market), id, IUmaArbiter.CaseStatus.Asserted)
        );
        uma.fundAssertion(address(market), id);
        vm.expectRevert(
            abi.encodeWithSelector(IUmaArbiter.WrongCaseStatus.selector, address(market), id, IUmaArbiter.CaseStatus.Asserted)
        );
        uma.ruleAbandoned(address(market), id);

        oo.fireResolved(c.assertionId, true);
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Resolved), "resolved");
        assertTrue(!market.getMarket(id).outcome, "the claim (NO) stands");
        assertEq(market.pendingWithdrawal(disputer), BOND + disputeBond + 4 * STAKE, "disputer: both bonds + slashed stakes");
        assertEq(market.pendingWithdrawal(resolver), 0, "proposer: nothing");
    }

    function testFundingWithoutApprovalRevertsAndLeavesTheCaseOpen() public {
        uint256 id = _disputedMarket();
        _escalate(id);
        vm.prank(funder);
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientAllowance.selector, address(uma), 0, UMA_BOND)
        );
        uma.fundAssertion(address(market), id);
        assertTrue(uma.getCase(address(market), id).status == IUmaArbiter.CaseStatus.AwaitingBond, "still awaiting");
    }

    function testFundOrAbandonWithoutACaseRefused() public {
        vm.expectRevert(
            abi.encodeWithSelector(IUmaArbiter.WrongCaseStatus.selector, address(market), 7, IUmaArbiter.CaseStatus.None)
        );
        uma.fundAssertion(address(market), 7);
        vm.expectRevert(
            abi.encodeWithSelector(IUmaArbiter.WrongCaseStatus.selector, address(market), 7, IUmaArbiter.CaseStatus.None)
        );
        uma.ruleAbandoned(address(market), 7);
    }

    /// @dev The abandon ruling goes through the market: once the fallback's own 30 days passed and the market
    ///      expired the dispute (Invalid, bonds back), the market refuses it and the call reverts with its error.
    function testAbandonRulingRefusedByTheMarketReverts() public {
        uint256 id = _disputedMarket();
        _escalate(id);
        vm.warp(block.timestamp + 30 days);
        market.expireDispute(id);
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Invalid), "expired");
        vm.expectRevert(
            abi.encodeWithSelector(
                IResolutionMarket.WrongStatus.selector, id, IResolutionMarket.Status.Invalid
            )
        );
        uma.ruleAbandoned(address(market), id);
        assertTrue(uma.getCase(address(market), id).status == IUmaArbiter.CaseStatus.AwaitingBond, "unchanged");
    }

    // ------------------------------------------------------------------ as the market's own arbiter

    /// @dev As the first arbiter nothing is at stake yet: a missing approval refuses the case, the dispute reverts.
    function testPrimaryUmaDisputeWithoutApprovalStillReverts() public {
        IResolutionMarket.MarketParams memory p;
        p.arbiter = IArbiter(address(uma));
        uint256 id = _createWith(p);
        assertEq(address(market.fallbackArbiterOf(id)), address(0), "its own fallback: none");
        _joinFresh(id, 2, 0);
        _request(market, id);
        _propose(market, id, V_YES, _uniform(2, YES));
        uint256 bond = gov.disputeBond(id);
        vm.prank(disputer);
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientAllowance.selector, address(uma), 0, UMA_BOND)
        );
        market.dispute{value: bond}(id, V_NO);
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Proposed), "still proposed");
        assertTrue(uma.getCase(address(market), id).status == IUmaArbiter.CaseStatus.None, "no case");
    }

    // ------------------------------------------------------------------ funds conservation

    /// @dev Escalation to an UmaArbiter fallback along every path (the disputer approved or not; a third party funds,
    ///      the disputer funds late, or nobody; OOv3 says true or false; or the fallback is silent too). Market ETH:
    ///      every wei of pool, stakes and both bonds is credited to someone and withdrawn. UMA's token: the arbiter
    ///      never keeps any, and only the asserter's balance moves, by exactly the bond.
    function testFuzzEscalationConservesFunds(uint8 pathSeed, bool truthful, uint8 seats) public {
        uint256 path = pathSeed % 5; // 0 approved at dispute; 1 funder; 2 disputer funds late; 3 abandoned; 4 silent
        uint256 n = 1 + seats % 6;
        if (path == 0) _approve(disputer, UMA_BOND);
        uint256 id = _createMarket();
        _joinFresh(id, n, 0);
        _request(market, id);
        _propose(market, id, V_YES, _uniform(n, YES));
        uint256 disputeBond = gov.disputeBond(id);
        _dispute(id, V_NO);
        _escalate(id);
        address asserter = path == 0 || path == 2 ? disputer : path == 1 ? funder : address(0);
        if (path == 1 || path == 2) {
            _approve(asserter, UMA_BOND);
            vm.warp(block.timestamp + 7 days - 1);
            vm.prank(asserter);
            uma.fundAssertion(address(market), id);
        }
        if (asserter != address(0)) {
            oo.fireResolved(uma.assertionIdOf(address(market), id), truthful);
        } else if (path == 3) {
            vm.warp(block.timestamp + 7 days);
            uma.ruleAbandoned(address(market), id);
        } else {
            vm.warp(block.timestamp + 30 days);
            market.expireDispute(id);
        }
        IResolutionMarket.Status s = market.getMarket(id).status;
        if (path == 4) {
            assertEq(uint256(s), uint256(IResolutionMarket.Status.Invalid), "silent fallback: Invalid");
            assertEq(market.pendingWithdrawal(disputer), disputeBond, "bonds back only when the fallback failed too");
        } else {
            assertEq(uint256(s), uint256(IResolutionMarket.Status.Resolved), "the fallback ruled");
            bool disputerWon = asserter != address(0) && truthful;
            assertEq(market.getMarket(id).outcome, !disputerWon, "ruling");
            assertEq(market.pendingWithdrawal(disputerWon ? resolver : disputer), 0, "the loser's bond is gone");
        }
        // UMA's token: the arbiter holds none; only the asserter paid (the mock OOv3 keeps the bond).
        assertEq(token.balanceOf(address(uma)), 0, "arbiter holds no token");
        assertEq(token.balanceOf(address(oo)), asserter == address(0) ? 0 : UMA_BOND, "OOv3 holds the one bond");
        assertEq(token.balanceOf(disputer) + token.balanceOf(funder) + token.balanceOf(address(oo)), 20_000e18, "token");
        // Market ETH: everything credited, then drained.
        uint256 credits = market.pendingWithdrawal(creator) + market.pendingWithdrawal(resolver)
            + market.pendingWithdrawal(disputer);
        for (uint256 i; i < n; ++i) credits += market.pendingWithdrawal(_worker(i));
        assertEq(credits, POOL + n * STAKE + BOND + disputeBond, "credits == pool + stakes + both bonds");
        assertEq(address(market).balance, credits, "balance == owed");
        address[] memory all = new address[](n + 3);
        for (uint256 i; i < n; ++i) all[i] = _worker(i);
        (all[n], all[n + 1], all[n + 2]) = (creator, resolver, disputer);
        for (uint256 i; i < all.length; ++i) {
            if (market.pendingWithdrawal(all[i]) == 0) continue;
            vm.prank(all[i]);
            market.withdraw();
        }
        assertEq(address(market).balance, 0, "drained");
    }
}
