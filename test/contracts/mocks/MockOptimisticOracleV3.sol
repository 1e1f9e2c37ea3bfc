// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IOptimisticOracleV3CallbackRecipient} from "../../../contracts/arbiter/interfaces/IOptimisticOracleV3.sol";

contract TestToken is ERC20("Test USD", "TUSD") {
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}

/// @notice Unit-test stand-in for OOv3 (UMA's real contracts run in the TypeScript end-to-end tests): it pulls the
///         bond like OOv3, records the assertion and lets the test fire the two callbacks.
contract MockOptimisticOracleV3 {
    struct Assertion {
        bytes claim;
        address asserter;
        address callbackRecipient;
        address escalationManager;
        uint64 liveness;
        IERC20 currency;
        uint256 bond;
        bytes32 identifier;
        bytes32 domainId;
    }

    uint256 public minimumBond;
    uint256 public count;
    mapping(bytes32 => Assertion) internal _assertions;
    bytes32 public lastId;

    function setMinimumBond(uint256 v) external {
        minimumBond = v;
    }

    mapping(address => bool) public unsupported;
    bool public identifierUnsupported;
    uint256 public syncs;

    function setUnsupported(address currency, bool v) external {
        unsupported[currency] = v;
    }

    function setIdentifierUnsupported(bool v) external {
        identifierUnsupported = v;
    }

    function syncUmaParams(bytes32, address) external {
        ++syncs;
    }

    function cachedCurrencies(address currency) external view returns (bool isWhitelisted, uint256 finalFee) {
        return (!unsupported[currency], minimumBond / 2);
    }

    function cachedIdentifiers(bytes32) external view returns (bool) {
        return !identifierUnsupported;
    }

    function defaultIdentifier() external pure returns (bytes32) {
        return "ASSERT_TRUTH";
    }

    function getMinimumBond(address) external view returns (uint256) {
        return minimumBond;
    }

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
    ) external returns (bytes32 id) {
        require(bond >= minimumBond, "Bond amount too low");
        id = keccak256(abi.encode(claim, ++count));
        _assertions[id] =
            Assertion(claim, asserter, callbackRecipient, escalationManager, liveness, currency, bond, identifier, domainId);
        lastId = id;
        require(currency.transferFrom(msg.sender, address(this), bond), "transferFrom");
    }

    function getAssertion(bytes32 id) external view returns (Assertion memory) {
        return _assertions[id];
    }

    function fireDisputed(bytes32 id) external {
        IOptimisticOracleV3CallbackRecipient(_assertions[id].callbackRecipient).assertionDisputedCallback(id);
    }

    function fireResolved(bytes32 id, bool truthful) external {
        IOptimisticOracleV3CallbackRecipient(_assertions[id].callbackRecipient).assertionResolvedCallback(id, truthful);
    }

    /// @notice Fires the callback with a gas cap, as a griefing settler could.
    function fireResolvedWithGas(bytes32 id, bool truthful, uint256 gas) external {
        IOptimisticOracleV3CallbackRecipient(_assertions[id].callbackRecipient).assertionResolvedCallback{gas: gas}(id, truthful);
    }
}
