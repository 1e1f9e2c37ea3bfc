// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";

/// @title Chainlink CRE report receiver
/// @notice The interface a Chainlink KeystoneForwarder calls to deliver a DON-signed workflow report.
///         The forwarder checks ERC-165 support for this interface before delivering.
/// @dev `type(IReceiver).interfaceId == bytes4(keccak256("onReport(bytes,bytes)")) == 0x805f2132`.
interface IReceiver is IERC165 {
    /// @notice Delivers a workflow report.
    /// @param metadata `abi.encodePacked(bytes32 workflowId, bytes10 workflowName, address workflowOwner)`,
    ///        possibly followed by more bytes (the KeystoneForwarder appends the 2-byte report id)
    /// @param report the workflow's ABI-encoded payload
    function onReport(bytes calldata metadata, bytes calldata report) external;
}
