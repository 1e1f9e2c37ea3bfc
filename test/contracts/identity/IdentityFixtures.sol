// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC721Receiver} from "@openzeppelin/contracts/token/ERC721/IERC721Receiver.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

import {TestBase} from "../utils/Vm.sol";
import {IdentityRegistry} from "../../../contracts/erc8004/IdentityRegistry.sol";
import {IIdentityRegistry} from "../../../contracts/erc8004/interfaces/IIdentityRegistry.sol";

/// @notice Cheatcodes beyond the shared `Vm` that the identity tests need (same cheatcode address).
interface VmLogs {
    struct Log {
        bytes32[] topics;
        bytes data;
        address emitter;
    }

    function recordLogs() external;
    function getRecordedLogs() external returns (Log[] memory);
    function chainId(uint256 newChainId) external;
}

/// @notice ERC-1271 wallet that accepts exactly the ECDSA signatures of its `signer` key.
contract SignerWallet1271 is IERC1271 {
    address public immutable signer;

    constructor(address signer_) {
        signer = signer_;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecoverCalldata(hash, signature);
        if (err == ECDSA.RecoverError.NoError && recovered == signer) return IERC1271.isValidSignature.selector;
        return 0xffffffff;
    }
}

/// @notice ERC-1271 wallet that approves one pre-registered digest, whatever the signature bytes are.
contract DigestWallet1271 is IERC1271 {
    bytes32 public approvedDigest;

    function approve(bytes32 digest) external {
        approvedDigest = digest;
    }

    function isValidSignature(bytes32 hash, bytes calldata) external view returns (bytes4) {
        return hash == approvedDigest ? IERC1271.isValidSignature.selector : bytes4(0xffffffff);
    }
}

/// @notice ERC-1271 wallet that never approves (returns a wrong magic value).
contract RejectingWallet1271 is IERC1271 {
    function isValidSignature(bytes32, bytes calldata) external pure returns (bytes4) {
        return 0x00000000;
    }
}

/// @notice ERC-1271 wallet whose check reverts.
contract RevertingWallet1271 {
    error Nope();

    function isValidSignature(bytes32, bytes calldata) external pure returns (bytes4) {
        revert Nope();
    }
}

/// @notice Returns the right magic bytes but only 4 bytes of return data (not ABI-encoded): must be refused.
contract ShortReturnWallet1271 {
    function isValidSignature(bytes32, bytes calldata) external pure returns (bytes4) {
        assembly {
            mstore(0, 0x1626ba7e00000000000000000000000000000000000000000000000000000000)
            return(0, 4)
        }
    }
}

/// @notice A contract that registers agents for itself and accepts them; records what it saw in the callback.
contract AgentOwnerContract is IERC721Receiver {
    IdentityRegistry public immutable registry;
    uint256 public seenAgentId;
    address public seenOperator;
    address public seenFrom;
    address public seenOwner;
    address public seenWallet;
    string public seenURI;
    bytes public seenMetadata;
    bool public called;

    constructor(IdentityRegistry registry_) {
        registry = registry_;
    }

    function registerWith(string calldata uri, IIdentityRegistry.MetadataEntry[] calldata metadata) external returns (uint256) {
        return registry.register(uri, metadata);
    }

    function onERC721Received(address operator, address from, uint256 tokenId, bytes calldata) external returns (bytes4) {
        called = true;
        seenAgentId = tokenId;
        seenOperator = operator;
        seenFrom = from;
        seenOwner = registry.ownerOf(tokenId);
        seenWallet = registry.getAgentWallet(tokenId);
        seenURI = registry.tokenURI(tokenId);
        seenMetadata = registry.getMetadata(tokenId, "k");
        return IERC721Receiver.onERC721Received.selector;
    }
}

/// @notice A contract without `onERC721Received`: it cannot own agents.
contract NonReceiverContract {
    function registerPlain(IdentityRegistry registry) external returns (uint256) {
        return registry.register();
    }

    function registerWithURI(IdentityRegistry registry, string calldata uri) external returns (uint256) {
        return registry.register(uri);
    }
}

