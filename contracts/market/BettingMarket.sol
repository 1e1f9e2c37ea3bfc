// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {IResolutionMarket} from "./interfaces/IResolutionMarket.sol";
import {SettlementMath} from "./libraries/SettlementMath.sol";

/// @title Binary YES/NO betting on the outcome of a ResolutionMarket question
/// @author cresolver
/// @notice Anyone can bet on YES or NO of a resolution market while that market is Open and before its
///         deadline. Once the resolution market reaches a final status, every bettor claims on their own:
///         - **Resolved** with at least one wei on the winning side: each winner receives their winning stake
///           plus a share of the losing side proportional to that stake (losers get nothing);
///         - **Resolved** with nobody on the winning side, **Invalid** or **Cancelled**: every bet is refunded.
///         There is no settlement step, no fee and no admin: nobody's payout depends on who calls first.
///         **Pool cap**: a market's betting pool (YES + NO) is at most `SettlementMath.bettingCap(bond)`, ten times
///         the market's snapshotted bond, so the dispute bond (that bond plus 10 % of the reward pool and stakes,
///         `IResolutionMarket.disputeBond`) always covers 10 % of everything a dispute can move, bets included. The
///         cap depends only on the creation-time bond, which nobody can change afterwards, so no contract can raise
///         or lower another market's bond or cap; a creator who wants a larger pool picks a larger bond.
/// @dev Accounting and the rounding rule.
///      Let `T = yesPool + noPool` and `W` the winning pool. A winner with winning stake `s` is owed
///      `floor(s * T / W)`, except the claim that brings `claimedWinningStake` up to exactly `W` (the last
///      winning claim, whichever bettor it is), which receives `T - paidToWinners` instead, i.e. its own share
///      plus all rounding dust of the earlier claims (strictly less than one wei per earlier winner).
///      Hence once every winner has claimed, exactly `T` has been paid out for that market: nothing stays
///      behind. Every share other than the last one is independent of the claim order, and the last share is
///      never below its exact proportional value.
///      Refunds return `yesStake + noStake` exactly, so they too sum to `T`.
///      `totalOwed` is the sum over all markets of stakes not yet paid out; the contract has no `receive`,
///      so its balance equals `totalOwed` (plus only ETH forced in by `selfdestruct`/coinbase, owed to nobody).
///      Only Resolved, Invalid and Cancelled are final; Proposed and Disputed are not (the outcome may still be
///      overturned). Liveness relies on the resolution market's own guarantee that every market reaches a final
///      status (anyone may `requestResolution` after the deadline, `finalize` after the dispute window,
///      `expireDispute` after the arbitration timeout, and `requestCancel`/`cancelStale` after the grace period).
contract BettingMarket is ReentrancyGuard {
    /// @notice The two sides of a binary bet. `Yes` wins when the resolution market resolves `true`.
    enum Side {
        No,
        Yes
    }

    /// @notice How a market's bets are settled, derived from the resolution market's status.
    enum Settlement {
        /// The resolution market is not final yet (None, Open, ResolutionRequested, Proposed or Disputed: a
        /// proposal can still be disputed and overturned): nothing to claim.
        Pending,
        /// Resolved with a non-empty winning side: winners share the whole pool.
        Payout,
        /// Invalid, Cancelled, or Resolved with an empty winning side: every bet is refunded.
        Refund
    }

    /// @notice Per-market totals.
    struct Pool {
        uint256 yesPool;
        uint256 noPool;
        /// Sum of the winning stakes already claimed (Payout settlement only).
        uint256 claimedWinningStake;
        /// Sum paid to winners so far (Payout settlement only).
        uint256 paidToWinners;
    }

    /// @notice One bettor's position in one market.
    struct Position {
        uint256 yesStake;
        uint256 noStake;
        bool claimed;
    }

    /// @notice The resolution market whose questions are bet on. Fixed for the contract's lifetime.
    IResolutionMarket public immutable resolutionMarket;

    /// @notice Sum of all stakes not yet paid out, over every market. Equals the ETH this contract owes.
    uint256 public totalOwed;

    mapping(uint256 marketId => Pool) private _pools;
    mapping(uint256 marketId => mapping(address bettor => Position)) private _positions;

    /// @notice A bet was placed (or added to an existing position on the same side).
    /// @param positionOnSide the bettor's accumulated stake on `side` after this bet
    /// @param poolOnSide the market's total on `side` after this bet
    event BetPlaced(
        uint256 indexed marketId,
        address indexed bettor,
        Side indexed side,
        uint256 amount,
        uint256 positionOnSide,
        uint256 poolOnSide
    );

    /// @notice A bettor's payout or refund was sent.
    /// @param refund true when the market settles by refunding every bet, false for a winner's payout
    event Claimed(
        uint256 indexed marketId, address indexed bettor, address indexed recipient, uint256 amount, bool refund
    );

    /// @notice The resolution market address has no code.
    error InvalidResolutionMarket(address market);
    /// @notice A bet must carry ETH.
    error ZeroBet();
    /// @notice Bets are only taken while the resolution market is Open.
    error MarketNotOpen(uint256 marketId, IResolutionMarket.Status status);
    /// @notice Bets are only taken strictly before the resolution market's deadline.
    error BettingClosed(uint256 marketId, uint64 deadline);
    /// @notice The bet would push the market's betting pool past what its dispute bond covers (`cap`).
    error PoolCapExceeded(uint256 marketId, uint256 cap);
    /// @notice The resolution market has not reached a final status yet.
    error MarketNotFinal(uint256 marketId, IResolutionMarket.Status status);
    /// @notice The bettor already claimed in this market.
    error AlreadyClaimed(uint256 marketId, address bettor);
    /// @notice The bettor has no winning stake (Payout) or no stake at all (Refund) in this market.
    error NothingToClaim(uint256 marketId, address bettor);
    /// @notice `claimTo` needs a recipient.
    error ZeroRecipient();
    /// @notice Sending ETH to the recipient failed; the claim is rolled back and can be retried.
    error TransferFailed(address recipient, uint256 amount);

    /// @param market_ the ResolutionMarket whose outcomes settle the bets
    constructor(IResolutionMarket market_) {
        if (address(market_).code.length == 0) revert InvalidResolutionMarket(address(market_));
        resolutionMarket = market_;
    }

    // ------------------------------------------------------------------------------------------------
    // Betting
    // ------------------------------------------------------------------------------------------------

    /// @notice Bet `msg.value` on `side` of `marketId`. Repeated bets on a side accumulate.
    /// @dev Accepted only while the resolution market is Open and `block.timestamp < deadline`, i.e. before
    ///      the question's outcome is meant to be knowable and before the worker set can be frozen.
    function bet(uint256 marketId, Side side) external payable nonReentrant {
        if (msg.value == 0) revert ZeroBet();
        (IResolutionMarket.Status status, uint64 deadline,) = _readMarket(marketId);
        if (status != IResolutionMarket.Status.Open) revert MarketNotOpen(marketId, status);
        if (block.timestamp >= deadline) revert BettingClosed(marketId, deadline);

        Pool storage pool = _pools[marketId];
        uint256 cap = poolCap(marketId);
        if (pool.yesPool + pool.noPool + msg.value > cap) revert PoolCapExceeded(marketId, cap);
        Position storage pos = _positions[marketId][msg.sender];
        uint256 positionOnSide;
        uint256 poolOnSide;
        if (side == Side.Yes) {
            positionOnSide = pos.yesStake += msg.value;
            poolOnSide = pool.yesPool += msg.value;
        } else {
            positionOnSide = pos.noStake += msg.value;
            poolOnSide = pool.noPool += msg.value;
        }
        totalOwed += msg.value;
        emit BetPlaced(marketId, msg.sender, side, msg.value, positionOnSide, poolOnSide);
    }

    // ------------------------------------------------------------------------------------------------
    // Claiming
    // ------------------------------------------------------------------------------------------------

    /// @notice Send the caller's payout (winner) or refund for `marketId` to the caller.
    /// @return amount the wei sent
    function claim(uint256 marketId) external nonReentrant returns (uint256 amount) {
        return _claim(marketId, msg.sender, msg.sender);
    }

    /// @notice Same as {claim} but sends the ETH to `recipient` (for bettor contracts that cannot receive ETH).
    /// @return amount the wei sent
    function claimTo(uint256 marketId, address recipient) external nonReentrant returns (uint256 amount) {
        if (recipient == address(0)) revert ZeroRecipient();
        return _claim(marketId, msg.sender, recipient);
    }

    /// @dev Checks, then all state updates, then the single external call (CEI, plus the reentrancy guard).
    function _claim(uint256 marketId, address bettor, address recipient) private returns (uint256 amount) {
        Position storage pos = _positions[marketId][bettor];
        if (pos.claimed) revert AlreadyClaimed(marketId, bettor);
        Pool storage pool = _pools[marketId];
        (Settlement settlement, bool outcome, IResolutionMarket.Status status) = _settlement(marketId, pool);
        if (settlement == Settlement.Pending) revert MarketNotFinal(marketId, status);

        bool refund = settlement == Settlement.Refund;
        if (refund) {
            amount = pos.yesStake + pos.noStake;
            if (amount == 0) revert NothingToClaim(marketId, bettor);
        } else {
            uint256 stake = outcome ? pos.yesStake : pos.noStake;
            if (stake == 0) revert NothingToClaim(marketId, bettor);
            uint256 winningPool = outcome ? pool.yesPool : pool.noPool;
            uint256 total = pool.yesPool + pool.noPool;
            uint256 claimedStake = pool.claimedWinningStake + stake;
            // The claim completing the winning stake takes the remainder: the pool is paid out to the wei.
            amount = claimedStake == winningPool ? total - pool.paidToWinners : Math.mulDiv(stake, total, winningPool);
            pool.claimedWinningStake = claimedStake;
            pool.paidToWinners += amount;
        }
        pos.claimed = true;
        totalOwed -= amount;
        emit Claimed(marketId, bettor, recipient, amount, refund);

        (bool ok,) = recipient.call{value: amount}("");
        if (!ok) revert TransferFailed(recipient, amount);
    }

    // ------------------------------------------------------------------------------------------------
    // Views
    // ------------------------------------------------------------------------------------------------

    /// @notice The market's YES and NO totals and, once paying out, the winners' progress.
    function getPool(uint256 marketId)
        external
        view
        returns (uint256 yesPool, uint256 noPool, uint256 claimedWinningStake, uint256 paidToWinners)
    {
        Pool storage pool = _pools[marketId];
        return (pool.yesPool, pool.noPool, pool.claimedWinningStake, pool.paidToWinners);
    }

    /// @notice The largest betting pool `marketId` takes: ten times its snapshotted bond (0 for a market the
    ///         resolution market does not know).
    function poolCap(uint256 marketId) public view returns (uint256) {
        try resolutionMarket.getMarketConfig(marketId) returns (IResolutionMarket.MarketConfig memory c) {
            return SettlementMath.bettingCap(c.bond);
        } catch {
            return 0;
        }
    }

    /// @notice A bettor's accumulated stakes on each side and whether they already claimed.
    function getPosition(uint256 marketId, address bettor)
        external
        view
        returns (uint256 yesStake, uint256 noStake, bool claimed)
    {
        Position storage pos = _positions[marketId][bettor];
        return (pos.yesStake, pos.noStake, pos.claimed);
    }

    /// @notice How the market's bets settle now, and the outcome when it pays out (`true` = YES won).
    function settlementOf(uint256 marketId) external view returns (Settlement settlement, bool outcome) {
        (settlement, outcome,) = _settlement(marketId, _pools[marketId]);
    }

    /// @notice What `claim(marketId)` by `bettor` would send right now (0 if nothing, pending or claimed).
    function claimable(uint256 marketId, address bettor) external view returns (uint256) {
        Position storage pos = _positions[marketId][bettor];
        if (pos.claimed) return 0;
        Pool storage pool = _pools[marketId];
        (Settlement settlement, bool outcome,) = _settlement(marketId, pool);
        if (settlement == Settlement.Pending) return 0;
        if (settlement == Settlement.Refund) return pos.yesStake + pos.noStake;
        uint256 stake = outcome ? pos.yesStake : pos.noStake;
        if (stake == 0) return 0;
        uint256 winningPool = outcome ? pool.yesPool : pool.noPool;
        uint256 total = pool.yesPool + pool.noPool;
        if (pool.claimedWinningStake + stake == winningPool) return total - pool.paidToWinners;
        return Math.mulDiv(stake, total, winningPool);
    }

    /// @dev Reads the resolution market; `outcome` is meaningful only for `Payout`.
    function _settlement(uint256 marketId, Pool storage pool)
        private
        view
        returns (Settlement settlement, bool outcome, IResolutionMarket.Status status)
    {
        bool marketOutcome;
        (status,, marketOutcome) = _readMarket(marketId);
        if (status == IResolutionMarket.Status.Resolved) {
            outcome = marketOutcome;
            uint256 winningPool = outcome ? pool.yesPool : pool.noPool;
            settlement = winningPool == 0 ? Settlement.Refund : Settlement.Payout;
        } else if (status == IResolutionMarket.Status.Invalid || status == IResolutionMarket.Status.Cancelled) {
            settlement = Settlement.Refund;
        } else {
            settlement = Settlement.Pending;
        }
    }

    /// @dev Status, deadline and outcome of a resolution market. A market the resolution market does not know
    ///      (its `getMarket` reverts, as ResolutionMarket does for unknown ids) reads as `Status.None`, so
    ///      unknown ids behave the same whatever the market implementation: no bets, nothing to claim.
    function _readMarket(uint256 marketId)
        private
        view
        returns (IResolutionMarket.Status status, uint64 deadline, bool outcome)
    {
        try resolutionMarket.getMarket(marketId) returns (IResolutionMarket.MarketInfo memory info) {
            return (info.status, info.deadline, info.outcome);
        } catch {
            return (IResolutionMarket.Status.None, 0, false);
        }
    }
}
