// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TestBase} from "../utils/Vm.sol";
import {IdentityRegistry} from "../../../contracts/erc8004/IdentityRegistry.sol";
import {ReputationRegistry} from "../../../contracts/erc8004/ReputationRegistry.sol";

/// @notice Shared setup for the reputation tests: a real IdentityRegistry, the ReputationRegistry under test,
///         one agent owned by `agentOwner`, and a few client addresses.
abstract contract ReputationTestBase is TestBase {
    IdentityRegistry internal identity;
    ReputationRegistry internal rep;

    address internal agentOwner = address(0xA0);
    address internal alice = address(0xA11CE);
    address internal bob = address(0xB0B);
    address internal carol = address(0xCA401);
    address internal responder = address(0x5E5);

    uint256 internal agent; // owned by agentOwner

    string internal constant RQ = "resolution_quality";
    string internal constant SQ = "source_quality";
    string internal constant AD = "analysis_depth";
    string internal constant CR = "cresolver";

    function setUp() public virtual {
        identity = new IdentityRegistry();
        rep = new ReputationRegistry(address(identity));
        vm.prank(agentOwner);
        agent = identity.register("ipfs://agent");
    }

    /// @dev Gives feedback as `client` with no endpoint/URI/hash.
    function _give(address client, int128 value, uint8 decimals, string memory tag1, string memory tag2) internal {
        vm.prank(client);
        rep.giveFeedback(agent, value, decimals, tag1, tag2, "", "", bytes32(0));
    }

    function _list(address a) internal pure returns (address[] memory l) {
        l = new address[](1);
        l[0] = a;
    }

    function _list(address a, address b) internal pure returns (address[] memory l) {
        l = new address[](2);
        l[0] = a;
        l[1] = b;
    }

    function _list(address a, address b, address c) internal pure returns (address[] memory l) {
        l = new address[](3);
        l[0] = a;
        l[1] = b;
        l[2] = c;
    }

    function _summary(address[] memory clients, string memory tag1, string memory tag2)
        internal
        view
        returns (uint64 count, int128 value, uint8 decimals)
    {
        return rep.getSummary(agent, clients, tag1, tag2);
    }

    function _assertSummary(
        address[] memory clients,
        string memory tag1,
        string memory tag2,
        uint64 count,
        int128 value,
        uint8 decimals,
        string memory what
    ) internal view {
        (uint64 c, int128 v, uint8 d) = rep.getSummary(agent, clients, tag1, tag2);
        assertEq(uint256(c), uint256(count), string.concat(what, ": count"));
        assertEq(int256(v), int256(value), string.concat(what, ": value"));
        assertEq(uint256(d), uint256(decimals), string.concat(what, ": decimals"));
    }

    function _noResponders() internal pure returns (address[] memory) {
        return new address[](0);
    }
}
