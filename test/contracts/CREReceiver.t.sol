// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {CREReceiverFixture} from "./CREReceiverFixture.sol";
import {TestMath} from "./utils/BettingTestUtils.sol";
import {MockMarketV2} from "./mocks/MockMarketV2.sol";
import {MockKeystoneForwarder} from "./mocks/MockKeystoneForwarder.sol";
import {CREReceiver} from "../../contracts/cre/CREReceiver.sol";
import {ICREReceiver} from "../../contracts/cre/interfaces/ICREReceiver.sol";
import {IReceiver} from "../../contracts/cre/interfaces/IReceiver.sol";
import {IArbiter} from "../../contracts/market/interfaces/IArbiter.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @notice Delivery rules: forwarder, metadata, workflow checks, report format, chain/market binding, bond.
contract CREReceiverTest is CREReceiverFixture {
    using TestMath for uint256;

    // ---------------------------------------------------------------- construction, ERC-165

    function testConstructor() public {
        assertEq(address(receiver.market()), address(rm), "market");
        assertEq(receiver.forwarder(), forwarder, "forwarder");
        assertEq(receiver.owner(), admin, "owner");
        assertTrue(!receiver.allowAnyWorkflow(), "workflow check on");
        assertEq(receiver.allowedWorkflowIdCount(), 1, "one id");
        assertTrue(receiver.isWorkflowIdAllowed(WF_ID), "id allowed");
        assertEq(receiver.expectedWorkflowOwner(), address(0), "no owner");
        assertEq(receiver.METADATA_MIN_LENGTH(), 62, "62-byte metadata");
        assertEq(uint256(receiver.CONFIG_DELAY()), 2 days, "2-day timelock");

        // The initial config is in force at once and announced with the usual events.
        vm.expectEmit();
        emit ForwarderUpdated(address(0), forwarder);
        vm.expectEmit();
        emit WorkflowIdAllowedSet(WF_ID, true);
        vm.expectEmit();
        emit ExpectedWorkflowOwnerUpdated(address(0), WF_OWNER);
        vm.expectEmit();
        emit ExpectedWorkflowNameUpdated(bytes10(0), WF_NAME);
        vm.expectEmit();
        emit AllowAnyWorkflowSet(true);
        CREReceiver full = new CREReceiver(IResolutionMarket(address(rm)), forwarder, admin, _config(true, true, true, true));
        assertEq(full.expectedWorkflowOwner(), WF_OWNER, "owner");
        assertEq(bytes32(full.expectedWorkflowName()), bytes32(WF_NAME), "name");
        assertTrue(full.allowAnyWorkflow(), "any");
    }

    function testConstructorRejects() public {
        ICREReceiver.WorkflowConfig memory c = _config(true, false, false, false);
        vm.expectRevert(ICREReceiver.ZeroAddress.selector);
        new CREReceiver(IResolutionMarket(address(0)), forwarder, admin, c);
        vm.expectRevert(ICREReceiver.ZeroAddress.selector);
        new CREReceiver(IResolutionMarket(address(rm)), address(0), admin, c);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableInvalidOwner.selector, address(0)));
        new CREReceiver(IResolutionMarket(address(rm)), forwarder, address(0), c);
        c.workflowIds[0] = bytes32(0);
        vm.expectRevert(ICREReceiver.ZeroWorkflowId.selector);
        new CREReceiver(IResolutionMarket(address(rm)), forwarder, admin, c);
    }

    function testSupportsInterface() public view {
        assertEq(type(IReceiver).interfaceId, bytes4(0x805f2132), "IReceiver id = onReport(bytes,bytes)");
        assertTrue(receiver.supportsInterface(0x805f2132), "IReceiver");
        assertTrue(receiver.supportsInterface(type(IERC165).interfaceId), "IERC165");
        assertTrue(!receiver.supportsInterface(0xffffffff), "0xffffffff");
    }

    function testFuzzSupportsInterfaceOnlyTheTwo(bytes4 id) public view {
        bool expected = id == bytes4(0x805f2132) || id == bytes4(0x01ffc9a7);
        assertEq(receiver.supportsInterface(id), expected, "only IReceiver + IERC165");
    }

    // ---------------------------------------------------------------- forwarder and metadata

    function testFuzzOnlyForwarderAccepted(address caller) public {
        vm.assume(caller != forwarder);
        vm.prank(caller);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.UnauthorizedForwarder.selector, caller));
        receiver.onReport(_meta(), _report(1, 1, IResolutionMarket.Verdict.Yes));
    }

    function testShortMetadataRefused() public {
        bytes memory meta = _meta();
        bytes memory short = new bytes(61);
        for (uint256 i = 0; i < 61; ++i) {
            short[i] = meta[i];
        }
        vm.prank(forwarder);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.InvalidMetadataLength.selector, 61));
        receiver.onReport(short, _report(1, 2, IResolutionMarket.Verdict.Yes));
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.InvalidMetadataLength.selector, 0));
        receiver.decodeMetadata("");
    }

    function testFuzzDecodeMetadata(bytes32 id, bytes10 name, address owner, bytes memory tail) public view {
        (bytes32 i2, bytes10 n2, address o2) = receiver.decodeMetadata(abi.encodePacked(id, name, owner, tail));
        assertEq(i2, id, "id");
        assertEq(bytes32(n2), bytes32(name), "name");
        assertEq(o2, owner, "owner");
    }

    // ---------------------------------------------------------------- workflow checks (fail-closed)

    function testNothingConfiguredRefusesEveryWorkflow() public {
        receiver = _deploy(_config(false, false, false, false));
        vm.prank(forwarder);
        vm.expectRevert(ICREReceiver.NoWorkflowConfigured.selector);
        receiver.onReport(_meta(), _report(1, 2, IResolutionMarket.Verdict.Yes));
        // The name alone proves nothing.
        receiver = _deploy(_config(false, false, true, false));
        vm.prank(forwarder);
        vm.expectRevert(ICREReceiver.NoWorkflowConfigured.selector);
        receiver.onReport(_meta(), _report(1, 2, IResolutionMarket.Verdict.Yes));
    }

    function testWrongWorkflowIdRefused() public {
        bytes32 other = keccak256("other");
        vm.prank(forwarder);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.WorkflowIdNotAllowed.selector, other));
        receiver.onReport(_meta(other, WF_NAME, WF_OWNER), _report(1, 2, IResolutionMarket.Verdict.Yes));
    }

    function testOwnerAndNameMismatchRefused() public {
        receiver = _deploy(_config(false, true, true, false));
        vm.prank(forwarder);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.WorkflowOwnerMismatch.selector, stranger, WF_OWNER));
        receiver.onReport(_meta(WF_ID, WF_NAME, stranger), _report(1, 2, IResolutionMarket.Verdict.Yes));
        bytes10 otherName = bytes10("othername!");
        vm.prank(forwarder);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.WorkflowNameMismatch.selector, otherName, WF_NAME));
        receiver.onReport(_meta(WF_ID, otherName, WF_OWNER), _report(1, 2, IResolutionMarket.Verdict.Yes));
        // Any id of the right owner + name is accepted when no id is pinned.
        _deliver(_meta(keccak256("any id"), WF_NAME, WF_OWNER), _report(1, 2, IResolutionMarket.Verdict.Yes));
        assertEq(rm.proposeCalls(), 1, "owner+name accepted");
    }

    function testAllowAnyWorkflowStillChecksForwarder() public {
        receiver = _deploy(_config(false, false, false, true));
        _deliver(_meta(keccak256("random"), bytes10(0), address(0xBAD)), _report(1, 2, IResolutionMarket.Verdict.Yes));
        assertEq(rm.proposeCalls(), 1, "any accepted");
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.UnauthorizedForwarder.selector, stranger));
        receiver.onReport(_meta(), _report(2, 2, IResolutionMarket.Verdict.Yes));
    }

    function testFuzzWorkflowCheck(bytes32 id, bytes10 name, address owner, uint8 configRaw) public {
        bool pinId = configRaw & 1 != 0;
        bool pinOwner = configRaw & 2 != 0;
        bool pinName = configRaw & 4 != 0;
        receiver = _deploy(_config(pinId, pinOwner, pinName, false));
        // Bias towards matching values so both outcomes are exercised.
        if (uint256(id) % 2 == 0) id = WF_ID;
        if (uint160(owner) % 2 == 0) owner = WF_OWNER;
        if (uint80(name) % 2 == 0) name = WF_NAME;
        bool accept = (pinId || pinOwner) && (!pinId || id == WF_ID) && (!pinOwner || owner == WF_OWNER)
            && (!pinName || name == WF_NAME);
        vm.prank(forwarder);
        (bool ok,) = address(receiver).call(
            abi.encodeCall(CREReceiver.onReport, (_meta(id, name, owner), _report(1, 1, IResolutionMarket.Verdict.No)))
        );
        assertEq(ok, accept, "accepted iff every configured criterion matches");
    }

    // ---------------------------------------------------------------- proposal, bond, binding

    function testReportBecomesABondedProposal() public {
        bytes memory report = _report(1, 3, IResolutionMarket.Verdict.Yes);
        uint256 floatBefore = address(receiver).balance;
        vm.expectEmit(address(receiver));
        emit ReportProcessed(1, WF_ID, WF_OWNER, WF_NAME, IResolutionMarket.Verdict.Yes, BUNDLE_HASH, BOND);
        _deliver(abi.encodePacked(_meta(), bytes2(0x0001)), report);

        assertEq(rm.proposeCalls(), 1, "one proposal");
        assertEq(rm.lastProposedId(), 1, "market id");
        assertTrue(rm.lastVerdict() == IResolutionMarket.Verdict.Yes, "verdict");
        assertEq(rm.lastBundleHash(), BUNDLE_HASH, "bundle hash from the report");
        assertEq(rm.lastBundleURI(), BUNDLE_URI, "bundle URI from the report");
        assertEq(rm.lastBondPaid(), BOND, "the market's per-market bond");
        assertEq(address(receiver).balance, floatBefore - BOND, "paid from the float");
        assertEq(abi.encode(rm.lastReports()), abi.encode(_reports(3)), "worker reports forwarded as is");
    }

    function testBondFollowsThePerMarketConfig() public {
        rm.setBond(2, 0.3 ether);
        _deliver(_meta(), _report(2, 1, IResolutionMarket.Verdict.Invalid));
        assertEq(rm.lastBondPaid(), 0.3 ether, "market 2's bond");
        assertTrue(rm.lastVerdict() == IResolutionMarket.Verdict.Invalid, "invalid is a proposal too");
    }

    function testShortFloatRefused() public {
        rm.setBond(2, 2 ether);
        vm.prank(admin);
        receiver.setMaxBond(2 ether);
        vm.prank(forwarder);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.InsufficientFloat.selector, 1 ether, 2 ether));
        receiver.onReport(_meta(), _report(2, 1, IResolutionMarket.Verdict.Yes));
        // Topping up the float makes the same report go through.
        vm.deal(admin, 5 ether);
        vm.prank(admin);
        (bool ok,) = address(receiver).call{value: 1 ether}("");
        assertTrue(ok, "funded");
        _deliver(_meta(), _report(2, 1, IResolutionMarket.Verdict.Yes));
        assertEq(address(receiver).balance, 0, "float spent on the bond");
    }

    /// @notice Attack (issue 21, high): a creator sets its market's bond to the receiver's whole float (20 ETH)
    ///         to take it through its own arbiter. The receiver refuses anything above its cap; nothing is paid.
    function testFloatIsNotBondedAboveTheCap() public {
        vm.deal(address(receiver), 20 ether);
        rm.setBond(2, 20 ether);
        vm.prank(forwarder);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.BondAboveCap.selector, 20 ether, 1 ether));
        receiver.onReport(_meta(), _report(2, 1, IResolutionMarket.Verdict.Yes));
        assertEq(address(receiver).balance, 20 ether, "float intact");
        assertEq(rm.proposeCalls(), 0, "no proposal");
        rm.setBond(2, 1 ether); // at the cap: paid
        _deliver(_meta(), _report(2, 1, IResolutionMarket.Verdict.Yes));
        assertEq(rm.lastBondPaid(), 1 ether, "cap is inclusive");
    }

    /// @notice Attack (issue 21, high): the market's arbiter is one the deployment does not allow (the creator's
    ///         own committee): the float is not bonded to it.
    function testFloatIsNotBondedToAnArbiterTheDeploymentDoesNotAllow() public {
        address judge = address(0x1D6E);
        rm.setArbiter(IArbiter(judge));
        rm.setArbiterBarred(judge, true);
        vm.prank(forwarder);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.ArbiterNotAllowed.selector, judge));
        receiver.onReport(_meta(), _report(1, 1, IResolutionMarket.Verdict.Yes));
        assertEq(rm.proposeCalls(), 0, "no proposal");
    }

    function testSetMaxBondIsOwnerOnlyAndEmits() public {
        assertEq(receiver.maxBond(), 1 ether, "default cap");
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger));
        receiver.setMaxBond(5 ether);
        vm.expectEmit(address(receiver));
        emit ICREReceiver.MaxBondUpdated(1 ether, 0.1 ether);
        vm.prank(admin);
        receiver.setMaxBond(0.1 ether);
        assertEq(receiver.maxBond(), 0.1 ether, "lowered");
    }

    function testReportForAnotherChainRefused() public {
        bytes memory report = _reportFor(1, address(rm), 1, 1, 2);
        vm.prank(forwarder);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.WrongChain.selector, 1, block.chainid));
        receiver.onReport(_meta(), report);
        assertEq(rm.proposeCalls(), 0, "nothing proposed");
    }

    function testReportForAnotherMarketRefused() public {
        // The same DON-signed bytes aimed at another deployment's market are refused here.
        MockMarketV2 other = new MockMarketV2();
        bytes memory report = _reportFor(block.chainid, address(other), 1, 1, 2);
        vm.prank(forwarder);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.WrongMarket.selector, address(other), address(rm)));
        receiver.onReport(_meta(), report);
        assertEq(rm.proposeCalls(), 0, "nothing proposed");
    }

    function testFuzzBindingToChainAndMarket(uint256 chainId, address market_) public {
        bytes memory report = _reportFor(chainId, market_, 1, 0, 1);
        vm.prank(forwarder);
        (bool ok,) = address(receiver).call(abi.encodeCall(CREReceiver.onReport, (_meta(), report)));
        assertEq(ok, chainId == block.chainid && market_ == address(rm), "only this chain and market");
    }

    function testMarketRevertBubbles() public {
        rm.setResolver(address(receiver), false);
        vm.prank(forwarder);
        vm.expectRevert(abi.encodeWithSelector(MockMarketV2.NotResolver.selector, address(receiver)));
        receiver.onReport(_meta(), _report(1, 2, IResolutionMarket.Verdict.Yes));
        rm.setResolver(address(receiver), true);
        rm.setRevertOnPropose(true);
        vm.prank(forwarder);
        vm.expectRevert(MockMarketV2.ForcedRevert.selector);
        receiver.onReport(_meta(), _report(1, 2, IResolutionMarket.Verdict.Yes));
        assertEq(address(receiver).balance, 1 ether, "bond not spent");
    }

    // ---------------------------------------------------------------- malformed reports

    function _expectMalformed(bytes memory report) internal {
        vm.prank(forwarder);
        vm.expectRevert(ICREReceiver.MalformedReport.selector);
        receiver.onReport(_meta(), report);
    }

    function testMalformedReportsRevertCleanly() public {
        _expectMalformed("");
        _expectMalformed(hex"01");
        _expectMalformed(new bytes(9 * 32 - 1));
        bytes memory garbage = new bytes(320);
        for (uint256 i = 0; i < garbage.length; ++i) {
            garbage[i] = 0xff;
        }
        _expectMalformed(garbage);
        bytes memory good = _report(1, 2, IResolutionMarket.Verdict.Yes);
        // Truncated.
        bytes memory truncated = new bytes(good.length - 32);
        for (uint256 i = 0; i < truncated.length; ++i) {
            truncated[i] = good[i];
        }
        _expectMalformed(truncated);
        // Trailing bytes (non-canonical).
        _expectMalformed(abi.encodePacked(good, uint256(0)));
        // Verdict out of range.
        _expectMalformed(_reportFor(block.chainid, address(rm), 1, 3, 2));
        // Dirty address word (upper bits set) for the market.
        bytes memory dirtyAddr = _report(1, 2, IResolutionMarket.Verdict.Yes);
        assembly {
            let p := add(dirtyAddr, 64)
            mstore(p, or(mload(p), shl(200, 1)))
        }
        _expectMalformed(dirtyAddr);
        // Answer enum out of range in reports[0] (head 7 words, length word, then the first struct).
        bytes memory badAnswer = _report(1, 2, IResolutionMarket.Verdict.Yes);
        assembly {
            mstore(add(badAnswer, add(32, mul(8, 32))), 4)
        }
        _expectMalformed(badAnswer);
        // uint16 confidence with high bits set.
        bytes memory dirtyConf = _report(1, 2, IResolutionMarket.Verdict.Yes);
        assembly {
            mstore(add(dirtyConf, add(32, mul(9, 32))), 0x10000)
        }
        _expectMalformed(dirtyConf);
        // The old (v1) report shape.
        _expectMalformed(abi.encode(uint256(1), new address[](2), new uint256[](2), new uint8[](6), true));
        assertEq(rm.proposeCalls(), 0, "nothing forwarded");
    }

    function testFuzzRandomReportBytesRevertCleanly(bytes memory report) public {
        vm.prank(forwarder);
        (bool ok, bytes memory err) = address(receiver).call(abi.encodeCall(CREReceiver.onReport, (_meta(), report)));
        assertTrue(!ok, "random bytes are never a valid report for this chain and market");
        assertEq(err, abi.encodeWithSelector(ICREReceiver.MalformedReport.selector), "clean error");
    }

    function testFuzzDecodeReportRoundTrip(uint256 chainId, address m, uint256 marketId, uint8 v, uint8 nRaw, uint256 seed)
        public
        view
    {
        uint8 verdict = v % 3;
        uint256 n = uint256(nRaw).bound(0, 20);
        IResolutionMarket.WorkerReport[] memory reports = new IResolutionMarket.WorkerReport[](n);
        for (uint256 i = 0; i < n; ++i) {
            reports[i] = IResolutionMarket.WorkerReport({
                answer: IResolutionMarket.Answer(seed.rand(i) % 4),
                confidenceBps: uint16(seed.rand(1000 + i)),
                resQuality: uint8(seed.rand(2000 + i)),
                srcQuality: uint8(seed.rand(3000 + i)),
                analysisDepth: uint8(seed.rand(4000 + i)),
                replyHash: bytes32(0),
                signature: ""
            });
        }
        string memory uri = n % 2 == 0 ? "" : "https://example.org/bundle.json";
        bytes memory report = abi.encode(chainId, m, marketId, verdict, reports, bytes32(seed), uri);
        ICREReceiver.CREReport memory r = receiver.decodeReport(report);
        assertEq(
            abi.encode(r.chainId, r.market, r.marketId, uint8(r.verdict), r.reports, r.bundleHash, r.bundleURI),
            report,
            "round trip"
        );
    }

    // ---------------------------------------------------------------- KeystoneForwarder slicing

    function testForwarderSlicesMetadataLikeKeystone() public {
        MockKeystoneForwarder fwd = new MockKeystoneForwarder();
        receiver = new CREReceiver(IResolutionMarket(address(rm)), address(fwd), admin, _config(true, true, true, false));
        rm.setResolver(address(receiver), true);
        vm.deal(address(receiver), 1 ether);
        fwd.report(address(receiver), WF_ID, WF_NAME, WF_OWNER, _report(1, 2, IResolutionMarket.Verdict.No));
        assertEq(rm.proposeCalls(), 1, "delivered");
        assertTrue(rm.lastVerdict() == IResolutionMarket.Verdict.No, "NO");
    }
}
