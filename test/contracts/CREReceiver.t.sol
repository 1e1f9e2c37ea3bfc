// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TestBase} from "./utils/Vm.sol";
import {TestMath} from "./utils/BettingTestUtils.sol";
import {MockResolutionMarket} from "./mocks/MockResolutionMarket.sol";
import {MockKeystoneForwarder} from "./mocks/MockKeystoneForwarder.sol";
import {CREReceiver} from "../../contracts/cre/CREReceiver.sol";
import {IReceiver} from "../../contracts/cre/interfaces/IReceiver.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

contract CREReceiverTest is TestBase {
    using TestMath for uint256;

    MockResolutionMarket internal rm;
    CREReceiver internal receiver;

    address internal admin = address(0xAD);
    address internal forwarder = address(0xF0);
    address internal stranger = address(0x5757);

    bytes32 internal constant WF_ID = keccak256("cresolver-workflow-v1");
    bytes10 internal constant WF_NAME = bytes10(0x63726573736f6c766572); // arbitrary 10-byte encoded name
    address internal constant WF_OWNER = address(0x0DE2);

    event ForwarderUpdated(address indexed previousForwarder, address indexed newForwarder);
    event WorkflowIdAllowedSet(bytes32 indexed workflowId, bool allowed);
    event ExpectedWorkflowOwnerUpdated(address indexed previousOwner, address indexed newOwner);
    event ExpectedWorkflowNameUpdated(bytes10 previousName, bytes10 newName);
    event AllowAnyWorkflowSet(bool allowed);
    event ReportProcessed(
        uint256 indexed marketId,
        bytes32 indexed workflowId,
        address indexed workflowOwner,
        bytes10 workflowName,
        bool resolution,
        bytes32 bundleHash
    );
    event OwnershipTransferStarted(address indexed previousOwner, address indexed newOwner);

    function setUp() public {
        rm = new MockResolutionMarket();
        receiver = new CREReceiver(IResolutionMarket(address(rm)), forwarder, admin);
        rm.setResolver(address(receiver), true);
        rm.setMarket(1, IResolutionMarket.Status.ResolutionRequested, 100, false);
    }

    // ---------------------------------------------------------------- helpers

    function _meta(bytes32 id, bytes10 name, address owner) internal pure returns (bytes memory) {
        return abi.encodePacked(id, name, owner);
    }

    function _meta() internal pure returns (bytes memory) {
        return _meta(WF_ID, WF_NAME, WF_OWNER);
    }

    function _report(uint256 marketId, uint256 n, bool resolution) internal pure returns (bytes memory) {
        address[] memory workers = new address[](n);
        uint256[] memory weights = new uint256[](n);
        uint8[] memory scores = new uint8[](3 * n);
        for (uint256 i = 0; i < n; ++i) {
            workers[i] = address(uint160(0x1000 + i));
            weights[i] = 100 + i;
            scores[3 * i] = uint8(50 + i);
            scores[3 * i + 1] = uint8(60 + i);
            scores[3 * i + 2] = uint8(70 + i);
        }
        return abi.encode(marketId, workers, weights, scores, resolution);
    }

    function _allowId() internal {
        vm.prank(admin);
        receiver.setWorkflowIdAllowed(WF_ID, true);
    }

    function _deliver(bytes memory metadata, bytes memory report) internal {
        vm.prank(forwarder);
        receiver.onReport(metadata, report);
    }

    // ---------------------------------------------------------------- construction, ERC-165

    function testConstructor() public {
        assertEq(address(receiver.market()), address(rm), "market");
        assertEq(receiver.forwarder(), forwarder, "forwarder");
        assertEq(receiver.owner(), admin, "owner");
        assertTrue(!receiver.allowAnyWorkflow(), "workflow check on by default");
        assertEq(receiver.allowedWorkflowIdCount(), 0, "no ids");
        assertEq(receiver.expectedWorkflowOwner(), address(0), "no owner");
        assertEq(receiver.METADATA_MIN_LENGTH(), 62, "62-byte metadata");
        assertEq(receiver.BUNDLE_URI(), "", "empty bundle URI");

        vm.expectEmit();
        emit ForwarderUpdated(address(0), forwarder);
        new CREReceiver(IResolutionMarket(address(rm)), forwarder, admin);
    }

    function testConstructorRejectsZeroAddresses() public {
        vm.expectRevert(CREReceiver.ZeroAddress.selector);
        new CREReceiver(IResolutionMarket(address(0)), forwarder, admin);
        vm.expectRevert(CREReceiver.ZeroAddress.selector);
        new CREReceiver(IResolutionMarket(address(rm)), address(0), admin);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableInvalidOwner.selector, address(0)));
        new CREReceiver(IResolutionMarket(address(rm)), forwarder, address(0));
    }

    function testSupportsInterface() public view {
        assertEq(type(IReceiver).interfaceId, bytes4(0x805f2132), "IReceiver id = onReport(bytes,bytes)");
        assertEq(type(IReceiver).interfaceId, bytes4(keccak256("onReport(bytes,bytes)")), "selector");
        assertTrue(receiver.supportsInterface(0x805f2132), "IReceiver");
        assertTrue(receiver.supportsInterface(type(IERC165).interfaceId), "IERC165");
        assertTrue(receiver.supportsInterface(0x01ffc9a7), "IERC165 literal");
        assertTrue(!receiver.supportsInterface(0xffffffff), "0xffffffff");
        assertTrue(!receiver.supportsInterface(0x00000000), "zero");
    }

    function testFuzzSupportsInterfaceOnlyTheTwo(bytes4 id) public view {
        bool expected = id == bytes4(0x805f2132) || id == bytes4(0x01ffc9a7);
        assertEq(receiver.supportsInterface(id), expected, "only IReceiver + IERC165");
    }

    // ---------------------------------------------------------------- forwarder and metadata

    function testWrongForwarderRefused() public {
        _allowId();
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(CREReceiver.UnauthorizedForwarder.selector, stranger));
        receiver.onReport(_meta(), _report(1, 2, true));
        vm.prank(admin);
        vm.expectRevert(abi.encodeWithSelector(CREReceiver.UnauthorizedForwarder.selector, admin));
        receiver.onReport(_meta(), _report(1, 2, true));
    }

    function testFuzzOnlyForwarderAccepted(address caller) public {
        vm.assume(caller != forwarder);
        vm.prank(admin);
        receiver.setAllowAnyWorkflow(true);
        vm.prank(caller);
        vm.expectRevert(abi.encodeWithSelector(CREReceiver.UnauthorizedForwarder.selector, caller));
        receiver.onReport(_meta(), _report(1, 1, true));
    }

    function testShortMetadataRefused() public {
        _allowId();
        bytes memory meta = _meta();
        bytes memory short = new bytes(61);
        for (uint256 i = 0; i < 61; ++i) {
            short[i] = meta[i];
        }
        vm.prank(forwarder);
        vm.expectRevert(abi.encodeWithSelector(CREReceiver.InvalidMetadataLength.selector, 61));
        receiver.onReport(short, _report(1, 2, true));
        vm.prank(forwarder);
        vm.expectRevert(abi.encodeWithSelector(CREReceiver.InvalidMetadataLength.selector, 0));
        receiver.onReport("", _report(1, 2, true));
        vm.expectRevert(abi.encodeWithSelector(CREReceiver.InvalidMetadataLength.selector, 61));
        receiver.decodeMetadata(short);
    }

    function testDecodeMetadataLayout() public view {
        (bytes32 id, bytes10 name, address owner) = receiver.decodeMetadata(_meta());
        assertEq(id, WF_ID, "id");
        assertEq(bytes32(name), bytes32(WF_NAME), "name");
        assertEq(owner, WF_OWNER, "owner");
        // The KeystoneForwarder's 64-byte form (2-byte report id appended) decodes the same.
        (id, name, owner) = receiver.decodeMetadata(abi.encodePacked(_meta(), bytes2(0x0001)));
        assertEq(id, WF_ID, "id 64");
        assertEq(bytes32(name), bytes32(WF_NAME), "name 64");
        assertEq(owner, WF_OWNER, "owner 64");
    }

    function testFuzzDecodeMetadata(bytes32 id, bytes10 name, address owner, bytes memory tail) public view {
        (bytes32 i2, bytes10 n2, address o2) = receiver.decodeMetadata(abi.encodePacked(id, name, owner, tail));
        assertEq(i2, id, "id");
        assertEq(bytes32(n2), bytes32(name), "name");
        assertEq(o2, owner, "owner");
    }

    // ---------------------------------------------------------------- workflow checks

    function testNothingConfiguredRefusesEveryWorkflow() public {
        vm.prank(forwarder);
        vm.expectRevert(CREReceiver.NoWorkflowConfigured.selector);
        receiver.onReport(_meta(), _report(1, 2, true));
    }

    function testNameAloneIsNotEnough() public {
        vm.prank(admin);
        receiver.setExpectedWorkflowName(WF_NAME);
        vm.prank(forwarder);
        vm.expectRevert(CREReceiver.NoWorkflowConfigured.selector);
        receiver.onReport(_meta(), _report(1, 2, true));
    }

    function testAllowedWorkflowIdAccepted() public {
        _allowId();
        _deliver(_meta(), _report(1, 2, true));
        assertEq(rm.resolveCalls(), 1, "resolved");
    }

    function testWrongWorkflowIdRefused() public {
        _allowId();
        bytes32 other = keccak256("other");
        vm.prank(forwarder);
        vm.expectRevert(abi.encodeWithSelector(CREReceiver.WorkflowIdNotAllowed.selector, other));
        receiver.onReport(_meta(other, WF_NAME, WF_OWNER), _report(1, 2, true));
    }

    function testRemovedWorkflowIdRefused() public {
        _allowId();
        bytes32 v2 = keccak256("v2");
        vm.startPrank(admin);
        receiver.setWorkflowIdAllowed(v2, true);
        receiver.setWorkflowIdAllowed(WF_ID, false);
        vm.stopPrank();
        vm.prank(forwarder);
        vm.expectRevert(abi.encodeWithSelector(CREReceiver.WorkflowIdNotAllowed.selector, WF_ID));
        receiver.onReport(_meta(), _report(1, 2, true));
        _deliver(_meta(v2, WF_NAME, WF_OWNER), _report(1, 2, true));
        assertEq(rm.resolveCalls(), 1, "v2 accepted");
    }

    function testOwnerAndNameCheck() public {
        vm.startPrank(admin);
        receiver.setExpectedWorkflowOwner(WF_OWNER);
        receiver.setExpectedWorkflowName(WF_NAME);
        vm.stopPrank();

        vm.prank(forwarder);
        vm.expectRevert(abi.encodeWithSelector(CREReceiver.WorkflowOwnerMismatch.selector, stranger, WF_OWNER));
        receiver.onReport(_meta(WF_ID, WF_NAME, stranger), _report(1, 2, true));

        bytes10 otherName = bytes10("othername!");
        vm.prank(forwarder);
        vm.expectRevert(abi.encodeWithSelector(CREReceiver.WorkflowNameMismatch.selector, otherName, WF_NAME));
        receiver.onReport(_meta(WF_ID, otherName, WF_OWNER), _report(1, 2, true));

        // Any workflow id of the right owner + name is accepted when no id is pinned.
        _deliver(_meta(keccak256("any id"), WF_NAME, WF_OWNER), _report(1, 2, true));
        assertEq(rm.resolveCalls(), 1, "owner+name accepted");
    }

    function testOwnerOnlyCheck() public {
        vm.prank(admin);
        receiver.setExpectedWorkflowOwner(WF_OWNER);
        _deliver(_meta(keccak256("x"), bytes10("whatever!!"), WF_OWNER), _report(1, 2, true));
        assertEq(rm.resolveCalls(), 1, "owner accepted");
    }

    function testIdAndOwnerMustBothMatch() public {
        _allowId();
        vm.prank(admin);
        receiver.setExpectedWorkflowOwner(WF_OWNER);
        vm.prank(forwarder);
        vm.expectRevert(abi.encodeWithSelector(CREReceiver.WorkflowOwnerMismatch.selector, stranger, WF_OWNER));
        receiver.onReport(_meta(WF_ID, WF_NAME, stranger), _report(1, 2, true));
        vm.prank(forwarder);
        vm.expectRevert(abi.encodeWithSelector(CREReceiver.WorkflowIdNotAllowed.selector, bytes32(uint256(5))));
        receiver.onReport(_meta(bytes32(uint256(5)), WF_NAME, WF_OWNER), _report(1, 2, true));
        _deliver(_meta(), _report(1, 2, true));
    }

    function testAllowAnyWorkflowSwitch() public {
        vm.expectEmit(address(receiver));
        emit AllowAnyWorkflowSet(true);
        vm.prank(admin);
        receiver.setAllowAnyWorkflow(true);
        _deliver(_meta(keccak256("random"), bytes10(0), address(0xBAD)), _report(1, 2, true));
        assertEq(rm.resolveCalls(), 1, "any accepted");

        rm.setMarket(2, IResolutionMarket.Status.ResolutionRequested, 100, false);
        vm.prank(admin);
        receiver.setAllowAnyWorkflow(false);
        vm.prank(forwarder);
        vm.expectRevert(CREReceiver.NoWorkflowConfigured.selector);
        receiver.onReport(_meta(keccak256("random"), bytes10(0), address(0xBAD)), _report(2, 2, true));
        // The forwarder check still applies with the switch on.
        vm.prank(admin);
        receiver.setAllowAnyWorkflow(true);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(CREReceiver.UnauthorizedForwarder.selector, stranger));
        receiver.onReport(_meta(), _report(2, 2, true));
    }

    function testFuzzWorkflowCheck(bytes32 id, bytes10 name, address owner, uint8 configRaw) public {
        // bit 0: pin WF_ID, bit 1: expect WF_OWNER, bit 2: expect WF_NAME
        bool pinId = configRaw & 1 != 0;
        bool pinOwner = configRaw & 2 != 0;
        bool pinName = configRaw & 4 != 0;
        vm.startPrank(admin);
        if (pinId) receiver.setWorkflowIdAllowed(WF_ID, true);
        if (pinOwner) receiver.setExpectedWorkflowOwner(WF_OWNER);
        if (pinName) receiver.setExpectedWorkflowName(WF_NAME);
        vm.stopPrank();
        // Bias towards matching values so both outcomes are exercised.
        if (uint256(id) % 2 == 0) id = WF_ID;
        if (uint160(owner) % 2 == 0) owner = WF_OWNER;
        if (uint80(name) % 2 == 0) name = WF_NAME;
        bool accept = (pinId || pinOwner) && (!pinId || id == WF_ID) && (!pinOwner || owner == WF_OWNER)
            && (!pinName || name == WF_NAME);
        vm.prank(forwarder);
        (bool ok,) = address(receiver).call(
            abi.encodeCall(CREReceiver.onReport, (_meta(id, name, owner), _report(1, 1, false)))
        );
        assertEq(ok, accept, "accepted iff every configured criterion matches");
    }

    // ---------------------------------------------------------------- report decoding and forwarding

    function testFullReportForwardedToMarket() public {
        _allowId();
        bytes memory report = _report(1, 3, true);
        vm.expectEmit(address(receiver));
        emit ReportProcessed(1, WF_ID, WF_OWNER, WF_NAME, true, keccak256(report));
        _deliver(abi.encodePacked(_meta(), bytes2(0x0001)), report);

        assertEq(rm.resolveCalls(), 1, "one call");
        assertEq(rm.lastMarketId(), 1, "market id");
        assertTrue(rm.lastResolution(), "resolution");
        assertEq(rm.lastBundleHash(), keccak256(report), "bundleHash = keccak256(report)");
        assertEq(rm.lastBundleURI(), "", "empty URI");
        (address[] memory w, uint256[] memory wt, uint8[] memory sc) = rm.lastCall();
        assertEq(abi.encode(uint256(1), w, wt, sc, true), report, "arguments are the report's");
    }

    function testMarketRevertBubbles() public {
        _allowId();
        rm.setResolver(address(receiver), false);
        vm.prank(forwarder);
        vm.expectRevert(abi.encodeWithSelector(MockResolutionMarket.NotResolver.selector, address(receiver)));
        receiver.onReport(_meta(), _report(1, 2, true));
        rm.setResolver(address(receiver), true);
        rm.setRevertOnResolve(true);
        vm.prank(forwarder);
        vm.expectRevert(MockResolutionMarket.ForcedRevert.selector);
        receiver.onReport(_meta(), _report(1, 2, true));
    }

    function _expectMalformed(bytes memory report) internal {
        vm.prank(forwarder);
        vm.expectRevert(CREReceiver.MalformedReport.selector);
        receiver.onReport(_meta(), report);
    }

    function testMalformedReportsRevertCleanly() public {
        _allowId();
        _expectMalformed("");
        _expectMalformed(hex"01");
        _expectMalformed(new bytes(255));
        // Right length, garbage offsets.
        bytes memory garbage = new bytes(256);
        for (uint256 i = 0; i < 256; ++i) {
            garbage[i] = 0xff;
        }
        _expectMalformed(garbage);
        // A different tuple shape.
        _expectMalformed(abi.encode(uint256(1), uint256(2), uint256(3), uint256(4), uint256(5), uint256(6), uint256(7), uint256(8)));
        // Truncated valid report.
        bytes memory good = _report(1, 2, true);
        bytes memory truncated = new bytes(good.length - 32);
        for (uint256 i = 0; i < truncated.length; ++i) {
            truncated[i] = good[i];
        }
        _expectMalformed(truncated);
        // Trailing bytes (non-canonical).
        _expectMalformed(abi.encodePacked(good, uint256(0)));
        // Dirty bool.
        bytes memory dirtyBool = _report(1, 2, true);
        assembly {
            mstore(add(dirtyBool, add(32, 128)), 2)
        }
        _expectMalformed(dirtyBool);
        // Dirty address (upper bits set) in workers[0]: head 5 words, workers length word, then workers[0].
        bytes memory dirtyAddr = _report(1, 2, true);
        assembly {
            let p := add(add(dirtyAddr, 32), mul(6, 32))
            mstore(p, or(mload(p), shl(200, 1)))
        }
        _expectMalformed(dirtyAddr);
        // Length mismatches.
        address[] memory workers = new address[](2);
        _expectMalformed(abi.encode(uint256(1), workers, new uint256[](1), new uint8[](6), true));
        _expectMalformed(abi.encode(uint256(1), workers, new uint256[](2), new uint8[](5), true));
        // A score byte with high bits set is not a uint8.
        bytes memory dirtyScore = abi.encode(uint256(1), workers, new uint256[](2), new uint8[](6), true);
        assembly {
            let len := mload(dirtyScore)
            // last word of the encoding is scores[5]
            let p := add(dirtyScore, len)
            mstore(p, 0x1ff)
        }
        _expectMalformed(dirtyScore);
        assertEq(rm.resolveCalls(), 0, "nothing forwarded");
    }

    function testFuzzRandomReportBytesRevertCleanly(bytes memory report) public {
        _allowId();
        vm.prank(forwarder);
        (bool ok, bytes memory err) =
            address(receiver).call(abi.encodeCall(CREReceiver.onReport, (_meta(), report)));
        if (!ok) assertEq(err, abi.encodeWithSelector(CREReceiver.MalformedReport.selector), "clean error");
        else assertEq(rm.lastBundleHash(), keccak256(report), "well-formed by chance");
    }

    function testFuzzDecodeReportRoundTrip(uint256 marketId, uint8 nRaw, uint256 seed, bool resolution) public view {
        uint256 n = uint256(nRaw).bound(0, 20);
        address[] memory workers = new address[](n);
        uint256[] memory weights = new uint256[](n);
        uint8[] memory scores = new uint8[](3 * n);
        for (uint256 i = 0; i < n; ++i) {
            workers[i] = address(uint160(seed.rand(i)));
            weights[i] = seed.rand(1000 + i);
            scores[3 * i] = uint8(seed.rand(2000 + i));
            scores[3 * i + 1] = uint8(seed.rand(3000 + i));
            scores[3 * i + 2] = uint8(seed.rand(4000 + i));
        }
        bytes memory report = abi.encode(marketId, workers, weights, scores, resolution);
        (uint256 m2, address[] memory w2, uint256[] memory wt2, uint8[] memory s2, bool r2) =
            receiver.decodeReport(report);
        assertEq(abi.encode(m2, w2, wt2, s2, r2), report, "round trip");
    }

    // ---------------------------------------------------------------- admin

    function testSetForwarder() public {
        address next = address(0xF1);
        vm.expectEmit(address(receiver));
        emit ForwarderUpdated(forwarder, next);
        vm.prank(admin);
        receiver.setForwarder(next);
        assertEq(receiver.forwarder(), next, "updated");
        _allowId();
        vm.prank(forwarder);
        vm.expectRevert(abi.encodeWithSelector(CREReceiver.UnauthorizedForwarder.selector, forwarder));
        receiver.onReport(_meta(), _report(1, 2, true));
        vm.prank(next);
        receiver.onReport(_meta(), _report(1, 2, true));

        vm.prank(admin);
        vm.expectRevert(CREReceiver.ZeroAddress.selector);
        receiver.setForwarder(address(0));
    }

    function testSetWorkflowIdAllowedBookkeeping() public {
        vm.startPrank(admin);
        vm.expectEmit(address(receiver));
        emit WorkflowIdAllowedSet(WF_ID, true);
        receiver.setWorkflowIdAllowed(WF_ID, true);
        receiver.setWorkflowIdAllowed(WF_ID, true); // idempotent
        assertEq(receiver.allowedWorkflowIdCount(), 1, "count 1");
        assertTrue(receiver.isWorkflowIdAllowed(WF_ID), "allowed");
        receiver.setWorkflowIdAllowed(bytes32(uint256(2)), true);
        assertEq(receiver.allowedWorkflowIdCount(), 2, "count 2");
        vm.expectEmit(address(receiver));
        emit WorkflowIdAllowedSet(WF_ID, false);
        receiver.setWorkflowIdAllowed(WF_ID, false);
        receiver.setWorkflowIdAllowed(WF_ID, false); // idempotent
        assertEq(receiver.allowedWorkflowIdCount(), 1, "count back to 1");
        assertTrue(!receiver.isWorkflowIdAllowed(WF_ID), "removed");
        vm.expectRevert(CREReceiver.ZeroWorkflowId.selector);
        receiver.setWorkflowIdAllowed(bytes32(0), true);
        vm.stopPrank();
    }

    function testSetExpectedOwnerAndNameEmit() public {
        vm.startPrank(admin);
        vm.expectEmit(address(receiver));
        emit ExpectedWorkflowOwnerUpdated(address(0), WF_OWNER);
        receiver.setExpectedWorkflowOwner(WF_OWNER);
        vm.expectEmit(address(receiver));
        emit ExpectedWorkflowOwnerUpdated(WF_OWNER, address(0));
        receiver.setExpectedWorkflowOwner(address(0));
        vm.expectEmit(address(receiver));
        emit ExpectedWorkflowNameUpdated(bytes10(0), WF_NAME);
        receiver.setExpectedWorkflowName(WF_NAME);
        vm.stopPrank();
        assertEq(bytes32(receiver.expectedWorkflowName()), bytes32(WF_NAME), "name");
        assertEq(receiver.expectedWorkflowOwner(), address(0), "owner cleared");
    }

    function testAdminFunctionsAreOwnerOnly() public {
        bytes memory unauthorized = abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger);
        vm.startPrank(stranger);
        vm.expectRevert(unauthorized);
        receiver.setForwarder(stranger);
        vm.expectRevert(unauthorized);
        receiver.setWorkflowIdAllowed(WF_ID, true);
        vm.expectRevert(unauthorized);
        receiver.setExpectedWorkflowOwner(stranger);
        vm.expectRevert(unauthorized);
        receiver.setExpectedWorkflowName(WF_NAME);
        vm.expectRevert(unauthorized);
        receiver.setAllowAnyWorkflow(true);
        vm.expectRevert(unauthorized);
        receiver.transferOwnership(stranger);
        vm.expectRevert(unauthorized);
        receiver.renounceOwnership();
        vm.stopPrank();
    }

    function testRenounceOwnershipDisabled() public {
        vm.prank(admin);
        vm.expectRevert(CREReceiver.RenounceOwnershipDisabled.selector);
        receiver.renounceOwnership();
        assertEq(receiver.owner(), admin, "still owned");
    }

    function testTwoStepOwnershipTransfer() public {
        address next = address(0x2E);
        vm.expectEmit(address(receiver));
        emit OwnershipTransferStarted(admin, next);
        vm.prank(admin);
        receiver.transferOwnership(next);
        assertEq(receiver.owner(), admin, "not yet");
        assertEq(receiver.pendingOwner(), next, "pending");
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger));
        receiver.acceptOwnership();
        vm.prank(next);
        receiver.acceptOwnership();
        assertEq(receiver.owner(), next, "transferred");
        vm.prank(next);
        receiver.setAllowAnyWorkflow(true);
    }

    // ---------------------------------------------------------------- KeystoneForwarder slicing

    function testForwarderSlicesMetadataLikeKeystone() public {
        MockKeystoneForwarder fwd = new MockKeystoneForwarder();
        vm.prank(admin);
        receiver.setForwarder(address(fwd));
        vm.startPrank(admin);
        receiver.setWorkflowIdAllowed(WF_ID, true);
        receiver.setExpectedWorkflowOwner(WF_OWNER);
        receiver.setExpectedWorkflowName(WF_NAME);
        vm.stopPrank();
        bytes memory report = _report(1, 2, false);
        fwd.report(address(receiver), WF_ID, WF_NAME, WF_OWNER, report);
        assertEq(rm.resolveCalls(), 1, "delivered");
        assertEq(rm.lastBundleHash(), keccak256(report), "hash of the report slice");
        assertTrue(!rm.lastResolution(), "NO");
    }
}
