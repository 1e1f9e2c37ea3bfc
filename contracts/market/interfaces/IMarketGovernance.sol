// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IArbiter} from "./IArbiter.sol";
import {IMarketBoundErrors} from "./IMarketBoundErrors.sol";
import {IResolutionMarket} from "./IResolutionMarket.sol";

/// @title The bounded owner of one resolution market, deployed by that market
/// @notice Timelocked resolvers, arbiter allow-list, default and fallback arbiter, defaults and bond range of
///         markets created later (every change waits RESOLVER_DELAY once the deployment bootstrap is closed). The
///         market reads it when a market is created ({snapshotConfig}) and snapshots the result per market; proposals check
///         {resolverActiveFrom} against the market's creation time. The owner can never move funds, change a live
///         market's settings, nor decide a market.
interface IMarketGovernance is IMarketBoundErrors {
    /// @notice `resolver` may propose on markets created at or after `activeFrom`.
    event ResolverQueued(address indexed resolver, uint64 activeFrom);
    /// @notice `resolver` may no longer propose.
    event ResolverRemoved(address indexed resolver);
    /// @notice `arbiter` becomes the default arbiter of markets created at or after `effectiveAt`.
    event DefaultArbiterQueued(address indexed arbiter, uint64 effectiveAt);
    /// @notice The default arbiter changed.
    event DefaultArbiterUpdated(address indexed arbiter);
    /// @notice The defaults of markets created from now on changed.
    event DefaultsUpdated(uint96 minStake, uint8 maxWorkers, uint32 gracePeriod, uint32 disputeWindow, uint96 bond);
    /// @notice New defaults apply to markets created at or after `effectiveAt` (replaces queued ones).
    event DefaultsQueued(
        uint96 minStake, uint8 maxWorkers, uint32 gracePeriod, uint32 disputeWindow, uint96 bond, uint64 effectiveAt
    );
    /// @notice `arbiter` may arbitrate markets created at or after `activeFrom` (the arbiter allow-list).
    event ArbiterQueued(address indexed arbiter, uint64 activeFrom);
    /// @notice `arbiter` is off the allow-list: no new market may name it (markets already created keep it).
    event ArbiterRemoved(address indexed arbiter);
    /// @notice `arbiter` becomes the fallback arbiter at `effectiveAt`.
    event FallbackArbiterQueued(address indexed arbiter, uint64 effectiveAt);
    /// @notice The fallback arbiter changed.
    event FallbackArbiterUpdated(address indexed arbiter);
    /// @notice The bond range of markets created at or after `effectiveAt` will be [min, max].
    event BondRangeQueued(uint96 min, uint96 max, uint64 effectiveAt);
    /// @notice The bond range of markets created from now on is [min, max].
    event BondRangeUpdated(uint96 min, uint96 max);
    /// @notice The deployment bootstrap ended (first market, {closeBootstrap}); every change now waits the delay.
    event BootstrapClosed(uint64 at);

    /// @notice Nothing is queued to apply.
    error NothingQueued();
    /// @notice The queued change applies only from `effectiveAt`.
    error TimelockNotOver(uint256 effectiveAt);
    /// @notice Ownership cannot be renounced (no resolver could ever be queued again).
    error RenounceOwnershipDisabled();
    /// @notice Only the market that deployed this contract may call.
    error NotMarket(address caller);
    /// @notice Grace period outside [MIN_GRACE_PERIOD, MAX_GRACE_PERIOD].
    error GracePeriodOutOfRange(uint256 value);
    /// @notice A bond range below MIN_BOND or with max < min.
    error BondRangeInvalid(uint256 min, uint256 max);

    /// @notice The market this contract governs (its deployer).
    function market() external view returns (address);

    /// @notice Queues `resolver`: it may propose on markets created at or after `now + RESOLVER_DELAY`
    ///         (immediately while no market exists yet). No-op if already queued.
    function queueResolver(address resolver) external;

    /// @notice Revokes `resolver` at once. It can only stall markets, and after their grace period anyone may
    ///         propose on them with the bond (no owner stall).
    function removeResolver(address resolver) external;

    /// @notice Puts `arbiter` (a contract) on the allow-list for markets created at or after `now + RESOLVER_DELAY`
    ///         (immediately during the bootstrap). No-op if already on it.
    function queueArbiter(address arbiter) external;

    /// @notice Takes `arbiter` off the allow-list at once: new markets cannot name it, settlers stop trusting it;
    ///         markets already created keep it as their arbiter.
    function removeArbiter(address arbiter) external;

    /// @notice Queues the fallback arbiter (put on the allow-list too), which rules a dispute the market's arbiter
    ///         left silent; applies at `now + RESOLVER_DELAY` (immediately during the bootstrap).
    function queueFallbackArbiter(address arbiter) external;

