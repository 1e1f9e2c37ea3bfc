// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TestBase} from "./utils/Vm.sol";

/// @notice Proves the cheatcodes our tests rely on behave as expected on this Hardhat/EDR.
contract CheatcodesTest is TestBase {
    error Boom(uint256 code);

    function fail_(uint256 code) external pure {
        revert Boom(code);
    }

    function testPrankWarpDealSign() public {
        vm.warp(1_000_000);
        assertEq(block.timestamp, 1_000_000, "warp");
        address alice = vm.addr(0xA11CE);
        vm.deal(alice, 5 ether);
        assertEq(alice.balance, 5 ether, "deal");
        bytes32 digest = keccak256("hello");
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(0xA11CE, digest);
        assertEq(ecrecover(digest, v, r, s), alice, "sign");
    }

    function testExpectRevertWithData() public {
        vm.expectRevert(abi.encodeWithSelector(Boom.selector, 7));
        this.fail_(7);
    }
}
