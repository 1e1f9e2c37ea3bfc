// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {IReceiver} from "../../../contracts/cre/interfaces/IReceiver.sol";

/// @notice Minimal stand-in for Chainlink's KeystoneForwarder delivery path (no signatures): it builds the
///         raw report header the way the DON does and hands the receiver the same slices the real forwarder
///         does — metadata = rawReport[45:109] (workflowId | workflowName | workflowOwner | reportId) and
///         report = rawReport[109:] — after the same ERC-165 check the real router performs.
contract MockKeystoneForwarder {
    error ReceiverNotSupported(address receiver);

    /// @dev Header: version(1) | executionId(32) | timestamp(4) | donId(4) | donConfigVersion(4) |
    ///      workflowId(32) | workflowName(10) | workflowOwner(20) | reportId(2) = 109 bytes.
    function buildRawReport(
        bytes32 workflowId,
        bytes10 workflowName,
        address workflowOwner,
        bytes2 reportId,
        bytes memory payload
    ) public view returns (bytes memory) {
        return abi.encodePacked(
            uint8(1),
            keccak256(abi.encode(workflowId, payload)),
            uint32(block.timestamp),
            uint32(1),
            uint32(1),
            workflowId,
            workflowName,
            workflowOwner,
            reportId,
            payload
        );
    }

    function deliver(address receiver, bytes calldata rawReport) public {
        if (!IERC165(receiver).supportsInterface(type(IReceiver).interfaceId)) revert ReceiverNotSupported(receiver);
        IReceiver(receiver).onReport(rawReport[45:109], rawReport[109:]);
    }

    function report(
        address receiver,
        bytes32 workflowId,
        bytes10 workflowName,
        address workflowOwner,
        bytes memory payload
    ) external {
        this.deliver(receiver, buildRawReport(workflowId, workflowName, workflowOwner, bytes2(0x0001), payload));
    }
}
