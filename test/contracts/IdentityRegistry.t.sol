// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IERC4906} from "@openzeppelin/contracts/interfaces/IERC4906.sol";

import {IdentityRegistry} from "../../contracts/erc8004/IdentityRegistry.sol";
import {IIdentityRegistry} from "../../contracts/erc8004/interfaces/IIdentityRegistry.sol";
import {IdentityTestBase, VmLogs, AgentOwnerContract, NonReceiverContract} from "./identity/IdentityFixtures.sol";

/// @notice IdentityRegistry: registration, URI, metadata, authorization views, ERC-165/721 surface.
contract IdentityRegistryTest is IdentityTestBase {
    // ---------------------------------------------------------------- register()

    function testRegisterNoArgs() public {
        vmLogs.recordLogs();
        vm.prank(alice);
        uint256 id = reg.register();
        VmLogs.Log[] memory logs = vmLogs.getRecordedLogs();

        assertEq(id, 0, "first agent id is 0");
        assertEq(reg.ownerOf(0), alice, "owner");
        assertEq(reg.balanceOf(alice), 1, "balance");
        assertEq(reg.tokenURI(0), "", "empty URI");
        assertEq(reg.getAgentWallet(0), alice, "wallet = registrant");
        assertEq(reg.getMetadata(0, "agentWallet"), _packed(alice), "wallet metadata is 20 packed bytes");

        // Transfer, Registered, MetadataSet(agentWallet) -- and no ERC-4906 MetadataUpdate.
        assertEq(logs.length, 3, "log count");
        assertEq(logs[0].topics[0], TRANSFER_TOPIC, "Transfer first");
        assertEq(logs[0].topics[1], bytes32(0), "minted from zero");
        assertEq(logs[0].topics[2], bytes32(uint256(uint160(alice))), "minted to alice");
        assertEq(logs[1].topics[0], REGISTERED_TOPIC, "Registered second");
        assertEq(logs[1].topics[1], bytes32(uint256(0)), "Registered id");
        assertEq(logs[1].topics[2], bytes32(uint256(uint160(alice))), "Registered owner");
        assertEq(abi.decode(logs[1].data, (string)), "", "Registered URI");
        _assertMetadataSetLog(logs[2], 0, "agentWallet", _packed(alice));
    }

    function testRegisterNoArgsExpectEmit() public {
        vm.expectEmit(address(reg));
        emit IIdentityRegistry.Registered(0, "", alice);
        vm.expectEmit(address(reg));
        emit IIdentityRegistry.MetadataSet(0, "agentWallet", "agentWallet", _packed(alice));
        vm.prank(alice);
        reg.register();
    }

    // ---------------------------------------------------------------- register(uri)

    function testRegisterWithURI() public {
        vmLogs.recordLogs();
        vm.prank(alice);
        uint256 id = reg.register("ipfs://agent-a");
        VmLogs.Log[] memory logs = vmLogs.getRecordedLogs();

        assertEq(id, 0, "id");
        assertEq(reg.tokenURI(0), "ipfs://agent-a", "tokenURI");
        assertEq(reg.getAgentWallet(0), alice, "wallet");

        // Transfer, MetadataUpdate (ERC-4906), Registered, MetadataSet(agentWallet).
        assertEq(logs.length, 4, "log count");
        assertEq(logs[0].topics[0], TRANSFER_TOPIC, "Transfer");
        assertEq(logs[1].topics[0], METADATA_UPDATE_TOPIC, "MetadataUpdate");
        assertEq(abi.decode(logs[1].data, (uint256)), 0, "MetadataUpdate id");
        assertEq(logs[2].topics[0], REGISTERED_TOPIC, "Registered");
        assertEq(abi.decode(logs[2].data, (string)), "ipfs://agent-a", "Registered URI");
        _assertMetadataSetLog(logs[3], 0, "agentWallet", _packed(alice));
    }

    function testIdsIncrementFromZeroAcrossVariants() public {
        vm.prank(alice);
        assertEq(reg.register(), 0, "first");
        vm.prank(bob);
        assertEq(reg.register("https://b.example/agent.json"), 1, "second");
        vm.prank(alice);
        assertEq(reg.register("data:,c", _entries1("k", hex"01")), 2, "third");
        assertEq(reg.balanceOf(alice), 2, "alice balance");
        assertEq(reg.ownerOf(1), bob, "owner of 1");
        assertEq(reg.getAgentWallet(1), bob, "wallet of 1");
        assertEq(reg.getAgentWallet(2), alice, "wallet of 2");
    }

    // ---------------------------------------------------------------- register(uri, metadata)

    function testRegisterWithMetadata() public {
        IIdentityRegistry.MetadataEntry[] memory entries = new IIdentityRegistry.MetadataEntry[](3);
        entries[0] = IIdentityRegistry.MetadataEntry("endpoint", bytes("https://a.example"));
        entries[1] = IIdentityRegistry.MetadataEntry("stake", abi.encode(uint256(42)));
        entries[2] = IIdentityRegistry.MetadataEntry("empty", "");

        vmLogs.recordLogs();
        vm.prank(alice);
        uint256 id = reg.register("ipfs://a", entries);
        VmLogs.Log[] memory logs = vmLogs.getRecordedLogs();

        assertEq(id, 0, "id");
        assertEq(reg.getMetadata(0, "endpoint"), bytes("https://a.example"), "endpoint");
        assertEq(abi.decode(reg.getMetadata(0, "stake"), (uint256)), 42, "stake");
        assertEq(reg.getMetadata(0, "empty"), "", "empty");
        assertEq(reg.getAgentWallet(0), alice, "wallet still bound to registrant");

        // Transfer, MetadataUpdate, Registered, MetadataSet(agentWallet), then one MetadataSet per entry in order.
        assertEq(logs.length, 7, "log count");
        assertEq(logs[2].topics[0], REGISTERED_TOPIC, "Registered");
        _assertMetadataSetLog(logs[3], 0, "agentWallet", _packed(alice));
        _assertMetadataSetLog(logs[4], 0, "endpoint", bytes("https://a.example"));
        _assertMetadataSetLog(logs[5], 0, "stake", abi.encode(uint256(42)));
        _assertMetadataSetLog(logs[6], 0, "empty", "");
    }

    function testRegisterWithEmptyMetadataList() public {
        vm.prank(alice);
        uint256 id = reg.register("u", new IIdentityRegistry.MetadataEntry[](0));
        assertEq(id, 0, "id");
        assertEq(reg.tokenURI(0), "u", "uri");
    }

    function testRegisterDuplicateKeysLastWins() public {
        IIdentityRegistry.MetadataEntry[] memory entries = new IIdentityRegistry.MetadataEntry[](2);
        entries[0] = IIdentityRegistry.MetadataEntry("k", hex"01");
        entries[1] = IIdentityRegistry.MetadataEntry("k", hex"02");
        vm.prank(alice);
        reg.register("u", entries);
        assertEq(reg.getMetadata(0, "k"), hex"02", "last entry wins");
    }

    function testRegisterRevertsOnReservedKey() public {
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.IdentityRegistryReservedKey.selector, "agentWallet"));
        vm.prank(alice);
        reg.register("u", _entries1("agentWallet", _packed(bob)));
    }

    function testRegisterRevertsOnReservedKeyInLaterEntryAndRollsBack() public {
        IIdentityRegistry.MetadataEntry[] memory entries = new IIdentityRegistry.MetadataEntry[](2);
        entries[0] = IIdentityRegistry.MetadataEntry("fine", hex"01");
        entries[1] = IIdentityRegistry.MetadataEntry("agentWallet", _packed(bob));
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.IdentityRegistryReservedKey.selector, "agentWallet"));
        vm.prank(alice);
        reg.register("u", entries);

        assertEq(reg.balanceOf(alice), 0, "nothing minted");
        assertEq(reg.getMetadata(0, "fine"), "", "nothing stored");
        vm.prank(alice);
        assertEq(reg.register(), 0, "id 0 still free");
    }

    function testReservedKeyMatchIsExact() public {
        // Only the exact string "agentWallet" is reserved (the reference compares hashes).
        IIdentityRegistry.MetadataEntry[] memory entries = new IIdentityRegistry.MetadataEntry[](2);
        entries[0] = IIdentityRegistry.MetadataEntry("AgentWallet", hex"aa");
        entries[1] = IIdentityRegistry.MetadataEntry("agentWallet ", hex"bb");
        vm.prank(alice);
        reg.register("u", entries);
        assertEq(reg.getMetadata(0, "AgentWallet"), hex"aa", "case differs: allowed");
        assertEq(reg.getMetadata(0, "agentWallet "), hex"bb", "trailing space: allowed");
        assertEq(reg.getAgentWallet(0), alice, "real wallet untouched");
    }

    // ---------------------------------------------------------------- registering from contracts

    function testContractRegistrantReceivesAgentAfterStateIsComplete() public {
        AgentOwnerContract owner = new AgentOwnerContract(reg);
        uint256 id = owner.registerWith("ipfs://c", _entries1("k", hex"beef"));

        assertEq(id, 0, "id");
        assertEq(reg.ownerOf(0), address(owner), "contract owns the agent");
        assertTrue(owner.called(), "onERC721Received called");
        assertEq(owner.seenOperator(), address(owner), "operator = registrant");
        assertEq(owner.seenFrom(), address(0), "from = zero (mint)");
        // The receiver hook runs last: URI, wallet and metadata are already in place when it is called.
        assertEq(owner.seenOwner(), address(owner), "owner visible in hook");
        assertEq(owner.seenWallet(), address(owner), "wallet visible in hook");
        assertEq(owner.seenURI(), "ipfs://c", "URI visible in hook");
        assertEq(owner.seenMetadata(), hex"beef", "metadata visible in hook");
    }

    function testRegisterRevertsForContractWithoutReceiver() public {
        NonReceiverContract c = new NonReceiverContract();
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721InvalidReceiver.selector, address(c)));
        c.registerPlain(reg);
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721InvalidReceiver.selector, address(c)));
        c.registerWithURI(reg, "u");
        vm.prank(alice);
        assertEq(reg.register(), 0, "failed registrations consumed no id");
    }

    // ---------------------------------------------------------------- setAgentURI

    function testSetAgentURIByOwner() public {
        _registerFor(alice, "old");
        vmLogs.recordLogs();
        vm.prank(alice);
        reg.setAgentURI(0, "new");
        VmLogs.Log[] memory logs = vmLogs.getRecordedLogs();

        assertEq(reg.tokenURI(0), "new", "uri updated");
        assertEq(logs.length, 2, "log count");
        assertEq(logs[0].topics[0], METADATA_UPDATE_TOPIC, "ERC-4906 MetadataUpdate");
        assertEq(logs[1].topics[0], URI_UPDATED_TOPIC, "URIUpdated");
        assertEq(logs[1].topics[1], bytes32(uint256(0)), "URIUpdated id");
        assertEq(logs[1].topics[2], bytes32(uint256(uint160(alice))), "URIUpdated by");
        assertEq(abi.decode(logs[1].data, (string)), "new", "URIUpdated uri");
    }

    function testSetAgentURIByApprovedAndOperator() public {
        _registerFor(alice, "old");
        vm.prank(alice);
        reg.approve(bob, 0);
        vm.prank(alice);
        reg.setApprovalForAll(carol, true);

        vm.expectEmit(address(reg));
        emit IERC4906.MetadataUpdate(0);
        vm.expectEmit(address(reg));
        emit IIdentityRegistry.URIUpdated(0, "by-bob", bob);
        vm.prank(bob);
        reg.setAgentURI(0, "by-bob");
        assertEq(reg.tokenURI(0), "by-bob", "approved may set");

        vm.expectEmit(address(reg));
        emit IIdentityRegistry.URIUpdated(0, "by-carol", carol);
        vm.prank(carol);
        reg.setAgentURI(0, "by-carol");
        assertEq(reg.tokenURI(0), "by-carol", "operator may set");
    }

    function testSetAgentURIToEmpty() public {
        _registerFor(alice, "old");
        vm.prank(alice);
        reg.setAgentURI(0, "");
        assertEq(reg.tokenURI(0), "", "cleared");
    }

    function testSetAgentURIRevertsForStranger() public {
        _registerFor(alice, "old");
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.IdentityRegistryUnauthorized.selector, stranger, 0));
        vm.prank(stranger);
        reg.setAgentURI(0, "evil");
        assertEq(reg.tokenURI(0), "old", "unchanged");
    }

    function testSetAgentURIRevertsForNonexistentAgent() public {
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 5));
        vm.prank(alice);
        reg.setAgentURI(5, "x");
    }

    function testSetAgentURIRevertsForPreviousOwnerAndApprovedAfterTransfer() public {
        _registerFor(alice, "old");
        vm.prank(alice);
        reg.approve(carol, 0);
        vm.prank(alice);
        reg.transferFrom(alice, bob, 0);

        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.IdentityRegistryUnauthorized.selector, alice, 0));
        vm.prank(alice);
        reg.setAgentURI(0, "x");
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.IdentityRegistryUnauthorized.selector, carol, 0));
        vm.prank(carol);
        reg.setAgentURI(0, "x");
        vm.prank(bob);
        reg.setAgentURI(0, "bob's");
        assertEq(reg.tokenURI(0), "bob's", "new owner may set");
    }

    // ---------------------------------------------------------------- setMetadata / getMetadata

    function testSetMetadataByOwnerApprovedOperator() public {
        _registerFor(alice, "u");
        vm.prank(alice);
        reg.approve(bob, 0);
        vm.prank(alice);
        reg.setApprovalForAll(carol, true);

        vm.expectEmit(address(reg));
        emit IIdentityRegistry.MetadataSet(0, "a", "a", hex"01");
        vm.prank(alice);
        reg.setMetadata(0, "a", hex"01");

        vm.expectEmit(address(reg));
        emit IIdentityRegistry.MetadataSet(0, "b", "b", hex"02");
        vm.prank(bob);
        reg.setMetadata(0, "b", hex"02");

        vm.expectEmit(address(reg));
        emit IIdentityRegistry.MetadataSet(0, "a", "a", hex"0303");
        vm.prank(carol);
        reg.setMetadata(0, "a", hex"0303");

        assertEq(reg.getMetadata(0, "a"), hex"0303", "a overwritten by operator");
        assertEq(reg.getMetadata(0, "b"), hex"02", "b set by approved");
    }

    function testSetMetadataEmptyValueClears() public {
        vm.prank(alice);
        reg.register("u", _entries1("k", hex"01"));
        vm.prank(alice);
        reg.setMetadata(0, "k", "");
        assertEq(reg.getMetadata(0, "k"), "", "cleared");
    }

    function testSetMetadataRevertsForStranger() public {
        _registerFor(alice, "u");
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.IdentityRegistryUnauthorized.selector, stranger, 0));
        vm.prank(stranger);
        reg.setMetadata(0, "k", hex"01");
    }

    function testSetMetadataRevertsForNonexistentAgent() public {
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 0));
        vm.prank(alice);
        reg.setMetadata(0, "k", hex"01");
    }

    function testSetMetadataRevertsOnReservedKeyEvenForOwner() public {
        _registerFor(alice, "u");
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.IdentityRegistryReservedKey.selector, "agentWallet"));
        vm.prank(alice);
        reg.setMetadata(0, "agentWallet", _packed(bob));
        assertEq(reg.getAgentWallet(0), alice, "wallet unchanged");
    }

    function testGetMetadataOfUnknownAgentOrKeyIsEmpty() public {
        // Like the reference, reads do not check existence.
        assertEq(reg.getMetadata(123, "k"), "", "unknown agent");
        assertEq(reg.getAgentWallet(123), address(0), "unknown agent wallet");
        _registerFor(alice, "u");
        assertEq(reg.getMetadata(0, "nope"), "", "unknown key");
    }

    // ---------------------------------------------------------------- isAuthorizedOrOwner

    function testIsAuthorizedOrOwner() public {
        _registerFor(alice, "u");
        vm.prank(alice);
        reg.approve(bob, 0);
        vm.prank(alice);
        reg.setApprovalForAll(carol, true);

        assertTrue(reg.isAuthorizedOrOwner(alice, 0), "owner");
        assertTrue(reg.isAuthorizedOrOwner(bob, 0), "approved");
        assertTrue(reg.isAuthorizedOrOwner(carol, 0), "operator");
        assertEq(reg.isAuthorizedOrOwner(stranger, 0), false, "stranger");
        assertEq(reg.isAuthorizedOrOwner(address(0), 0), false, "zero address");

        vm.prank(alice);
        reg.setApprovalForAll(carol, false);
        assertEq(reg.isAuthorizedOrOwner(carol, 0), false, "operator revoked");
    }

    function testIsAuthorizedOrOwnerRevertsForNonexistentAgent() public {
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 0));
        reg.isAuthorizedOrOwner(alice, 0);
    }

    // ---------------------------------------------------------------- ERC-721 / ERC-165 / misc views

    function testNameSymbolVersion() public view {
        assertEq(reg.name(), "AgentIdentity", "name");
        assertEq(reg.symbol(), "AGENT", "symbol");
        assertEq(reg.getVersion(), "2.0.0", "version");
    }

    function testTokenURIRevertsForNonexistentAgent() public {
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 0));
        reg.tokenURI(0);
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 0));
        reg.ownerOf(0);
    }

    function testSupportsInterface() public view {
        assertTrue(reg.supportsInterface(0x01ffc9a7), "ERC-165");
        assertTrue(reg.supportsInterface(0x80ac58cd), "ERC-721");
        assertTrue(reg.supportsInterface(0x5b5e139f), "ERC-721 metadata");
        assertTrue(reg.supportsInterface(0x49064906), "ERC-4906");
        assertEq(reg.supportsInterface(type(IERC721).interfaceId), true, "IERC721 id");
        assertEq(reg.supportsInterface(0x780e9d63), false, "not enumerable");
        assertEq(reg.supportsInterface(0xffffffff), false, "0xffffffff");
    }

    // ---------------------------------------------------------------- fuzz

    /// @dev Any URI and any non-reserved key/value round-trips through register and setMetadata.
    function testFuzzRegisterMetadataRoundTrip(string memory uri, string memory key, bytes memory value, bytes memory value2)
        public
    {
        vm.assume(keccak256(bytes(key)) != keccak256("agentWallet"));
        vm.expectEmit(address(reg));
        emit IIdentityRegistry.MetadataSet(0, key, key, value);
        vm.prank(alice);
        uint256 id = reg.register(uri, _entries1(key, value));

        assertEq(id, 0, "id");
        assertEq(reg.tokenURI(id), uri, "uri round trip");
        assertEq(reg.getMetadata(id, key), value, "value round trip");
        assertEq(reg.getAgentWallet(id), alice, "wallet");

        vm.prank(alice);
        reg.setMetadata(id, key, value2);
        assertEq(reg.getMetadata(id, key), value2, "overwrite round trip");
    }

    /// @dev Authorization is exactly owner / approved / operator, for any caller.
    function testFuzzOnlyAuthorizedMayWrite(address caller) public {
        vm.assume(caller != alice && caller != bob && caller != carol);
        _registerFor(alice, "u");
        vm.prank(alice);
        reg.approve(bob, 0);
        vm.prank(alice);
        reg.setApprovalForAll(carol, true);

        assertEq(reg.isAuthorizedOrOwner(caller, 0), false, "not authorized");
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.IdentityRegistryUnauthorized.selector, caller, 0));
        vm.prank(caller);
        reg.setMetadata(0, "k", hex"01");
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.IdentityRegistryUnauthorized.selector, caller, 0));
        vm.prank(caller);
        reg.setAgentURI(0, "x");
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.IdentityRegistryUnauthorized.selector, caller, 0));
        vm.prank(caller);
        reg.unsetAgentWallet(0);
    }
}
