// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title The part of UMA's Optimistic Oracle V3 that UmaArbiter calls
/// @notice Declared here (not imported from `@uma/core`) so this MIT code base compiles with one solc and one
///         OpenZeppelin version; the selectors and argument order match UMA's deployed OptimisticOracleV3.
///         Behaviour (UMA docs, docs.uma.xyz): `assertTruth` pulls `bond` of `currency` from the caller and opens
///         a claim for `liveness` seconds; anyone may dispute it with an equal bond (then UMA's DVM votes); after
///         liveness, or once the DVM answered, anyone calls `settleAssertion`, which pays the bonds and calls
///         `assertionResolvedCallback` on the callback recipient.
interface IOptimisticOracleV3 {
    /// @return assertionId keccak of the assertion's parameters and the caller
    function assertTruth(
        bytes memory claim,
        address asserter,
        address callbackRecipient,
        address escalationManager,
        uint64 liveness,
        IERC20 currency,
        uint256 bond,
        bytes32 identifier,
        bytes32 domainId
    ) external returns (bytes32 assertionId);

    /// @notice The smallest bond accepted for `currency` (UMA's final fee divided by the burned-bond share).
    function getMinimumBond(address currency) external view returns (uint256);

    /// @notice "ASSERT_TRUTH", the identifier the DVM votes on for true/false claims.
    function defaultIdentifier() external view returns (bytes32);

    /// @notice Refreshes OOv3's cached view of UMA's whitelists and final fee for `identifier` and `currency`.
    function syncUmaParams(bytes32 identifier, address currency) external;

    /// @notice OOv3's cached whitelist status and final fee of `currency`.
    function cachedCurrencies(address currency) external view returns (bool isWhitelisted, uint256 finalFee);

    /// @notice OOv3's cached whitelist status of `identifier`.
    function cachedIdentifiers(bytes32 identifier) external view returns (bool);

    function disputeAssertion(bytes32 assertionId, address disputer) external;

    function settleAssertion(bytes32 assertionId) external;
}

/// @title What OOv3 calls on an assertion's callback recipient
interface IOptimisticOracleV3CallbackRecipient {
    /// @notice At settlement: `assertedTruthfully` is true when the claim stood (undisputed, or the DVM agreed).
    function assertionResolvedCallback(bytes32 assertionId, bool assertedTruthfully) external;

    /// @notice When someone disputes the assertion on OOv3 (the DVM will decide).
    function assertionDisputedCallback(bytes32 assertionId) external;
}
