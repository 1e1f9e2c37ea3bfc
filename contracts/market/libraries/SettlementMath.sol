// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IResolutionMarket} from "../interfaces/IResolutionMarket.sol";

/// @title Settlement arithmetic of the resolution market
/// @notice Correctness (100·(1 − Brier)), reward weights, the pool split and the packed per-agent reputation
///         word (the per-seat report word is ReportCodec's).
/// @dev Split rule: each seat gets `floor(pool * w_i / W)` with `W = sum(w_i)`; the remainder (`< n` wei) goes to
///      the largest weight, lowest index on ties; `W == 0` pays nobody (the caller refunds the creator).
///      Weights come from {rewardWeight} (at most 100 * 900), so `pool * w_i` never overflows.
library SettlementMath {
    /// @notice Base of the reward weight: correctness × (QUALITY_BASE + the three 0-100 scores).
    uint256 internal constant QUALITY_BASE = 600;
    uint256 internal constant MAX_SCORE = 100;
    /// @notice Deployment constant: a dispute's bond covers at least this share (bps) of the value the dispute can
    ///         move: the reward pool, the stakes and the betting pool (docs/DISPUTES.md "Bonds").
    uint256 internal constant DISPUTE_BOND_BPS = 1_000;
    uint256 internal constant BPS = 10_000;

    /// @notice A dispute's bond: the market's snapshotted `bond` plus DISPUTE_BOND_BPS of `poolAndStakes` (rounded up).
    ///         The betting pool is covered by the `bond` part: {bettingCap} keeps DISPUTE_BOND_BPS of it ≤ `bond`.
    function disputeBond(uint256 bond, uint256 poolAndStakes) internal pure returns (uint256) {
        return bond + (poolAndStakes * DISPUTE_BOND_BPS + BPS - 1) / BPS;
    }

    /// @notice The largest betting pool a market with `bond` covers: DISPUTE_BOND_BPS of it is at most `bond`.
    function bettingCap(uint256 bond) internal pure returns (uint256) {
        return bond * BPS / DISPUTE_BOND_BPS;
    }

    /// @notice 100·(1 − Brier) of a Yes/No answer with confidence `c` (bps) against `outcome`, rounded half up;
    ///         0 for None and Abstained. `d = right ? 10000 − c : c`; result `100 − (d² + 500_000) / 1_000_000`.
    function correctness(IResolutionMarket.Answer answer, uint256 confidenceBps, bool outcome)
        internal
        pure
        returns (uint8)
    {
        if (answer != IResolutionMarket.Answer.Yes && answer != IResolutionMarket.Answer.No) return 0;
        if (confidenceBps > 10_000) revert IResolutionMarket.InvalidReport(0);
        bool right = (answer == IResolutionMarket.Answer.Yes) == outcome;
        uint256 d = right ? 10_000 - confidenceBps : confidenceBps;
        // d <= 10_000, so d² + 500_000 <= 100_500_000 and the quotient is <= 100.
        return uint8(100 - (d * d + 500_000) / 1_000_000);
    }

    /// @notice Reward weight of a Yes/No seat that is neither slashed nor refused.
    function rewardWeight(uint256 correctness_, uint256 res, uint256 src, uint256 depth)
        internal
        pure
        returns (uint256)
    {
        return correctness_ * (QUALITY_BASE + res + src + depth);
    }

    /// @notice Splits `pool` in proportion to `weights` (see the contract notes for the rounding rule).
    /// @param pool at most 2^96 (the market stores uint96)
    /// @param weights each at most 2^128 - 1 (weights from {rewardWeight} are < 2^17)
    /// @return payouts one per seat; `sum(payouts) == pool` when some weight is non-zero, else all zero
    /// @return totalWeight the sum of the weights (0: the pool goes back to the creator)
    function split(uint256 pool, uint256[] memory weights)
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
            totalWeight += w;
            if (w > leadWeight) {
                leadWeight = w;
                lead = i;
            }
        }
        if (totalWeight == 0) return (payouts, 0);
        uint256 paid;
        for (uint256 i; i < n; ++i) {
            uint256 share = (pool * weights[i]) / totalWeight;
            paid += share;
            payouts[i] = share;
        }
        // paid <= pool: every share is the floor of its exact fraction.
        payouts[lead] += pool - paid;
    }

    // Reputation accumulator, six 40-bit fields (low to high): settled | sumCorrectness | answered | sumRes |
    // sumSrc | sumDepth. Each grows by at most 100 per market: 2^40 / 100 ≈ 1.1e10 markets before a carry.

    /// @notice Adds one scored seat: a failure (answered = false) counts as correctness 0 and no quality.
    function addObservation(uint256 packed, bool answered, uint256 correctness_, uint256 res, uint256 src, uint256 depth)
        internal
        pure
        returns (uint256)
    {
        unchecked {
            packed += 1 + (correctness_ << 40);
            if (answered) packed += (1 << 80) + (res << 120) + (src << 160) + (depth << 200);
            return packed;
        }
    }

    /// @notice Number of settled seats and the floor average correctness of an accumulator.
    function settledAndCorrectness(uint256 packed) internal pure returns (uint256 settled, uint256 avg) {
        settled = packed & 0xffffffffff;
        if (settled != 0) avg = ((packed >> 40) & 0xffffffffff) / settled;
    }

    /// @notice The public view of an accumulator.
    function reputation(uint256 packed) internal pure returns (IResolutionMarket.Reputation memory rep) {
        (uint256 settled, uint256 avg) = settledAndCorrectness(packed);
        rep.settled = uint64(settled);
        rep.correctness = uint8(avg);
        uint256 answered = (packed >> 80) & 0xffffffffff;
        if (answered != 0) {
            rep.resQuality = uint8(((packed >> 120) & 0xffffffffff) / answered);
            rep.srcQuality = uint8(((packed >> 160) & 0xffffffffff) / answered);
            rep.analysisDepth = uint8(((packed >> 200) & 0xffffffffff) / answered);
        }
    }
}
