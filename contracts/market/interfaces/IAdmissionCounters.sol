// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IIdentityRegistry} from "../../erc8004/interfaces/IIdentityRegistry.sol";

/// @title Admission that costs what it protects (docs/RECORDS.md §5): per-agent counters by value bucket
/// @notice A Resolved market counts for a seat's agent when (1) its creator is none of the seat's controllers
///         (the joining address, the agent's owner, an approved operator, its agentWallet) and (2) it was settled
///         with an independent seat (another Yes/No seat whose agent has a different owner) or by an allowed
///         arbiter (disputed, the market's arbiter on the governance allow-list). It is counted in the bucket
///         floor(log2(value per seat)), value per seat = (reward pool + total stake) / seats, in wei. A
///         TrackRecord-gated market admits an agent when its counted markets in the buckets ≥ ceil(log2(floor)),
///         floor = the gated market's reward pool / its seat cap + its minimum stake, number at least `minSettled`
///         with a floor-average correctness of at least `minCorrectness`: every counted market had at least the
///         floor per seat at stake. A market counts only once someone calls `countAdmission` on it (after its
///         Resolved finalization; the agent's owner, usually): the rule is applied to the market's seats and the
///         registry as they are at that call.
interface IAdmissionCounters {
    /// @notice A Resolved market was counted for an agent's admission.
    /// @param bucket floor(log2(value per seat in wei))
    /// @param correctness the seat's correctness in that market (100·(1 − Brier), 0 for a failed seat)
    event AdmissionCounted(uint256 indexed marketId, uint256 indexed agentId, uint256 bucket, uint8 correctness);

    /// @notice `countAdmission` was already called on this market.
    error AdmissionAlreadyCounted(uint256 marketId);

    /// @notice Permissionless, once per market: counts a Resolved market for every seat it counts for (the rule
    ///         above, read now), emitting `AdmissionCounted` per counted seat. The caller pays for the count.
    ///         Reverts `AdmissionAlreadyCounted` on a second call and the market's `WrongStatus` (or
    ///         `MarketNotFound`) unless the market is Resolved.
    function countAdmission(uint256 marketId) external;

    /// @notice Whether `countAdmission` has been called on `marketId`.
    function admissionCounted(uint256 marketId) external view returns (bool);

    /// @notice The ERC-8004 identity registry whose owners, operators and wallets define a seat's controllers.
    function identityRegistry() external view returns (IIdentityRegistry);

    /// @notice Whether `agentId` passes TrackRecord admission of `marketId` now (its `minSettled` and
    ///         `minCorrectness` over the markets that count at the market's floor). The market's `joinMarket` check.
    function admits(uint256 marketId, uint256 agentId) external view returns (bool);

    /// @notice The value floor per seat of `marketId`: reward pool / seat cap + minimum stake, in wei.
    function admissionFloor(uint256 marketId) external view returns (uint256 floor);

    /// @notice The markets that count for `agentId` at a value floor per seat of `floor` wei (buckets ≥
    ///         ceil(log2(floor))), and their floor-average correctness (0 when none).
    function admissionRecord(uint256 agentId, uint256 floor)
        external
        view
        returns (uint256 settled, uint256 correctness);
}
