// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IResolutionMarket} from "./IResolutionMarket.sol";

/// @title Arbiter of disputed resolution proposals
/// @notice A market names one arbiter per market at creation (snapshot). When a proposal is disputed the market
///         calls `onDispute`; the arbiter later rules by calling `IResolutionMarket.resolveDispute` on that market.
///         Implementations: `UmaArbiter` (UMA Optimistic Oracle V3), `CommitteeArbiter` (M-of-N members).
interface IArbiter {
    /// @notice Called by the market inside `dispute`, after the disputer's bond is taken. Reverting here makes the
    ///         dispute revert (an arbiter that cannot take the case must not leave a market stuck in `Disputed`).
    /// @param marketId  the market's id in `msg.sender`
    /// @param proposed  the proposal's verdict
    /// @param claimed   the disputer's claimed verdict (never equal to `proposed`)
    /// @param proposer  who posted the proposal bond
    /// @param disputer  who posted the dispute bond
    /// @param bundleHash keccak256 of the proposal's evidence bundle
    /// @param bundleURI where the evidence bundle can be fetched
    function onDispute(
        uint256 marketId,
        IResolutionMarket.Verdict proposed,
        IResolutionMarket.Verdict claimed,
        address proposer,
        address disputer,
        bytes32 bundleHash,
        string calldata bundleURI
    ) external;
}
