// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IResolutionMarket} from "../../../contracts/market/interfaces/IResolutionMarket.sol";
import {MarketGovernance} from "../../../contracts/market/MarketGovernance.sol";
import {MarketReputation} from "../../../contracts/market/MarketReputation.sol";

/// @notice The governance contract a market deployed (owner powers, constants).
function _gov(IResolutionMarket m) view returns (MarketGovernance) {
    return MarketGovernance(address(m.governance()));
}

/// @notice The feedback writer and reputation book a market deployed (the ERC-8004 client of its records).
function _rep(IResolutionMarket m) view returns (MarketReputation) {
    return MarketReputation(address(m.reputation()));
}
