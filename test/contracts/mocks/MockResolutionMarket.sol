// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IResolutionMarket} from "../../../contracts/market/interfaces/IResolutionMarket.sol";

/// @notice Test double of the parts of IResolutionMarket that BettingMarket and CREReceiver use:
///         `getMarket` returns whatever the test set; `resolveMarket` records its arguments.
contract MockResolutionMarket {
    error NotResolver(address caller);
    error ForcedRevert();

    mapping(uint256 => IResolutionMarket.MarketInfo) internal _markets;
    mapping(address => bool) public isResolver;
    bool public revertOnResolve;

    uint256 public resolveCalls;
    uint256 public lastMarketId;
    address[] internal _lastWorkers;
    uint256[] internal _lastWeights;
    uint8[] internal _lastScores;
    bool public lastResolution;
    bytes32 public lastBundleHash;
    string public lastBundleURI;

    function setMarket(uint256 marketId, IResolutionMarket.Status status, uint64 deadline, bool outcome) external {
        IResolutionMarket.MarketInfo storage m = _markets[marketId];
        m.creator = msg.sender;
        m.status = status;
        m.deadline = deadline;
        m.outcome = outcome;
        m.question = "Will it rain?";
    }

    function setResolver(address account, bool allowed) external {
        isResolver[account] = allowed;
    }

    function setRevertOnResolve(bool value) external {
        revertOnResolve = value;
    }

    function getMarket(uint256 marketId) external view returns (IResolutionMarket.MarketInfo memory) {
        return _markets[marketId];
    }

    /// @notice The bond the betting cap reads; unset markets get the largest bond (no practical cap).
    mapping(uint256 => uint96) public bondOf;

    function setBond(uint256 marketId, uint96 bond) external {
        bondOf[marketId] = bond;
    }

    function getMarketConfig(uint256 marketId) external view returns (IResolutionMarket.MarketConfig memory c) {
        uint96 bond = bondOf[marketId];
        c.bond = bond == 0 ? type(uint96).max : bond;
    }

    function resolveMarket(
        uint256 marketId,
        address[] calldata workers,
        uint256[] calldata weights,
        uint8[] calldata scores,
        bool resolution,
        bytes32 bundleHash,
        string calldata bundleURI
    ) external {
        if (!isResolver[msg.sender]) revert NotResolver(msg.sender);
        if (revertOnResolve) revert ForcedRevert();
        ++resolveCalls;
        lastMarketId = marketId;
        _lastWorkers = workers;
        _lastWeights = weights;
        _lastScores = scores;
        lastResolution = resolution;
        lastBundleHash = bundleHash;
        lastBundleURI = bundleURI;
        _markets[marketId].status = IResolutionMarket.Status.Resolved;
        _markets[marketId].outcome = resolution;
        _markets[marketId].bundleHash = bundleHash;
    }

    function lastCall() external view returns (address[] memory, uint256[] memory, uint8[] memory) {
        return (_lastWorkers, _lastWeights, _lastScores);
    }
}
