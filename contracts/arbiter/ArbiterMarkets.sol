// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IArbiterMarkets} from "./interfaces/IArbiterMarkets.sol";

/// @title The fixed list of markets an arbiter serves
/// @author cresolver
/// @notice Checked once at deployment (non-empty, at most `MAX_MARKETS`, non-zero, distinct) and never changed: a
///         market created later names a newly deployed arbiter.
abstract contract ArbiterMarkets is IArbiterMarkets {
    /// @notice Upper bound on the markets (keeps the constructor and `getMarkets` bounded).
    uint256 public constant MAX_MARKETS = 20;

    address[] private _markets;
    /// @inheritdoc IArbiterMarkets
    mapping(address account => bool) public isMarket;

    /// @param markets_ the ResolutionMarket contracts that may send disputes (at most `MAX_MARKETS`)
    constructor(address[] memory markets_) {
        if (markets_.length == 0) revert NoMarkets();
        if (markets_.length > MAX_MARKETS) revert TooManyMarkets(markets_.length, MAX_MARKETS);
        for (uint256 i = 0; i < markets_.length; ++i) {
            address m = markets_[i];
            if (m == address(0)) revert ZeroAddress();
            if (isMarket[m]) revert DuplicateMarket(m);
            isMarket[m] = true;
        }
        _markets = markets_;
    }

    /// @inheritdoc IArbiterMarkets
    function getMarkets() external view returns (address[] memory) {
        return _markets;
    }

    /// @dev Reverts unless `caller` is one of the markets named at deployment.
    function _requireMarket(address caller) internal view {
        if (!isMarket[caller]) revert NotAMarket(caller);
    }
}
