// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";

import {IdentityRegistry} from "../../contracts/erc8004/IdentityRegistry.sol";
import {IIdentityRegistry} from "../../contracts/erc8004/interfaces/IIdentityRegistry.sol";
import {
    IdentityTestBase,
    VmLogs,
    SignerWallet1271,
    DigestWallet1271,
    RejectingWallet1271,
    RevertingWallet1271,
    ShortReturnWallet1271,
    AgentOwnerContract
} from "./identity/IdentityFixtures.sol";

/// @notice IdentityRegistry: EIP-712 / ERC-1271 agent wallet binding, unbinding, and clearing on transfer.
contract IdentityRegistryWalletTest is IdentityTestBase {
    // The Sepolia address of the canonical registry; used to check a signature produced by viem.
    address internal constant VIEM_REGISTRY = 0x8004A818BFB912233c491871b3d84c89A494BD9e;

    function setUp() public override {
        super.setUp();
        _registerFor(alice, "ipfs://alice-agent"); // agent 0, owned by alice, wallet = alice
    }

    function _deadline() internal view returns (uint256) {
        return block.timestamp + 60;
    }

    // ---------------------------------------------------------------- EIP-712 domain and digest

    function testEip712Domain() public view {
        (
            bytes1 fields,
            string memory name,
            string memory version,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        ) = reg.eip712Domain();
        assertEq(uint256(uint8(fields)), 0x0f, "fields: name, version, chainId, verifyingContract");
        assertEq(name, "ERC8004IdentityRegistry", "domain name");
        assertEq(version, "1", "domain version");
        assertEq(chainId, block.chainid, "chain id");
        assertEq(verifyingContract, address(reg), "verifying contract");
        assertEq(salt, bytes32(0), "no salt");
        assertEq(extensions.length, 0, "no extensions");
    }

    /// @dev A signature made by viem's `signTypedData` (account key 0xB0B5, domain {ERC8004IdentityRegistry, 1,
    ///      31337, VIEM_REGISTRY}, message {agentId 0, newWallet, owner = address of key 0xA11CE, deadline
    ///      1800000100}) is accepted, and the digest viem computed equals ours.
    function testAcceptsSignatureMadeByViem() public {
        vmLogs.chainId(31337);
        vm.etch(VIEM_REGISTRY, address(reg).code);
        IdentityRegistry viemReg = IdentityRegistry(VIEM_REGISTRY);
        vm.prank(alice);
        assertEq(viemReg.register("ipfs://viem"), 0, "fresh storage at the etched address");

        bytes32 viemDigest = 0xdf61941306435d7b3d83b54d1d48304eff66b019fecc8b34a0050beaf3c1f593;
        bytes32 structHash = keccak256(abi.encode(AGENT_WALLET_SET_TYPEHASH, uint256(0), wallet, alice, uint256(1800000100)));
        assertEq(
            keccak256(abi.encodePacked(hex"1901", _domainSeparator(VIEM_REGISTRY), structHash)),
            viemDigest,
            "our digest = viem hashTypedData"
        );
        assertEq(
            wallet,
            0xCab756124f4B89633dC9c1b5FDe7648d6347C573,
            "viem account address for key 0xB0B5"
        );

        bytes memory viemSig = hex"6ce004f8e782ed5a3c0717053c2d56eed413a8b72e4aa0013c3551b32fdd3fbd22ad6ba7c1b1cbf72fb6ed4e28bbdaf921fb013735f1179de08ef3cdaac3cfd11c";
        vm.warp(1800000100); // the deadline itself is still valid
        vm.prank(alice);
        viemReg.setAgentWallet(0, wallet, 1800000100, viemSig);
        assertEq(viemReg.getAgentWallet(0), wallet, "bound with the viem signature");
    }

    // ---------------------------------------------------------------- setAgentWallet: EOA

    function testSetAgentWalletWithEoaSignature() public {
        uint256 deadline = _deadline();
        bytes32 digest = _walletDigest(0, wallet, alice, deadline);
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(WALLET_KEY, digest);
        assertEq(ecrecover(digest, v, r, s), wallet, "vm.sign signs our digest");

        vmLogs.recordLogs();
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, deadline, abi.encodePacked(r, s, v));
        VmLogs.Log[] memory logs = vmLogs.getRecordedLogs();

        assertEq(reg.getAgentWallet(0), wallet, "wallet bound");
        assertEq(reg.getMetadata(0, "agentWallet"), _packed(wallet), "metadata view: 20 packed bytes");
        assertEq(logs.length, 1, "exactly one event");
        _assertMetadataSetLog(logs[0], 0, "agentWallet", _packed(wallet));
        assertEq(reg.ownerOf(0), alice, "ownership unchanged");
    }

    function testSetAgentWalletByApprovedAndOperatorSignsOwnerNotCaller() public {
        vm.prank(alice);
        reg.approve(bob, 0);
        vm.prank(alice);
        reg.setApprovalForAll(carol, true);
        uint256 deadline = _deadline();

        // The signed `owner` is the agent's owner, even when an approved address submits.
        bytes memory sigForCaller = _signWallet(WALLET_KEY, 0, wallet, bob, deadline);
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.IdentityRegistryInvalidWalletSignature.selector, wallet));
        vm.prank(bob);
        reg.setAgentWallet(0, wallet, deadline, sigForCaller);

        vm.expectEmit(address(reg));
        emit IIdentityRegistry.MetadataSet(0, "agentWallet", "agentWallet", _packed(wallet));
        vm.prank(bob);
        reg.setAgentWallet(0, wallet, deadline, _signWallet(WALLET_KEY, 0, wallet, alice, deadline));
        assertEq(reg.getAgentWallet(0), wallet, "approved may bind");

        vm.prank(carol);
        reg.setAgentWallet(0, other, deadline, _signWallet(OTHER_KEY, 0, other, alice, deadline));
        assertEq(reg.getAgentWallet(0), other, "operator may bind");
    }

    function testSetAgentWalletRevertsForStranger() public {
        uint256 deadline = _deadline();
        bytes memory sig = _signWallet(WALLET_KEY, 0, wallet, alice, deadline);
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.IdentityRegistryUnauthorized.selector, stranger, 0));
        vm.prank(stranger);
        reg.setAgentWallet(0, wallet, deadline, sig);
        // Even the wallet itself cannot bind without being owner/approved/operator.
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.IdentityRegistryUnauthorized.selector, wallet, 0));
        vm.prank(wallet);
        reg.setAgentWallet(0, wallet, deadline, sig);
        assertEq(reg.getAgentWallet(0), alice, "unchanged");
    }

    function testSetAgentWalletRevertsForNonexistentAgent() public {
        uint256 deadline = _deadline();
        bytes memory sig = _signWallet(WALLET_KEY, 7, wallet, alice, deadline);
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 7));
        vm.prank(alice);
        reg.setAgentWallet(7, wallet, deadline, sig);
    }

    function testSetAgentWalletRevertsForZeroWallet() public {
        vm.expectRevert(IdentityRegistry.IdentityRegistryZeroWallet.selector);
        vm.prank(alice);
        reg.setAgentWallet(0, address(0), _deadline(), "");
    }

    function testSetAgentWalletRevertsWhenExpired() public {
        uint256 deadline = block.timestamp - 1;
        bytes memory sig = _signWallet(WALLET_KEY, 0, wallet, alice, deadline);
        vm.expectRevert(
            abi.encodeWithSelector(IdentityRegistry.IdentityRegistryDeadlineExpired.selector, deadline, block.timestamp)
        );
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, deadline, sig);
    }

    function testSetAgentWalletRevertsWhenSignatureExpiresBeforeSubmission() public {
        uint256 deadline = block.timestamp + 300;
        bytes memory sig = _signWallet(WALLET_KEY, 0, wallet, alice, deadline);
        vm.warp(deadline + 1);
        vm.expectRevert(
            abi.encodeWithSelector(IdentityRegistry.IdentityRegistryDeadlineExpired.selector, deadline, deadline + 1)
        );
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, deadline, sig);
    }

    function testSetAgentWalletRevertsWhenDeadlineTooFar() public {
        uint256 deadline = block.timestamp + 5 minutes + 1;
        bytes memory sig = _signWallet(WALLET_KEY, 0, wallet, alice, deadline);
        vm.expectRevert(
            abi.encodeWithSelector(
                IdentityRegistry.IdentityRegistryDeadlineTooFar.selector,
                deadline,
                block.timestamp + 5 minutes
            )
        );
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, deadline, sig);
    }

    function testSetAgentWalletDeadlineBoundsAreInclusive() public {
        uint256 nowTs = block.timestamp;
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, nowTs, _signWallet(WALLET_KEY, 0, wallet, alice, nowTs));
        assertEq(reg.getAgentWallet(0), wallet, "deadline == now accepted");

        uint256 far = nowTs + 5 minutes;
        vm.prank(alice);
        reg.setAgentWallet(0, other, far, _signWallet(OTHER_KEY, 0, other, alice, far));
        assertEq(reg.getAgentWallet(0), other, "deadline == now + 5 min accepted");
    }

    function testSetAgentWalletRevertsForWrongSigner() public {
        uint256 deadline = _deadline();
        bytes memory sig = _signWallet(OTHER_KEY, 0, wallet, alice, deadline);
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.IdentityRegistryInvalidWalletSignature.selector, wallet));
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, deadline, sig);
        // The owner's own signature does not bind somebody else's wallet either.
        bytes memory ownerSig = _signWallet(ALICE_KEY, 0, wallet, alice, deadline);
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.IdentityRegistryInvalidWalletSignature.selector, wallet));
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, deadline, ownerSig);
    }

    function testSetAgentWalletRevertsWhenSignedFieldsDiffer() public {
        _registerFor(alice, "second"); // agent 1
        uint256 deadline = _deadline();
        bytes4 invalid = IdentityRegistry.IdentityRegistryInvalidWalletSignature.selector;

        // Signed for agent 1, submitted for agent 0.
        bytes memory sig = _signWallet(WALLET_KEY, 1, wallet, alice, deadline);
        vm.expectRevert(abi.encodeWithSelector(invalid, wallet));
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, deadline, sig);

        // Signed with another deadline.
        sig = _signWallet(WALLET_KEY, 0, wallet, alice, deadline + 1);
        vm.expectRevert(abi.encodeWithSelector(invalid, wallet));
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, deadline, sig);

        // Signed for the same data but another verifying contract.
        IdentityRegistry otherReg = new IdentityRegistry();
        bytes32 structHash = keccak256(abi.encode(AGENT_WALLET_SET_TYPEHASH, uint256(0), wallet, alice, deadline));
        sig = _signDigest(WALLET_KEY, keccak256(abi.encodePacked(hex"1901", _domainSeparator(address(otherReg)), structHash)));
        vm.expectRevert(abi.encodeWithSelector(invalid, wallet));
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, deadline, sig);
    }

    function testSetAgentWalletRevertsForMalformedSignatures() public {
        uint256 deadline = _deadline();
        bytes32 digest = _walletDigest(0, wallet, alice, deadline);
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(WALLET_KEY, digest);
        bytes4 invalid = IdentityRegistry.IdentityRegistryInvalidWalletSignature.selector;

        // Empty signature.
        vm.expectRevert(abi.encodeWithSelector(invalid, wallet));
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, deadline, "");

        // 64-byte (ERC-2098 compact) signature: not accepted by the ECDSA path.
        bytes32 vs = bytes32(uint256(s) | (uint256(v - 27) << 255));
        vm.expectRevert(abi.encodeWithSelector(invalid, wallet));
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, deadline, abi.encodePacked(r, vs));

        // Malleable twin (s' = n - s, flipped v) recovers the same signer but is refused.
        bytes memory twin = abi.encodePacked(r, bytes32(SECP256K1_N - uint256(s)), v == 27 ? uint8(28) : uint8(27));
        vm.expectRevert(abi.encodeWithSelector(invalid, wallet));
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, deadline, twin);

        // Garbage bytes.
        vm.expectRevert(abi.encodeWithSelector(invalid, wallet));
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, deadline, new bytes(65));

        assertEq(reg.getAgentWallet(0), alice, "unchanged");
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, deadline, abi.encodePacked(r, s, v));
        assertEq(reg.getAgentWallet(0), wallet, "the well-formed original still works");
    }

    function testSignatureIsReplayableWithinDeadline() public {
        // Matches the reference: the signed struct has no nonce, only the short deadline limits replay.
        uint256 deadline = _deadline();
        bytes memory sig = _signWallet(WALLET_KEY, 0, wallet, alice, deadline);
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, deadline, sig);
        vm.prank(alice);
        reg.unsetAgentWallet(0);
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, deadline, sig);
        assertEq(reg.getAgentWallet(0), wallet, "same signature accepted again");
    }

    function testSignatureForPreviousOwnerIsRefusedAfterTransfer() public {
        uint256 deadline = _deadline();
        bytes memory sig = _signWallet(WALLET_KEY, 0, wallet, alice, deadline);
        vm.prank(alice);
        reg.transferFrom(alice, bob, 0);
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.IdentityRegistryInvalidWalletSignature.selector, wallet));
        vm.prank(bob);
        reg.setAgentWallet(0, wallet, deadline, sig);
    }

    // ---------------------------------------------------------------- setAgentWallet: ERC-1271

    function testSetAgentWalletWithErc1271Wallet() public {
        SignerWallet1271 scw = new SignerWallet1271(other);
        uint256 deadline = _deadline();
        // The contract wallet approves what its signer key signs; ECDSA recovery gives `other`, not `scw`,
        // so the registry must fall back to ERC-1271.
        bytes memory sig = _signWallet(OTHER_KEY, 0, address(scw), alice, deadline);

        vm.expectEmit(address(reg));
        emit IIdentityRegistry.MetadataSet(0, "agentWallet", "agentWallet", _packed(address(scw)));
        vm.prank(alice);
        reg.setAgentWallet(0, address(scw), deadline, sig);
        assertEq(reg.getAgentWallet(0), address(scw), "contract wallet bound");
    }

    function testErc1271WalletGetsTheEip712Digest() public {
        DigestWallet1271 scw = new DigestWallet1271();
        uint256 deadline = _deadline();
        scw.approve(_walletDigest(0, address(scw), alice, deadline));
        vm.prank(alice);
        reg.setAgentWallet(0, address(scw), deadline, hex"c0ffee"); // any bytes: the wallet decides
        assertEq(reg.getAgentWallet(0), address(scw), "bound");

        scw.approve(_walletDigest(0, address(scw), bob, deadline)); // digest for another owner
        vm.prank(alice);
        reg.unsetAgentWallet(0);
        vm.expectRevert(
            abi.encodeWithSelector(IdentityRegistry.IdentityRegistryInvalidWalletSignature.selector, address(scw))
        );
        vm.prank(alice);
        reg.setAgentWallet(0, address(scw), deadline, hex"c0ffee");
    }

    function testErc1271WalletWithWrongSignerIsRefused() public {
        SignerWallet1271 scw = new SignerWallet1271(other);
        uint256 deadline = _deadline();
        bytes memory sig = _signWallet(WALLET_KEY, 0, address(scw), alice, deadline); // not the wallet's key
        vm.expectRevert(
            abi.encodeWithSelector(IdentityRegistry.IdentityRegistryInvalidWalletSignature.selector, address(scw))
        );
        vm.prank(alice);
        reg.setAgentWallet(0, address(scw), deadline, sig);
    }

    function testRejectingErc1271WalletsAreRefused() public {
        uint256 deadline = _deadline();
        address[3] memory wallets =
            [address(new RejectingWallet1271()), address(new RevertingWallet1271()), address(new ShortReturnWallet1271())];
        for (uint256 i; i < wallets.length; ++i) {
            bytes memory sig = _signWallet(WALLET_KEY, 0, wallets[i], alice, deadline);
            vm.expectRevert(
                abi.encodeWithSelector(IdentityRegistry.IdentityRegistryInvalidWalletSignature.selector, wallets[i])
            );
            vm.prank(alice);
            reg.setAgentWallet(0, wallets[i], deadline, sig);
        }
        assertEq(reg.getAgentWallet(0), alice, "unchanged");
    }

    function testEcdsaIsTriedBeforeErc1271EvenWithCode() public {
        // An EOA-derived address that has code (as with an EIP-7702 delegation) whose ERC-1271 check refuses:
        // the registry still accepts the key's ECDSA signature, as the reference does.
        vm.etch(wallet, address(new RejectingWallet1271()).code);
        uint256 deadline = _deadline();
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, deadline, _signWallet(WALLET_KEY, 0, wallet, alice, deadline));
        assertEq(reg.getAgentWallet(0), wallet, "ECDSA accepted despite code");
    }

    // ---------------------------------------------------------------- unsetAgentWallet

    function testUnsetAgentWallet() public {
        vmLogs.recordLogs();
        vm.prank(alice);
        reg.unsetAgentWallet(0);
        VmLogs.Log[] memory logs = vmLogs.getRecordedLogs();
        assertEq(reg.getAgentWallet(0), address(0), "cleared");
        assertEq(reg.getMetadata(0, "agentWallet"), "", "metadata empty");
        assertEq(logs.length, 1, "one event");
        _assertMetadataSetLog(logs[0], 0, "agentWallet", "");

        // Unsetting again still emits (matches the reference).
        vm.expectEmit(address(reg));
        emit IIdentityRegistry.MetadataSet(0, "agentWallet", "agentWallet", "");
        vm.prank(alice);
        reg.unsetAgentWallet(0);
    }

    function testUnsetAgentWalletByApprovedAndOperator() public {
        vm.prank(alice);
        reg.approve(bob, 0);
        vm.prank(bob);
        reg.unsetAgentWallet(0);
        assertEq(reg.getAgentWallet(0), address(0), "approved may unset");

        _registerFor(alice, "second"); // agent 1
        vm.prank(alice);
        reg.setApprovalForAll(carol, true);
        vm.prank(carol);
        reg.unsetAgentWallet(1);
        assertEq(reg.getAgentWallet(1), address(0), "operator may unset");
    }

    function testUnsetAgentWalletRevertsForStrangerAndWallet() public {
        uint256 deadline = _deadline();
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, deadline, _signWallet(WALLET_KEY, 0, wallet, alice, deadline));

        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.IdentityRegistryUnauthorized.selector, stranger, 0));
        vm.prank(stranger);
        reg.unsetAgentWallet(0);
        // The bound wallet itself has no say over the binding.
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.IdentityRegistryUnauthorized.selector, wallet, 0));
        vm.prank(wallet);
        reg.unsetAgentWallet(0);
        assertEq(reg.getAgentWallet(0), wallet, "unchanged");
    }

    function testUnsetAgentWalletRevertsForNonexistentAgent() public {
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 9));
        vm.prank(alice);
        reg.unsetAgentWallet(9);
    }

    // ---------------------------------------------------------------- wallet cleared on transfer

    function _bindWallet() internal {
        uint256 deadline = _deadline();
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, deadline, _signWallet(WALLET_KEY, 0, wallet, alice, deadline));
        assertEq(reg.getAgentWallet(0), wallet, "precondition: wallet bound");
    }

    function testTransferFromClearsWallet() public {
        _bindWallet();
        vmLogs.recordLogs();
        vm.prank(alice);
        reg.transferFrom(alice, bob, 0);
        VmLogs.Log[] memory logs = vmLogs.getRecordedLogs();

        assertEq(reg.ownerOf(0), bob, "transferred");
        assertEq(reg.getAgentWallet(0), address(0), "wallet cleared");
        assertEq(reg.getMetadata(0, "agentWallet"), "", "metadata cleared");
        assertEq(reg.tokenURI(0), "ipfs://alice-agent", "URI kept");
        // MetadataSet(agentWallet, "") comes before the ERC-721 Transfer.
        assertEq(logs.length, 2, "two events");
        _assertMetadataSetLog(logs[0], 0, "agentWallet", "");
        assertEq(logs[1].topics[0], TRANSFER_TOPIC, "Transfer");
        assertEq(logs[1].topics[1], bytes32(uint256(uint160(alice))), "from");
        assertEq(logs[1].topics[2], bytes32(uint256(uint160(bob))), "to");
    }

    function testOtherMetadataSurvivesTransfer() public {
        vm.prank(alice);
        reg.setMetadata(0, "k", hex"01");
        vm.prank(alice);
        reg.transferFrom(alice, bob, 0);
        assertEq(reg.getMetadata(0, "k"), hex"01", "ordinary metadata is not cleared");
    }

    function testSafeTransferFromClearsWallet() public {
        _bindWallet();
        vm.expectEmit(address(reg));
        emit IIdentityRegistry.MetadataSet(0, "agentWallet", "agentWallet", "");
        vm.expectEmit(address(reg));
        emit IERC721.Transfer(alice, bob, 0);
        vm.prank(alice);
        reg.safeTransferFrom(alice, bob, 0);
        assertEq(reg.getAgentWallet(0), address(0), "cleared by safeTransferFrom");
    }

    function testSafeTransferFromWithDataToContractClearsWallet() public {
        _bindWallet();
        AgentOwnerContract receiver = new AgentOwnerContract(reg);
        vm.prank(alice);
        reg.safeTransferFrom(alice, address(receiver), 0, hex"1234");
        assertEq(reg.ownerOf(0), address(receiver), "transferred");
        assertEq(reg.getAgentWallet(0), address(0), "cleared by safeTransferFrom(data)");
        assertEq(receiver.seenWallet(), address(0), "already cleared when the receiver is called");
        assertEq(receiver.seenFrom(), alice, "receiver saw from");
    }

    function testTransferByApprovedAndOperatorClearsWallet() public {
        _bindWallet();
        vm.prank(alice);
        reg.approve(bob, 0);
        vm.prank(bob);
        reg.transferFrom(alice, carol, 0);
        assertEq(reg.getAgentWallet(0), address(0), "cleared (approved transfer)");

        uint256 deadline = _deadline();
        vm.prank(carol);
        reg.setAgentWallet(0, other, deadline, _signWallet(OTHER_KEY, 0, other, carol, deadline));
        assertEq(reg.getAgentWallet(0), other, "new owner binds own wallet");
        vm.prank(carol);
        reg.setApprovalForAll(stranger, true);
        vm.prank(stranger);
        reg.transferFrom(carol, alice, 0);
        assertEq(reg.getAgentWallet(0), address(0), "cleared (operator transfer)");
    }

    function testSelfTransferAlsoClearsWallet() public {
        // Matches the reference: any transfer clears, even to the current owner.
        _bindWallet();
        vm.prank(alice);
        reg.transferFrom(alice, alice, 0);
        assertEq(reg.ownerOf(0), alice, "still alice");
        assertEq(reg.getAgentWallet(0), address(0), "cleared");
    }

    function testRejectedTransferKeepsWallet() public {
        _bindWallet();
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721InsufficientApproval.selector, stranger, 0));
        vm.prank(stranger);
        reg.transferFrom(alice, stranger, 0);
        assertEq(reg.getAgentWallet(0), wallet, "kept");
    }

    // ---------------------------------------------------------------- fuzz

    /// @dev Any deadline: accepted iff now <= deadline <= now + 5 minutes, with the matching revert otherwise.
    function testFuzzDeadlineWindow(uint256 deadline) public {
        bytes memory sig = _signWallet(WALLET_KEY, 0, wallet, alice, deadline);
        if (deadline < block.timestamp) {
            vm.expectRevert(
                abi.encodeWithSelector(IdentityRegistry.IdentityRegistryDeadlineExpired.selector, deadline, block.timestamp)
            );
        } else if (deadline > block.timestamp + 300) {
            vm.expectRevert(
                abi.encodeWithSelector(
                    IdentityRegistry.IdentityRegistryDeadlineTooFar.selector,
                    deadline,
                    block.timestamp + 300
                )
            );
        }
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, deadline, sig);
        bool inWindow = deadline >= block.timestamp && deadline <= block.timestamp + 300;
        assertEq(reg.getAgentWallet(0), inWindow ? wallet : alice, "bound only inside the window");
    }

    /// @dev Deadlines near the window edges (the uniform fuzz above rarely lands there).
    function testFuzzDeadlineNearEdges(uint16 offset, bool below) public {
        uint256 deadline = below ? block.timestamp - (uint256(offset) % 600) : block.timestamp + (uint256(offset) % 600);
        bytes memory sig = _signWallet(WALLET_KEY, 0, wallet, alice, deadline);
        bool inWindow = deadline >= block.timestamp && deadline <= block.timestamp + 300;
        if (!inWindow) vm.expectRevert();
        vm.prank(alice);
        reg.setAgentWallet(0, wallet, deadline, sig);
        assertEq(reg.getAgentWallet(0), inWindow ? wallet : alice, "bound only inside the window");
    }

    /// @dev Any valid key can bind its address; any other key's signature is refused.
    function testFuzzAnyKeyBindsOnlyItsOwnAddress(uint256 key, uint256 otherKey) public {
        key = 1 + (key % (SECP256K1_N - 1));
        otherKey = 1 + (otherKey % (SECP256K1_N - 1));
        vm.assume(key != otherKey);
        address target = vm.addr(key);
        uint256 deadline = _deadline();

        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.IdentityRegistryInvalidWalletSignature.selector, target));
        vm.prank(alice);
        reg.setAgentWallet(0, target, deadline, _signWallet(otherKey, 0, target, alice, deadline));

        vm.prank(alice);
        reg.setAgentWallet(0, target, deadline, _signWallet(key, 0, target, alice, deadline));
        assertEq(reg.getAgentWallet(0), target, "bound");
        assertEq(reg.getMetadata(0, "agentWallet"), _packed(target), "packed");
    }
}
