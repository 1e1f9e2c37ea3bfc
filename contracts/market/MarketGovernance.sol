// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable, Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";

import {IArbiter} from "./interfaces/IArbiter.sol";
import {IResolutionMarket} from "./interfaces/IResolutionMarket.sol";

/// @title The bounded owner of the resolution market: timelocked resolvers and default arbiter, market defaults
/// @notice What the owner can do: queue/remove resolvers, queue the default arbiter, change the defaults of
///         markets created later. A queued resolver or arbiter applies only to markets created at least
///         RESOLVER_DELAY after the queueing (while no market exists yet: at once, to bootstrap a deployment);
///         every market snapshots its settings and arbiter at creation. The owner can never move funds, change a
///         live market's settings, nor decide a market; ownership cannot be renounced (it would freeze the
///         resolver set forever).
abstract contract MarketGovernance is IResolutionMarket, Ownable2Step {
    /// @notice Delay between queueing a resolver or the default arbiter and the first market it applies to.
    uint64 public constant RESOLVER_DELAY = 2 days;
    uint8 public constant MAX_WORKERS_CAP = 100;
    uint32 internal constant MIN_GRACE_PERIOD = 1 hours;
    uint32 internal constant MAX_GRACE_PERIOD = 30 days;
    uint32 public constant MIN_DISPUTE_WINDOW = 10 minutes;
    uint32 public constant MAX_DISPUTE_WINDOW = 30 days;
    /// @notice Lowest per-market minimum stake: seats must cost a Sybil something.
    uint96 public constant MIN_STAKE_FLOOR = 0.0001 ether;
    /// @notice Lowest bond: a zero bond would make disputes free griefing.
    uint96 public constant MIN_BOND = 0.001 ether;

    /// @dev A market's snapshotted settings in two slots (also the layout of the defaults, whose `arbiter` is
    ///      the default arbiter and whose `createdAt`/admission fields are unused).
    struct Config {
        IArbiter arbiter;
        uint96 bond;
        uint40 createdAt;
        Admission admission;
        uint8 minCorrectness;
        uint32 minSettled;
        uint96 minStake;
        uint8 maxWorkers;
        uint32 gracePeriod;
        uint32 disputeWindow;
    }

    /// @notice Number of markets created; ids are 1..marketCount.
    uint256 public marketCount;

    Config internal _defaults;
    IArbiter internal _pendingArbiter;
    uint64 internal _pendingArbiterAt;
    mapping(address resolver => uint64) internal _resolverFrom;

    constructor(address initialOwner) Ownable(initialOwner) {
        _setDefaults(0.001 ether, 10, 3 days, 1 days, 0.01 ether);
    }

    /// @inheritdoc IResolutionMarket
    function queueResolver(address resolver) external onlyOwner {
        if (resolver == address(0)) revert ZeroAddress();
        if (_resolverFrom[resolver] != 0) return;
        uint64 from = _activationTime();
        _resolverFrom[resolver] = from;
        emit ResolverQueued(resolver, from);
    }

    /// @inheritdoc IResolutionMarket
    function removeResolver(address resolver) external onlyOwner {
        if (_resolverFrom[resolver] == 0) return;
        delete _resolverFrom[resolver];
        emit ResolverRemoved(resolver);
    }

    /// @inheritdoc IResolutionMarket
    function queueDefaultArbiter(IArbiter arbiter) external onlyOwner {
        if (address(arbiter).code.length == 0) revert ArbiterNotAContract(address(arbiter));
        uint64 at = _activationTime();
        emit DefaultArbiterQueued(address(arbiter), at);
        if (marketCount == 0) {
            _defaults.arbiter = arbiter;
            delete _pendingArbiter;
            delete _pendingArbiterAt;
            emit DefaultArbiterUpdated(address(arbiter));
        } else {
            _pendingArbiter = arbiter;
            _pendingArbiterAt = at;
        }
    }

    /// @inheritdoc IResolutionMarket
    function applyDefaultArbiter() external {
        if (address(_pendingArbiter) == address(0)) revert NothingQueued();
        if (block.timestamp < _pendingArbiterAt) revert TimelockNotOver(_pendingArbiterAt);
        _applyPendingArbiter();
    }

    /// @inheritdoc IResolutionMarket
    function setDefaults(uint96 minStake, uint8 maxWorkers, uint32 gracePeriod, uint32 disputeWindow, uint96 bond)
        external
        onlyOwner
    {
        _setDefaults(minStake, maxWorkers, gracePeriod, disputeWindow, bond);
    }

    /// @notice Disabled: without an owner no resolver could ever be queued again.
    function renounceOwnership() public view override onlyOwner {
        revert RenounceOwnershipDisabled();
    }

    /// @inheritdoc IResolutionMarket
    function getDefaults() external view returns (MarketConfig memory) {
        return _configView(_defaults);
    }

    /// @inheritdoc IResolutionMarket
    function pendingDefaultArbiter() external view returns (IArbiter, uint64) {
        return (_pendingArbiter, _pendingArbiterAt);
    }

    /// @inheritdoc IResolutionMarket
    function resolverActiveFrom(address resolver) external view returns (uint64) {
        return _resolverFrom[resolver];
    }

    /// @dev The default arbiter of a market created now (applies a due queued one first).
    function _currentArbiter() internal returns (IArbiter) {
        if (address(_pendingArbiter) != address(0) && block.timestamp >= _pendingArbiterAt) _applyPendingArbiter();
        return _defaults.arbiter;
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
        return marketCount == 0 ? uint64(block.timestamp) : uint64(block.timestamp) + RESOLVER_DELAY;
    }

    function _setDefaults(uint96 minStake, uint8 maxWorkers, uint32 gracePeriod, uint32 disputeWindow, uint96 bond)
        private
    {
        _checkBounds(minStake, maxWorkers, disputeWindow, bond);
        if (gracePeriod < MIN_GRACE_PERIOD || gracePeriod > MAX_GRACE_PERIOD) {
            revert GracePeriodOutOfRange(gracePeriod);
        }
        Config storage d = _defaults;
        d.minStake = minStake;
        d.maxWorkers = maxWorkers;
        d.gracePeriod = gracePeriod;
        d.disputeWindow = disputeWindow;
        d.bond = bond;
        emit DefaultsUpdated(minStake, maxWorkers, gracePeriod, disputeWindow, bond);
    }

    function _configView(Config memory c) internal pure returns (MarketConfig memory) {
        return MarketConfig({
            createdAt: c.createdAt,
            admission: c.admission,
            minCorrectness: c.minCorrectness,
            minSettled: c.minSettled,
            minStake: c.minStake,
            maxWorkers: c.maxWorkers,
            gracePeriod: c.gracePeriod,
            disputeWindow: c.disputeWindow,
            bond: c.bond,
            arbiter: c.arbiter
        });
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
