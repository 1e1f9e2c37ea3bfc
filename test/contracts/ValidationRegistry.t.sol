// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";

import {TestBase} from "./utils/Vm.sol";
import {IdentityRegistry} from "../../contracts/erc8004/IdentityRegistry.sol";
import {ValidationRegistry} from "../../contracts/erc8004/ValidationRegistry.sol";
import {IValidationRegistry} from "../../contracts/erc8004/interfaces/IValidationRegistry.sol";

/// @notice ValidationRegistry: requests, responses, status, summaries, lookups.
contract ValidationRegistryTest is TestBase {
    IdentityRegistry internal identity;
    ValidationRegistry internal val;
    address internal alice = address(0xA11CE);
    address internal bob = address(0xB0B);
    address internal carol = address(0xCA201);
    address internal stranger = address(0x5757);
    address internal v1 = address(0x1001);
    address internal v2 = address(0x1002);
    bytes32 internal constant H1 = keccak256("request-1");
    bytes32 internal constant H2 = keccak256("request-2");
    bytes32 internal constant H3 = keccak256("request-3");

    function setUp() public {
        vm.warp(1_800_000_000);
        identity = new IdentityRegistry();
        val = new ValidationRegistry(address(identity));
        vm.prank(alice);
        identity.register("ipfs://agent-0"); // agent 0: alice
        vm.prank(bob);
        identity.register("ipfs://agent-1"); // agent 1: bob
    }

    function _request(address caller, address validator, uint256 agentId, bytes32 h) internal {
        vm.prank(caller);
        val.validationRequest(validator, agentId, "ipfs://req", h);
    }

    function _respond(address validator, bytes32 h, uint8 response, string memory tag) internal {
        vm.prank(validator);
        val.validationResponse(h, response, "ipfs://resp", keccak256(abi.encode(h, response)), tag);
    }

    function _list(address a) internal pure returns (address[] memory l) {
        l = new address[](1);
        l[0] = a;
    }

    // ---------------------------------------------------------------- construction / views

    function testConstructorAndVersion() public {
        assertEq(val.getIdentityRegistry(), address(identity), "identity registry");
        assertEq(val.getVersion(), "2.0.0", "version");
        vm.expectRevert(ValidationRegistry.ValidationRegistryZeroIdentityRegistry.selector);
        new ValidationRegistry(address(0));
    }

    // ---------------------------------------------------------------- validationRequest

    function testValidationRequestByOwner() public {
        vm.expectEmit(address(val));
        emit IValidationRegistry.ValidationRequest(v1, 0, "ipfs://req", H1);
        _request(alice, v1, 0, H1);

        (address validator, uint256 agentId, uint8 response, bytes32 responseHash, string memory tag, uint256 last) =
            val.getValidationStatus(H1);
        assertEq(validator, v1, "validator");
        assertEq(agentId, 0, "agent");
        assertEq(uint256(response), 0, "pending reads as 0");
        assertEq(responseHash, bytes32(0), "no response hash");
        assertEq(tag, "", "no tag");
        assertEq(last, block.timestamp, "lastUpdate = request time");
        assertEq(val.getAgentValidations(0).length, 1, "agent list");
        assertEq(val.getAgentValidations(0)[0], H1, "agent list entry");
        assertEq(val.getValidatorRequests(v1)[0], H1, "validator list entry");
    }

    function testValidationRequestByApprovedAndOperator() public {
        vm.prank(alice);
        identity.approve(bob, 0);
        vm.prank(alice);
        identity.setApprovalForAll(carol, true);
        _request(bob, v1, 0, H1);
        _request(carol, v2, 0, H2);
        bytes32[] memory hashes = val.getAgentValidations(0);
        assertEq(hashes.length, 2, "two requests");
        assertEq(hashes[0], H1, "oldest first");
        assertEq(hashes[1], H2, "then newer");
    }

    function testValidationRequestRevertsForStranger() public {
        vm.expectRevert(abi.encodeWithSelector(ValidationRegistry.ValidationRegistryUnauthorized.selector, stranger, 0));
        _request(stranger, v1, 0, H1);
        // The owner of another agent is a stranger too.
        vm.expectRevert(abi.encodeWithSelector(ValidationRegistry.ValidationRegistryUnauthorized.selector, bob, 0));
        _request(bob, v1, 0, H1);
    }

    function testValidationRequestRevertsForUnknownAgent() public {
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 42));
        _request(alice, v1, 42, H1);
    }

    function testValidationRequestRevertsForZeroValidator() public {
        vm.expectRevert(ValidationRegistry.ValidationRegistryZeroValidator.selector);
        _request(alice, address(0), 0, H1);
    }

    function testValidationRequestRevertsForReusedHash() public {
        _request(alice, v1, 0, H1);
        vm.expectRevert(abi.encodeWithSelector(ValidationRegistry.ValidationRegistryRequestExists.selector, H1));
        _request(alice, v2, 0, H1);
        // Hashes are global: another agent cannot reuse it either.
        vm.expectRevert(abi.encodeWithSelector(ValidationRegistry.ValidationRegistryRequestExists.selector, H1));
        _request(bob, v1, 1, H1);
    }

    /// @notice requestHash squatting (round-1 review, low), kept as the canonical registry has it (hashes are
    ///         global, first come): a squatter who copies a pending hash only blocks that hash, under its own agent.
    ///         Requesters bind the hash to their agent (keccak256 of agentId and the content, plus a salt), so a
    ///         reader checking the binding ignores the squatted entry, and the victim re-requests with a new salt.
    function testRequestHashSquattingOnlyBlocksTheHashUnderTheSquattersAgent() public {
        bytes32 content = keccak256("work of agent 0");
        bytes32 bound = keccak256(abi.encode(uint256(0), content, uint256(1)));
        _request(bob, v2, 1, bound); // bob front-runs alice's pending request with her hash
        vm.expectRevert(abi.encodeWithSelector(ValidationRegistry.ValidationRegistryRequestExists.selector, bound));
        _request(alice, v1, 0, bound);
        (address validator, uint256 agentId,,,,) = val.getValidationStatus(bound);
        assertEq(validator, v2, "the squatter's validator");
        assertEq(agentId, 1, "recorded under the squatter's agent");
        assertTrue(keccak256(abi.encode(agentId, content, uint256(1))) != bound, "binding check rejects the squat");
        bytes32 salted = keccak256(abi.encode(uint256(0), content, uint256(2)));
        _request(alice, v1, 0, salted);
        _respond(v1, salted, 90, "");
        (uint64 count,) = val.getSummary(0, new address[](0), "");
        assertEq(uint256(count), 1, "alice's validation counts; bob's squat is not hers");
    }

    function testOwnerMayNameItselfAsValidator() public {
        _request(alice, alice, 0, H1);
        _respond(alice, H1, 100, "");
        (uint64 count, uint8 avg) = val.getSummary(0, new address[](0), "");
        assertEq(uint256(count), 1, "self-validation counted (as in the reference)");
        assertEq(uint256(avg), 100, "avg");
    }

    // ---------------------------------------------------------------- validationResponse

    function testValidationResponse() public {
        _request(alice, v1, 0, H1);
        vm.warp(block.timestamp + 100);
        vm.expectEmit(address(val));
        emit IValidationRegistry.ValidationResponse(v1, 0, H1, 87, "ipfs://resp", bytes32(uint256(7)), "zk");
        vm.prank(v1);
        val.validationResponse(H1, 87, "ipfs://resp", bytes32(uint256(7)), "zk");

        (, , uint8 response, bytes32 responseHash, string memory tag, uint256 last) = val.getValidationStatus(H1);
        assertEq(uint256(response), 87, "response");
        assertEq(responseHash, bytes32(uint256(7)), "hash");
        assertEq(tag, "zk", "tag");
        assertEq(last, block.timestamp, "lastUpdate refreshed");
    }

    function testValidationResponseCanBeUpdated() public {
        _request(alice, v1, 0, H1);
        _respond(v1, H1, 10, "soft");
        _respond(v1, H1, 90, "hard");
        (, , uint8 response, , string memory tag, ) = val.getValidationStatus(H1);
        assertEq(uint256(response), 90, "latest response");
        assertEq(tag, "hard", "latest tag");
        (uint64 count, uint8 avg) = val.getSummary(0, new address[](0), "");
        assertEq(uint256(count), 1, "one request counted once");
        assertEq(uint256(avg), 90, "latest value");
    }

    function testValidationResponseBoundaries() public {
        _request(alice, v1, 0, H1);
        _respond(v1, H1, 0, "");
        _respond(v1, H1, 100, "");
        vm.expectRevert(abi.encodeWithSelector(ValidationRegistry.ValidationRegistryResponseOutOfRange.selector, 101));
        _respond(v1, H1, 101, "");
    }

    function testValidationResponseRevertsForUnknownRequest() public {
        vm.expectRevert(abi.encodeWithSelector(ValidationRegistry.ValidationRegistryUnknownRequest.selector, H1));
        _respond(v1, H1, 50, "");
    }

    function testValidationResponseRevertsForOtherCaller() public {
        _request(alice, v1, 0, H1);
        vm.expectRevert(abi.encodeWithSelector(ValidationRegistry.ValidationRegistryNotValidator.selector, v2, v1));
        _respond(v2, H1, 50, "");
        // Not even the agent's owner may answer for the validator.
        vm.expectRevert(abi.encodeWithSelector(ValidationRegistry.ValidationRegistryNotValidator.selector, alice, v1));
        _respond(alice, H1, 50, "");
    }

    function testGetValidationStatusRevertsForUnknownRequest() public {
        vm.expectRevert(abi.encodeWithSelector(ValidationRegistry.ValidationRegistryUnknownRequest.selector, H3));
        val.getValidationStatus(H3);
    }

    // ---------------------------------------------------------------- getSummary

    function testGetSummaryFilters() public {
        _request(alice, v1, 0, H1);
        _request(alice, v2, 0, H2);
        _request(alice, v1, 0, H3); // never answered
        _request(bob, v1, 1, keccak256("bob")); // other agent
        _respond(v1, H1, 80, "zk");
        _respond(v2, H2, 45, "tee");
        _respond(v1, keccak256("bob"), 10, "zk");

        (uint64 count, uint8 avg) = val.getSummary(0, new address[](0), "");
        assertEq(uint256(count), 2, "all validators, any tag, pending skipped");
        assertEq(uint256(avg), 62, "(80 + 45) / 2 rounded down");

        (count, avg) = val.getSummary(0, _list(v1), "");
        assertEq(uint256(count), 1, "v1 only");
        assertEq(uint256(avg), 80, "v1 avg");

        (count, avg) = val.getSummary(0, new address[](0), "tee");
        assertEq(uint256(count), 1, "tag tee");
        assertEq(uint256(avg), 45, "tee avg");

        (count, avg) = val.getSummary(0, _list(v1), "tee");
        assertEq(uint256(count), 0, "v1 and tee: none");
        assertEq(uint256(avg), 0, "no matches: 0");

        (count, avg) = val.getSummary(0, _list(stranger), "");
        assertEq(uint256(count), 0, "unknown validator");

        address[] memory both = new address[](2);
        both[0] = v2;
        both[1] = v1;
        (count, avg) = val.getSummary(0, both, "");
        assertEq(uint256(count), 2, "both listed");

        (count, avg) = val.getSummary(7, new address[](0), "");
        assertEq(uint256(count), 0, "unknown agent: empty summary");
    }

    function testLookupsPerValidator() public {
        _request(alice, v1, 0, H1);
        _request(bob, v1, 1, H2);
        _request(alice, v2, 0, H3);
        bytes32[] memory r1 = val.getValidatorRequests(v1);
        assertEq(r1.length, 2, "v1 has two");
        assertEq(r1[0], H1, "v1 first");
        assertEq(r1[1], H2, "v1 second");
        assertEq(val.getValidatorRequests(v2).length, 1, "v2 has one");
        assertEq(val.getValidatorRequests(stranger).length, 0, "none");
        assertEq(val.getAgentValidations(1).length, 1, "agent 1 has one");
    }

    /// @dev For any responses, the summary is their floor average, and out-of-range responses are refused.
    function testFuzzSummaryAverage(uint8[5] memory responses) public {
        uint256 total;
        uint256 accepted;
        for (uint256 i; i < responses.length; ++i) {
            bytes32 h = keccak256(abi.encode("fuzz", i));
            _request(alice, v1, 0, h);
            if (responses[i] > 100) {
                vm.expectRevert(
                    abi.encodeWithSelector(ValidationRegistry.ValidationRegistryResponseOutOfRange.selector, responses[i])
                );
                _respond(v1, h, responses[i], "t");
            } else {
                _respond(v1, h, responses[i], "t");
                total += responses[i];
                ++accepted;
            }
        }
        (uint64 count, uint8 avg) = val.getSummary(0, _list(v1), "t");
        assertEq(uint256(count), accepted, "count");
        assertEq(uint256(avg), accepted == 0 ? 0 : total / accepted, "floor average");
    }
}
