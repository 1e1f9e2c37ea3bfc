// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable, Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {IMarketGovernance} from "../market/interfaces/IMarketGovernance.sol";
import {IResolutionMarket} from "../market/interfaces/IResolutionMarket.sol";
import {IReceiver} from "./interfaces/IReceiver.sol";
import {ICREReceiver} from "./interfaces/ICREReceiver.sol";

/// @title Chainlink CRE receiver that proposes ResolutionMarket verdicts from DON-signed CREsolver reports
/// @author cresolver
/// @notice The KeystoneForwarder verifies the DON signatures and calls {onReport}. This contract accepts the
///         call only from the configured forwarder and (unless `allowAnyWorkflow`) only from the configured
///         workflow, checks that the report is for this chain and this market, and calls
///         `proposeResolution` with the market's bond paid from its own ETH float. It must be an active
///         resolver of the market. It refuses (reverts, nothing paid) a market whose bond exceeds {maxBond} or
///         whose arbiter is not on the market's deployment allow-list (`governance().isArbiterAllowed`), so a
///         creator cannot bond the float to a judge it picked. Won or returned bonds come back as market credits
///         ({pullMarketCredits}).
/// @dev Metadata: the KeystoneForwarder passes `abi.encodePacked(bytes32 workflowId, bytes10 workflowName,
///      address workflowOwner, bytes2 reportId)`; we read the first 62 bytes and ignore the rest.
///      `workflowName` is CRE's 10-byte encoding of the name, configured exactly as it appears in metadata.
///
///      Workflow check (unless `allowAnyWorkflow`), fail-closed: a non-empty id allow-list or an expected owner
///      must be configured ({NoWorkflowConfigured} otherwise), and every configured criterion must match (the
///      name alone proves nothing, it only narrows the owner).
///
///      Report: `abi.encode(uint256 chainId, address market, uint256 marketId, uint8 verdict,
///      IResolutionMarket.WorkerReport[] reports, bytes32 bundleHash, string bundleURI)`, strictly canonical
///      (re-encoding the decoded values gives the same bytes) and `verdict <= 2`; anything else is
///      {MalformedReport}. The chain id and market address stop a report signed for one deployment from being
///      replayed on another.
///
///      Settings changes (forwarder, workflow ids, owner, name, allowAny) wait `CONFIG_DELAY` between
///      {queueChange} and {applyChange}, so nobody can swap the forwarder and push a forged report at once.
contract CREReceiver is ICREReceiver, Ownable2Step {
    /// @notice Minimum metadata length: 32 (workflowId) + 10 (workflowName) + 20 (workflowOwner).
    uint256 public constant METADATA_MIN_LENGTH = 62;

    /// @notice Delay between queueing and applying a settings change.
    uint64 public constant CONFIG_DELAY = 2 days;

    /// @notice Initial {maxBond}: the float's exposure to one market.
    uint256 public constant DEFAULT_MAX_BOND = 1 ether;

    /// @notice The market this receiver proposes on.
    IResolutionMarket public immutable market;

    /// @notice The only address allowed to call {onReport} (Chainlink KeystoneForwarder of this chain).
    address public forwarder;

    /// @notice When true, reports from any workflow delivered by the forwarder are accepted.
    bool public allowAnyWorkflow;

    /// @notice Expected workflow owner (zero: not checked).
    address public expectedWorkflowOwner;

    /// @notice Expected workflow name, as encoded in the metadata (zero: not checked).
    bytes10 public expectedWorkflowName;

    /// @notice Number of workflow ids in the allow-list (zero: ids not checked).
    uint256 public allowedWorkflowIdCount;

    /// @notice Whether a workflow id is on the allow-list.
    mapping(bytes32 workflowId => bool) public isWorkflowIdAllowed;

    /// @inheritdoc ICREReceiver
    uint256 public maxBond = DEFAULT_MAX_BOND;

    /// @notice When each queued change may be applied (0: not queued).
    mapping(bytes32 changeId => uint64 effectiveAt) public queuedChanges;

    /// @param market_ the ResolutionMarket to propose on (this receiver must be made a resolver there)
    /// @param forwarder_ the chain's KeystoneForwarder
    /// @param owner_ admin of the settings and of the float
    /// @param config_ the initial workflow settings, in force immediately
    constructor(IResolutionMarket market_, address forwarder_, address owner_, WorkflowConfig memory config_)
        Ownable(owner_)
    {
        if (address(market_) == address(0) || forwarder_ == address(0)) revert ZeroAddress();
        market = market_;
        _setForwarder(forwarder_);
        for (uint256 i = 0; i < config_.workflowIds.length; ++i) {
            _setWorkflowIdAllowed(config_.workflowIds[i], true);
        }
        if (config_.workflowOwner != address(0)) _setExpectedWorkflowOwner(config_.workflowOwner);
        if (config_.workflowName != bytes10(0)) _setExpectedWorkflowName(config_.workflowName);
        if (config_.allowAnyWorkflow) _setAllowAnyWorkflow(true);
    }

    /// @notice Float top-ups (from the owner) and market withdrawals land here.
    receive() external payable {
        emit FloatReceived(msg.sender, msg.value);
    }

    // ------------------------------------------------------------------------------------------------
    // IReceiver
    // ------------------------------------------------------------------------------------------------

    /// @inheritdoc IReceiver
    function onReport(bytes calldata metadata, bytes calldata report) external override {
        if (msg.sender != forwarder) revert UnauthorizedForwarder(msg.sender);
        (bytes32 workflowId, bytes10 workflowName, address workflowOwner) = decodeMetadata(metadata);
        if (!allowAnyWorkflow) _checkWorkflow(workflowId, workflowName, workflowOwner);

        CREReport memory r;
        // Decoding in a self-call turns every malformed input into one clean error instead of an empty revert.
        try this.decodeReport(report) returns (CREReport memory decoded) {
            r = decoded;
        } catch {
            revert MalformedReport();
        }
        if (r.chainId != block.chainid) revert WrongChain(r.chainId, block.chainid);
        if (r.market != address(market)) revert WrongMarket(r.market, address(market));

        IResolutionMarket.MarketConfig memory config = market.getMarketConfig(r.marketId);
        uint256 bond = config.bond;
        if (bond > maxBond) revert BondAboveCap(bond, maxBond);
        IMarketGovernance governance = market.governance();
        if (!governance.isArbiterAllowed(address(config.arbiter))) revert ArbiterNotAllowed(address(config.arbiter));
        if (address(this).balance < bond) revert InsufficientFloat(address(this).balance, bond);
        emit ReportProcessed(r.marketId, workflowId, workflowOwner, workflowName, r.verdict, r.bundleHash, bond);
        market.proposeResolution{value: bond}(r.marketId, r.verdict, r.reports, r.bundleHash, r.bundleURI);
    }

    /// @notice ERC-165: `IReceiver` and `IERC165`.
    function supportsInterface(bytes4 interfaceId) public pure override returns (bool) {
        return interfaceId == type(IReceiver).interfaceId || interfaceId == type(IERC165).interfaceId;
    }

    // ------------------------------------------------------------------------------------------------
    // Decoding (public so off-chain tooling and tests use the exact same rules)
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
    function decodeReport(bytes calldata report) external pure returns (CREReport memory r) {
        // 7 head words + the reports length + the URI length is the shortest well-formed report.
        if (report.length < 9 * 32) revert MalformedReport();
        uint8 verdict;
        (r.chainId, r.market, r.marketId, verdict, r.reports, r.bundleHash, r.bundleURI) = abi.decode(
            report, (uint256, address, uint256, uint8, IResolutionMarket.WorkerReport[], bytes32, string)
        );
        if (verdict > uint8(type(IResolutionMarket.Verdict).max)) revert MalformedReport();
        r.verdict = IResolutionMarket.Verdict(verdict);
        bytes memory again = abi.encode(r.chainId, r.market, r.marketId, verdict, r.reports, r.bundleHash, r.bundleURI);
        if (keccak256(again) != keccak256(report)) revert MalformedReport();
    }

    // ------------------------------------------------------------------------------------------------
    // Float
    // ------------------------------------------------------------------------------------------------

    /// @inheritdoc ICREReceiver
    function pullMarketCredits() external returns (uint256 amount) {
        uint256 before = address(this).balance;
        market.withdraw();
        amount = address(this).balance - before;
        emit MarketCreditsPulled(amount);
    }

    /// @inheritdoc ICREReceiver
    function withdrawFloat(address payable to, uint256 amount) external onlyOwner {
        if (to == address(0)) revert ZeroAddress();
        if (amount > address(this).balance) revert InsufficientFloat(address(this).balance, amount);
        emit FloatWithdrawn(to, amount);
        (bool ok,) = to.call{value: amount}("");
        if (!ok) revert TransferFailed(to, amount);
    }

    /// @inheritdoc ICREReceiver
    function setMaxBond(uint256 newMaxBond) external onlyOwner {
        emit MaxBondUpdated(maxBond, newMaxBond);
        maxBond = newMaxBond;
    }

    // ------------------------------------------------------------------------------------------------
    // Timelocked settings (Ownable2Step owner)
    // ------------------------------------------------------------------------------------------------

    /// @notice The id of a change: what `queuedChanges` is keyed by.
    function changeId(ChangeKind kind, bytes32 value) public pure returns (bytes32) {
        return keccak256(abi.encode(kind, value));
    }

    /// @inheritdoc ICREReceiver
    function queueChange(ChangeKind kind, bytes32 value) external onlyOwner returns (bytes32 id, uint64 effectiveAt) {
        _validate(kind, value);
        id = changeId(kind, value);
        if (queuedChanges[id] != 0) revert ChangeAlreadyQueued(id);
        effectiveAt = uint64(block.timestamp) + CONFIG_DELAY;
        queuedChanges[id] = effectiveAt;
        emit ConfigChangeQueued(id, kind, value, effectiveAt);
    }

    /// @inheritdoc ICREReceiver
    function applyChange(ChangeKind kind, bytes32 value) external onlyOwner {
        bytes32 id = changeId(kind, value);
        uint64 effectiveAt = queuedChanges[id];
        if (effectiveAt == 0) revert ChangeNotQueued(id);
        if (block.timestamp < effectiveAt) revert TimelockNotOver(id, effectiveAt);
        delete queuedChanges[id];
        emit ConfigChangeApplied(id, kind, value);
        if (kind == ChangeKind.Forwarder) _setForwarder(address(uint160(uint256(value))));
        else if (kind == ChangeKind.AllowWorkflowId) _setWorkflowIdAllowed(value, true);
        else if (kind == ChangeKind.DisallowWorkflowId) _setWorkflowIdAllowed(value, false);
        else if (kind == ChangeKind.WorkflowOwner) _setExpectedWorkflowOwner(address(uint160(uint256(value))));
        else if (kind == ChangeKind.WorkflowName) _setExpectedWorkflowName(bytes10(value));
        else _setAllowAnyWorkflow(value != bytes32(0));
    }

    /// @inheritdoc ICREReceiver
    function cancelChange(ChangeKind kind, bytes32 value) external onlyOwner {
        bytes32 id = changeId(kind, value);
        if (queuedChanges[id] == 0) revert ChangeNotQueued(id);
        delete queuedChanges[id];
        emit ConfigChangeCancelled(id, kind, value);
    }

    /// @notice Disabled: a receiver without an owner could never follow a forwarder or workflow migration,
    ///         nor withdraw its float.
    function renounceOwnership() public view override onlyOwner {
        revert RenounceOwnershipDisabled();
    }

    // ------------------------------------------------------------------------------------------------
    // Internal
    // ------------------------------------------------------------------------------------------------

    function _validate(ChangeKind kind, bytes32 value) private pure {
        bool ok;
        if (kind == ChangeKind.Forwarder) ok = value != bytes32(0) && uint256(value) >> 160 == 0;
        else if (kind == ChangeKind.AllowWorkflowId || kind == ChangeKind.DisallowWorkflowId) ok = value != bytes32(0);
        else if (kind == ChangeKind.WorkflowOwner) ok = uint256(value) >> 160 == 0;
        else if (kind == ChangeKind.WorkflowName) ok = uint256(value) << 80 == 0;
        else ok = uint256(value) <= 1;
        if (!ok) revert InvalidChangeValue(kind, value);
    }

    function _setForwarder(address newForwarder) private {
        emit ForwarderUpdated(forwarder, newForwarder);
        forwarder = newForwarder;
    }

    function _setWorkflowIdAllowed(bytes32 workflowId, bool allowed) private {
        if (workflowId == bytes32(0)) revert ZeroWorkflowId();
        if (isWorkflowIdAllowed[workflowId] != allowed) {
            isWorkflowIdAllowed[workflowId] = allowed;
            if (allowed) ++allowedWorkflowIdCount;
            else --allowedWorkflowIdCount;
        }
        emit WorkflowIdAllowedSet(workflowId, allowed);
    }

    function _setExpectedWorkflowOwner(address newOwner) private {
        emit ExpectedWorkflowOwnerUpdated(expectedWorkflowOwner, newOwner);
        expectedWorkflowOwner = newOwner;
    }

    function _setExpectedWorkflowName(bytes10 newName) private {
        emit ExpectedWorkflowNameUpdated(expectedWorkflowName, newName);
        expectedWorkflowName = newName;
    }

    function _setAllowAnyWorkflow(bool allowed) private {
        allowAnyWorkflow = allowed;
        emit AllowAnyWorkflowSet(allowed);
    }

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
