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

    /// @notice The forwarder allowed to call {onReport} changed.
    event ForwarderUpdated(address indexed previousForwarder, address indexed newForwarder);
    /// @notice `workflowId` was added to (`allowed`) or removed from the workflow id allow-list.
    event WorkflowIdAllowedSet(bytes32 indexed workflowId, bool allowed);
    /// @notice The expected workflow owner changed (zero: not checked).
    event ExpectedWorkflowOwnerUpdated(address indexed previousOwner, address indexed newOwner);
    /// @notice The expected workflow name changed (zero: not checked).
    event ExpectedWorkflowNameUpdated(bytes10 previousName, bytes10 newName);
    /// @notice Reports from any workflow are (`allowed`) or are no longer accepted.
    event AllowAnyWorkflowSet(bool allowed);
    /// @notice A settings change was queued; it can be applied from `effectiveAt`.
    event ConfigChangeQueued(bytes32 indexed changeId, ChangeKind kind, bytes32 value, uint64 effectiveAt);
    /// @notice A queued settings change was applied.
    event ConfigChangeApplied(bytes32 indexed changeId, ChangeKind kind, bytes32 value);
    /// @notice A queued settings change was dropped.
    event ConfigChangeCancelled(bytes32 indexed changeId, ChangeKind kind, bytes32 value);
    /// @notice The largest bond the float pays for one proposal changed.
    event MaxBondUpdated(uint256 previousMaxBond, uint256 newMaxBond);
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
    /// @notice ETH reached the float (owner top-up or market withdrawal).
    event FloatReceived(address indexed from, uint256 amount);
    /// @notice The owner sent float ETH to `to`.
    event FloatWithdrawn(address indexed to, uint256 amount);
    /// @notice The receiver's market credits (won or returned bonds) came back into the float.
    event MarketCreditsPulled(uint256 amount);

    /// @notice A zero address where an account is required.
    error ZeroAddress();
    /// @notice A zero workflow id.
    error ZeroWorkflowId();
    /// @notice {onReport} called by someone other than the forwarder.
    error UnauthorizedForwarder(address caller);
    /// @notice Metadata shorter than 62 bytes.
    error InvalidMetadataLength(uint256 length);
    /// @notice Neither a workflow id allow-list nor an expected owner is configured (fail-closed).
    error NoWorkflowConfigured();
    /// @notice The delivering workflow id is not on the allow-list.
    error WorkflowIdNotAllowed(bytes32 workflowId);
    /// @notice The delivering workflow's owner is not the expected one.
    error WorkflowOwnerMismatch(address workflowOwner, address expected);
    /// @notice The delivering workflow's name is not the expected one.
    error WorkflowNameMismatch(bytes10 workflowName, bytes10 expected);
    /// @notice The report does not decode strictly canonically, or its verdict is out of range.
    error MalformedReport();
    /// @notice The report was signed for another chain (replay across deployments).
    error WrongChain(uint256 chainId, uint256 expected);
    /// @notice The report names another market contract (replay across deployments).
    error WrongMarket(address market, address expected);
    /// @notice The ETH float cannot pay the market's proposal bond; the owner must fund the receiver.
    error InsufficientFloat(uint256 balance, uint256 required);
    /// @notice The market asks a bond above this receiver's cap: the float is not paid into it (issue 21).
    error BondAboveCap(uint256 bond, uint256 cap);
    /// @notice The market's arbiter is not on its deployment's arbiter allow-list: the float is not bonded to it.
    error ArbiterNotAllowed(address arbiter);
    /// @notice The value does not fit the change kind (see {ChangeKind}).
    error InvalidChangeValue(ChangeKind kind, bytes32 value);
    /// @notice This exact change is already queued.
    error ChangeAlreadyQueued(bytes32 changeId);
    /// @notice No such change is queued.
    error ChangeNotQueued(bytes32 changeId);
    /// @notice The queued change can be applied only from `effectiveAt`.
    error TimelockNotOver(bytes32 changeId, uint64 effectiveAt);
    /// @notice Sending ETH to `to` failed.
    error TransferFailed(address to, uint256 amount);
    /// @notice Ownership cannot be renounced (nobody could follow a migration or withdraw the float).
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
    /// @notice Owner: the largest bond the float pays for one proposal (at once: the owner can withdraw the float
    ///         anyway; the cap protects it from market creators, not from its owner).
    function setMaxBond(uint256 newMaxBond) external;
    /// @notice The largest bond the float pays for one proposal.
    function maxBond() external view returns (uint256);
}
