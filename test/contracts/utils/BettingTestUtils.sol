// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Pure helpers shared by the betting and CRE tests.
library TestMath {
    /// @notice Maps `x` into [min, max] (inclusive) without rejecting inputs.
    function bound(uint256 x, uint256 min, uint256 max) internal pure returns (uint256) {
        if (max <= min) return min;
        return min + (x % (max - min + 1));
    }

    /// @notice Deterministic pseudo-random word number `i` derived from `seed`.
    function rand(uint256 seed, uint256 i) internal pure returns (uint256) {
        return uint256(keccak256(abi.encode(seed, i)));
    }

    /// @notice A permutation of 0..n-1 (Fisher-Yates driven by `seed`).
    function permutation(uint256 n, uint256 seed) internal pure returns (uint256[] memory order) {
        order = new uint256[](n);
        for (uint256 i = 0; i < n; ++i) {
            order[i] = i;
        }
        for (uint256 i = n; i > 1; --i) {
            uint256 j = rand(seed, 1_000_000 + i) % i;
            (order[i - 1], order[j]) = (order[j], order[i - 1]);
        }
    }
}
