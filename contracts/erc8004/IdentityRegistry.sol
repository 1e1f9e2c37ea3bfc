// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {ERC721URIStorage} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721URIStorage.sol";
import {ERC721Utils} from "@openzeppelin/contracts/token/ERC721/utils/ERC721Utils.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

import {IIdentityRegistry} from "./interfaces/IIdentityRegistry.sol";

/// @title ERC-8004 Identity Registry (cresolver edition)
/// @notice Every agent is an ERC-721 token ("AgentIdentity" / "AGENT"); its `tokenURI` is the agent's registration
///         file. Agents carry free-form key/value metadata plus one reserved key, `agentWallet`, which can only be
///         changed with a signature from the wallet being bound (EIP-712, EOA or ERC-1271 contract wallet).
/// @dev ABI-compatible with the canonical ERC-8004 v2.0.0 IdentityRegistry, without its proxy/ownership plumbing
///      (initialize, upgradeToAndCall, proxiableUUID, UPGRADE_INTERFACE_VERSION, owner, transferOwnership,
///      renounceOwnership). Behaviour follows the reference, including these quirks:
///      - every `register` variant binds `agentWallet` to the registrant (`msg.sender`) and emits `MetadataSet` for it;
///      - `register()` stores no URI and emits no ERC-4906 `MetadataUpdate`; the other variants do;
///      - `getMetadata` / `getAgentWallet` do not check that the agent exists (empty bytes / zero address instead);
///      - `agentWallet` is stored as 20 packed bytes, so `getMetadata(id, "agentWallet")` returns those bytes;
///      - every transfer (also a self-transfer, also when no wallet is set) clears `agentWallet` and emits
///        `MetadataSet(id, "agentWallet", "")` before the ERC-721 `Transfer` event;
///      - the wallet signature is checked with ECDSA first (also for addresses with code, e.g. EIP-7702 accounts) and
///        only then with ERC-1271; the signed struct has no nonce, so a signature can be replayed until its deadline,
///        which is therefore capped at 5 minutes ahead.
///      Unlike the reference (which uses `_safeMint` in the middle of `register`), the receiver check of a minting
///      contract runs last, after all state changes and events (checks-effects-interactions).
contract IdentityRegistry is ERC721URIStorage, EIP712, IIdentityRegistry {
    /// @dev The reserved metadata key holding the agent's verified payment wallet.
    string private constant AGENT_WALLET_KEY = "agentWallet";
    bytes32 private constant AGENT_WALLET_KEY_HASH = keccak256(bytes(AGENT_WALLET_KEY));

    /// @dev EIP-712 struct type signed by the new wallet in {setAgentWallet}.
    bytes32 private constant AGENT_WALLET_SET_TYPEHASH =
        keccak256("AgentWalletSet(uint256 agentId,address newWallet,address owner,uint256 deadline)");

    /// @dev How far in the future a wallet-binding signature's deadline may lie.
    uint256 private constant MAX_DEADLINE_DELAY = 5 minutes;

    /// @notice The caller is not the agent's owner, approved address or operator.
    error IdentityRegistryUnauthorized(address caller, uint256 agentId);
    /// @notice `agentWallet` can only be changed through {setAgentWallet} / {unsetAgentWallet}.
    error IdentityRegistryReservedKey(string metadataKey);
    /// @notice The zero address cannot be bound as agent wallet (use {unsetAgentWallet}).
    error IdentityRegistryZeroWallet();
    /// @notice The wallet-binding signature's deadline has passed.
    error IdentityRegistryDeadlineExpired(uint256 deadline, uint256 currentTime);
    /// @notice The wallet-binding signature's deadline is more than 5 minutes ahead.
    error IdentityRegistryDeadlineTooFar(uint256 deadline, uint256 latestAllowed);
    /// @notice The signature is neither a valid ECDSA signature nor an ERC-1271 approval by the new wallet.
    error IdentityRegistryInvalidWalletSignature(address newWallet);

    /// @dev Id the next registered agent gets; the first agent is 0.
    uint256 private _nextAgentId;

    /// @dev agentId => key => value; includes the reserved `agentWallet` key (20 packed bytes, or empty).
    mapping(uint256 agentId => mapping(string metadataKey => bytes metadataValue)) private _metadata;

    constructor() ERC721("AgentIdentity", "AGENT") EIP712("ERC8004IdentityRegistry", "1") {}

    // ------------------------------------------------------------------------------------------------------------
    // Registration
    // ------------------------------------------------------------------------------------------------------------

    /// @notice Registers a new agent owned by the caller, with an empty URI.
    /// @dev Emits `Transfer`, `Registered(id, "", caller)` and `MetadataSet` for `agentWallet` = caller.
    /// @return agentId The new agent's id.
    function register() external returns (uint256 agentId) {
        agentId = _registerAgent("", false);
        _checkReceiver(agentId);
    }

    /// @notice Registers a new agent owned by the caller, pointing at `agentURI`.
    /// @param agentURI The agent's registration file URI (becomes its `tokenURI`).
    /// @return agentId The new agent's id.
    function register(string calldata agentURI) external returns (uint256 agentId) {
        agentId = _registerAgent(agentURI, true);
        _checkReceiver(agentId);
    }

    /// @notice Registers a new agent owned by the caller, with a URI and initial metadata.
    /// @dev Emits one `MetadataSet` per entry, in order, after the one for `agentWallet`. Later duplicates of a key
    ///      overwrite earlier ones. Reverts if any entry uses the reserved `agentWallet` key.
    /// @param agentURI The agent's registration file URI (becomes its `tokenURI`).
    /// @param metadata Initial `(key, value)` entries.
    /// @return agentId The new agent's id.
    function register(string calldata agentURI, MetadataEntry[] calldata metadata) external returns (uint256 agentId) {
        agentId = _registerAgent(agentURI, true);
        uint256 count = metadata.length;
        for (uint256 i; i < count; ++i) {
            _writeMetadata(agentId, metadata[i].metadataKey, metadata[i].metadataValue);
        }
        _checkReceiver(agentId);
    }

    // ------------------------------------------------------------------------------------------------------------
    // URI and metadata
    // ------------------------------------------------------------------------------------------------------------

    /// @notice Points the agent at a new registration file.
    /// @dev Only the owner, the approved address or an operator of the owner. Emits ERC-4906 `MetadataUpdate` and
    ///      `URIUpdated`. Reverts with `ERC721NonexistentToken` for an unknown agent.
    /// @param agentId The agent.
    /// @param newURI The new URI (any string, also empty).
    function setAgentURI(uint256 agentId, string calldata newURI) external {
        _requireAuthorized(agentId);
        _setTokenURI(agentId, newURI);
        emit URIUpdated(agentId, newURI, msg.sender);
    }

    /// @notice Sets one metadata entry of an agent.
    /// @dev Only the owner, the approved address or an operator of the owner; the `agentWallet` key is refused.
    ///      Reverts with `ERC721NonexistentToken` for an unknown agent.
    /// @param agentId The agent.
    /// @param metadataKey The key (any string except `agentWallet`).
    /// @param metadataValue The value (empty bytes effectively deletes the entry).
    function setMetadata(uint256 agentId, string calldata metadataKey, bytes calldata metadataValue) external {
        _requireAuthorized(agentId);
        _writeMetadata(agentId, metadataKey, metadataValue);
    }

    /// @notice Reads one metadata entry of an agent.
    /// @dev Like the reference, does not check that the agent exists: unknown agents and keys read as empty bytes.
    /// @param agentId The agent.
    /// @param metadataKey The key; `agentWallet` returns the bound wallet as 20 packed bytes (or empty).
    /// @return The stored value.
    function getMetadata(uint256 agentId, string calldata metadataKey) external view returns (bytes memory) {
        return _metadata[agentId][metadataKey];
    }

    // ------------------------------------------------------------------------------------------------------------
    // Agent wallet
    // ------------------------------------------------------------------------------------------------------------

    /// @notice Binds `newWallet` as the agent's wallet, proven by the wallet's own EIP-712 signature.
    /// @dev Only the owner, the approved address or an operator of the owner. `newWallet` signs
    ///      `AgentWalletSet(agentId, newWallet, owner, deadline)` in the domain {"ERC8004IdentityRegistry", "1"},
    ///      with `owner` the agent's current owner. `deadline` must satisfy now <= deadline <= now + 5 minutes.
    ///      The signature is tried as ECDSA first, then as ERC-1271 `isValidSignature` on `newWallet`.
    /// @param agentId The agent.
    /// @param newWallet The wallet to bind (not zero).
    /// @param deadline Last timestamp at which the signature is accepted.
    /// @param signature The 65-byte ECDSA signature, or whatever the ERC-1271 wallet accepts.
    function setAgentWallet(uint256 agentId, address newWallet, uint256 deadline, bytes calldata signature) external {
        address agentOwner = _requireAuthorized(agentId);
        if (newWallet == address(0)) revert IdentityRegistryZeroWallet();
        if (block.timestamp > deadline) revert IdentityRegistryDeadlineExpired(deadline, block.timestamp);
        uint256 latestAllowed = block.timestamp + MAX_DEADLINE_DELAY;
        if (deadline > latestAllowed) revert IdentityRegistryDeadlineTooFar(deadline, latestAllowed);

        bytes32 digest = _hashTypedDataV4(
            keccak256(abi.encode(AGENT_WALLET_SET_TYPEHASH, agentId, newWallet, agentOwner, deadline))
        );
        if (!_isWalletSignature(newWallet, digest, signature)) {
            revert IdentityRegistryInvalidWalletSignature(newWallet);
        }

        _storeAgentWallet(agentId, abi.encodePacked(newWallet));
    }

    /// @notice Removes the agent's wallet binding.
    /// @dev Only the owner, the approved address or an operator of the owner. Emits `MetadataSet` with empty value
    ///      even if no wallet was bound.
    /// @param agentId The agent.
    function unsetAgentWallet(uint256 agentId) external {
        _requireAuthorized(agentId);
        _storeAgentWallet(agentId, "");
    }

    /// @notice The agent's bound wallet, or the zero address if none (or if the agent does not exist).
    /// @param agentId The agent.
    /// @return The wallet address.
    function getAgentWallet(uint256 agentId) external view returns (address) {
        return address(bytes20(_metadata[agentId][AGENT_WALLET_KEY]));
    }

    // ------------------------------------------------------------------------------------------------------------
    // Views
    // ------------------------------------------------------------------------------------------------------------

    /// @notice Whether `spender` is the agent's owner, its approved address, or an operator of its owner.
    /// @dev Reverts with `ERC721NonexistentToken` for an unknown agent. The zero address is never authorized.
    /// @param spender The address to check.
    /// @param agentId The agent.
    /// @return True if `spender` may manage the agent.
    function isAuthorizedOrOwner(address spender, uint256 agentId) external view returns (bool) {
        return _isAuthorized(_requireOwned(agentId), spender, agentId);
    }

    /// @notice The ERC-8004 interface version this registry implements.
    /// @return Always "2.0.0".
    function getVersion() external pure returns (string memory) {
        return "2.0.0";
    }

    /// @notice The owner of an agent.
    /// @dev Reverts with `ERC721NonexistentToken` for an unknown agent.
    /// @param tokenId The agent id (named as in ERC-721, which the canonical ABI keeps).
    /// @return The owner's address.
    function ownerOf(uint256 tokenId) public view override(ERC721, IERC721, IIdentityRegistry) returns (address) {
        return super.ownerOf(tokenId);
    }

    /// @notice The agent's registration file URI (empty if registered without one).
    /// @dev Reverts with `ERC721NonexistentToken` for an unknown agent.
    /// @param tokenId The agent id (named as in ERC-721, which the canonical ABI keeps).
    /// @return The URI.
    function tokenURI(
        uint256 tokenId
    ) public view override(ERC721URIStorage, IIdentityRegistry) returns (string memory) {
        return super.tokenURI(tokenId);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Internals
    // ------------------------------------------------------------------------------------------------------------

    /// @dev Mints the next id to the caller and records URI, wallet and events; no external calls.
    function _registerAgent(string memory agentURI, bool storeURI) private returns (uint256 agentId) {
        agentId = _nextAgentId++;
        _mint(msg.sender, agentId);
        if (storeURI) _setTokenURI(agentId, agentURI);
        emit Registered(agentId, agentURI, msg.sender);
        _storeAgentWallet(agentId, abi.encodePacked(msg.sender));
    }

    /// @dev The ERC-721 receiver acceptance check `_safeMint` would do, run as the very last step.
    function _checkReceiver(uint256 agentId) private {
        ERC721Utils.checkOnERC721Received(msg.sender, address(0), msg.sender, agentId, "");
    }

    /// @dev Writes a non-reserved metadata entry and announces it.
    function _writeMetadata(uint256 agentId, string calldata metadataKey, bytes calldata metadataValue) private {
        if (keccak256(bytes(metadataKey)) == AGENT_WALLET_KEY_HASH) revert IdentityRegistryReservedKey(metadataKey);
        _metadata[agentId][metadataKey] = metadataValue;
        emit MetadataSet(agentId, metadataKey, metadataKey, metadataValue);
    }

    /// @dev Writes the reserved wallet entry (20 packed bytes or empty) and announces it.
    function _storeAgentWallet(uint256 agentId, bytes memory packedWallet) private {
        _metadata[agentId][AGENT_WALLET_KEY] = packedWallet;
        emit MetadataSet(agentId, AGENT_WALLET_KEY, AGENT_WALLET_KEY, packedWallet);
    }

    /// @dev Reverts unless the caller is the owner, approved or an operator; returns the owner.
    function _requireAuthorized(uint256 agentId) private view returns (address agentOwner) {
        agentOwner = _requireOwned(agentId);
        if (!_isAuthorized(agentOwner, msg.sender, agentId)) revert IdentityRegistryUnauthorized(msg.sender, agentId);
    }

    /// @dev ECDSA recovery first (EOAs, EIP-7702 accounts), then ERC-1271. OpenZeppelin's `isValidSignatureNow`
    ///      picks only one of the two by code size, which would differ from the reference for EIP-7702 accounts.
    function _isWalletSignature(address wallet, bytes32 digest, bytes calldata signature) private view returns (bool) {
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecoverCalldata(digest, signature);
        if (err == ECDSA.RecoverError.NoError && recovered == wallet) return true;
        return SignatureChecker.isValidERC1271SignatureNowCalldata(wallet, digest, signature);
    }

    /// @dev Clears the wallet binding on every transfer (not on mint), before the token moves.
    function _update(address to, uint256 tokenId, address auth) internal override returns (address) {
        if (to != address(0) && _ownerOf(tokenId) != address(0)) _storeAgentWallet(tokenId, "");
        return super._update(to, tokenId, auth);
    }
}
