// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IIdentityRegistry} from "../../contracts/erc8004/interfaces/IIdentityRegistry.sol";
import {AdmissionCounters} from "../../contracts/market/AdmissionCounters.sol";
import {TestBase} from "./utils/Vm.sol";

/// @notice Exposes the counter write of AdmissionCounters (no market: only the storage layout is under test).
contract AdmissionCountersHarness is AdmissionCounters {
    constructor() AdmissionCounters(IIdentityRegistry(address(0))) {}

    function count(uint256 agentId, uint256 bucket, uint256 correctness) external {
        _count(agentId, bucket, correctness);
    }
}

/// @notice The packed counters (first bucket in the head slot, the others in their own slots) against a plain
///         model: for every floor, `admissionRecord` counts exactly the markets in buckets ≥ ceil(log2(floor)).
contract AdmissionCountersFuzzTest is TestBase {
    function testFuzzCountersMatchAModel(uint256 seed, uint8 nRaw) public {
        AdmissionCountersHarness h = new AdmissionCountersHarness();
        uint256 n = 1 + (nRaw % 40);
        uint256[97] memory cnt;
        uint256[97] memory sum;
        for (uint256 i; i < n; ++i) {
            uint256 r = uint256(keccak256(abi.encode(seed, i)));
            // mostly a few neighbouring buckets (repeats and the primary slot), sometimes anywhere in 0..96
            uint256 bucket = r % 4 == 0 ? (r >> 8) % 97 : 55 + ((r >> 8) % 6);
            uint256 correctness = (r >> 32) % 101;
            h.count(7, bucket, correctness);
            cnt[bucket] += 1;
            sum[bucket] += correctness;
        }
        for (uint256 f; f < 100; f += (f >= 52 && f <= 62) ? 1 : 7) {
            // floors 2^f − 1, 2^f, 2^f + 1 need buckets ≥ f (or f + 1 for 2^f + 1); f = 0 also covers floor 0
            for (uint256 d; d < 3; ++d) {
                uint256 floor = d == 0 ? (1 << f) - 1 : d == 1 ? 1 << f : (1 << f) + 1;
                uint256 from = floor <= 1 ? 0 : (d == 2 ? f + 1 : f); // 2^f − 1 > 2^(f−1) for f ≥ 2
                uint256 c;
                uint256 s;
                for (uint256 b = from; b < 97; ++b) {
                    c += cnt[b];
                    s += sum[b];
                }
                (uint256 settled, uint256 correctness) = h.admissionRecord(7, floor);
                assertEq(settled, c, "settled at floor");
                assertEq(correctness, c == 0 ? 0 : s / c, "floor-average correctness");
            }
        }
        (uint256 none,) = h.admissionRecord(8, 0);
        assertEq(none, 0, "another agent has nothing");
    }
}
