// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IArbiter} from "./IArbiter.sol";
import {IResolutionMarket} from "./IResolutionMarket.sol";

/// @title The bounded owner of one resolution market, deployed by that market
/// @notice Timelocked resolvers and default arbiter, and the defaults of markets created later. The market reads
///         it when a market is created ({snapshotConfig}) and snapshots the result per market; proposals check
///         {resolverActiveFrom} against the market's creation time. The owner can never move funds, change a live
///         market's settings, nor decide a market.
interface IMarketGovernance {
    /// @notice `resolver` may propose on markets created at or after `activeFrom`.
    event ResolverQueued(address indexed resolver, uint64 activeFrom);
    /// @notice `resolver` may no longer propose.
    event ResolverRemoved(address indexed resolver);
    /// @notice `arbiter` becomes the default arbiter of markets created at or after `effectiveAt`.
    event DefaultArbiterQueued(address indexed arbiter, uint64 effectiveAt);
    /// @notice The default arbiter changed.
    event DefaultArbiterUpdated(address indexed arbiter);
    /// @notice The defaults of markets created from now on changed.
    event DefaultsUpdated(uint96 minStake, uint8 maxWorkers, uint32 gracePeriod, uint32 disputeWindow, uint96 bond);

    /// @notice A zero address where an account is required.
    error ZeroAddress();
    /// @notice The arbiter has no code.
    error ArbiterNotAContract(address arbiter);
    /// @notice Nothing is queued to apply.
    error NothingQueued();
    /// @notice The queued change applies only from `effectiveAt`.
    error TimelockNotOver(uint256 effectiveAt);
    /// @notice Ownership cannot be renounced (no resolver could ever be queued again).
    error RenounceOwnershipDisabled();
    /// @notice Only the market that deployed this contract may call.
    error NotMarket(address caller);
    /// @notice Seat limit outside 1..MAX_WORKERS_CAP.
    error MaxWorkersOutOfRange(uint256 value);
    /// @notice Grace period outside [MIN_GRACE_PERIOD, MAX_GRACE_PERIOD].
    error GracePeriodOutOfRange(uint256 value);
    /// @notice Dispute window outside [MIN_DISPUTE_WINDOW, MAX_DISPUTE_WINDOW].
    error DisputeWindowOutOfRange(uint256 value);
    /// @notice Minimum stake below MIN_STAKE_FLOOR.
    error MinStakeOutOfRange(uint256 value);
    /// @notice Bond below MIN_BOND.
    error BondOutOfRange(uint256 value);
    /// @notice Reward pool below MIN_REWARD_POOL.
    error RewardPoolTooSmall(uint256 value, uint256 minimum);
    /// @notice Reward pool of 2^96 wei or more.
    error RewardPoolTooLarge(uint256 value);
    /// @notice The question is empty.
    error EmptyQuestion();
    /// @notice The question is longer than MAX_QUESTION_BYTES.
    error QuestionTooLong(uint256 length);
    /// @notice The deadline is not after now.
    error DeadlineNotInFuture(uint64 deadline);
    /// @notice The deadline is more than MAX_DEADLINE_HORIZON away.
    error DeadlineTooFar(uint64 deadline);
    /// @notice More than MAX_ALLOW_LIST agents on an allow-list.
    error AllowListTooLong(uint256 length);

    /// @notice The market this contract governs (its deployer).
    function market() external view returns (address);

    /// @notice Queues `resolver`: it may propose on markets created at or after `now + RESOLVER_DELAY`
    ///         (immediately while no market exists yet). No-op if already queued.
    function queueResolver(address resolver) external;

    /// @notice Revokes `resolver` at once.
    function removeResolver(address resolver) external;

    /// @notice Queues the default arbiter of markets created after `now + RESOLVER_DELAY` (immediately while no
    ///         market exists yet). Replaces a queued one.
    function queueDefaultArbiter(IArbiter arbiter) external;

    /// @notice Anyone: applies the queued default arbiter once its timelock is over (also done lazily at creation).
    function applyDefaultArbiter() external;

    /// @notice Defaults of markets created from now on (markets snapshot them at creation).
    function setDefaults(uint96 minStake, uint8 maxWorkers, uint32 gracePeriod, uint32 disputeWindow, uint96 bond)
        external;

    /// @notice The market only, at creation: validates the new market (reward pool `pool`, question length,
    ///         deadline, allow-list length) and returns its settings from the creator's `params` (zero fields take
    ///         the defaults), bounds checked; applies a due queued arbiter and ends the bootstrap.
    /// @return config the snapshot (`createdAt`, admission fields and the allow-list are the market's business)
    function snapshotConfig(
        IResolutionMarket.MarketParams calldata params,
        uint256 questionLength,
        uint64 deadline,
        uint256 pool
    )
        external
        returns (IResolutionMarket.MarketConfig memory config);

    /// @notice The settings a market created now with zero params would get (`createdAt` = 0, admission Open).
    function getDefaults() external view returns (IResolutionMarket.MarketConfig memory);
    /// @notice The queued default arbiter and when it applies (zero if none).
    function pendingDefaultArbiter() external view returns (IArbiter arbiter, uint64 effectiveAt);
    /// @notice Markets created at or after this time accept proposals from `resolver` (0 = not a resolver).
    function resolverActiveFrom(address resolver) external view returns (uint64);
}
