// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TestBase} from "./utils/Vm.sol";
import {MockMarketV2} from "./mocks/MockMarketV2.sol";
import {CREReceiver} from "../../contracts/cre/CREReceiver.sol";
import {ICREReceiver} from "../../contracts/cre/interfaces/ICREReceiver.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";

/// @notice Shared setup of the CREReceiver unit tests: a v2 market double, a receiver with a configurable
///         initial workflow config, report and metadata builders.
abstract contract CREReceiverFixture is TestBase {
    MockMarketV2 internal rm;
    CREReceiver internal receiver;

    address internal admin = address(0xAD);
    address internal forwarder = address(0xF0);
    address internal stranger = address(0x5757);

    bytes32 internal constant WF_ID = keccak256("cresolver-workflow-v1");
    bytes10 internal constant WF_NAME = bytes10(0x63726573736f6c766572); // arbitrary 10-byte encoded name
    address internal constant WF_OWNER = address(0x0DE2);
    uint96 internal constant BOND = 0.01 ether;
    bytes32 internal constant BUNDLE_HASH = keccak256("bundle");
    string internal constant BUNDLE_URI = "ipfs://bafybundle";

    event ForwarderUpdated(address indexed previousForwarder, address indexed newForwarder);
    event WorkflowIdAllowedSet(bytes32 indexed workflowId, bool allowed);
    event ExpectedWorkflowOwnerUpdated(address indexed previousOwner, address indexed newOwner);
    event ExpectedWorkflowNameUpdated(bytes10 previousName, bytes10 newName);
    event AllowAnyWorkflowSet(bool allowed);
    event ConfigChangeQueued(bytes32 indexed changeId, ICREReceiver.ChangeKind kind, bytes32 value, uint64 effectiveAt);
    event ConfigChangeApplied(bytes32 indexed changeId, ICREReceiver.ChangeKind kind, bytes32 value);
    event ConfigChangeCancelled(bytes32 indexed changeId, ICREReceiver.ChangeKind kind, bytes32 value);
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
    event OwnershipTransferStarted(address indexed previousOwner, address indexed newOwner);

    function setUp() public virtual {
        rm = new MockMarketV2();
        receiver = _deploy(_config(true, false, false, false));
        for (uint256 id = 1; id <= 3; ++id) {
            rm.setBond(id, BOND);
        }
    }

    /// @dev bit flags -> config: pin WF_ID, expect WF_OWNER, expect WF_NAME, allow any.
    function _config(bool pinId, bool pinOwner, bool pinName, bool any)
        internal
        pure
        returns (ICREReceiver.WorkflowConfig memory c)
    {
        c.workflowIds = new bytes32[](pinId ? 1 : 0);
        if (pinId) c.workflowIds[0] = WF_ID;
        if (pinOwner) c.workflowOwner = WF_OWNER;
        if (pinName) c.workflowName = WF_NAME;
        c.allowAnyWorkflow = any;
    }

    /// @dev A receiver over `rm`, made a resolver and funded with 1 ether of float.
    function _deploy(ICREReceiver.WorkflowConfig memory c) internal returns (CREReceiver r) {
        r = new CREReceiver(IResolutionMarket(address(rm)), forwarder, admin, c);
        rm.setResolver(address(r), true);
        vm.deal(address(r), 1 ether);
    }

    function _meta(bytes32 id, bytes10 name, address owner) internal pure returns (bytes memory) {
        return abi.encodePacked(id, name, owner);
    }

    function _meta() internal pure returns (bytes memory) {
        return _meta(WF_ID, WF_NAME, WF_OWNER);
    }

    function _reports(uint256 n) internal pure returns (IResolutionMarket.WorkerReport[] memory reports) {
        reports = new IResolutionMarket.WorkerReport[](n);
        for (uint256 i = 0; i < n; ++i) {
            reports[i] = IResolutionMarket.WorkerReport({
                answer: i % 3 == 2 ? IResolutionMarket.Answer.None : IResolutionMarket.Answer.Yes,
                confidenceBps: i % 3 == 2 ? 0 : uint16(6000 + i),
                resQuality: i % 3 == 2 ? 0 : uint8(50 + i),
                srcQuality: i % 3 == 2 ? 0 : uint8(60 + i),
                analysisDepth: i % 3 == 2 ? 0 : uint8(70 + i),
                replyHash: bytes32(0),
                signature: ""
            });
        }
    }

    function _reportFor(uint256 chainId, address market_, uint256 marketId, uint8 verdict, uint256 n)
        internal
        pure
        returns (bytes memory)
    {
        return abi.encode(chainId, market_, marketId, verdict, _reports(n), BUNDLE_HASH, BUNDLE_URI);
    }

    function _report(uint256 marketId, uint256 n, IResolutionMarket.Verdict verdict) internal view returns (bytes memory) {
        return _reportFor(block.chainid, address(rm), marketId, uint8(verdict), n);
    }

    function _deliver(bytes memory metadata, bytes memory report) internal {
        vm.prank(forwarder);
        receiver.onReport(metadata, report);
    }
}
