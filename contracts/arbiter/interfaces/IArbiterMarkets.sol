// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title The markets an arbiter serves
/// @author cresolver
/// @notice Every arbiter names at deployment the ResolutionMarket contracts that may open cases on it (so nobody can
///         make it spend gas or tokens on fake disputes); these are the errors and views of that list, shared by
///         `ICommitteeArbiter` and `IUmaArbiter`.
interface IArbiterMarkets {
    /// @notice A required address (a member, a market, the oracle or the currency) is the zero address.
    error ZeroAddress();
    /// @notice The deployment names no market: the arbiter could never open a case.
    error NoMarkets();
    /// @notice More than `max` markets named at deployment.
    error TooManyMarkets(uint256 count, uint256 max);
    /// @notice `market` is named twice at deployment.
    error DuplicateMarket(address market);
    /// @notice `caller` is not one of the markets named at deployment.
    error NotAMarket(address caller);
    /// @notice The market already opened a case for `marketId` (one dispute per market).
    error CaseAlreadyOpened(address market, uint256 marketId);

    /// @notice The markets that may open cases, in deployment order.
    function getMarkets() external view returns (address[] memory);
    /// @notice Whether `account` is one of the markets that may open cases.
    function isMarket(address account) external view returns (bool);
}
