// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IIdentityRegistry} from "../../contracts/erc8004/interfaces/IIdentityRegistry.sol";
import {IReputationRegistry} from "../../contracts/erc8004/interfaces/IReputationRegistry.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {ResolutionMarket} from "../../contracts/market/ResolutionMarket.sol";
import {SettlementMath} from "../../contracts/market/libraries/SettlementMath.sol";
import {MarketFixture} from "./market/MarketFixture.sol";
import {SettlementMathHarness, SimpleIdentityRegistry, GasRecordingReputationRegistry} from "./market/MarketMocks.sol";

/// @notice Fuzz tests of the settlement math, alone and through the market.
contract ResolutionMarketFuzzTest is MarketFixture {
    SettlementMathHarness internal math;
    SimpleIdentityRegistry internal simple;
    ResolutionMarket internal cheap; // simple identity + a no-op reputation registry: fast fuzzing

    function setUp() public override {
        super.setUp();
        math = new SettlementMathHarness();
        simple = new SimpleIdentityRegistry();
        GasRecordingReputationRegistry sink = new GasRecordingReputationRegistry(0, 0);
        cheap = _deployMarket(IIdentityRegistry(address(simple)), IReputationRegistry(address(sink)));
        for (uint256 i = 1; i <= 100; ++i) {
            simple.setController(i, _worker(i));
            vm.deal(_worker(i), 1_000_000 ether);
        }
    }

    /// @dev Mixed weights: zeros, small, near-maximal and arbitrary 128-bit values.
    function _weights(uint256 seed, uint256 n) internal pure returns (uint256[] memory w) {
        w = new uint256[](n);
        for (uint256 i; i < n; ++i) {
            uint256 r = uint256(keccak256(abi.encode(seed, i)));
            uint256 kind = r % 5;
            r >>= 8;
            if (kind == 0) w[i] = 0;
            else if (kind == 1) w[i] = r % 1000;
            else if (kind == 2) w[i] = SettlementMath.MAX_WEIGHT - (r % 1000);
            else if (kind == 3) w[i] = r % (uint256(1) << 128);
            else w[i] = 1;
        }
    }

    function testFuzzSplitConservesPoolToTheWei(uint256 pool, uint256 seed, uint8 nRaw) public view {
        pool = pool % (uint256(1) << 128);
        uint256 n = 1 + (uint256(nRaw) % 100);
        uint256[] memory w = _weights(seed, n);
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
            if (i == lead && total != 0) {
                assertTrue(payouts[i] >= fair && payouts[i] - fair < n, "lead gets remainder < n");
            } else {
                assertEq(payouts[i], fair, "floor share");
            }
        }
        assertEq(sum, total == 0 ? 0 : pool, "no wei left behind");
    }

    function testFuzzSplitRejectsOverweight(uint256 weight, uint8 at) public {
        weight = bound(weight, SettlementMath.MAX_WEIGHT + 1, type(uint256).max);
        uint256[] memory w = new uint256[](3);
        uint256 idx = at % 3;
        w[idx] = weight;
        vm.expectRevert(abi.encodeWithSelector(SettlementMath.WeightTooLarge.selector, idx, weight));
        math.split(1 ether, w);
    }

    function testFuzzReputationAverages(uint256 seed, uint8 kRaw) public view {
        uint256 k = 1 + (uint256(kRaw) % 50);
        uint256 packed;
        uint256[3] memory sums;
        for (uint256 i; i < k; ++i) {
            uint256 r = uint256(keccak256(abi.encode(seed, i)));
            uint256 a = r % 101;
            uint256 b = (r >> 16) % 101;
            uint256 c = (r >> 32) % 101;
            packed = math.addObservation(packed, a, b, c);
            sums[0] += a;
            sums[1] += b;
            sums[2] += c;
        }
        (uint64 count, uint8 x, uint8 y, uint8 z) = math.averages(packed);
        assertEq(uint256(count), k, "count");
        assertEq(uint256(x), sums[0] / k, "res");
        assertEq(uint256(y), sums[1] / k, "src");
        assertEq(uint256(z), sums[2] / k, "depth");
    }

    /// forge-config: default.fuzz.runs = 40
    function testFuzzMarketSettlementConservesFunds(uint256 seed) public {
        uint256 n = 1 + (seed % 100);
        uint256 pool = 1 + (uint256(keccak256(abi.encode(seed, "pool"))) % 1_000 ether);
        vm.prank(creator);
        uint256 id = cheap.createMarket{value: pool}(QUESTION, uint64(block.timestamp + 1 days));
        address[] memory ws = new address[](n);
        uint256 stakes;
        for (uint256 i; i < n; ++i) {
            uint256 stake = cheap.minStake() + (uint256(keccak256(abi.encode(seed, "stake", i))) % 50 ether);
            ws[i] = _worker(i + 1);
            vm.prank(ws[i]);
            cheap.joinMarket{value: stake}(id, i + 1);
            stakes += stake;
        }
        _request(cheap, id);
        uint256 path = (seed >> 128) % 4;
        if (path <= 1) {
            vm.prank(resolver);
            cheap.resolveMarket(id, ws, _weights(seed, n), _scores(n, 50, 50, 50), true, HASH, URI);
        } else if (path == 2) {
            vm.prank(resolver);
            cheap.settleInvalid(id, HASH, URI);
        } else {
            vm.warp(block.timestamp + 3 days);
            cheap.cancelStale(id);
        }
        uint256 credited = cheap.pendingWithdrawal(creator);
        for (uint256 i; i < n; ++i) credited += cheap.pendingWithdrawal(ws[i]);
        assertEq(credited, pool + stakes, "payouts + refunds == pool + stakes");
        assertEq(address(cheap).balance, credited, "balance == owed");
        // Everyone can take their money out; the contract ends empty.
        if (cheap.pendingWithdrawal(creator) > 0) {
            vm.prank(creator);
            cheap.withdraw();
        }
        for (uint256 i; i < n; ++i) {
            vm.prank(ws[i]);
            cheap.withdraw();
        }
        assertEq(address(cheap).balance, 0, "drained exactly");
    }

    function bound(uint256 x, uint256 lo, uint256 hi) internal pure returns (uint256) {
        if (x >= lo && x <= hi) return x;
        uint256 size = hi - lo + 1;
        return size == 0 ? x : lo + (x % size);
    }
}
