// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable, Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";

import {IArbiter} from "./interfaces/IArbiter.sol";
import {IMarketGovernance} from "./interfaces/IMarketGovernance.sol";
import {IResolutionMarket} from "./interfaces/IResolutionMarket.sol";

/// @title The bounded owner of one resolution market: timelocked resolvers and default arbiter, market defaults
/// @notice Deployed by its market's constructor (`market` = the deployer), so the pair is fixed at deployment.
///         What the owner can do: queue/remove resolvers, queue the default arbiter, change the defaults of
///         markets created later. A queued resolver or arbiter applies only to markets created at least
///         RESOLVER_DELAY after the queueing (until the market's first creation: at once, to bootstrap a
///         deployment); every market snapshots its settings and arbiter at creation ({snapshotConfig}). The
///         owner can never move funds, change a live market's settings, nor decide a market; ownership cannot
///         be renounced (it would freeze the resolver set forever). Holds no ETH.
/// @dev New governance rules (allow-lists, ranges) belong in {snapshotConfig}: it is the one place a market's
///      settings are decided.
contract MarketGovernance is IMarketGovernance, Ownable2Step {
    /// @notice Delay between queueing a resolver or the default arbiter and the first market it applies to.
    uint64 public constant RESOLVER_DELAY = 2 days;
    /// @notice Largest seat limit of a market.
    uint8 public constant MAX_WORKERS_CAP = 100;
    /// @notice Shortest grace period of the defaults.
    uint32 public constant MIN_GRACE_PERIOD = 1 hours;
    /// @notice Longest grace period of the defaults.
    uint32 public constant MAX_GRACE_PERIOD = 30 days;
    /// @notice Shortest dispute window.
    uint32 public constant MIN_DISPUTE_WINDOW = 10 minutes;
    /// @notice Longest dispute window.
    uint32 public constant MAX_DISPUTE_WINDOW = 30 days;
    /// @notice Lowest per-market minimum stake: seats must cost a Sybil something.
    uint96 public constant MIN_STAKE_FLOOR = 0.0001 ether;
    /// @notice Lowest bond: a zero bond would make disputes free griefing.
    uint96 public constant MIN_BOND = 0.001 ether;

    /// @notice Smallest reward pool: 1-wei markets would make reputation free to farm.
    uint256 public constant MIN_REWARD_POOL = 0.001 ether;
    /// @notice Longest allow-list of a market.
    uint256 public constant MAX_ALLOW_LIST = 100;
    /// @notice Longest question, in bytes.
    uint256 public constant MAX_QUESTION_BYTES = 1024;
    /// @notice Furthest deadline from creation.
    uint256 public constant MAX_DEADLINE_HORIZON = 365 days;

    /// @inheritdoc IMarketGovernance
    address public immutable market;

    IResolutionMarket.MarketConfig internal _defaults;
    IArbiter internal _pendingArbiter;
    uint64 internal _pendingArbiterAt;
    /// @dev Set at the first market creation: from then on every change waits RESOLVER_DELAY.
    bool internal _bootstrapOver;
    mapping(address resolver => uint64) internal _resolverFrom;

    /// @param initialOwner the bounded owner (two-step transfers, no renounce)
    constructor(address initialOwner) Ownable(initialOwner) {
        market = msg.sender;
        _setDefaults(0.001 ether, 10, 3 days, 1 days, 0.01 ether);
    }

    /// @inheritdoc IMarketGovernance
    function queueResolver(address resolver) external onlyOwner {
        if (resolver == address(0)) revert ZeroAddress();
        if (_resolverFrom[resolver] != 0) return;
        uint64 from = _activationTime();
        _resolverFrom[resolver] = from;
        emit ResolverQueued(resolver, from);
    }

    /// @inheritdoc IMarketGovernance
    function removeResolver(address resolver) external onlyOwner {
        if (_resolverFrom[resolver] == 0) return;
        delete _resolverFrom[resolver];
        emit ResolverRemoved(resolver);
    }

    /// @inheritdoc IMarketGovernance
    function queueDefaultArbiter(IArbiter arbiter) external onlyOwner {
        if (address(arbiter).code.length == 0) revert ArbiterNotAContract(address(arbiter));
        uint64 at = _activationTime();
        emit DefaultArbiterQueued(address(arbiter), at);
        if (!_bootstrapOver) {
            _defaults.arbiter = arbiter;
            delete _pendingArbiter;
            delete _pendingArbiterAt;
            emit DefaultArbiterUpdated(address(arbiter));
        } else {
            _pendingArbiter = arbiter;
            _pendingArbiterAt = at;
        }
    }

    /// @inheritdoc IMarketGovernance
    function applyDefaultArbiter() external {
        if (address(_pendingArbiter) == address(0)) revert NothingQueued();
        if (block.timestamp < _pendingArbiterAt) revert TimelockNotOver(_pendingArbiterAt);
        _applyPendingArbiter();
    }

    /// @inheritdoc IMarketGovernance
    function setDefaults(uint96 minStake, uint8 maxWorkers, uint32 gracePeriod, uint32 disputeWindow, uint96 bond)
        external
        onlyOwner
    {
        _setDefaults(minStake, maxWorkers, gracePeriod, disputeWindow, bond);
    }

    /// @inheritdoc IMarketGovernance
    function snapshotConfig(
        IResolutionMarket.MarketParams calldata p,
        uint256 questionLength,
        uint64 deadline,
        uint256 pool
    ) external returns (IResolutionMarket.MarketConfig memory c) {
        if (msg.sender != market) revert NotMarket(msg.sender);
        if (pool < MIN_REWARD_POOL) revert RewardPoolTooSmall(pool, MIN_REWARD_POOL);
        if (pool > type(uint96).max) revert RewardPoolTooLarge(pool);
        if (questionLength == 0) revert EmptyQuestion();
        if (questionLength > MAX_QUESTION_BYTES) revert QuestionTooLong(questionLength);
        if (deadline <= block.timestamp) revert DeadlineNotInFuture(deadline);
        if (deadline > block.timestamp + MAX_DEADLINE_HORIZON) revert DeadlineTooFar(deadline);
        if (p.admission == IResolutionMarket.Admission.AllowList && p.allowedAgents.length > MAX_ALLOW_LIST) {
            revert AllowListTooLong(p.allowedAgents.length);
        }
        if (!_bootstrapOver) _bootstrapOver = true;
        if (address(_pendingArbiter) != address(0) && block.timestamp >= _pendingArbiterAt) _applyPendingArbiter();
        c = _defaults;
        if (address(p.arbiter) != address(0)) c.arbiter = p.arbiter;
        if (address(c.arbiter).code.length == 0) revert ArbiterNotAContract(address(c.arbiter));
        if (p.minStake != 0) c.minStake = p.minStake;
        if (p.maxWorkers != 0) c.maxWorkers = p.maxWorkers;
        if (p.disputeWindow != 0) c.disputeWindow = p.disputeWindow;
        if (p.bond != 0) c.bond = p.bond;
        _checkBounds(c.minStake, c.maxWorkers, c.disputeWindow, c.bond);
    }

    /// @notice Disabled: without an owner no resolver could ever be queued again.
    function renounceOwnership() public view override onlyOwner {
        revert RenounceOwnershipDisabled();
    }

    /// @inheritdoc IMarketGovernance
    function getDefaults() external view returns (IResolutionMarket.MarketConfig memory) {
        return _defaults;
    }

    /// @inheritdoc IMarketGovernance
    function pendingDefaultArbiter() external view returns (IArbiter, uint64) {
        return (_pendingArbiter, _pendingArbiterAt);
    }

    /// @inheritdoc IMarketGovernance
    function resolverActiveFrom(address resolver) external view returns (uint64) {
        return _resolverFrom[resolver];
    }

    function _applyPendingArbiter() private {
        IArbiter arbiter = _pendingArbiter;
        _defaults.arbiter = arbiter;
        delete _pendingArbiter;
        delete _pendingArbiterAt;
        emit DefaultArbiterUpdated(address(arbiter));
    }

    /// @dev Creation time from which a change queued now applies.
    function _activationTime() private view returns (uint64) {
        return _bootstrapOver ? uint64(block.timestamp) + RESOLVER_DELAY : uint64(block.timestamp);
    }

    function _setDefaults(uint96 minStake, uint8 maxWorkers, uint32 gracePeriod, uint32 disputeWindow, uint96 bond)
        private
    {
        _checkBounds(minStake, maxWorkers, disputeWindow, bond);
        if (gracePeriod < MIN_GRACE_PERIOD || gracePeriod > MAX_GRACE_PERIOD) {
            revert GracePeriodOutOfRange(gracePeriod);
        }
        IResolutionMarket.MarketConfig storage d = _defaults;
        d.minStake = minStake;
        d.maxWorkers = maxWorkers;
        d.gracePeriod = gracePeriod;
        d.disputeWindow = disputeWindow;
        d.bond = bond;
        emit DefaultsUpdated(minStake, maxWorkers, gracePeriod, disputeWindow, bond);
    }

    /// @dev Bounds shared by the defaults and the explicit per-market settings.
    function _checkBounds(uint256 minStake, uint256 maxWorkers, uint256 disputeWindow, uint256 bond) internal pure {
        if (minStake < MIN_STAKE_FLOOR) revert MinStakeOutOfRange(minStake);
        if (maxWorkers == 0 || maxWorkers > MAX_WORKERS_CAP) revert MaxWorkersOutOfRange(maxWorkers);
        if (disputeWindow < MIN_DISPUTE_WINDOW || disputeWindow > MAX_DISPUTE_WINDOW) {
            revert DisputeWindowOutOfRange(disputeWindow);
        }
        if (bond < MIN_BOND) revert BondOutOfRange(bond);
    }
}
