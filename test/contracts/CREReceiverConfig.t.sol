// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {CREReceiverFixture} from "./CREReceiverFixture.sol";
import {MockMarketV2} from "./mocks/MockMarketV2.sol";
import {CREReceiver} from "../../contracts/cre/CREReceiver.sol";
import {ICREReceiver} from "../../contracts/cre/interfaces/ICREReceiver.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

contract RefusesEther {
    receive() external payable {
        revert("no");
    }
}

/// @notice Timelocked settings, the ETH float and ownership.
contract CREReceiverConfigTest is CREReceiverFixture {
    uint64 internal constant DELAY = 2 days;

    function _addr(address a) internal pure returns (bytes32) {
        return bytes32(uint256(uint160(a)));
    }

    function _queue(ICREReceiver.ChangeKind kind, bytes32 value) internal returns (bytes32 id, uint64 at) {
        vm.prank(admin);
        (id, at) = receiver.queueChange(kind, value);
    }

    function _apply(ICREReceiver.ChangeKind kind, bytes32 value) internal {
        vm.prank(admin);
        receiver.applyChange(kind, value);
    }

    // ---------------------------------------------------------------- timelock

    function testForwarderSwapWaitsTwoDays() public {
        // The attack of issue 12: swap the forwarder and push a forged report at once. Not possible any more.
        address evil = address(0xE71);
        bytes32 value = _addr(evil);
        bytes32 id = receiver.changeId(ICREReceiver.ChangeKind.Forwarder, value);
        vm.expectEmit(address(receiver));
        emit ConfigChangeQueued(id, ICREReceiver.ChangeKind.Forwarder, value, uint64(block.timestamp) + DELAY);
        (bytes32 qid, uint64 at) = _queue(ICREReceiver.ChangeKind.Forwarder, value);
        assertEq(qid, id, "id");
        assertEq(uint256(at), block.timestamp + DELAY, "effective in 2 days");
        assertEq(uint256(receiver.queuedChanges(id)), uint256(at), "stored");

        vm.prank(admin);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.TimelockNotOver.selector, id, at));
        receiver.applyChange(ICREReceiver.ChangeKind.Forwarder, value);
        vm.prank(evil);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.UnauthorizedForwarder.selector, evil));
        receiver.onReport(_meta(), _report(1, 1, IResolutionMarket.Verdict.Yes));

        vm.warp(at - 1);
        vm.prank(admin);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.TimelockNotOver.selector, id, at));
        receiver.applyChange(ICREReceiver.ChangeKind.Forwarder, value);

        vm.warp(at);
        vm.expectEmit(address(receiver));
        emit ConfigChangeApplied(id, ICREReceiver.ChangeKind.Forwarder, value);
        vm.expectEmit(address(receiver));
        emit ForwarderUpdated(forwarder, evil);
        _apply(ICREReceiver.ChangeKind.Forwarder, value);
        assertEq(receiver.forwarder(), evil, "applied");
        assertEq(uint256(receiver.queuedChanges(id)), 0, "consumed");
        vm.prank(admin);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.ChangeNotQueued.selector, id));
        receiver.applyChange(ICREReceiver.ChangeKind.Forwarder, value);
    }

    function testEveryKindApplies() public {
        bytes32 v2 = keccak256("v2");
        address newOwner = address(0x0DE3);
        bytes10 newName = bytes10("newname!!!");
        _queue(ICREReceiver.ChangeKind.AllowWorkflowId, v2);
        _queue(ICREReceiver.ChangeKind.DisallowWorkflowId, WF_ID);
        _queue(ICREReceiver.ChangeKind.WorkflowOwner, _addr(newOwner));
        _queue(ICREReceiver.ChangeKind.WorkflowName, bytes32(newName));
        _queue(ICREReceiver.ChangeKind.AllowAnyWorkflow, bytes32(uint256(1)));
        vm.warp(block.timestamp + DELAY);

        vm.expectEmit(address(receiver));
        emit WorkflowIdAllowedSet(v2, true);
        _apply(ICREReceiver.ChangeKind.AllowWorkflowId, v2);
        vm.expectEmit(address(receiver));
        emit WorkflowIdAllowedSet(WF_ID, false);
        _apply(ICREReceiver.ChangeKind.DisallowWorkflowId, WF_ID);
        assertTrue(receiver.isWorkflowIdAllowed(v2) && !receiver.isWorkflowIdAllowed(WF_ID), "ids swapped");
        assertEq(receiver.allowedWorkflowIdCount(), 1, "count");
        vm.expectEmit(address(receiver));
        emit ExpectedWorkflowOwnerUpdated(address(0), newOwner);
        _apply(ICREReceiver.ChangeKind.WorkflowOwner, _addr(newOwner));
        vm.expectEmit(address(receiver));
        emit ExpectedWorkflowNameUpdated(bytes10(0), newName);
        _apply(ICREReceiver.ChangeKind.WorkflowName, bytes32(newName));
        assertEq(receiver.expectedWorkflowOwner(), newOwner, "owner");
        assertEq(bytes32(receiver.expectedWorkflowName()), bytes32(newName), "name");

        // The new workflow passes, the old one does not.
        vm.prank(forwarder);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.WorkflowIdNotAllowed.selector, WF_ID));
        receiver.onReport(_meta(), _report(1, 1, IResolutionMarket.Verdict.Yes));
        _deliver(_meta(v2, newName, newOwner), _report(1, 1, IResolutionMarket.Verdict.Yes));

        vm.expectEmit(address(receiver));
        emit AllowAnyWorkflowSet(true);
        _apply(ICREReceiver.ChangeKind.AllowAnyWorkflow, bytes32(uint256(1)));
        assertTrue(receiver.allowAnyWorkflow(), "any");
        // And back off, through the timelock again.
        _queue(ICREReceiver.ChangeKind.AllowAnyWorkflow, bytes32(0));
        vm.warp(block.timestamp + DELAY);
        _apply(ICREReceiver.ChangeKind.AllowAnyWorkflow, bytes32(0));
        assertTrue(!receiver.allowAnyWorkflow(), "off");
    }

    function testCancelChange() public {
        bytes32 value = _addr(address(0xF1));
        (bytes32 id,) = _queue(ICREReceiver.ChangeKind.Forwarder, value);
        vm.expectEmit(address(receiver));
        emit ConfigChangeCancelled(id, ICREReceiver.ChangeKind.Forwarder, value);
        vm.prank(admin);
        receiver.cancelChange(ICREReceiver.ChangeKind.Forwarder, value);
        vm.warp(block.timestamp + DELAY);
        vm.prank(admin);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.ChangeNotQueued.selector, id));
        receiver.applyChange(ICREReceiver.ChangeKind.Forwarder, value);
        vm.prank(admin);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.ChangeNotQueued.selector, id));
        receiver.cancelChange(ICREReceiver.ChangeKind.Forwarder, value);
    }

    function testQueueTwiceRefused() public {
        (bytes32 id,) = _queue(ICREReceiver.ChangeKind.AllowWorkflowId, keccak256("x"));
        vm.prank(admin);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.ChangeAlreadyQueued.selector, id));
        receiver.queueChange(ICREReceiver.ChangeKind.AllowWorkflowId, keccak256("x"));
    }

    function testInvalidChangeValuesRefused() public {
        bytes32[7] memory bad = [
            bytes32(0), // forwarder zero
            bytes32(uint256(1) << 160), // forwarder with dirty upper bits
            bytes32(0), // allow id zero
            bytes32(0), // disallow id zero
            bytes32(uint256(1) << 170), // owner with dirty upper bits
            bytes32(uint256(1)), // name with bits past 10 bytes
            bytes32(uint256(2)) // allowAny not 0/1
        ];
        uint8[7] memory kinds = [0, 0, 1, 2, 3, 4, 5];
        for (uint256 i = 0; i < 7; ++i) {
            ICREReceiver.ChangeKind kind = ICREReceiver.ChangeKind(kinds[i]);
            vm.prank(admin);
            vm.expectRevert(abi.encodeWithSelector(ICREReceiver.InvalidChangeValue.selector, kind, bad[i]));
            receiver.queueChange(kind, bad[i]);
        }
        // Clearing the owner or the name (zero) is a valid change.
        _queue(ICREReceiver.ChangeKind.WorkflowOwner, bytes32(0));
        _queue(ICREReceiver.ChangeKind.WorkflowName, bytes32(0));
    }

    function testFuzzNothingAppliesBeforeTheDelay(uint64 wait) public {
        bytes32 value = _addr(address(0xF1));
        (bytes32 id, uint64 at) = _queue(ICREReceiver.ChangeKind.Forwarder, value);
        vm.warp(block.timestamp + (wait % (2 * DELAY)));
        vm.prank(admin);
        (bool ok,) = address(receiver).call(
            abi.encodeCall(CREReceiver.applyChange, (ICREReceiver.ChangeKind.Forwarder, value))
        );
        assertEq(ok, block.timestamp >= at, "applies iff the delay is over");
        assertEq(receiver.forwarder(), ok ? address(0xF1) : forwarder, "forwarder");
        assertEq(uint256(receiver.queuedChanges(id)), ok ? 0 : uint256(at), "queue");
    }

    // ---------------------------------------------------------------- float

    function testFundAndWithdrawFloat() public {
        vm.deal(admin, 3 ether);
        vm.expectEmit(address(receiver));
        emit FloatReceived(admin, 2 ether);
        vm.prank(admin);
        (bool ok,) = address(receiver).call{value: 2 ether}("");
        assertTrue(ok, "funded");
        assertEq(address(receiver).balance, 3 ether, "float");

        address payable to = payable(address(0x7070));
        vm.expectEmit(address(receiver));
        emit FloatWithdrawn(to, 2.5 ether);
        vm.prank(admin);
        receiver.withdrawFloat(to, 2.5 ether);
        assertEq(to.balance, 2.5 ether, "sent");
        assertEq(address(receiver).balance, 0.5 ether, "left");

        vm.prank(admin);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.InsufficientFloat.selector, 0.5 ether, 1 ether));
        receiver.withdrawFloat(to, 1 ether);
        vm.prank(admin);
        vm.expectRevert(ICREReceiver.ZeroAddress.selector);
        receiver.withdrawFloat(payable(address(0)), 1);
        RefusesEther refuser = new RefusesEther();
        vm.prank(admin);
        vm.expectRevert(abi.encodeWithSelector(ICREReceiver.TransferFailed.selector, address(refuser), 1));
        receiver.withdrawFloat(payable(address(refuser)), 1);
    }

    function testPullMarketCredits() public {
        // A returned or won bond sits in the market as the receiver's credit; anyone can bring it home.
        rm.creditTo{value: 0.02 ether}(address(receiver));
        uint256 before = address(receiver).balance;
        vm.expectEmit(address(receiver));
        emit MarketCreditsPulled(0.02 ether);
        vm.prank(stranger);
        uint256 pulled = receiver.pullMarketCredits();
        assertEq(pulled, 0.02 ether, "returned");
        assertEq(address(receiver).balance, before + 0.02 ether, "back in the float");
        vm.expectRevert(MockMarketV2.NothingToWithdraw.selector);
        receiver.pullMarketCredits();
    }

    // ---------------------------------------------------------------- ownership

    function testOwnerOnlyFunctions() public {
        bytes memory unauthorized = abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger);
        vm.startPrank(stranger);
        vm.expectRevert(unauthorized);
        receiver.queueChange(ICREReceiver.ChangeKind.Forwarder, _addr(stranger));
        vm.expectRevert(unauthorized);
        receiver.applyChange(ICREReceiver.ChangeKind.Forwarder, _addr(stranger));
        vm.expectRevert(unauthorized);
        receiver.cancelChange(ICREReceiver.ChangeKind.Forwarder, _addr(stranger));
        vm.expectRevert(unauthorized);
        receiver.withdrawFloat(payable(stranger), 1);
        vm.expectRevert(unauthorized);
        receiver.transferOwnership(stranger);
        vm.expectRevert(unauthorized);
        receiver.renounceOwnership();
        vm.stopPrank();
    }

    function testRenounceOwnershipDisabled() public {
        vm.prank(admin);
        vm.expectRevert(ICREReceiver.RenounceOwnershipDisabled.selector);
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
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(Ownable.OwnableUnauthorizedAccount.selector, stranger));
        receiver.acceptOwnership();
        vm.prank(next);
        receiver.acceptOwnership();
        assertEq(receiver.owner(), next, "transferred");
        vm.prank(next);
        receiver.queueChange(ICREReceiver.ChangeKind.AllowAnyWorkflow, bytes32(uint256(1)));
    }
}
