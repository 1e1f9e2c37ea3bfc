// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";

import {ReputationRegistry} from "../../contracts/erc8004/ReputationRegistry.sol";
import {IReputationRegistry} from "../../contracts/erc8004/interfaces/IReputationRegistry.sol";
import {ReputationTestBase} from "./reputation/ReputationFixtures.sol";

/// @notice ReputationRegistry: writes, their reverts and events, and the read views.
contract ReputationRegistryTest is ReputationTestBase {
    // ---------------------------------------------------------------- construction and getters

    function testConstructorRejectsZeroIdentity() public {
        vm.expectRevert(ReputationRegistry.ZeroIdentityRegistry.selector);
        new ReputationRegistry(address(0));
    }

    function testGetters() public view {
        assertEq(rep.getIdentityRegistry(), address(identity), "identity registry");
        assertEq(rep.getVersion(), "2.0.0", "version");
    }

    // ---------------------------------------------------------------- giveFeedback

    function testGiveFeedbackStoresAndIndexesFromOne() public {
        assertEq(uint256(rep.getLastIndex(agent, alice)), 0, "no feedback yet");
        _give(alice, 87, 0, RQ, CR);
        _give(alice, -5, 2, SQ, "");
        assertEq(uint256(rep.getLastIndex(agent, alice)), 2, "two feedbacks");
        assertEq(uint256(rep.getLastIndex(agent, bob)), 0, "bob none");

        (int128 v, uint8 d, string memory t1, string memory t2, bool revoked) = rep.readFeedback(agent, alice, 1);
        assertEq(int256(v), 87, "value 1");
        assertEq(uint256(d), 0, "decimals 1");
        assertEq(t1, RQ, "tag1 1");
        assertEq(t2, CR, "tag2 1");
        assertEq(revoked, false, "not revoked");

        (v, d, t1, t2, revoked) = rep.readFeedback(agent, alice, 2);
        assertEq(int256(v), -5, "value 2");
        assertEq(uint256(d), 2, "decimals 2");
        assertEq(t1, SQ, "tag1 2");
        assertEq(t2, "", "empty tag2");
    }

    function testGiveFeedbackEmitsNewFeedback() public {
        bytes32 h = keccak256("bundle");
        vm.expectEmit(address(rep));
        emit IReputationRegistry.NewFeedback(agent, alice, 1, 42, 1, RQ, RQ, CR, "https://w", "ipfs://f", h);
        vm.prank(alice);
        rep.giveFeedback(agent, 42, 1, RQ, CR, "https://w", "ipfs://f", h);

        // Second feedback: index 2, long strings (several words) come out intact.
        string memory longUri = "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/feedback.json";
        string memory longTag = "a-tag-that-is-longer-than-thirty-two-bytes-for-sure";
        vm.expectEmit(address(rep));
        emit IReputationRegistry.NewFeedback(agent, alice, 2, -1, 0, longTag, longTag, "", "", longUri, bytes32(0));
        vm.prank(alice);
        rep.giveFeedback(agent, -1, 0, longTag, "", "", longUri, bytes32(0));
        (,, string memory t1,,) = rep.readFeedback(agent, alice, 2);
        assertEq(t1, longTag, "long tag stored");
    }

    function testGiveFeedbackNonexistentAgentReverts() public {
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 999));
        vm.prank(alice);
        rep.giveFeedback(999, 1, 0, "", "", "", "", bytes32(0));
    }

    function testGiveFeedbackDecimalsBound() public {
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.ValueDecimalsTooLarge.selector, uint8(19)));
        _give(alice, 1, 19, "", "");
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.ValueDecimalsTooLarge.selector, uint8(255)));
        _give(alice, 1, 255, "", "");
        _give(alice, 1, 18, "", ""); // 18 is allowed
        assertEq(uint256(rep.getLastIndex(agent, alice)), 1, "only the valid one stored");
    }

    function testGiveFeedbackValueBound() public {
        int128 max = 1e38;
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.ValueOutOfRange.selector, max + 1));
        _give(alice, max + 1, 0, "", "");
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.ValueOutOfRange.selector, -max - 1));
        _give(alice, -max - 1, 0, "", "");
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.ValueOutOfRange.selector, type(int128).min));
        _give(alice, type(int128).min, 0, "", "");
        _give(alice, max, 0, "", "");
        _give(alice, -max, 0, "", "");
        assertEq(uint256(rep.getLastIndex(agent, alice)), 2, "the two bounds are accepted");
    }

    function testSelfFeedbackByOwnerReverts() public {
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.SelfFeedbackNotAllowed.selector, agent, agentOwner));
        _give(agentOwner, 100, 0, "", "");
    }

    function testSelfFeedbackByApprovedReverts() public {
        vm.prank(agentOwner);
        identity.approve(bob, agent);
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.SelfFeedbackNotAllowed.selector, agent, bob));
        _give(bob, 100, 0, "", "");
        // Once the approval is cleared bob is an ordinary client again.
        vm.prank(agentOwner);
        identity.approve(address(0), agent);
        _give(bob, 100, 0, "", "");
        assertEq(uint256(rep.getLastIndex(agent, bob)), 1, "bob rated after approval cleared");
    }

    function testSelfFeedbackByOperatorReverts() public {
        vm.prank(agentOwner);
        identity.setApprovalForAll(carol, true);
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.SelfFeedbackNotAllowed.selector, agent, carol));
        _give(carol, 100, 0, "", "");
    }

    function testFormerOwnerMayRateAfterTransfer() public {
        vm.prank(agentOwner);
        identity.transferFrom(agentOwner, alice, agent);
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.SelfFeedbackNotAllowed.selector, agent, alice));
        _give(alice, 1, 0, "", "");
        _give(agentOwner, 1, 0, "", "");
        assertEq(uint256(rep.getLastIndex(agent, agentOwner)), 1, "former owner rated");
    }

    /// @dev Canonical behaviour, matched: only owner/approved/operators are refused. An agent wallet bound
    ///      through `setAgentWallet` that is none of those may rate its own agent.
    function testAgentWalletThatIsNotOperatorMayRate() public {
        uint256 walletKey = 0xBEEF;
        address wallet = vm.addr(walletKey);
        uint256 deadline = block.timestamp + 60;
        (, string memory name, string memory version, uint256 chainId, address verifying,,) = identity.eip712Domain();
        bytes32 domain = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256(bytes(name)),
                keccak256(bytes(version)),
                chainId,
                verifying
            )
        );
        bytes32 structHash = keccak256(
            abi.encode(
                keccak256("AgentWalletSet(uint256 agentId,address newWallet,address owner,uint256 deadline)"),
                agent,
                wallet,
                agentOwner,
                deadline
            )
        );
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(walletKey, keccak256(abi.encodePacked("\x19\x01", domain, structHash)));
        vm.prank(agentOwner);
        identity.setAgentWallet(agent, wallet, deadline, abi.encodePacked(r, s, v));
        assertEq(identity.getAgentWallet(agent), wallet, "wallet bound");

        _give(wallet, 100, 0, RQ, CR);
        assertEq(uint256(rep.getLastIndex(agent, wallet)), 1, "agent wallet rated its own agent");
    }

    function testGetClientsInFirstFeedbackOrderAndPerAgent() public {
        assertEq(rep.getClients(agent).length, 0, "no clients");
        _give(bob, 1, 0, "", "");
        _give(alice, 1, 0, "", "");
        _give(bob, 2, 0, "", "");
        _give(carol, 1, 0, "", "");
        _give(alice, 3, 0, "", "");
        address[] memory clients = rep.getClients(agent);
        assertEq(clients.length, 3, "three distinct clients");
        assertEq(clients[0], bob, "bob first");
        assertEq(clients[1], alice, "alice second");
        assertEq(clients[2], carol, "carol third");

        vm.prank(bob);
        uint256 other = identity.register();
        vm.prank(carol);
        rep.giveFeedback(other, 5, 0, "", "", "", "", bytes32(0));
        clients = rep.getClients(other);
        assertEq(clients.length, 1, "other agent: one client");
        assertEq(clients[0], carol, "other agent: carol");
        assertEq(rep.getClients(agent).length, 3, "first agent unchanged");
        assertEq(uint256(rep.getLastIndex(other, carol)), 1, "indexes are per agent");
    }

    // ---------------------------------------------------------------- revokeFeedback

    function testRevokeFeedback() public {
        _give(alice, 10, 0, RQ, CR);
        _give(alice, 20, 0, RQ, CR);
        vm.expectEmit(address(rep));
        emit IReputationRegistry.FeedbackRevoked(agent, alice, 1);
        vm.prank(alice);
        rep.revokeFeedback(agent, 1);
        (int128 v,,,, bool revoked) = rep.readFeedback(agent, alice, 1);
        assertEq(revoked, true, "revoked flag");
        assertEq(int256(v), 10, "value kept");
        (,,,, revoked) = rep.readFeedback(agent, alice, 2);
        assertEq(revoked, false, "other untouched");
        assertEq(uint256(rep.getLastIndex(agent, alice)), 2, "last index unchanged by revocation");
    }

    function testRevokeReverts() public {
        _give(alice, 10, 0, "", "");
        vm.expectRevert(ReputationRegistry.ZeroFeedbackIndex.selector);
        vm.prank(alice);
        rep.revokeFeedback(agent, 0);

        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.FeedbackIndexOutOfBounds.selector, uint64(2), uint64(1)));
        vm.prank(alice);
        rep.revokeFeedback(agent, 2);

        // Someone else cannot revoke alice's feedback: they have no feedback of their own at that index.
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.FeedbackIndexOutOfBounds.selector, uint64(1), uint64(0)));
        vm.prank(bob);
        rep.revokeFeedback(agent, 1);
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.FeedbackIndexOutOfBounds.selector, uint64(1), uint64(0)));
        vm.prank(agentOwner);
        rep.revokeFeedback(agent, 1);

        vm.prank(alice);
        rep.revokeFeedback(agent, 1);
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.FeedbackAlreadyRevoked.selector, agent, alice, uint64(1)));
        vm.prank(alice);
        rep.revokeFeedback(agent, 1);
    }

    // ---------------------------------------------------------------- appendResponse / getResponseCount

    function testAppendResponseEmitsAndCounts() public {
        _give(alice, 10, 0, "", "");
        bytes32 h = keccak256("response");
        vm.expectEmit(address(rep));
        emit IReputationRegistry.ResponseAppended(agent, alice, 1, responder, "ipfs://r", h);
        vm.prank(responder);
        rep.appendResponse(agent, alice, 1, "ipfs://r", h);

        assertEq(uint256(rep.getResponseCount(agent, alice, 1, _noResponders())), 1, "one response");
        assertEq(uint256(rep.getResponseCount(agent, alice, 1, _list(responder))), 1, "by responder");
        assertEq(uint256(rep.getResponseCount(agent, alice, 1, _list(bob))), 0, "none by bob");
    }

    function testAppendResponseReverts() public {
        _give(alice, 10, 0, "", "");
        vm.expectRevert(ReputationRegistry.ZeroFeedbackIndex.selector);
        rep.appendResponse(agent, alice, 0, "ipfs://r", bytes32(0));
        vm.expectRevert(ReputationRegistry.EmptyResponseURI.selector);
        rep.appendResponse(agent, alice, 1, "", bytes32(0));
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.FeedbackIndexOutOfBounds.selector, uint64(2), uint64(1)));
        rep.appendResponse(agent, alice, 2, "ipfs://r", bytes32(0));
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.FeedbackIndexOutOfBounds.selector, uint64(1), uint64(0)));
        rep.appendResponse(agent, bob, 1, "ipfs://r", bytes32(0));
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.FeedbackIndexOutOfBounds.selector, uint64(1), uint64(0)));
        rep.appendResponse(agent + 1, alice, 1, "ipfs://r", bytes32(0));
    }

    function testResponseCountsAcrossFeedbackAndClients() public {
        _give(alice, 1, 0, "", ""); // alice #1
        _give(alice, 2, 0, "", ""); // alice #2
        _give(bob, 3, 0, "", ""); //   bob #1
        vm.prank(alice);
        rep.revokeFeedback(agent, 2);

        _respond(responder, alice, 1);
        _respond(responder, alice, 1);
        _respond(agentOwner, alice, 1);
        _respond(responder, alice, 2); // responding to revoked feedback is allowed (as canonical)
        _respond(agentOwner, bob, 1);
        _respond(alice, bob, 1);

        address[] memory none = _noResponders();
        assertEq(uint256(rep.getResponseCount(agent, alice, 1, none)), 3, "alice#1 all");
        assertEq(uint256(rep.getResponseCount(agent, alice, 1, _list(responder))), 2, "alice#1 responder");
        assertEq(uint256(rep.getResponseCount(agent, alice, 1, _list(agentOwner))), 1, "alice#1 owner");
        assertEq(uint256(rep.getResponseCount(agent, alice, 1, _list(responder, responder))), 4, "duplicates count twice");
        assertEq(uint256(rep.getResponseCount(agent, alice, 2, none)), 1, "alice#2 all");
        assertEq(uint256(rep.getResponseCount(agent, alice, 9, none)), 0, "unknown index: 0, no revert");
        // feedbackIndex 0: every feedback of that client
        assertEq(uint256(rep.getResponseCount(agent, alice, 0, none)), 4, "all of alice");
        assertEq(uint256(rep.getResponseCount(agent, alice, 0, _list(responder))), 3, "alice, by responder");
        assertEq(uint256(rep.getResponseCount(agent, bob, 0, none)), 2, "all of bob");
        // clientAddress 0: every feedback of every client (feedbackIndex ignored)
        assertEq(uint256(rep.getResponseCount(agent, address(0), 0, none)), 6, "everything");
        assertEq(uint256(rep.getResponseCount(agent, address(0), 1, none)), 6, "index ignored for client 0");
        assertEq(uint256(rep.getResponseCount(agent, address(0), 0, _list(agentOwner, alice))), 3, "everything, two");
        assertEq(uint256(rep.getResponseCount(agent + 1, address(0), 0, none)), 0, "other agent");
    }

    function _respond(address who, address client, uint64 index) internal {
        vm.prank(who);
        rep.appendResponse(agent, client, index, "ipfs://r", bytes32(0));
    }

    // ---------------------------------------------------------------- readFeedback

    function testReadFeedbackReverts() public {
        _give(alice, 10, 0, "", "");
        vm.expectRevert(ReputationRegistry.ZeroFeedbackIndex.selector);
        rep.readFeedback(agent, alice, 0);
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.FeedbackIndexOutOfBounds.selector, uint64(2), uint64(1)));
        rep.readFeedback(agent, alice, 2);
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.FeedbackIndexOutOfBounds.selector, uint64(1), uint64(0)));
        rep.readFeedback(agent, bob, 1);
    }
}