/// @notice Shared set-up and helpers for the identity registry tests.
abstract contract IdentityTestBase is TestBase {
    VmLogs internal constant vmLogs = VmLogs(address(uint160(uint256(keccak256("hevm cheat code")))));

    bytes32 internal constant AGENT_WALLET_SET_TYPEHASH =
        keccak256("AgentWalletSet(uint256 agentId,address newWallet,address owner,uint256 deadline)");
    bytes32 internal constant EIP712_DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    // secp256k1 group order, for building a malleable (high-s) twin of a signature.
    uint256 internal constant SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141;

    bytes32 internal constant TRANSFER_TOPIC = keccak256("Transfer(address,address,uint256)");
    bytes32 internal constant METADATA_UPDATE_TOPIC = keccak256("MetadataUpdate(uint256)");
    bytes32 internal constant REGISTERED_TOPIC = keccak256("Registered(uint256,string,address)");
    bytes32 internal constant METADATA_SET_TOPIC = keccak256("MetadataSet(uint256,string,string,bytes)");
    bytes32 internal constant URI_UPDATED_TOPIC = keccak256("URIUpdated(uint256,string,address)");

    uint256 internal constant ALICE_KEY = 0xA11CE;
    uint256 internal constant BOB_KEY = 0xB0B;
    uint256 internal constant WALLET_KEY = 0xB0B5;
    uint256 internal constant OTHER_KEY = 0x0DD;
    uint256 internal constant START_TIME = 1_800_000_000;

    IdentityRegistry internal reg;
    address internal alice;
    address internal bob;
    address internal carol;
    address internal stranger;
    address internal wallet;
    address internal other;

    function setUp() public virtual {
        vm.warp(START_TIME);
        reg = new IdentityRegistry();
        alice = vm.addr(ALICE_KEY);
        bob = vm.addr(BOB_KEY);
        carol = vm.addr(0xCA201);
        stranger = vm.addr(0x5757);
        wallet = vm.addr(WALLET_KEY);
        other = vm.addr(OTHER_KEY);
    }

    /// @dev Registers an agent for `who` with a URI.
    function _registerFor(address who, string memory uri) internal returns (uint256 agentId) {
        vm.prank(who);
        agentId = reg.register(uri);
    }

    function _entries1(string memory k, bytes memory v) internal pure returns (IIdentityRegistry.MetadataEntry[] memory e) {
        e = new IIdentityRegistry.MetadataEntry[](1);
        e[0] = IIdentityRegistry.MetadataEntry(k, v);
    }

    /// @dev The domain separator, computed independently of OpenZeppelin (what viem's hashTypedData uses).
    function _domainSeparator(address verifyingContract) internal view returns (bytes32) {
        return keccak256(
            abi.encode(
                EIP712_DOMAIN_TYPEHASH,
                keccak256("ERC8004IdentityRegistry"),
                keccak256("1"),
                block.chainid,
                verifyingContract
            )
        );
    }

    /// @dev The EIP-712 digest for an `AgentWalletSet` message on `reg`.
    function _walletDigest(uint256 agentId, address newWallet, address owner, uint256 deadline)
        internal
        view
        returns (bytes32)
    {
        bytes32 structHash = keccak256(abi.encode(AGENT_WALLET_SET_TYPEHASH, agentId, newWallet, owner, deadline));
        return keccak256(abi.encodePacked(hex"1901", _domainSeparator(address(reg)), structHash));
    }

    /// @dev A 65-byte (r, s, v) signature over `digest` by `key`.
    function _signDigest(uint256 key, bytes32 digest) internal pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }

    /// @dev `key` signs the wallet binding of `agentId` to `newWallet` for `owner`.
    function _signWallet(uint256 key, uint256 agentId, address newWallet, address owner, uint256 deadline)
        internal
        view
        returns (bytes memory)
    {
        return _signDigest(key, _walletDigest(agentId, newWallet, owner, deadline));
    }

    function _packed(address a) internal pure returns (bytes memory) {
        return abi.encodePacked(a);
    }

    /// @dev Asserts a recorded `MetadataSet` log for `agentId`, `key`, `value` emitted by the registry.
    function _assertMetadataSetLog(VmLogs.Log memory log, uint256 agentId, string memory key, bytes memory value)
        internal
        view
    {
        assertEq(log.emitter, address(reg), "MetadataSet emitter");
        assertEq(log.topics.length, 3, "MetadataSet topics");
        assertEq(log.topics[0], METADATA_SET_TOPIC, "MetadataSet topic0");
        assertEq(log.topics[1], bytes32(agentId), "MetadataSet agentId");
        assertEq(log.topics[2], keccak256(bytes(key)), "MetadataSet indexed key");
        (string memory k, bytes memory v) = abi.decode(log.data, (string, bytes));
        assertEq(k, key, "MetadataSet key");
        assertEq(v, value, "MetadataSet value");
    }
}