    /// @notice Queues the bond range [min, max] of markets created at or after `now + RESOLVER_DELAY` (immediately
    ///         during the bootstrap). Replaces a queued one.
    function setBondRange(uint96 min, uint96 max) external;

    /// @notice Anyone: applies every queued default, default or fallback arbiter and bond range whose time has come
    ///         (also done at each market creation).
    function applyQueued() external;

    /// @notice Ends the deployment bootstrap now (it also ends at the first market and at `bootstrapDeadline`).
    function closeBootstrap() external;

    /// @notice Queues the default arbiter of markets created after `now + RESOLVER_DELAY` (immediately during the
    ///         bootstrap) and puts it on the allow-list ({queueArbiter}). Replaces a queued one.
    function queueDefaultArbiter(IArbiter arbiter) external;

    /// @notice Anyone: applies the queued default arbiter once its timelock is over (also done lazily at creation).
    function applyDefaultArbiter() external;

    /// @notice Queues the defaults of markets created at or after `now + RESOLVER_DELAY` (immediately during the
    ///         bootstrap); replaces queued ones. Markets snapshot them at creation.
    function setDefaults(uint96 minStake, uint8 maxWorkers, uint32 gracePeriod, uint32 disputeWindow, uint96 bond)
        external;

    /// @notice The market only, at creation: validates the new market (reward pool `pool`, question length,
    ///         deadline, allow-list length) and returns its settings from the creator's `params` (zero fields take
    ///         the defaults), bounds checked; the arbiter must be allowed ({ArbiterNotAllowed}) and the bond inside
    ///         {bondRange} ({BondOutOfRange}); applies due queued changes and ends the bootstrap.
    /// @return config the snapshot (`createdAt`, admission fields and the allow-list are the market's business)
    /// @return fallbackArbiter the market's fallback arbiter ({fallbackFor} its arbiter; zero: none)
    function snapshotConfig(
        IResolutionMarket.MarketParams calldata params,
        uint256 questionLength,
        uint64 deadline,
        uint256 pool
    )
        external
        returns (IResolutionMarket.MarketConfig memory config, address fallbackArbiter);

    /// @notice The settings a market created now with zero params would get (`createdAt` = 0, admission Open),
    ///         due queued changes included.
    function getDefaults() external view returns (IResolutionMarket.MarketConfig memory);
    /// @notice Queued defaults and when they apply (`effectiveAt` 0: none).
    function pendingDefaults()
        external
        view
        returns (
            uint96 minStake,
            uint8 maxWorkers,
            uint32 gracePeriod,
            uint32 disputeWindow,
            uint96 bond,
            uint64 effectiveAt
        );
    /// @notice Whether `arbiter` is on the allow-list now (queued and its delay over).
    function isArbiterAllowed(address arbiter) external view returns (bool);
    /// @notice When `arbiter` joined (or joins) the allow-list (0 = not on it).
    function arbiterAllowedFrom(address arbiter) external view returns (uint64);
    /// @notice The bond range a market created now must fit (due queued range included).
    function bondRange() external view returns (uint96 min, uint96 max);
    /// @notice The queued bond range and when it applies (`effectiveAt` 0: none).
    function pendingBondRange() external view returns (uint96 min, uint96 max, uint64 effectiveAt);
    /// @notice The deployment's fallback arbiter now (zero: none), due queued one included.
    function fallbackArbiter() external view returns (address);
    /// @notice The fallback a market with `arbiter` snapshots at creation: the fallback arbiter now, or zero when
    ///         it is unset, the same as `arbiter` or no longer allowed (escalating to it would be pointless).
    function fallbackFor(address arbiter) external view returns (address);
    /// @notice What disputing `marketId` costs (the `msg.value` of `market.dispute`): its bond plus
    ///         SettlementMath.DISPUTE_BOND_BPS (10 %) of its reward pool and stakes, rounded up; the proposer's bond
    ///         is the bond alone. Reverts like `market.getMarket` for an unknown market.
    function disputeBond(uint256 marketId) external view returns (uint256);
    /// @notice The queued fallback arbiter and when it applies (zero if none).
    function pendingFallbackArbiter() external view returns (address arbiter, uint64 effectiveAt);
    /// @notice Whether changes still apply at once (no market yet, not closed, before `bootstrapDeadline`).
    function bootstrapOpen() external view returns (bool);
    /// @notice The latest time the bootstrap can last (deployment + BOOTSTRAP_WINDOW).
    function bootstrapDeadline() external view returns (uint64);
    /// @notice The queued default arbiter and when it applies (zero if none).
    function pendingDefaultArbiter() external view returns (IArbiter arbiter, uint64 effectiveAt);
    /// @notice Markets created at or after this time accept proposals from `resolver` (0 = not a resolver).
    function resolverActiveFrom(address resolver) external view returns (uint64);
}
