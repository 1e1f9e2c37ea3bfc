// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable, Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {IResolutionMarket} from "../market/interfaces/IResolutionMarket.sol";
import {IReceiver} from "./interfaces/IReceiver.sol";

/// @title Chainlink CRE receiver that settles ResolutionMarket markets from DON-signed CREsolver reports
/// @author cresolver
/// @notice The KeystoneForwarder verifies the DON signatures and calls {onReport}. This contract accepts the
///         call only from the configured forwarder and (unless the owner switched on `allowAnyWorkflow`) only
///         from the configured workflow, decodes the CREsolver report and calls
///         `IResolutionMarket.resolveMarket`. It must be granted the resolver role on the market.
/// @dev Metadata layout. The KeystoneForwarder passes `rawReport[45:109]`, i.e.
///      `abi.encodePacked(bytes32 workflowId, bytes10 workflowName, address workflowOwner, bytes2 reportId)`;
///      Chainlink's consumer-contract guide documents the first 62 bytes as
///      `abi.encodePacked(workflowId, workflowName, workflowOwner)`. We require at least 62 bytes and ignore
///      anything after them. `workflowName` is CRE's 10-byte encoding of the name (derived from its SHA-256),
///      not the plain string: configure the value exactly as it appears in the metadata.
///
///      Workflow check (when `allowAnyWorkflow` is false), fail-closed:
///      - at least one strong criterion must be configured: a non-empty workflow-id allow-list or an
///        expected workflow owner; otherwise every report is refused ({NoWorkflowConfigured});
///      - every configured criterion must match (AND): id in the allow-list (if the list is non-empty),
///        owner (if set), name (if set). The name alone proves nothing, so it only narrows the owner.
///      The allow-list holds several ids so that a redeployed workflow (new id) can be allowed before the
///      old one is removed.
///
///      Report: `abi.encode(uint256 marketId, address[] workers, uint256[] weights, uint8[] dimScores,
///      bool resolution)`, strictly canonical (re-encoding the decoded values must give the same bytes), with
///      `weights.length == workers.length` and `dimScores.length == 3 * workers.length`.
///      Anything else reverts with {MalformedReport}.
///
///      Bundle: a CRE report carries no separate bundle hash, so the market receives
///      `bundleHash = keccak256(report)` — the hash of the exact DON-signed bytes, reproducible by anyone from
///      the decoded values since the encoding is canonical — and an empty `bundleURI`: the "bundle" is the
///      report itself, which lives on-chain in the forwarder transaction's calldata and in {ReportProcessed}'s
///      indexed hash; there is no off-chain document to point at.
///
///      A report can only be applied once: the market refuses to resolve a market twice, and the forwarder
///      refuses to re-deliver a transmission that succeeded.
contract CREReceiver is IReceiver, Ownable2Step {
    /// @notice Minimum metadata length: 32 (workflowId) + 10 (workflowName) + 20 (workflowOwner).
    uint256 public constant METADATA_MIN_LENGTH = 62;

    /// @notice The bundle URI passed to the market for CRE-settled markets (see contract notes).
    string public constant BUNDLE_URI = "";

    /// @notice The market this receiver settles.
    IResolutionMarket public immutable market;

    /// @notice The only address allowed to call {onReport} (Chainlink KeystoneForwarder of this chain).
    address public forwarder;

    /// @notice When true, reports from any workflow delivered by the forwarder are accepted. Off by default.
    /// @dev The forwarder is shared by every CRE workflow on the chain: this is for simulations and tests only.
    bool public allowAnyWorkflow;

    /// @notice Expected workflow owner (zero: not checked).
    address public expectedWorkflowOwner;

    /// @notice Expected workflow name, as encoded in the metadata (zero: not checked).
    bytes10 public expectedWorkflowName;

    /// @notice Number of workflow ids in the allow-list (zero: ids not checked).
    uint256 public allowedWorkflowIdCount;

    /// @notice Workflow ids allowed to deliver reports.
    mapping(bytes32 workflowId => bool) public isWorkflowIdAllowed;

    event ForwarderUpdated(address indexed previousForwarder, address indexed newForwarder);
    event WorkflowIdAllowedSet(bytes32 indexed workflowId, bool allowed);
    event ExpectedWorkflowOwnerUpdated(address indexed previousOwner, address indexed newOwner);
    event ExpectedWorkflowNameUpdated(bytes10 previousName, bytes10 newName);
    event AllowAnyWorkflowSet(bool allowed);
    /// @notice A report was accepted and the market settled.
    event ReportProcessed(
        uint256 indexed marketId,
        bytes32 indexed workflowId,
        address indexed workflowOwner,
        bytes10 workflowName,
        bool resolution,
        bytes32 bundleHash
    );

    error ZeroAddress();
    error ZeroWorkflowId();
    error UnauthorizedForwarder(address caller);
    error InvalidMetadataLength(uint256 length);
    error NoWorkflowConfigured();
    error WorkflowIdNotAllowed(bytes32 workflowId);
    error WorkflowOwnerMismatch(address workflowOwner, address expected);
    error WorkflowNameMismatch(bytes10 workflowName, bytes10 expected);
    error MalformedReport();
    error RenounceOwnershipDisabled();

    /// @param market_ the ResolutionMarket to settle (this receiver must be made a resolver there)
    /// @param forwarder_ the chain's KeystoneForwarder
    /// @param owner_ admin of the forwarder and workflow settings
    constructor(IResolutionMarket market_, address forwarder_, address owner_) Ownable(owner_) {
        if (address(market_) == address(0) || forwarder_ == address(0)) revert ZeroAddress();
        market = market_;
        forwarder = forwarder_;
        emit ForwarderUpdated(address(0), forwarder_);
    }

    // ------------------------------------------------------------------------------------------------
    // IReceiver
    // ------------------------------------------------------------------------------------------------

    /// @inheritdoc IReceiver
    function onReport(bytes calldata metadata, bytes calldata report) external override {
        if (msg.sender != forwarder) revert UnauthorizedForwarder(msg.sender);
        (bytes32 workflowId, bytes10 workflowName, address workflowOwner) = decodeMetadata(metadata);
        if (!allowAnyWorkflow) _checkWorkflow(workflowId, workflowName, workflowOwner);

        uint256 marketId;
        address[] memory workers;
        uint256[] memory weights;
        uint8[] memory dimScores;
        bool resolution;
        // Decoding in a self-call turns every malformed input (bad offsets, lengths, dirty bools/addresses,
        // non-canonical encoding) into one clean custom error instead of an empty revert.
        try this.decodeReport(report) returns (
            uint256 marketId_, address[] memory workers_, uint256[] memory weights_, uint8[] memory dimScores_, bool res_
        ) {
            (marketId, workers, weights, dimScores, resolution) = (marketId_, workers_, weights_, dimScores_, res_);
        } catch {
            revert MalformedReport();
        }

        bytes32 bundleHash = keccak256(report);
        emit ReportProcessed(marketId, workflowId, workflowOwner, workflowName, resolution, bundleHash);
        // Glue until the v2 receiver (r2-arbiters) lands: the v1 call by signature, so this file compiles
        // against IResolutionMarket v2 (which has no resolveMarket).
        (bool ok, bytes memory ret) = address(market).call(
            abi.encodeWithSignature(
                "resolveMarket(uint256,address[],uint256[],uint8[],bool,bytes32,string)",
                marketId, workers, weights, dimScores, resolution, bundleHash, BUNDLE_URI
            )
        );
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(ret, 0x20), mload(ret))
            }
        }
    }

    /// @notice ERC-165: `IReceiver` and `IERC165`.
    function supportsInterface(bytes4 interfaceId) public pure override returns (bool) {
        return interfaceId == type(IReceiver).interfaceId || interfaceId == type(IERC165).interfaceId;
    }

    // ------------------------------------------------------------------------------------------------
    // Decoding (public so off-chain tooling and tests can use the exact same rules)
    // ------------------------------------------------------------------------------------------------

    /// @notice Splits CRE metadata into its fields. Reverts if shorter than 62 bytes; extra bytes are ignored.
    function decodeMetadata(bytes calldata metadata)
        public
        pure
        returns (bytes32 workflowId, bytes10 workflowName, address workflowOwner)
    {
        if (metadata.length < METADATA_MIN_LENGTH) revert InvalidMetadataLength(metadata.length);
        workflowId = bytes32(metadata[0:32]);
        workflowName = bytes10(metadata[32:42]);
        workflowOwner = address(bytes20(metadata[42:62]));
    }

    /// @notice Decodes and validates a CREsolver report (see contract notes). Reverts if malformed.
    function decodeReport(bytes calldata report)
        external
        pure
        returns (
            uint256 marketId,
            address[] memory workers,
            uint256[] memory weights,
            uint8[] memory dimScores,
            bool resolution
        )
    {
        // 5 head words + 3 array lengths is the shortest well-formed report.
        if (report.length < 8 * 32) revert MalformedReport();
        (marketId, workers, weights, dimScores, resolution) =
            abi.decode(report, (uint256, address[], uint256[], uint8[], bool));
        if (weights.length != workers.length || dimScores.length != workers.length * 3) revert MalformedReport();
        if (keccak256(abi.encode(marketId, workers, weights, dimScores, resolution)) != keccak256(report)) {
            revert MalformedReport();
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Admin (Ownable2Step)
    // ------------------------------------------------------------------------------------------------

    /// @notice Sets the only address allowed to call {onReport}.
    function setForwarder(address newForwarder) external onlyOwner {
        if (newForwarder == address(0)) revert ZeroAddress();
        emit ForwarderUpdated(forwarder, newForwarder);
        forwarder = newForwarder;
    }

    /// @notice Adds `workflowId` to, or removes it from, the workflow-id allow-list.
    function setWorkflowIdAllowed(bytes32 workflowId, bool allowed) external onlyOwner {
        if (workflowId == bytes32(0)) revert ZeroWorkflowId();
        if (isWorkflowIdAllowed[workflowId] != allowed) {
            isWorkflowIdAllowed[workflowId] = allowed;
            if (allowed) ++allowedWorkflowIdCount;
            else --allowedWorkflowIdCount;
        }
        emit WorkflowIdAllowedSet(workflowId, allowed);
    }

    /// @notice Sets the expected workflow owner (zero to stop checking it).
    function setExpectedWorkflowOwner(address newOwner) external onlyOwner {
        emit ExpectedWorkflowOwnerUpdated(expectedWorkflowOwner, newOwner);
        expectedWorkflowOwner = newOwner;
    }

    /// @notice Sets the expected workflow name as encoded in the metadata (zero to stop checking it).
    function setExpectedWorkflowName(bytes10 newName) external onlyOwner {
        emit ExpectedWorkflowNameUpdated(expectedWorkflowName, newName);
        expectedWorkflowName = newName;
    }

    /// @notice Switches the workflow check off (`true`) or on (`false`). The forwarder check always applies.
    function setAllowAnyWorkflow(bool allowed) external onlyOwner {
        allowAnyWorkflow = allowed;
        emit AllowAnyWorkflowSet(allowed);
    }

    /// @notice Disabled: a receiver without an owner could never follow a forwarder or workflow migration.
    function renounceOwnership() public view override onlyOwner {
        revert RenounceOwnershipDisabled();
    }

    // ------------------------------------------------------------------------------------------------
    // Internal
    // ------------------------------------------------------------------------------------------------

    function _checkWorkflow(bytes32 workflowId, bytes10 workflowName, address workflowOwner) private view {
        bool idsConfigured = allowedWorkflowIdCount != 0;
        address ownerExpected = expectedWorkflowOwner;
        if (!idsConfigured && ownerExpected == address(0)) revert NoWorkflowConfigured();
        if (idsConfigured && !isWorkflowIdAllowed[workflowId]) revert WorkflowIdNotAllowed(workflowId);
        if (ownerExpected != address(0) && workflowOwner != ownerExpected) {
            revert WorkflowOwnerMismatch(workflowOwner, ownerExpected);
        }
        bytes10 nameExpected = expectedWorkflowName;
        if (nameExpected != bytes10(0) && workflowName != nameExpected) {
            revert WorkflowNameMismatch(workflowName, nameExpected);
        }
    }
}
