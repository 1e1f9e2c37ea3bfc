// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TestBase} from "./utils/Vm.sol";
import {IIdentityRegistry} from "../../contracts/erc8004/interfaces/IIdentityRegistry.sol";
import {IReputationRegistry} from "../../contracts/erc8004/interfaces/IReputationRegistry.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {ResolutionMarket} from "../../contracts/market/ResolutionMarket.sol";
import {SimpleIdentityRegistry, RevertingReputationRegistry} from "./market/MarketMocks.sol";
import {TestArbiter} from "./market/TestArbiter.sol";
import {_gov, _rep} from "./market/Split.sol";

/// @notice Drives the market through random sequences of every action, disputes and slashing included.
contract MarketHandler is TestBase {
    ResolutionMarket public immutable market;
    TestArbiter public immutable arbiter;
    SimpleIdentityRegistry public immutable simple;
    address public constant RESOLVER = address(0xBEEF);
    address public constant DISPUTER = address(0xD15);
    uint256 public constant ACTORS = 8;

    uint256 public deposited; // pools + stakes + bonds sent in
    uint256 public withdrawn; // paid out by withdraw
    uint256[] public marketIds;
    mapping(bytes32 => uint256) public calls;

    constructor(ResolutionMarket market_, TestArbiter arbiter_, SimpleIdentityRegistry simple_) {
        market = market_;
        arbiter = arbiter_;
        simple = simple_;
    }

    function actor(uint256 i) public pure returns (address) {
        return address(uint160(0xA0000 + (i % ACTORS)));
    }

    function marketsLength() external view returns (uint256) {
        return marketIds.length;
    }

    function _pick(uint256 seed) internal view returns (uint256 id, bool ok) {
        if (marketIds.length == 0) return (0, false);
        return (marketIds[seed % marketIds.length], true);
    }

    /// @dev The first market in `status`, scanning from a random offset (falls back to a random market).
    function _find(uint256 seed, IResolutionMarket.Status status) internal view returns (uint256 id, bool ok) {
        uint256 n = marketIds.length;
        if (n == 0) return (0, false);
        for (uint256 k; k < n; ++k) {
            uint256 candidate = marketIds[(seed + k) % n];
            if (market.getMarket(candidate).status == status) return (candidate, true);
        }
        return (marketIds[seed % n], true);
    }

    function create(uint256 actorSeed, uint256 poolSeed, uint256 durationSeed) external {
        address who = actor(actorSeed);
        uint256 pool = _gov(market).MIN_REWARD_POOL() + (poolSeed % 10 ether);
        vm.deal(who, who.balance + pool);
        vm.prank(who);
        uint256 id = market.createMarket{value: pool}("q", uint64(block.timestamp + 1 + (durationSeed % 2 days)));
        marketIds.push(id);
        deposited += pool;
        ++calls["create"];
    }

    function join(uint256 marketSeed, uint256 actorSeed, uint256 stakeSeed) external {
        (uint256 id, bool ok) = _pick(marketSeed);
        if (!ok) return;
        uint256 a = actorSeed % ACTORS;
        address who = actor(a);
        simple.setController(a + 1, who);
        uint256 stake = 0.001 ether + (stakeSeed % 3 ether);
        vm.deal(who, who.balance + stake);
        vm.prank(who);
        try market.joinMarket{value: stake}(id, a + 1) {
            deposited += stake;
            ++calls["join"];
        } catch {}
    }

    /// @dev An agent hands control to the market (refused at finalization) or takes it back.
    function toggleOperator(uint256 actorSeed) external {
        uint256 a = actorSeed % ACTORS;
        simple.setController(a + 1, simple.controller(a + 1) == address(market) ? actor(a) : address(market));
    }

    function warp(uint256 secondsSeed) external {
        vm.warp(block.timestamp + (secondsSeed % 4 days));
    }

    function request(uint256 marketSeed) external {
        (uint256 id, bool ok) = _find(marketSeed, IResolutionMarket.Status.Open);
        if (!ok) return;
        try market.requestResolution(id) {
            ++calls["request"];
        } catch {}
    }

    function propose(uint256 marketSeed, uint256 seed) external {
        (uint256 id, bool ok) = _find(marketSeed, IResolutionMarket.Status.ResolutionRequested);
        if (!ok) return;
        uint256 n = market.getMarket(id).workerCount;
        IResolutionMarket.WorkerReport[] memory r = new IResolutionMarket.WorkerReport[](n);
        for (uint256 i; i < n; ++i) {
            uint256 x = uint256(keccak256(abi.encode(seed, i)));
            IResolutionMarket.Answer a = IResolutionMarket.Answer(x % 4);
            r[i].answer = a;
            if (a == IResolutionMarket.Answer.Yes || a == IResolutionMarket.Answer.No) {
                r[i] = IResolutionMarket.WorkerReport(a, uint16(5_000 + (x >> 8) % 5_001), uint8((x >> 24) % 101), 50, 50, bytes32(0), "");
            }
        }
        uint256 bond = market.getMarketConfig(id).bond;
        // Half the time an actor who is no resolver: it succeeds once the grace period is over (no owner stall).
        address proposer = (seed >> 128) % 2 == 0 ? RESOLVER : actor(seed >> 129);
        vm.deal(proposer, proposer.balance + bond);
        vm.prank(proposer);
        try market.proposeResolution{value: bond}(id, IResolutionMarket.Verdict(seed % 3), r, bytes32(seed), "ipfs://b") {
            deposited += bond;
            ++calls[proposer == RESOLVER ? bytes32("propose") : bytes32("proposeAnyone")];
        } catch {}
    }

    function dispute(uint256 marketSeed, uint256 claimSeed) external {
        (uint256 id, bool ok) = _find(marketSeed, IResolutionMarket.Status.Proposed);
        if (!ok) return;
        uint256 bond = _gov(market).disputeBond(id);
        vm.deal(DISPUTER, DISPUTER.balance + bond);
        vm.prank(DISPUTER);
        try market.dispute{value: bond}(id, IResolutionMarket.Verdict(claimSeed % 3)) {
            deposited += bond;
            ++calls["dispute"];
        } catch {}
    }

    function rule(uint256 marketSeed, uint256 verdictSeed) external {
        (uint256 id, bool ok) = _find(marketSeed, IResolutionMarket.Status.Disputed);
        if (!ok) return;
        try arbiter.rule(market, id, IResolutionMarket.Verdict(verdictSeed % 3)) {
            ++calls["rule"];
        } catch {}
    }

    function expire(uint256 marketSeed) external {
        (uint256 id, bool ok) = _find(marketSeed, IResolutionMarket.Status.Disputed);
        if (!ok) return;
        try market.expireDispute(id) {
            ++calls["expire"];
        } catch {}
    }

    function finalize(uint256 marketSeed) external {
        (uint256 id, bool ok) = _find(marketSeed, IResolutionMarket.Status.Proposed);
        if (!ok) return;
        try market.finalize(id) {
            ++calls["finalize"];
        } catch {}
    }

    function cancel(uint256 marketSeed) external {
        (uint256 id, bool ok) = _find(marketSeed, IResolutionMarket.Status.ResolutionRequested);
        if (!ok) return;
        try market.requestCancel(id) {} catch {}
        try market.cancelStale(id) {
            ++calls["cancel"];
        } catch {}
    }

    function feedback(uint256 marketSeed, uint256 k) external {
        (uint256 id, bool ok) = _pick(marketSeed);
        if (!ok) return;
        try market.reputation().publishFeedback(id, k % 20) {} catch {}
        try market.reputation().retryFeedback(id, k % 8) {} catch {}
    }

    function withdraw(uint256 actorSeed) external {
        address who = actorSeed % 5 == 0 ? RESOLVER : actorSeed % 5 == 1 ? DISPUTER : actor(actorSeed);
        uint256 owed = market.pendingWithdrawal(who);
        if (owed == 0) return;
        vm.prank(who);
        market.withdraw();
        withdrawn += owed;
        ++calls["withdraw"];
    }
}

