// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title ERC-8004 Identity Registry (v2.0.0 surface, without upgrade plumbing)
/// @notice Agents are ERC-721 tokens; `tokenURI` points at the agent's registration file.
/// @dev Only the ERC-8004-specific part; the ERC-721 functions come from the token itself.
interface IIdentityRegistry {
    /// @notice One `(key, value)` pair given at registration.
    struct MetadataEntry {
        string metadataKey;
        bytes metadataValue;
    }

    /// @notice A new agent `agentId` was registered by `owner` with `agentURI` (ERC-8004).
    event Registered(uint256 indexed agentId, string agentURI, address indexed owner);
    /// @notice Metadata `metadataKey` of agent `agentId` was set (ERC-8004).
    event MetadataSet(uint256 indexed agentId, string indexed indexedMetadataKey, string metadataKey, bytes metadataValue);
    /// @notice The registration URI of agent `agentId` changed to `newURI` (ERC-8004).
    event URIUpdated(uint256 indexed agentId, string newURI, address indexed updatedBy);

    function register() external returns (uint256 agentId);
    function register(string calldata agentURI) external returns (uint256 agentId);
    function register(string calldata agentURI, MetadataEntry[] calldata metadata) external returns (uint256 agentId);

    function setAgentURI(uint256 agentId, string calldata newURI) external;
    function setMetadata(uint256 agentId, string calldata metadataKey, bytes calldata metadataValue) external;
    function getMetadata(uint256 agentId, string calldata metadataKey) external view returns (bytes memory);

    function setAgentWallet(uint256 agentId, address newWallet, uint256 deadline, bytes calldata signature) external;
    function unsetAgentWallet(uint256 agentId) external;
    function getAgentWallet(uint256 agentId) external view returns (address);

    /// @notice True when `spender` is the agent's owner, approved for it, or an operator of its owner.
    /// @dev Reverts for an agent that does not exist (as the canonical registry does).
    function isAuthorizedOrOwner(address spender, uint256 agentId) external view returns (bool);

    function getVersion() external pure returns (string memory);

    function ownerOf(uint256 agentId) external view returns (address);
    function tokenURI(uint256 agentId) external view returns (string memory);
}
