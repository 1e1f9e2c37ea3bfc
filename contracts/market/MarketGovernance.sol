// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable, Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";

import {IArbiter} from "./interfaces/IArbiter.sol";
import {IMarketGovernance} from "./interfaces/IMarketGovernance.sol";
import {IResolutionMarket} from "./interfaces/IResolutionMarket.sol";
import {SettlementMath} from "./libraries/SettlementMath.sol";

/// @title The bounded owner of one resolution market: timelocked resolvers, arbiters, defaults and bond range
/// @notice Deployed by its market's constructor (`market` = the deployer), so the pair is fixed at deployment.
///         What the owner can do: queue/remove resolvers, queue/remove allowed arbiters, queue the default and the
///         fallback arbiter, queue the defaults and the bond range of markets created later. Every queued change
///         applies only to markets created at least RESOLVER_DELAY after the queueing, except during the
///         deployment bootstrap (before the first market, at most BOOTSTRAP_WINDOW after deployment, and not
///         after {closeBootstrap}) when it applies at once. Every market snapshots its settings and arbiter at
///         creation ({snapshotConfig}); its arbiter must be on the allow-list and its bond inside the range. The
///         owner can never move funds, change a live market's settings, nor decide a market; ownership cannot be
///         renounced (it would freeze the resolver set forever). Holds no ETH.
/// @dev New governance rules (allow-lists, ranges) belong in {snapshotConfig}: it is the one place a market's
///      settings are decided.
contract MarketGovernance is IMarketGovernance, Ownable2Step {
    /// @notice Delay between queueing a change (resolver, arbiter, defaults, bond range) and the first market it
    ///         applies to.
    uint64 public constant RESOLVER_DELAY = 2 days;
    /// @notice Longest deployment bootstrap: changes apply at once only this long after deployment (and never
    ///         after the first market or {closeBootstrap}).
    uint64 public constant BOOTSTRAP_WINDOW = 7 days;
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
    /// @notice Highest bond of the initial bond range: a settler must never be asked for an unbounded bond.
    uint96 public constant INITIAL_MAX_BOND = 1 ether;

    /// @notice Smallest reward pool: 1-wei markets would make reputation free to farm.
    uint256 public constant MIN_REWARD_POOL = 0.001 ether;
    /// @notice Longest allow-list of a market.
    uint256 public constant MAX_ALLOW_LIST = 100;
    /// @notice Longest question, in bytes.
    uint256 public constant MAX_QUESTION_BYTES = 1024;
    /// @notice Furthest deadline from creation.
    uint256 public constant MAX_DEADLINE_HORIZON = 365 days;

    /// @dev Queued defaults (`at` = 0: none queued).
    struct PendingDefaults {
        uint96 minStake;
        uint8 maxWorkers;
        uint32 gracePeriod;
        uint32 disputeWindow;
        uint96 bond;
        uint64 at;
    }

    /// @dev A bond range, current or queued (`at` = 0: none queued).
    struct BondRange {
        uint96 min;
        uint96 max;
        uint64 at;
    }

    /// @inheritdoc IMarketGovernance
    address public immutable market;
    /// @inheritdoc IMarketGovernance
    uint64 public immutable bootstrapDeadline;

    IResolutionMarket.MarketConfig internal _defaults;
    IArbiter internal _pendingArbiter;
    uint64 internal _pendingArbiterAt;
    /// @dev Set at the first market creation or by {closeBootstrap}: from then on every change waits RESOLVER_DELAY.
    bool internal _bootstrapOver;
    PendingDefaults internal _pendingDefaults;
    BondRange internal _bondRange;
    BondRange internal _pendingBondRange;
    address internal _fallback;
    address internal _pendingFallback;
    uint64 internal _pendingFallbackAt;
    mapping(address resolver => uint64) internal _resolverFrom;
    mapping(address arbiter => uint64) internal _arbiterFrom;

    /// @param initialOwner the bounded owner (two-step transfers, no renounce)
    constructor(address initialOwner) Ownable(initialOwner) {
        market = msg.sender;
        bootstrapDeadline = uint64(block.timestamp) + BOOTSTRAP_WINDOW;
        _bondRange = BondRange(MIN_BOND, INITIAL_MAX_BOND, 0);
        emit BondRangeUpdated(MIN_BOND, INITIAL_MAX_BOND);
        _setDefaults(0.001 ether, 10, 3 days, 1 days, 0.01 ether);
    }

    // ------------------------------------------------------------------------------------------------
    // Resolvers and arbiters
    // ------------------------------------------------------------------------------------------------

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
    function queueArbiter(address arbiter) external onlyOwner {
        _queueArbiter(arbiter);
    }

    /// @inheritdoc IMarketGovernance
    function removeArbiter(address arbiter) external onlyOwner {
        if (_arbiterFrom[arbiter] == 0) return;
        delete _arbiterFrom[arbiter];
        emit ArbiterRemoved(arbiter);
    }

    /// @inheritdoc IMarketGovernance
    function queueDefaultArbiter(IArbiter arbiter) external onlyOwner {
        _queueArbiter(address(arbiter));
        uint64 at = _activationTime();
        emit DefaultArbiterQueued(address(arbiter), at);
        _pendingArbiter = arbiter;
        _pendingArbiterAt = at;
        if (at <= block.timestamp) _applyPendingArbiter();
    }

    /// @inheritdoc IMarketGovernance
    function queueFallbackArbiter(address arbiter) external onlyOwner {
        _queueArbiter(arbiter);
        uint64 at = _activationTime();
        emit FallbackArbiterQueued(arbiter, at);
        if (at <= block.timestamp) {
            _fallback = arbiter;
            delete _pendingFallback;
            delete _pendingFallbackAt;
            emit FallbackArbiterUpdated(arbiter);
        } else {
            _pendingFallback = arbiter;
            _pendingFallbackAt = at;
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Defaults and bond range
    // ------------------------------------------------------------------------------------------------

    /// @inheritdoc IMarketGovernance
    function setDefaults(uint96 minStake, uint8 maxWorkers, uint32 gracePeriod, uint32 disputeWindow, uint96 bond)
        external
        onlyOwner
    {
        _checkDefaults(minStake, maxWorkers, gracePeriod, disputeWindow, bond);
        uint64 at = _activationTime();
        emit DefaultsQueued(minStake, maxWorkers, gracePeriod, disputeWindow, bond, at);
        _pendingDefaults = PendingDefaults(minStake, maxWorkers, gracePeriod, disputeWindow, bond, at);
        if (at <= block.timestamp) _applyPendingDefaults();
    }

    /// @inheritdoc IMarketGovernance
    function setBondRange(uint96 min, uint96 max) external onlyOwner {
        if (min < MIN_BOND || max < min) revert BondRangeInvalid(min, max);
        uint64 at = _activationTime();
        emit BondRangeQueued(min, max, at);
        _pendingBondRange = BondRange(min, max, at);
        if (at <= block.timestamp) _applyPendingBondRange();
    }

    /// @inheritdoc IMarketGovernance
    function applyQueued() public {
        if (_due(_pendingArbiterAt)) _applyPendingArbiter();
        if (_due(_pendingDefaults.at)) _applyPendingDefaults();
        if (_due(_pendingBondRange.at)) _applyPendingBondRange();
        if (_due(_pendingFallbackAt)) {
            address f = _pendingFallback;
            _fallback = f;
            delete _pendingFallback;
            delete _pendingFallbackAt;
            emit FallbackArbiterUpdated(f);
        }
    }

    /// @inheritdoc IMarketGovernance
    function applyDefaultArbiter() external {
        if (address(_pendingArbiter) == address(0)) revert NothingQueued();
        if (block.timestamp < _pendingArbiterAt) revert TimelockNotOver(_pendingArbiterAt);
        _applyPendingArbiter();
    }

    /// @inheritdoc IMarketGovernance
    function closeBootstrap() external onlyOwner {
        _closeBootstrap();
    }

    // ------------------------------------------------------------------------------------------------
    // Market creation
    // ------------------------------------------------------------------------------------------------

    /// @inheritdoc IMarketGovernance
    function snapshotConfig(
        IResolutionMarket.MarketParams calldata p,
        uint256 questionLength,
        uint64 deadline,
        uint256 pool
    ) external returns (IResolutionMarket.MarketConfig memory c, address fallbackArbiter_) {
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
        _closeBootstrap();
        applyQueued();
        c = _defaults;
        if (address(p.arbiter) != address(0)) c.arbiter = p.arbiter;
        if (address(c.arbiter).code.length == 0) revert ArbiterNotAContract(address(c.arbiter));
        if (!isArbiterAllowed(address(c.arbiter))) revert ArbiterNotAllowed(address(c.arbiter));
        if (p.minStake != 0) c.minStake = p.minStake;
        if (p.maxWorkers != 0) c.maxWorkers = p.maxWorkers;
        if (p.disputeWindow != 0) c.disputeWindow = p.disputeWindow;
        if (p.bond != 0) c.bond = p.bond;
        _checkBounds(c.minStake, c.maxWorkers, c.disputeWindow, c.bond);
        if (c.bond > _bondRange.max) revert BondOutOfRange(c.bond);
        if (c.bond < _bondRange.min) revert BondOutOfRange(c.bond);
        fallbackArbiter_ = fallbackFor(address(c.arbiter));
    }

    /// @notice Disabled: without an owner no resolver could ever be queued again.
    function renounceOwnership() public view override onlyOwner {
        revert RenounceOwnershipDisabled();
    }

    // ------------------------------------------------------------------------------------------------
    // Views
    // ------------------------------------------------------------------------------------------------

    /// @inheritdoc IMarketGovernance
    function getDefaults() external view returns (IResolutionMarket.MarketConfig memory d) {
        d = _defaults;
        if (_due(_pendingArbiterAt)) d.arbiter = _pendingArbiter;
        PendingDefaults memory q = _pendingDefaults;
        if (_due(q.at)) (d.minStake, d.maxWorkers, d.gracePeriod, d.disputeWindow, d.bond) =
            (q.minStake, q.maxWorkers, q.gracePeriod, q.disputeWindow, q.bond);
    }

    /// @inheritdoc IMarketGovernance
    function pendingDefaults()
        external
        view
        returns (uint96 minStake, uint8 maxWorkers, uint32 gracePeriod, uint32 disputeWindow, uint96 bond, uint64 at)
    {
        PendingDefaults memory q = _pendingDefaults;
        return (q.minStake, q.maxWorkers, q.gracePeriod, q.disputeWindow, q.bond, q.at);
    }

    /// @inheritdoc IMarketGovernance
    function pendingDefaultArbiter() external view returns (IArbiter, uint64) {
        return (_pendingArbiter, _pendingArbiterAt);
    }

    /// @inheritdoc IMarketGovernance
    function resolverActiveFrom(address resolver) external view returns (uint64) {
        return _resolverFrom[resolver];
    }

    /// @inheritdoc IMarketGovernance
    function arbiterAllowedFrom(address arbiter) external view returns (uint64) {
        return _arbiterFrom[arbiter];
    }

    /// @inheritdoc IMarketGovernance
    function isArbiterAllowed(address arbiter) public view returns (bool) {
        uint64 from = _arbiterFrom[arbiter];
        return from != 0 && block.timestamp >= from;
    }

    /// @inheritdoc IMarketGovernance
    function bondRange() external view returns (uint96 min, uint96 max) {
        BondRange memory r = _due(_pendingBondRange.at) ? _pendingBondRange : _bondRange;
        return (r.min, r.max);
    }

    /// @inheritdoc IMarketGovernance
    function pendingBondRange() external view returns (uint96 min, uint96 max, uint64 at) {
        BondRange memory r = _pendingBondRange;
        return (r.min, r.max, r.at);
    }

    /// @inheritdoc IMarketGovernance
    function fallbackArbiter() external view returns (address) {
        return _due(_pendingFallbackAt) ? _pendingFallback : _fallback;
    }

    /// @inheritdoc IMarketGovernance
    function fallbackFor(address arbiter) public view returns (address f) {
        f = _due(_pendingFallbackAt) ? _pendingFallback : _fallback;
        if (f == arbiter || !isArbiterAllowed(f)) f = address(0);
    }

    /// @inheritdoc IMarketGovernance
    function disputeBond(uint256 marketId) external view returns (uint256) {
        IResolutionMarket.MarketInfo memory info = IResolutionMarket(market).getMarket(marketId);
        uint256 bond = IResolutionMarket(market).getMarketConfig(marketId).bond;
        return SettlementMath.disputeBond(bond, info.rewardPool + info.totalStake);
    }

    /// @inheritdoc IMarketGovernance
    function pendingFallbackArbiter() external view returns (address arbiter, uint64 effectiveAt) {
        return (_pendingFallback, _pendingFallbackAt);
    }

    /// @inheritdoc IMarketGovernance
    function bootstrapOpen() public view returns (bool) {
        return !_bootstrapOver && block.timestamp < bootstrapDeadline;
    }

    // ------------------------------------------------------------------------------------------------
    // Internals
    // ------------------------------------------------------------------------------------------------

    function _queueArbiter(address arbiter) private {
        if (arbiter.code.length == 0) revert ArbiterNotAContract(arbiter);
        if (_arbiterFrom[arbiter] != 0) return;
        uint64 from = _activationTime();
        _arbiterFrom[arbiter] = from;
        emit ArbiterQueued(arbiter, from);
    }

    function _closeBootstrap() private {
        if (_bootstrapOver) return;
        _bootstrapOver = true;
        emit BootstrapClosed(uint64(block.timestamp));
    }

    function _applyPendingArbiter() private {
        IArbiter arbiter = _pendingArbiter;
        _defaults.arbiter = arbiter;
        delete _pendingArbiter;
        delete _pendingArbiterAt;
        emit DefaultArbiterUpdated(address(arbiter));
    }

    function _applyPendingDefaults() private {
        PendingDefaults memory q = _pendingDefaults;
        delete _pendingDefaults;
        _setDefaults(q.minStake, q.maxWorkers, q.gracePeriod, q.disputeWindow, q.bond);
    }

    function _applyPendingBondRange() private {
        BondRange memory r = _pendingBondRange;
        delete _pendingBondRange;
        _bondRange = BondRange(r.min, r.max, 0);
        emit BondRangeUpdated(r.min, r.max);
    }

    /// @dev A queued change (`at` nonzero) whose time has come.
    function _due(uint64 at) private view returns (bool) {
        return at != 0 && block.timestamp >= at;
    }

    /// @dev Creation time from which a change queued now applies: now during the bootstrap, else after the delay.
    function _activationTime() private view returns (uint64) {
        return bootstrapOpen() ? uint64(block.timestamp) : uint64(block.timestamp) + RESOLVER_DELAY;
    }

    function _setDefaults(uint96 minStake, uint8 maxWorkers, uint32 gracePeriod, uint32 disputeWindow, uint96 bond)
        private
    {
        _checkDefaults(minStake, maxWorkers, gracePeriod, disputeWindow, bond);
        IResolutionMarket.MarketConfig storage d = _defaults;
        d.minStake = minStake;
        d.maxWorkers = maxWorkers;
        d.gracePeriod = gracePeriod;
        d.disputeWindow = disputeWindow;
        d.bond = bond;
        emit DefaultsUpdated(minStake, maxWorkers, gracePeriod, disputeWindow, bond);
    }

    function _checkDefaults(uint96 minStake, uint8 maxWorkers, uint32 gracePeriod, uint32 disputeWindow, uint96 bond)
        private
        pure
    {
        _checkBounds(minStake, maxWorkers, disputeWindow, bond);
        if (gracePeriod < MIN_GRACE_PERIOD || gracePeriod > MAX_GRACE_PERIOD) {
            revert GracePeriodOutOfRange(gracePeriod);
        }
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