/// @notice The market's ETH balance always equals what it owes: credits + escrow (pool, stakes, bonds held)
///         of markets that are not final.
contract ResolutionMarketInvariantTest is TestBase {
    ResolutionMarket internal market;
    MarketHandler internal handler;

    function setUp() public {
        vm.warp(1_800_000_000);
        SimpleIdentityRegistry simple = new SimpleIdentityRegistry();
        // A registry whose every feedback fails: settlement must still be exact.
        RevertingReputationRegistry rep = new RevertingReputationRegistry();
        market = new ResolutionMarket(IIdentityRegistry(address(simple)), IReputationRegistry(address(rep)), address(this));
        TestArbiter arbiter = new TestArbiter();
        _gov(market).queueDefaultArbiter(arbiter);
        _gov(market).queueResolver(address(0xBEEF));
        _gov(market).setDefaults(0.001 ether, 6, 1 hours, 1 hours, 0.01 ether);
        handler = new MarketHandler(market, arbiter, simple);
    }

    function targetContracts() public view returns (address[] memory targets) {
        targets = new address[](1);
        targets[0] = address(handler);
    }

    function _owed() internal view returns (uint256 owed) {
        for (uint256 i; i < handler.ACTORS(); ++i) owed += market.pendingWithdrawal(handler.actor(i));
        owed += market.pendingWithdrawal(handler.RESOLVER()) + market.pendingWithdrawal(handler.DISPUTER());
        uint256 count = handler.marketsLength();
        for (uint256 k; k < count; ++k) {
            uint256 id = handler.marketIds(k);
            IResolutionMarket.MarketInfo memory info = market.getMarket(id);
            IResolutionMarket.Status s = info.status;
            if (s == IResolutionMarket.Status.Resolved || s == IResolutionMarket.Status.Invalid || s == IResolutionMarket.Status.Cancelled) {
                continue;
            }
            owed += info.rewardPool + info.totalStake;
            uint256 bond = market.getMarketConfig(id).bond;
            if (s == IResolutionMarket.Status.Proposed) owed += bond;
            if (s == IResolutionMarket.Status.Disputed) owed += bond + _gov(market).disputeBond(id);
        }
    }

    /// forge-config: default.invariant.runs = 48
    /// forge-config: default.invariant.depth = 60
    function invariantBalanceEqualsWhatIsOwed() public view {
        assertEq(address(market).balance, _owed(), "balance == credits + escrow");
    }

    /// forge-config: default.invariant.runs = 48
    /// forge-config: default.invariant.depth = 60
    function invariantDepositsEqualBalancePlusWithdrawals() public view {
        assertEq(handler.deposited(), address(market).balance + handler.withdrawn(), "conservation");
    }

    /// A deterministic walk through the handler, so the invariant is checked even if the fuzzer is unlucky.
    function testHandlerWalk() public {
        for (uint256 i; i < 300; ++i) {
            uint256 r = uint256(keccak256(abi.encode(i)));
            uint256 action = r % 15;
            if (action == 0) handler.create(r >> 8, r >> 16, r >> 24);
            else if (action <= 2) handler.join(r >> 8, r >> 16, r >> 24);
            else if (action == 3) handler.warp(r >> 8);
            else if (action == 4) handler.request(r >> 8);
            else if (action == 5) handler.propose(r >> 8, r >> 16);
            else if (action == 6) handler.dispute(r >> 8, r >> 16);
            else if (action == 7) handler.rule(r >> 8, r >> 16);
            else if (action == 8) handler.finalize(r >> 8);
            else if (action == 9) handler.cancel(r >> 8);
            else if (action == 10) handler.expire(r >> 8);
            else if (action == 11) handler.toggleOperator(r >> 8);
            else if (action == 12) handler.feedback(r >> 8, r >> 16);
            else handler.withdraw(r >> 8);
            assertEq(address(market).balance, _owed(), "balance == owed");
            assertEq(handler.deposited(), address(market).balance + handler.withdrawn(), "conservation");
        }
        assertTrue(handler.calls("propose") > 0, "proposed some");
        assertTrue(handler.calls("proposeAnyone") > 0, "permissionless proposals after the grace period");
        assertTrue(handler.calls("finalize") > 0, "finalized some");
        assertTrue(handler.calls("dispute") > 0 && handler.calls("rule") > 0, "arbitrated some (slashing path)");
        assertTrue(handler.calls("withdraw") > 0, "withdrew some");
    }
}
