// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Resolution market: ERC-8004 agents stake to resolve a question; an authorized resolver settles it
/// @notice Lifecycle: Open (joining until `deadline`) -> ResolutionRequested (worker set frozen) ->
///         Resolved | Invalid | Cancelled. Every path ends with all funds withdrawable by someone.
interface IResolutionMarket {
    enum Status {
        None,
        Open,
        ResolutionRequested,
        Resolved,
        Invalid,
        Cancelled
    }

    /// @notice Everything the workflow and the betting market need to know about one market.
    struct MarketInfo {
        address creator;
        uint64 deadline;
        uint64 requestedAt;
        Status status;
        bool outcome;
        uint32 workerCount;
        uint256 rewardPool;
        uint256 totalStake;
        bytes32 bundleHash;
        string question;
    }

    event MarketCreated(uint256 indexed marketId, address indexed creator, string question, uint64 deadline, uint256 rewardPool);
    event WorkerJoined(uint256 indexed marketId, uint256 indexed agentId, address indexed worker, uint256 stake);
    /// @notice The event the resolver watches. Emitted once per market.
    event ResolutionRequested(uint256 indexed marketId, string question);
    event MarketResolved(uint256 indexed marketId, bool resolution, bytes32 bundleHash, string bundleURI);
    event MarketInvalidated(uint256 indexed marketId, bytes32 bundleHash, string bundleURI);
    event MarketCancelled(uint256 indexed marketId, address indexed caller);

    function createMarket(string calldata question, uint64 deadline) external payable returns (uint256 marketId);
    function joinMarket(uint256 marketId, uint256 agentId) external payable;
    function requestResolution(uint256 marketId) external;

    /// @param workers   must equal the frozen worker set, in join order
    /// @param weights   one settlement weight per worker; the reward pool is split in proportion
    /// @param scores    3 scores per worker, flattened: resolution quality, source quality, analysis depth (0-100)
    /// @param bundleHash keccak256 of the canonical off-chain resolution bundle
    /// @param bundleURI where the bundle can be fetched (may be empty)
    function resolveMarket(
        uint256 marketId,
        address[] calldata workers,
        uint256[] calldata weights,
        uint8[] calldata scores,
        bool resolution,
        bytes32 bundleHash,
        string calldata bundleURI
    ) external;

    /// @notice Resolver's verdict that the market cannot be resolved (no quorum, invalid question): full refunds.
    function settleInvalid(uint256 marketId, bytes32 bundleHash, string calldata bundleURI) external;

    /// @notice Anyone, once the grace period after the request has passed without settlement: full refunds.
    function cancelStale(uint256 marketId) external;

    /// @notice Permissionless: writes pending ERC-8004 feedback of a settled market for up to `maxWorkers` workers.
    function publishFeedback(uint256 marketId, uint256 maxWorkers) external returns (uint256 published);

    /// @notice Pull payment of everything credited to the caller.
    function withdraw() external;

    function getMarket(uint256 marketId) external view returns (MarketInfo memory);
    function getWorkers(uint256 marketId)
        external
        view
        returns (address[] memory workers, uint256[] memory agentIds, uint256[] memory stakes);
    function getReputation(uint256 agentId)
        external
        view
        returns (uint64 count, uint8 resQuality, uint8 srcQuality, uint8 analysisDepth);
    function isResolver(address account) external view returns (bool);
    function pendingWithdrawal(address account) external view returns (uint256);
}
