// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAdmissionCounters} from "./IAdmissionCounters.sol";
import {IResolutionMarket} from "./IResolutionMarket.sol";

/// @title The ERC-8004 feedback writer and per-agent reputation book of one resolution market
/// @notice Deployed by its market, which alone may write. It is the ERC-8004 client of every record
///         (`giveFeedback` comes from this contract's address: read summaries with it as the client). Records are
///         capped and failure-tolerant: a refused record stays pending here for the permissionless
///         `retryFeedback`; the records of seats past the market's inline ones are written by the permissionless
///         `publishFeedback`, which reads each seat's values from the market (`IResolutionMarket.seatWords`).
interface IMarketReputation is IAdmissionCounters {
    /// @notice One seat's records and reputation observation (sent as FeedbackCodec words).
    struct SeatFeedback {
        uint256 agentId;
        /// 100·(1 − Brier) against the final outcome (0 for a failed seat).
        uint8 correctness;
        uint8 resQuality;
        uint8 srcQuality;
        uint8 analysisDepth;
        /// Yes/No answer (false: a failed seat, which gets only a correctness record of 0).
        bool answered;
        /// Enters the reputation book (not an abstention; {settle} only).
        bool scored;
        /// Write the `correctness` record.
        bool writeCorrectness;
        /// Write the `quality` record.
        bool writeQuality;
        /// The agent made this contract its operator: no call, both records reported failed.
        bool refused;
    }

    /// @notice An ERC-8004 record could not be written; it stays pending and `retryFeedback` can write it later.
    /// @param tag `correctness` or `quality`
    /// @param reason the registry's revert data, at most 256 bytes (or `MarketIsAgentOperator(agentId)`)
    event FeedbackFailed(uint256 indexed marketId, uint256 indexed agentId, string tag, bytes reason);
    /// @notice The records of seats `0..cursor-1` of a Resolved market have been attempted (of `total` seats);
    ///         emitted by `settle` when seats are left and by every `publishFeedback` that made progress.
    event FeedbackProgress(uint256 indexed marketId, uint256 cursor, uint256 total);
    /// @notice `retryFeedback` wrote `written` records of a seat; `stillPending` records remain refused.
    event FeedbackRetried(uint256 indexed marketId, uint256 indexed seat, uint256 written, uint256 stillPending);

    /// @notice Only the market that deployed this contract may call.
    error NotMarket(address caller);
    /// @notice A feedback call would not get its full gas cap (the caller sent too little gas for a retry).
    error FeedbackGasTooLow();
    /// @notice The reputation registry has no code.
    error NotAContract(address account);
    /// @notice `retryFeedback` on a seat with no pending record (never processed, all written, or out of range).
    error NothingPending(uint256 marketId, uint256 seat);

    /// @notice The market at finalization of a Resolved market (`seatWords` in seat order, the layout of
    ///         `IResolutionMarket.seatWords`): books every seat that did not abstain, writes the records of the
    ///         first `inlineSeats` seats as far as the gas allows, keeps failed records pending and the rest for
    ///         `publishFeedback`.
    function settle(
        uint256 marketId,
        bool outcome,
        string calldata bundleURI,
        bytes32 bundleHash,
        uint256[] calldata seatWords,
        uint256 inlineSeats
    ) external;

    /// @notice Permissionless: writes the ERC-8004 records of the next seats (at most `maxWorkers`) of a Resolved
    ///         market whose finalization left some; stops early when the remaining gas could not give the next
    ///         seat's calls their full cap. Give it an explicit gas limit.
    /// @return published seats processed by this call
    function publishFeedback(uint256 marketId, uint256 maxWorkers) external returns (uint256 published);

    /// @notice Permissionless: retries the pending (refused or failed) ERC-8004 records of one seat, e.g. after its
    ///         agent revoked the approval that made this contract its operator. Reverts `FeedbackGasTooLow` rather
    ///         than leave a record unattempted for lack of gas.
    /// @return written records written by this call
    function retryFeedback(uint256 marketId, uint256 seat) external returns (uint256 written);

    /// @notice Feedback progress of a market: seats whose records were attempted, and seats still waiting for
    ///         `publishFeedback` (both 0 before a Resolved finalization).
    function feedbackStatus(uint256 marketId) external view returns (uint256 cursor, uint256 pending);
    /// @notice Which records of a seat are pending for `retryFeedback`.
    function pendingFeedback(uint256 marketId, uint256 seat) external view returns (bool correctness, bool quality);

    /// @notice Per-agent record in the market (only Resolved markets count).
    function getReputation(uint256 agentId) external view returns (IResolutionMarket.Reputation memory);
    /// @notice 100·(1 − Brier) of a Yes/No answer with `confidenceBps` against `outcome`, rounded half up.
    function correctnessOf(IResolutionMarket.Answer answer, uint16 confidenceBps, bool outcome)
        external
        pure
        returns (uint8);
    /// @notice The market this contract writes for (its deployer).
    function market() external view returns (address);
}
