// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IArbiter} from "../../market/interfaces/IArbiter.sol";
import {IResolutionMarket} from "../../market/interfaces/IResolutionMarket.sol";
import {IOptimisticOracleV3, IOptimisticOracleV3CallbackRecipient} from "./IOptimisticOracleV3.sol";
import {IArbiterMarkets} from "./IArbiterMarkets.sol";

/// @title Arbiter that turns a dispute into an assertion on UMA's Optimistic Oracle V3
/// @notice On `onDispute` the disputer's claim ("market M #id: the outcome is X") is asserted on OOv3 with the
///         disputer as asserter and UMA's bond pulled from the disputer. If nobody counters it within the
///         liveness the claim stands; if someone (the proposer's side) disputes it on OOv3, UMA's DVM votes.
///         OOv3's settlement callback rules: claim true -> the disputer's verdict, false -> the proposal's.
///         As a market's fallback arbiter (an escalation), a bond that cannot be pulled does not refuse the case:
///         the claim awaits its bond for `FUNDING_WINDOW`; anyone may fund it (`fundAssertion`, becoming the
///         asserter), and if nobody does, anyone delivers "the proposal stands" (`ruleAbandoned`).
interface IUmaArbiter is IArbiter, IArbiterMarkets, IOptimisticOracleV3CallbackRecipient {
    enum CaseStatus {
        None,
        /// Claim asserted on OOv3, waiting for its settlement.
        Asserted,
        /// OOv3 settled but the market refused the ruling (e.g. OOG or a market-side revert); `retryRuling` sends it.
        RulingPending,
        /// The market accepted the ruling.
        Ruled,
        /// An escalated case whose UMA bond the disputer did not post: anyone may fund the claim until
        /// `fundingEndsAt` (`fundAssertion`); after it, `ruleAbandoned` rules for the proposal.
        AwaitingBond
    }

    struct Case {
        CaseStatus status;
        IResolutionMarket.Verdict proposed;
        IResolutionMarket.Verdict claimed;
        /// Set once OOv3 settled.
        IResolutionMarket.Verdict ruling;
        /// Someone countered the assertion on OOv3 (the DVM decides).
        bool assertionDisputed;
        /// OOv3's answer once settled.
        bool assertedTruthfully;
        address disputer;
        /// Who posted UMA's bond and gets it back if the claim stands: the disputer, or whoever funded the claim.
        address asserter;
        /// End of the funding window of an `AwaitingBond` case (0 when the bond was pulled at once).
        uint64 fundingEndsAt;
        uint256 umaBond;
        bytes32 assertionId;
    }

    /// @notice The disputer's claim is on OOv3; `claim` is the exact text UMA's voters read; `asserter` posted UMA's
    ///         bond (the disputer, or whoever funded an escalated claim).
    event ClaimAsserted(
        address indexed market,
        uint256 indexed marketId,
        bytes32 indexed assertionId,
        address asserter,
        uint256 umaBond,
        uint64 expiresAt,
        bytes claim
    );
    /// @notice An escalated case whose UMA bond could not be pulled from `disputer`: the claim waits for anyone to
    ///         fund `umaBond` of `currency` until `fundingEndsAt`.
    event ClaimAwaitingBond(
        address indexed market, uint256 indexed marketId, address disputer, uint256 umaBond, uint64 fundingEndsAt
    );
    /// @notice Nobody funded an escalated claim in its window: the disputer abandoned it, the proposal stands.
    event ClaimAbandoned(address indexed market, uint256 indexed marketId, IResolutionMarket.Verdict ruling);
    /// @notice The assertion was countered on OOv3: UMA's DVM decides.
    event AssertionEscalated(address indexed market, uint256 indexed marketId, bytes32 indexed assertionId);
    /// @notice OOv3 settled the assertion; `ruling` is what the market is told.
    event AssertionSettled(
        address indexed market, uint256 indexed marketId, bytes32 indexed assertionId, bool assertedTruthfully, IResolutionMarket.Verdict ruling
    );
    /// @notice The market accepted the ruling that OOv3 settled (or that `retryRuling` sent again).
    event RulingDelivered(address indexed market, uint256 indexed marketId, IResolutionMarket.Verdict ruling);
    /// @notice The market refused the ruling inside OOv3's callback; the ruling is kept for `retryRuling`.
    event RulingDeliveryFailed(address indexed market, uint256 indexed marketId, bytes reason);

    /// @notice The liveness is outside [`min`, `max`].
    error LivenessOutOfRange(uint64 liveness, uint64 min, uint64 max);
    /// @notice OOv3 does not accept this bond currency (not on UMA's collateral whitelist): every dispute would revert.
    error CurrencyNotSupported(address currency);
    /// @notice OOv3's default identifier is not on UMA's identifier whitelist: every dispute would revert.
    error IdentifierNotSupported(bytes32 identifier);
    /// @notice Only the configured OOv3 may call back.
    error NotOracle(address caller);
    /// @notice OOv3 called back for an assertion this arbiter did not make.
    error UnknownAssertion(bytes32 assertionId);
    /// @notice The case is not in the status this call needs (asserted for a callback, ruling pending for a retry).
    error WrongCaseStatus(address market, uint256 marketId, CaseStatus status);
    /// @notice The settlement gave the market call too little gas; settle again with more.
    error RulingOutOfGas(address market, uint256 marketId);
    /// @notice The escalated claim's funding window ended at `endedAt`: it can no longer be funded (`ruleAbandoned`).
    error FundingWindowOver(address market, uint256 marketId, uint64 endedAt);
    /// @notice The escalated claim can still be funded until `endsAt`: it is not abandoned yet.
    error FundingWindowOpen(address market, uint256 marketId, uint64 endsAt);

    /// @notice Sends a ruling the market refused at settlement time again (anyone; reverts with the market's error).
    function retryRuling(address market, uint256 marketId) external;

    /// @notice Funds an escalated claim awaiting its bond (anyone, within its funding window): pulls `disputeBond()`
    ///         of `currency` from the caller, who becomes the asserter (UMA returns the bond to it if the claim
    ///         stands), and asserts the disputer's claim on OOv3.
    function fundAssertion(address market, uint256 marketId) external;

    /// @notice After an escalated claim's funding window, nobody having funded it (anyone): rules the proposal's
    ///         verdict (the disputer abandoned its claim and loses its dispute bond). Reverts with the market's error
    ///         if the market refuses.
    function ruleAbandoned(address market, uint256 marketId) external;

    /// @notice The UMA bond a disputer must approve to this contract before `dispute`: max(configured, OOv3 minimum).
    function disputeBond() external view returns (uint256);

    /// @notice The OOv3 assertion of a market's dispute (zero when none).
    function assertionIdOf(address market, uint256 marketId) external view returns (bytes32);

    function getCase(address market, uint256 marketId) external view returns (Case memory);

    /// @notice The (market, marketId) an assertion belongs to (zero market when unknown).
    function caseOfAssertion(bytes32 assertionId) external view returns (address market, uint256 marketId);

    function oracle() external view returns (IOptimisticOracleV3);
    function currency() external view returns (IERC20);
    function liveness() external view returns (uint64);
}
