// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Settlement arithmetic of the resolution market
/// @notice Splits a reward pool in proportion to weights with no wei left behind, and packs the
///         per-agent reputation accumulator and the per-worker score triple.
/// @dev Rules (documented because the issue leaves them open):
///      - Each worker gets `floor(pool * w_i / W)` with `W = sum(w_i)`.
///      - The rounding remainder `pool - sum(floor shares)` (always `< n` wei) goes to the worker with the
///        largest weight; on ties the lowest index (earliest joiner) wins. Deterministic and cheap.
///      - If `W == 0` nothing is paid to workers; the caller returns the whole pool to the market creator.
///      - Every weight must be `<= MAX_WEIGHT` (2^128 - 1). Pools are at most 2^128 (the market stores uint96), so `pool * w_i`
///        is always `< 2^256` and `W` cannot overflow for any realistic worker count; no mulDiv needed.
library SettlementMath {
    /// @notice Largest accepted settlement weight.
    uint256 internal constant MAX_WEIGHT = type(uint128).max;

    /// @notice A weight above `MAX_WEIGHT`.
    error WeightTooLarge(uint256 index, uint256 weight);

    /// @notice Splits `pool` in proportion to `weights`.
    /// @param pool the amount to split; must be `<= type(uint128).max` (the market stores it as uint96)
    /// @param weights one weight per worker, each `<= MAX_WEIGHT`
    /// @return payouts one payout per worker; `sum(payouts) == pool` when some weight is non-zero, else all zero
    /// @return totalWeight the sum of the weights (0 means: the pool goes back to the creator)
    function split(uint256 pool, uint256[] calldata weights)
        internal
        pure
        returns (uint256[] memory payouts, uint256 totalWeight)
    {
        uint256 n = weights.length;
        payouts = new uint256[](n);
        uint256 lead;
        uint256 leadWeight;
        for (uint256 i; i < n; ++i) {
            uint256 w = weights[i];
            if (w > MAX_WEIGHT) revert WeightTooLarge(i, w);
            // n * 2^128 cannot overflow for any array that fits in calldata.
            totalWeight += w;
            if (w > leadWeight) {
                leadWeight = w;
                lead = i;
            }
        }
        if (totalWeight == 0) return (payouts, 0);
        uint256 paid;
        for (uint256 i; i < n; ++i) {
            // pool < 2^128 and w <= 2^128 - 1, so the product fits; the result is <= pool.
            uint256 share;
            unchecked {
                share = (pool * weights[i]) / totalWeight;
                paid += share;
            }
            payouts[i] = share;
        }
        // paid <= pool because every share is a floor of its exact fraction of pool.
        unchecked {
            payouts[lead] += pool - paid;
        }
    }

    /// @notice Packs three 0-100 scores into 24 bits: resolution quality | source << 8 | depth << 16.
    function packScores(uint256 res, uint256 src, uint256 depth) internal pure returns (uint256) {
        return res | (src << 8) | (depth << 16);
    }

    /// @notice Adds one observation to a packed reputation accumulator.
    /// @dev Layout (low to high): count uint64 | sumRes uint64 | sumSrc uint64 | sumDepth uint64.
    ///      Each sum grows by at most 100 per market and the count by 1: neither can reach 2^64 in practice
    ///      (1.8e17 settlements), so a plain add never carries into the next field.
    function addObservation(uint256 packed, uint256 res, uint256 src, uint256 depth)
        internal
        pure
        returns (uint256)
    {
        unchecked {
            return packed + 1 + (res << 64) + (src << 128) + (depth << 192);
        }
    }

    /// @notice Unpacks an accumulator into its count and three floor averages.
    function averages(uint256 packed)
        internal
        pure
        returns (uint64 count, uint8 res, uint8 src, uint8 depth)
    {
        count = uint64(packed);
        if (count == 0) return (0, 0, 0, 0);
        // Every observation is <= 100, so every average is <= 100 and fits uint8.
        res = uint8(uint64(packed >> 64) / count);
        src = uint8(uint64(packed >> 128) / count);
        depth = uint8(uint64(packed >> 192) / count);
    }
}
