// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Errors of a market's creation parameters
/// @author cresolver
/// @notice `MarketGovernance` checks a new market's parameters (and the defaults and bond range it keeps) against
///         the deployment's bounds and raises these; `ResolutionMarket.createMarket` calls it, so the same errors
///         reach the market's callers. Declared once here and inherited by `IMarketGovernance` and
///         `IResolutionMarket`, so both ABIs decode them.
interface IMarketBoundErrors {
    /// @notice A zero address where an account is required.
    error ZeroAddress();
    /// @notice Seat limit outside 1..MAX_WORKERS_CAP.
    error MaxWorkersOutOfRange(uint256 value);
    /// @notice Dispute window outside [MIN_DISPUTE_WINDOW, MAX_DISPUTE_WINDOW].
    error DisputeWindowOutOfRange(uint256 value);
    /// @notice Minimum stake below MIN_STAKE_FLOOR.
    error MinStakeOutOfRange(uint256 value);
    /// @notice Bond below MIN_BOND, or outside the deployment's bond range.
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
    /// @notice The arbiter has no code.
    error ArbiterNotAContract(address arbiter);
    /// @notice The market's arbiter is not (yet, or any more) on the deployment's arbiter allow-list.
    error ArbiterNotAllowed(address arbiter);
}
