// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TestBase} from "./utils/Vm.sol";
import {IIdentityRegistry} from "../../contracts/erc8004/interfaces/IIdentityRegistry.sol";
import {IReputationRegistry} from "../../contracts/erc8004/interfaces/IReputationRegistry.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {ResolutionMarket} from "../../contracts/market/ResolutionMarket.sol";
import {SimpleIdentityRegistry, RevertingReputationRegistry} from "./market/MarketMocks.sol";

/// @notice Drives the market through random sequences of every user action.
contract MarketHandler is TestBase {
    ResolutionMarket public immutable market;
    address public immutable resolver;
    uint256 public constant ACTORS = 8;

    uint256 public deposited; // pools + stakes sent in
    uint256 public withdrawn; // paid out by withdraw
    uint256[] public marketIds;
    mapping(bytes32 => uint256) public calls;

    constructor(ResolutionMarket market_, address resolver_) {
        market = market_;
        resolver = resolver_;
    }

    function actor(uint256 i) public pure returns (address) {
        return address(uint160(0xA0000 + (i % ACTORS)));
    }

    function marketsLength() external view returns (uint256) {
        return marketIds.length;
    }

    function _pickMarket(uint256 seed) internal view returns (uint256 id, bool ok) {
        if (marketIds.length == 0) return (0, false);
        return (marketIds[seed % marketIds.length], true);
    }

    function create(uint256 actorSeed, uint256 poolSeed, uint256 durationSeed) external {
        address who = actor(actorSeed);
        uint256 pool = 1 + (poolSeed % 10 ether);
        vm.deal(who, who.balance + pool);
        vm.prank(who);
        uint256 id = market.createMarket{value: pool}("q", uint64(block.timestamp + 1 + (durationSeed % 2 days)));
        marketIds.push(id);
        deposited += pool;
        ++calls["create"];
    }

    function join(uint256 marketSeed, uint256 actorSeed, uint256 stakeSeed) external {
        (uint256 id, bool ok) = _pickMarket(marketSeed);
        if (!ok) return;
        uint256 a = actorSeed % ACTORS;
        address who = actor(a);
        uint256 stake = market.minStake() + (stakeSeed % 3 ether);
        vm.deal(who, who.balance + stake);
        vm.prank(who);
        try market.joinMarket{value: stake}(id, a + 1) {
            deposited += stake;
            ++calls["join"];
        } catch {}
    }

    function warp(uint256 secondsSeed) external {
        vm.warp(block.timestamp + (secondsSeed % 4 days));
    }

    function request(uint256 marketSeed) external {
        (uint256 id, bool ok) = _pickMarket(marketSeed);
        if (!ok) return;
        try market.requestResolution(id) {
            ++calls["request"];
        } catch {}
    }

    function resolve(uint256 marketSeed, uint256 weightSeed) external {
        (uint256 id, bool ok) = _pickMarket(marketSeed);
        if (!ok) return;
        (address[] memory ws,,) = market.getWorkers(id);
        uint256 n = ws.length;
        uint256[] memory weights = new uint256[](n);
        uint8[] memory scores = new uint8[](3 * n);
        for (uint256 i; i < n; ++i) {
            uint256 r = uint256(keccak256(abi.encode(weightSeed, i)));
            weights[i] = r % 3 == 0 ? 0 : (r >> 8) % (uint256(1) << (8 + (r % 120)));
            scores[3 * i] = uint8(r % 101);
            scores[3 * i + 1] = uint8((r >> 8) % 101);
            scores[3 * i + 2] = uint8((r >> 16) % 101);
        }
        vm.prank(resolver);
        try market.resolveMarket(id, ws, weights, scores, weightSeed % 2 == 0, bytes32(weightSeed), "ipfs://b") {
            ++calls["resolve"];
        } catch {}
    }

    function invalidate(uint256 marketSeed) external {
        (uint256 id, bool ok) = _pickMarket(marketSeed);
        if (!ok) return;
        vm.prank(resolver);
        try market.settleInvalid(id, bytes32(0), "") {
            ++calls["invalid"];
        } catch {}
    }

    function cancelStale(uint256 marketSeed) external {
        (uint256 id, bool ok) = _pickMarket(marketSeed);
        if (!ok) return;
        try market.cancelStale(id) {
            ++calls["cancel"];
        } catch {}
    }

    function publish(uint256 marketSeed, uint256 k) external {
        (uint256 id, bool ok) = _pickMarket(marketSeed);
        if (!ok) return;
        try market.publishFeedback(id, k % 20) {} catch {}
    }

    function withdraw(uint256 actorSeed) external {
        address who = actor(actorSeed);
        uint256 owed = market.pendingWithdrawal(who);
        if (owed == 0) return;
        vm.prank(who);
        market.withdraw();
        withdrawn += owed;
        ++calls["withdraw"];
    }
}

/// @notice The market's ETH balance always equals what it owes: credits + escrow of unsettled markets.
contract ResolutionMarketInvariantTest is TestBase {
    ResolutionMarket internal market;
    MarketHandler internal handler;
    address internal constant RESOLVER = address(0xBEEF);

    function setUp() public {
        vm.warp(1_800_000_000);
        SimpleIdentityRegistry simple = new SimpleIdentityRegistry();
        // A registry whose every feedback fails: settlement must still be exact.
        RevertingReputationRegistry rep = new RevertingReputationRegistry();
        market = new ResolutionMarket(IIdentityRegistry(address(simple)), IReputationRegistry(address(rep)), address(this));
        market.addResolver(RESOLVER);
        market.setMaxWorkers(6);
        handler = new MarketHandler(market, RESOLVER);
        for (uint256 i; i < MarketHandler(handler).ACTORS(); ++i) simple.setController(i + 1, handler.actor(i));
    }

    function targetContracts() public view returns (address[] memory targets) {
        targets = new address[](1);
        targets[0] = address(handler);
    }

    function _owed() internal view returns (uint256 owed) {
        for (uint256 i; i < handler.ACTORS(); ++i) owed += market.pendingWithdrawal(handler.actor(i));
        uint256 count = handler.marketsLength();
        for (uint256 k; k < count; ++k) {
            IResolutionMarket.MarketInfo memory info = market.getMarket(handler.marketIds(k));
            if (info.status == IResolutionMarket.Status.Open || info.status == IResolutionMarket.Status.ResolutionRequested)
            {
                owed += info.rewardPool + info.totalStake;
            }
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
        for (uint256 i; i < 120; ++i) {
            uint256 r = uint256(keccak256(abi.encode(i)));
            uint256 action = r % 9;
            if (action == 0) handler.create(r >> 8, r >> 16, r >> 24);
            else if (action == 1 || action == 2) handler.join(r >> 8, r >> 16, r >> 24);
            else if (action == 3) handler.warp(r >> 8);
            else if (action == 4) handler.request(r >> 8);
            else if (action == 5) handler.resolve(r >> 8, r >> 16);
            else if (action == 6) handler.invalidate(r >> 8);
            else if (action == 7) handler.cancelStale(r >> 8);
            else handler.withdraw(r >> 8);
            assertEq(address(market).balance, _owed(), "balance == owed");
            assertEq(handler.deposited(), address(market).balance + handler.withdrawn(), "conservation");
        }
        assertTrue(handler.calls("resolve") + handler.calls("invalid") + handler.calls("cancel") > 0, "settled some");
        assertTrue(handler.calls("withdraw") > 0, "withdrew some");
    }
}
