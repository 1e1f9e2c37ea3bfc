// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IResolutionMarket} from "../../market/interfaces/IResolutionMarket.sol";
import {IReceiver} from "./IReceiver.sol";

/// @title CRE receiver that proposes ResolutionMarket verdicts from DON-signed CREsolver reports
/// @notice Types, events and errors of `CREReceiver` (see the contract for the rules).
interface ICREReceiver is IReceiver {
    /// @notice The workflow settings: set at construction (immediately), changed later only through the timelock.
    struct WorkflowConfig {
        /// Workflow ids allowed to deliver (empty: ids not checked).
        bytes32[] workflowIds;
        /// Expected workflow owner (zero: not checked).
        address workflowOwner;
        /// Expected workflow name as encoded in the metadata (zero: not checked).
        bytes10 workflowName;
        /// Accept any workflow the forwarder delivers (simulations and tests only).
        bool allowAnyWorkflow;
    }

    /// @notice A decoded CREsolver report.
    struct CREReport {
        uint256 chainId;
        address market;
        uint256 marketId;
        IResolutionMarket.Verdict verdict;
        IResolutionMarket.WorkerReport[] reports;
        bytes32 bundleHash;
        string bundleURI;
    }

    /// @notice The timelocked settings. `value` of a change: an address (right-aligned) for Forwarder and
    ///         WorkflowOwner, the id for AllowWorkflowId/DisallowWorkflowId, the bytes10 name left-aligned for
    ///         WorkflowName, 0 or 1 for AllowAnyWorkflow.
    enum ChangeKind {
        Forwarder,
        AllowWorkflowId,
        DisallowWorkflowId,
        WorkflowOwner,
        WorkflowName,
        AllowAnyWorkflow
    }

    event ForwarderUpdated(address indexed previousForwarder, address indexed newForwarder);
    event WorkflowIdAllowedSet(bytes32 indexed workflowId, bool allowed);
    event ExpectedWorkflowOwnerUpdated(address indexed previousOwner, address indexed newOwner);
    event ExpectedWorkflowNameUpdated(bytes10 previousName, bytes10 newName);
    event AllowAnyWorkflowSet(bool allowed);
    event ConfigChangeQueued(bytes32 indexed changeId, ChangeKind kind, bytes32 value, uint64 effectiveAt);
    event ConfigChangeApplied(bytes32 indexed changeId, ChangeKind kind, bytes32 value);
    event ConfigChangeCancelled(bytes32 indexed changeId, ChangeKind kind, bytes32 value);
    /// @notice A report was accepted and proposed to the market with `bond` from the float.
    event ReportProcessed(
        uint256 indexed marketId,
        bytes32 indexed workflowId,
        address indexed workflowOwner,
        bytes10 workflowName,
        IResolutionMarket.Verdict verdict,
        bytes32 bundleHash,
        uint256 bond
    );
    event FloatReceived(address indexed from, uint256 amount);
    event FloatWithdrawn(address indexed to, uint256 amount);
    event MarketCreditsPulled(uint256 amount);

    error ZeroAddress();
    error ZeroWorkflowId();
    error UnauthorizedForwarder(address caller);
    error InvalidMetadataLength(uint256 length);
    error NoWorkflowConfigured();
    error WorkflowIdNotAllowed(bytes32 workflowId);
    error WorkflowOwnerMismatch(address workflowOwner, address expected);
    error WorkflowNameMismatch(bytes10 workflowName, bytes10 expected);
    error MalformedReport();
    /// @notice The report was signed for another chain (replay across deployments).
    error WrongChain(uint256 chainId, uint256 expected);
    /// @notice The report names another market contract (replay across deployments).
    error WrongMarket(address market, address expected);
    /// @notice The ETH float cannot pay the market's proposal bond; the owner must fund the receiver.
    error InsufficientFloat(uint256 balance, uint256 required);
    error InvalidChangeValue(ChangeKind kind, bytes32 value);
    error ChangeAlreadyQueued(bytes32 changeId);
    error ChangeNotQueued(bytes32 changeId);
    error TimelockNotOver(bytes32 changeId, uint64 effectiveAt);
    error TransferFailed(address to, uint256 amount);
    error RenounceOwnershipDisabled();

    /// @notice Owner: queues a settings change; it can be applied `CONFIG_DELAY` later.
    function queueChange(ChangeKind kind, bytes32 value) external returns (bytes32 changeId, uint64 effectiveAt);
    /// @notice Owner: applies a queued change whose delay is over.
    function applyChange(ChangeKind kind, bytes32 value) external;
    /// @notice Owner: drops a queued change.
    function cancelChange(ChangeKind kind, bytes32 value) external;
    /// @notice Anyone: pulls the receiver's credits in the market (won or returned bonds) back into the float.
    function pullMarketCredits() external returns (uint256 amount);
    /// @notice Owner: sends float ETH to `to`.
    function withdrawFloat(address payable to, uint256 amount) external;
}
