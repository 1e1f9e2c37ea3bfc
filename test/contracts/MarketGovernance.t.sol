// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {CommitteeArbiter} from "../../contracts/arbiter/CommitteeArbiter.sol";
import {IArbiter} from "../../contracts/market/interfaces/IArbiter.sol";
import {IMarketGovernance} from "../../contracts/market/interfaces/IMarketGovernance.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {MarketFixture} from "./market/MarketFixture.sol";
import {TestArbiter} from "./market/TestArbiter.sol";
import {IMarketBoundErrors} from "../../contracts/market/interfaces/IMarketBoundErrors.sol";

/// @notice Issue 21: the arbiter allow-list, the bond range, timelocked defaults, the fallback arbiter and the
///         bootstrap that closes itself; each attack of the security review as a test that now fails.
contract MarketGovernanceTest is MarketFixture {
    IResolutionMarket.MarketParams internal params;

    function _createWithExpect(IResolutionMarket.MarketParams memory p, bytes memory err) internal {
        vm.prank(creator);
        vm.expectRevert(err);
        market.createMarketWith{value: POOL}(QUESTION, uint64(block.timestamp + 1 days), p);
    }

    // ------------------------------------------------------------------ attacks

    /// @notice Attack (issue 21, high): the creator deploys a committee with itself as the only member and names it
    ///         as its market's arbiter. It is not on the allow-list: creation reverts.
    function testCreatorOwnCommitteeIsRefused() public {
        address[] memory members = new address[](1);
        members[0] = creator;
        address[] memory markets = new address[](1);
        markets[0] = address(market);
        CommitteeArbiter own = new CommitteeArbiter(members, 1, markets);
        params.arbiter = IArbiter(address(own));
        _createWithExpect(params, abi.encodeWithSelector(IMarketBoundErrors.ArbiterNotAllowed.selector, address(own)));
        assertEq(market.marketCount(), 0, "no market");
    }

    /// @notice Attack (issue 21, high): a 50 ETH bond (to take the resolver's 50 ETH through its own arbiter) is
    ///         outside the deployment's bond range.
    function testFiftyEtherBondIsRefused() public {
        params.bond = 50 ether;
        _createWithExpect(params, abi.encodeWithSelector(IMarketBoundErrors.BondOutOfRange.selector, 50 ether));
        (uint96 min, uint96 max) = gov.bondRange();
        assertEq(uint256(min), gov.MIN_BOND(), "min");
        assertEq(uint256(max), 1 ether, "initial max");
        params.bond = max;
        vm.prank(creator);
        market.createMarketWith{value: POOL}(QUESTION, uint64(block.timestamp + 1 days), params);
    }

    /// @notice Attack (issue 21, low): the owner front-runs a creation with a 10-minute window, the minimum bond,
    ///         one seat and a 1-hour grace. The change is only queued: the market gets the defaults it saw.
    function testSetDefaultsFrontRunDoesNotReachTheMarket() public {
        _createMarket(); // bootstrap over
        IResolutionMarket.MarketConfig memory seen = gov.getDefaults();
        uint64 at = uint64(block.timestamp + 2 days);
        vm.expectEmit(address(gov));
        emit IMarketGovernance.DefaultsQueued(0.0001 ether, 1, 1 hours, 10 minutes, 0.001 ether, at);
        vm.prank(owner);
        gov.setDefaults(0.0001 ether, 1, 1 hours, 10 minutes, 0.001 ether);
        IResolutionMarket.MarketConfig memory c = market.getMarketConfig(_createMarket());
        assertEq(uint256(c.maxWorkers), seen.maxWorkers, "seats");
        assertEq(uint256(c.disputeWindow), seen.disputeWindow, "window");
        assertEq(uint256(c.gracePeriod), seen.gracePeriod, "grace");
        assertEq(uint256(c.bond), seen.bond, "bond");
        (,,,,, uint64 effectiveAt) = gov.pendingDefaults();
        assertEq(uint256(effectiveAt), at, "visible while queued");
        vm.warp(at);
        assertEq(uint256(gov.getDefaults().maxWorkers), 1, "the view shows a due change");
        vm.expectEmit(address(gov));
        emit IMarketGovernance.DefaultsUpdated(0.0001 ether, 1, 1 hours, 10 minutes, 0.001 ether);
        gov.applyQueued();
        assertEq(uint256(market.getMarketConfig(_createMarket()).maxWorkers), 1, "applies after the delay");
    }

    /// @notice Info (issue 21): a resolver queued before the first market was active at once whenever the first
    ///         market came. The bootstrap now closes itself BOOTSTRAP_WINDOW after deployment.
    function testBootstrapClosesItselfAfterItsWindow() public {
        assertTrue(gov.bootstrapOpen(), "open at deployment");
        assertEq(uint256(gov.bootstrapDeadline()), block.timestamp + 7 days, "deadline");
        vm.warp(block.timestamp + 7 days);
        assertTrue(!gov.bootstrapOpen(), "closed by time");
        address late = address(0x1A7E);
        vm.prank(owner);
        gov.queueResolver(late);
        assertEq(uint256(gov.resolverActiveFrom(late)), block.timestamp + 2 days, "waits the delay");
        assertTrue(!market.isResolverFor(late, _createMarket()), "not on the first market");
    }

    function testCloseBootstrapIsExplicitAndOwnerOnly() public {
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger));
        gov.closeBootstrap();
        vm.expectEmit(address(gov));
        emit IMarketGovernance.BootstrapClosed(uint64(block.timestamp));
        vm.prank(owner);
        gov.closeBootstrap();
        assertTrue(!gov.bootstrapOpen(), "closed");
        vm.prank(owner);
        gov.closeBootstrap(); // idempotent
        TestArbiter next = new TestArbiter();
        vm.prank(owner);
        gov.queueArbiter(address(next));
        assertTrue(!gov.isArbiterAllowed(address(next)), "waits after closing");
    }

    /// @notice The first market closes the bootstrap too (one event).
    function testFirstMarketClosesBootstrap() public {
        vm.expectEmit(address(gov));
        emit IMarketGovernance.BootstrapClosed(uint64(block.timestamp));
        _createMarket();
        assertTrue(!gov.bootstrapOpen(), "closed");
    }

    // ------------------------------------------------------------------ no owner stall

    /// @notice Attack (issue 21, medium): the owner removes every resolver of a market whose outcome is known, so it
    ///         stalls and the cancel refunds a losing bet. Now, once the grace period is over, anyone proposes the
    ///         truth with the bond before the cancel window ends; the cancel fails and the market resolves.
    function testRemoveResolverStallNoLongerForcesACancel() public {
        uint256 id = _createMarket();
        (address[] memory ws,) = _joinFresh(id, 2, 0);
        _request(market, id);
        uint256 graceEnds = block.timestamp + market.getMarketConfig(id).gracePeriod;
        vm.prank(owner);
        gov.removeResolver(resolver);
        IResolutionMarket.WorkerReport[] memory yes = _uniform(2, IResolutionMarket.Answer.Yes);
        // Inside the grace period only resolvers propose: the owner's removal stalls the market for now.
        vm.warp(graceEnds - 1);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.NotResolver.selector, stranger, id));
        market.proposeResolution{value: BOND}(id, IResolutionMarket.Verdict.Yes, yes, HASH, URI);
        // The loser asks to cancel as soon as it can...
        vm.warp(graceEnds);
        vm.prank(stranger);
        market.requestCancel(id);
        // ...and a bettor of the true side proposes it, bonded, inside the cancel window.
        address honest = ws[0];
        vm.prank(honest);
        market.proposeResolution{value: BOND}(id, IResolutionMarket.Verdict.Yes, yes, HASH, URI);
        vm.warp(block.timestamp + 1 days);
        vm.expectRevert(
            abi.encodeWithSelector(IResolutionMarket.WrongStatus.selector, id, IResolutionMarket.Status.Proposed)
        );
        market.cancelStale(id);
        _warpPastWindow(market, id);
        market.finalize(id);
        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Resolved), "resolved");
        assertTrue(market.getMarket(id).outcome, "the truth");
        assertEq(market.pendingWithdrawal(creator), 0, "no refund of the pool");
        assertTrue(market.pendingWithdrawal(honest) >= BOND + STAKE, "bond and stake back to the proposer");
    }

    /// @notice A permissionless proposal takes the same dispute path: a false one loses its bond to the disputer.
    function testPermissionlessProposalIsDisputedLikeAnyOther() public {
        uint256 id = _createMarket();
        _joinFresh(id, 1, 0);
        _request(market, id);
        vm.warp(block.timestamp + market.getMarketConfig(id).gracePeriod);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.WrongBond.selector, 0, BOND));
        market.proposeResolution(id, IResolutionMarket.Verdict.No, _uniform(1, IResolutionMarket.Answer.No), HASH, URI);
        vm.prank(stranger);
        market.proposeResolution{value: BOND}(
            id, IResolutionMarket.Verdict.No, _uniform(1, IResolutionMarket.Answer.No), HASH, URI
        );
        assertEq(market.getProposal(id).proposer, stranger, "anyone proposed");
        _dispute(id, IResolutionMarket.Verdict.Yes);
        arbiter.rule(market, id, IResolutionMarket.Verdict.Yes);
        // The stranger's report carries no agent signature: the seat is attested, so it keeps its stake.
        assertEq(market.pendingWithdrawal(disputer), BOND + gov.disputeBond(id), "both bonds to the disputer");
        (address[] memory seated,,) = market.getWorkers(id);
        assertTrue(market.pendingWithdrawal(seated[0]) >= STAKE, "the attested seat is not slashed");
        assertEq(market.pendingWithdrawal(stranger), 0, "false proposer loses its bond");
    }

    // ------------------------------------------------------------------ arbiter allow-list

    function testArbiterAllowListTimelockAndSnapshot() public {
        uint256 old = _createMarket();
        TestArbiter next = new TestArbiter();
        uint64 from = uint64(block.timestamp + 2 days);
        vm.expectEmit(address(gov));
        emit IMarketGovernance.ArbiterQueued(address(next), from);
        vm.prank(owner);
        gov.queueArbiter(address(next));
        assertEq(uint256(gov.arbiterAllowedFrom(address(next))), from, "from");
        assertTrue(!gov.isArbiterAllowed(address(next)), "not yet");
        params.arbiter = next;
        _createWithExpect(params, abi.encodeWithSelector(IMarketBoundErrors.ArbiterNotAllowed.selector, address(next)));
        vm.prank(owner);
        gov.queueArbiter(address(next)); // no-op: cannot push it back
        assertEq(uint256(gov.arbiterAllowedFrom(address(next))), from, "unchanged");
        vm.warp(from);
        assertTrue(gov.isArbiterAllowed(address(next)), "allowed");
        uint256 id = _createWith(params);
        assertEq(address(market.getMarketConfig(id).arbiter), address(next), "named");
        // Removal is immediate for new markets; existing ones keep their arbiter.
        vm.expectEmit(address(gov));
        emit IMarketGovernance.ArbiterRemoved(address(next));
        vm.prank(owner);
        gov.removeArbiter(address(next));
        assertTrue(!gov.isArbiterAllowed(address(next)), "removed");
        _createWithExpect(params, abi.encodeWithSelector(IMarketBoundErrors.ArbiterNotAllowed.selector, address(next)));
        assertEq(address(market.getMarketConfig(id).arbiter), address(next), "snapshot kept");
        assertEq(address(market.getMarketConfig(old).arbiter), address(arbiter), "old kept");
        vm.prank(owner);
        gov.removeArbiter(address(next)); // no-op
    }

    function testQueueArbiterRejectsNonContracts() public {
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(IMarketBoundErrors.ArbiterNotAContract.selector, address(0xE0A)));
        gov.queueArbiter(address(0xE0A));
    }

    /// @notice Removing the default arbiter stops creation with the default until a new one is allowed.
    function testRemovedDefaultArbiterStopsDefaultCreation() public {
        _createMarket();
        vm.prank(owner);
        gov.removeArbiter(address(arbiter));
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(IMarketBoundErrors.ArbiterNotAllowed.selector, address(arbiter)));
        market.createMarket{value: POOL}(QUESTION, uint64(block.timestamp + 1 days));
    }

    // ------------------------------------------------------------------ bond range

    function testBondRangeTimelockAndBounds() public {
        _createMarket();
        vm.startPrank(owner);
        vm.expectRevert(abi.encodeWithSelector(IMarketGovernance.BondRangeInvalid.selector, 0.0009 ether, 1 ether));
        gov.setBondRange(0.0009 ether, 1 ether);
        vm.expectRevert(abi.encodeWithSelector(IMarketGovernance.BondRangeInvalid.selector, 0.1 ether, 0.01 ether));
        gov.setBondRange(0.1 ether, 0.01 ether);
        uint64 at = uint64(block.timestamp + 2 days);
        vm.expectEmit(address(gov));
        emit IMarketGovernance.BondRangeQueued(0.005 ether, 5 ether, at);
        gov.setBondRange(0.005 ether, 5 ether);
        vm.stopPrank();
        (uint96 qmin, uint96 qmax, uint64 qat) = gov.pendingBondRange();
        assertEq(uint256(qmin) + uint256(qmax) + uint256(qat), 0.005 ether + 5 ether + at, "pending");
        params.bond = 2 ether;
        _createWithExpect(params, abi.encodeWithSelector(IMarketBoundErrors.BondOutOfRange.selector, 2 ether));
        vm.warp(at);
        (uint96 min, uint96 max) = gov.bondRange();
        assertEq(uint256(max), 5 ether, "due range in the view");
        assertEq(uint256(min), 0.005 ether, "min");
        assertEq(uint256(market.getMarketConfig(_createWith(params)).bond), 2 ether, "inside the new range");
        params.bond = 0.002 ether;
        _createWithExpect(params, abi.encodeWithSelector(IMarketBoundErrors.BondOutOfRange.selector, 0.002 ether));
    }

    // ------------------------------------------------------------------ fallback arbiter

    function testFallbackArbiterTimelock() public {
        assertEq(gov.fallbackArbiter(), address(0), "none");
        TestArbiter fb = new TestArbiter();
        vm.expectEmit(address(gov));
        emit IMarketGovernance.FallbackArbiterUpdated(address(fb));
        vm.prank(owner);
        gov.queueFallbackArbiter(address(fb)); // bootstrap: at once
        assertEq(gov.fallbackArbiter(), address(fb), "set");
        assertTrue(gov.isArbiterAllowed(address(fb)), "allowed too");
        _createMarket();
        TestArbiter fb2 = new TestArbiter();
        vm.prank(owner);
        gov.queueFallbackArbiter(address(fb2));
        (address pending, uint64 at) = gov.pendingFallbackArbiter();
        assertEq(pending, address(fb2), "pending");
        assertEq(gov.fallbackArbiter(), address(fb), "old inside the delay");
        vm.warp(at);
        assertEq(gov.fallbackArbiter(), address(fb2), "due");
        gov.applyQueued();
        (pending,) = gov.pendingFallbackArbiter();
        assertEq(pending, address(0), "cleared");
        assertEq(gov.fallbackArbiter(), address(fb2), "applied");
    }

    // ------------------------------------------------------------------ owner only

    function testNewOwnerFunctionsAreOwnerOnly() public {
        bytes memory err = abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger);
        vm.startPrank(stranger);
        vm.expectRevert(err);
        gov.queueArbiter(address(arbiter));
        vm.expectRevert(err);
        gov.removeArbiter(address(arbiter));
        vm.expectRevert(err);
        gov.queueFallbackArbiter(address(arbiter));
        vm.expectRevert(err);
        gov.setBondRange(0.01 ether, 1 ether);
        vm.stopPrank();
    }

    function testSnapshotConfigIsMarketOnly() public {
        vm.expectRevert(abi.encodeWithSelector(IMarketGovernance.NotMarket.selector, address(this)));
        gov.snapshotConfig(params, 10, uint64(block.timestamp + 1 days), POOL);
    }
}
