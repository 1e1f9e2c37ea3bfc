// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";

import {IValidationRegistry} from "./interfaces/IValidationRegistry.sol";

/// @title ERC-8004 Validation Registry (cresolver edition)
/// @notice An agent's owner (or its approved address / operator) names a validator for a piece of work, identified
///         by a caller-chosen `requestHash`; the validator answers with a score from 0 to 100, and may answer again.
/// @dev ABI-compatible with the canonical ERC-8004 v2.0.0 ValidationRegistry without its proxy/ownership plumbing;
///      the identity registry is fixed at construction instead of in `initialize`. Reference quirks kept:
///      - request hashes are global: a hash can be requested once, by any agent, and is never freed. Squatting a
///        pending hash (copying it from the mempool) is therefore possible, as in the canonical registry; it is
///        kept for ABI and behaviour parity. It only blocks that hash, recorded under the squatter's own agent
///        and validator: requesters bind the hash to their agent (keccak256 of agentId, content and a salt),
///        readers check the binding, and a victim re-requests with a new salt. The markets do not use it;
///      - the validator may respond any number of times; each response overwrites the previous one;
///      - a pending request reads as response 0 with an empty tag (`getValidationStatus` does not say "pending");
///        only responded requests count in `getSummary`, where an empty validator list means "all validators",
///        an empty tag means "any tag", and the average is rounded down;
///      - nothing stops an agent's owner from naming itself as validator.
contract ValidationRegistry is IValidationRegistry {
    /// @dev One request and its latest response.
    struct Validation {
        address validatorAddress;
        uint8 response;
        bool hasResponse;
        uint256 agentId;
        bytes32 responseHash;
        uint256 lastUpdate;
        string tag;
    }

    /// @notice The identity registry address must not be zero.
    error ValidationRegistryZeroIdentityRegistry();
    /// @notice The validator address must not be zero.
    error ValidationRegistryZeroValidator();
    /// @notice This request hash has already been used.
    error ValidationRegistryRequestExists(bytes32 requestHash);
    /// @notice The caller is not the agent's owner, approved address or operator.
    error ValidationRegistryUnauthorized(address caller, uint256 agentId);
    /// @notice No request with this hash exists.
    error ValidationRegistryUnknownRequest(bytes32 requestHash);
    /// @notice Only the validator named in the request may respond.
    error ValidationRegistryNotValidator(address caller, address validatorAddress);
    /// @notice Responses are scores from 0 to 100.
    error ValidationRegistryResponseOutOfRange(uint8 response);

    uint8 private constant MAX_RESPONSE = 100;

    IERC721 private immutable _identityRegistry;

    mapping(bytes32 requestHash => Validation) private _validations;
    mapping(uint256 agentId => bytes32[] requestHashes) private _agentValidations;
    mapping(address validator => bytes32[] requestHashes) private _validatorRequests;

    /// @param identityRegistry_ The ERC-8004 identity registry (any ERC-721) whose agents are validated.
    constructor(address identityRegistry_) {
        if (identityRegistry_ == address(0)) revert ValidationRegistryZeroIdentityRegistry();
        _identityRegistry = IERC721(identityRegistry_);
    }

    /// @notice The identity registry whose agents this registry validates.
    /// @return The registry address.
    function getIdentityRegistry() external view returns (address) {
        return address(_identityRegistry);
    }

    /// @notice Asks `validatorAddress` to validate work of `agentId` described at `requestURI`.
    /// @dev Only the agent's owner, approved address or operator (checked on the identity registry; reverts there
    ///      for an unknown agent). `requestHash` must be unused; the request is recorded with `lastUpdate` = now.
    /// @param validatorAddress Who may respond (not zero).
    /// @param agentId The agent whose work is validated.
    /// @param requestURI Where the validator finds the request (only emitted, not stored).
    /// @param requestHash Unique identifier of the request (usually a commitment to its content).
    function validationRequest(address validatorAddress, uint256 agentId, string calldata requestURI, bytes32 requestHash)
        external
    {
        if (validatorAddress == address(0)) revert ValidationRegistryZeroValidator();
        if (_validations[requestHash].validatorAddress != address(0)) {
            revert ValidationRegistryRequestExists(requestHash);
        }
        address agentOwner = _identityRegistry.ownerOf(agentId);
        if (
            msg.sender != agentOwner &&
            !_identityRegistry.isApprovedForAll(agentOwner, msg.sender) &&
            _identityRegistry.getApproved(agentId) != msg.sender
        ) revert ValidationRegistryUnauthorized(msg.sender, agentId);

        Validation storage v = _validations[requestHash];
        v.validatorAddress = validatorAddress;
        v.agentId = agentId;
        v.lastUpdate = block.timestamp;
        _agentValidations[agentId].push(requestHash);
        _validatorRequests[validatorAddress].push(requestHash);

        emit ValidationRequest(validatorAddress, agentId, requestURI, requestHash);
    }

    /// @notice Records the named validator's (latest) answer to a request.
    /// @dev Can be called repeatedly; each call overwrites response, hash and tag and refreshes `lastUpdate`.
    /// @param requestHash The request answered.
    /// @param response Score from 0 (failed) to 100 (passed).
    /// @param responseURI Where the evidence lives (only emitted, not stored).
    /// @param responseHash Commitment to the evidence.
    /// @param tag Free-form label, usable as a `getSummary` filter.
    function validationResponse(
        bytes32 requestHash,
        uint8 response,
        string calldata responseURI,
        bytes32 responseHash,
        string calldata tag
    ) external {
        Validation storage v = _validations[requestHash];
        address validator = v.validatorAddress;
        if (validator == address(0)) revert ValidationRegistryUnknownRequest(requestHash);
        if (msg.sender != validator) revert ValidationRegistryNotValidator(msg.sender, validator);
        if (response > MAX_RESPONSE) revert ValidationRegistryResponseOutOfRange(response);

        v.response = response;
        v.hasResponse = true;
        v.responseHash = responseHash;
        v.tag = tag;
        v.lastUpdate = block.timestamp;

        emit ValidationResponse(validator, v.agentId, requestHash, response, responseURI, responseHash, tag);
    }

    /// @notice The state of a request.
    /// @dev Reverts for an unknown request. A pending request reads as response 0, zero hash, empty tag.
    /// @param requestHash The request.
    /// @return validatorAddress The validator named in the request.
    /// @return agentId The agent validated.
    /// @return response The latest score (0 while pending).
    /// @return responseHash The latest evidence commitment.
    /// @return tag The latest tag.
    /// @return lastUpdate Time of the request or of the latest response.
    function getValidationStatus(bytes32 requestHash)
        external
        view
        returns (
            address validatorAddress,
            uint256 agentId,
            uint8 response,
            bytes32 responseHash,
            string memory tag,
            uint256 lastUpdate
        )
    {
        Validation storage v = _validations[requestHash];
        if (v.validatorAddress == address(0)) revert ValidationRegistryUnknownRequest(requestHash);
        return (v.validatorAddress, v.agentId, v.response, v.responseHash, v.tag, v.lastUpdate);
    }

    /// @notice Count and average score of an agent's answered requests.
    /// @dev Unanswered requests are skipped. Empty `validatorAddresses` = all validators; empty `tag` = any tag.
    ///      The average is rounded down; 0 when nothing matches.
    /// @param agentId The agent.
    /// @param validatorAddresses Only count these validators (empty for all).
    /// @param tag Only count responses with exactly this tag (empty for any).
    /// @return count Number of matching answered requests.
    /// @return avgResponse Their average score.
    function getSummary(uint256 agentId, address[] calldata validatorAddresses, string calldata tag)
        external
        view
        returns (uint64 count, uint8 avgResponse)
    {
        bytes32[] storage hashes = _agentValidations[agentId];
        bool anyTag = bytes(tag).length == 0;
        bytes32 tagHash = keccak256(bytes(tag));
        uint256 total;
        uint256 n = hashes.length;
        for (uint256 i; i < n; ++i) {
            Validation storage v = _validations[hashes[i]];
            if (!v.hasResponse) continue;
            if (!anyTag && keccak256(bytes(v.tag)) != tagHash) continue;
            if (!_listed(v.validatorAddress, validatorAddresses)) continue;
            total += v.response;
            ++count;
        }
        if (count != 0) avgResponse = uint8(total / count);
    }

    /// @notice All request hashes ever made for an agent, oldest first.
    /// @param agentId The agent.
    /// @return The request hashes.
    function getAgentValidations(uint256 agentId) external view returns (bytes32[] memory) {
        return _agentValidations[agentId];
    }

    /// @notice All request hashes addressed to a validator, oldest first.
    /// @param validatorAddress The validator.
    /// @return The request hashes.
    function getValidatorRequests(address validatorAddress) external view returns (bytes32[] memory) {
        return _validatorRequests[validatorAddress];
    }

    /// @notice The ERC-8004 interface version this registry implements.
    /// @return Always "2.0.0".
    function getVersion() external pure returns (string memory) {
        return "2.0.0";
    }

    /// @dev True if `list` is empty or contains `who`.
    function _listed(address who, address[] calldata list) private pure returns (bool) {
        uint256 n = list.length;
        if (n == 0) return true;
        for (uint256 i; i < n; ++i) {
            if (list[i] == who) return true;
        }
        return false;
    }
}
