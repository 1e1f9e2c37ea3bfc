// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IArbiter} from "../../market/interfaces/IArbiter.sol";
import {IResolutionMarket} from "../../market/interfaces/IResolutionMarket.sol";
import {IArbiterMarkets} from "./IArbiterMarkets.sol";

/// @title M-of-N committee arbiter of disputed proposals
/// @notice Fixed members and threshold, chosen at deployment (no owner, no member changes: a committee that wants
///         other members deploys another arbiter, and only markets created afterwards can name it). Members vote a
///         verdict once per case; the first verdict to reach `threshold` votes is sent to the market.
interface ICommitteeArbiter is IArbiter, IArbiterMarkets {
    /// @notice Life of one case, keyed by (market, marketId).
    enum CaseStatus {
        None,
        Open,
        Decided
    }

    /// @notice What the arbiter knows about one dispute.
    struct Case {
        CaseStatus status;
        IResolutionMarket.Verdict proposed;
        IResolutionMarket.Verdict claimed;
        /// Set once decided.
        IResolutionMarket.Verdict ruling;
        uint64 openedAt;
        uint64 decidedAt;
        address proposer;
        address disputer;
        bytes32 bundleHash;
        /// Votes per verdict, indexed by `uint8(Verdict)`.
        uint16[3] votes;
    }

    /// @notice A market sent a dispute; members can now vote on it.
    event CaseOpened(
        address indexed market,
        uint256 indexed marketId,
        IResolutionMarket.Verdict proposed,
        IResolutionMarket.Verdict claimed,
        address proposer,
        address disputer,
        bytes32 bundleHash,
        string bundleURI
    );
    /// @notice A member voted `verdict` on the case of (`market`, `marketId`).
    event Voted(address indexed market, uint256 indexed marketId, address indexed member, IResolutionMarket.Verdict verdict);
    /// @notice `threshold` members agreed; the market was told in the same transaction.
    event CaseDecided(address indexed market, uint256 indexed marketId, IResolutionMarket.Verdict verdict, uint256 votes);

    /// @notice The committee has no member.
    error NoMembers();
    /// @notice More than `max` members.
    error TooManyMembers(uint256 count, uint256 max);
    /// @notice `member` is named twice.
    error DuplicateMember(address member);
    /// @notice The threshold is 0 or above the number of members.
    error ThresholdOutOfRange(uint256 threshold, uint256 members);
    /// @notice `caller` is not a committee member.
    error NotAMember(address caller);
    /// @notice The case is not open for votes (never opened, or already decided).
    error CaseNotOpen(address market, uint256 marketId, CaseStatus status);
    /// @notice `member` already voted on this case.
    error AlreadyVoted(address market, uint256 marketId, address member);

    /// @notice Casts the caller's vote; the vote that reaches `threshold` calls `resolveDispute` on the market
    ///         (if the market refuses, the whole vote reverts and the case stays open).
    function vote(address market, uint256 marketId, IResolutionMarket.Verdict verdict) external;

    function threshold() external view returns (uint256);
    function getMembers() external view returns (address[] memory);
    function isMember(address account) external view returns (bool);
    function getCase(address market, uint256 marketId) external view returns (Case memory);
    function hasVoted(address market, uint256 marketId, address member) external view returns (bool);
}
