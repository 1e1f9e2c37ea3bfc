// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IResolutionMarket} from "./IResolutionMarket.sol";

/// @title The ERC-8004 feedback writer and per-agent reputation book of one resolution market
/// @notice Deployed by its market, which alone may write. It is the ERC-8004 client of every record
///         (`giveFeedback` comes from this contract's address: read summaries with it as the client). Records are
///         capped and failure-tolerant: a refused record is reported back to the market, which keeps it pending
///         for `retryFeedback`.
interface IMarketReputation {
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
        /// Enters the reputation book ({settle} only).
        bool scored;
        /// Write the `correctness` record.
        bool writeCorrectness;
        /// Write the `quality` record.
        bool writeQuality;
        /// The agent made this contract its operator: no call, both records reported failed.
        bool refused;
    }

    /// @notice An ERC-8004 record could not be written; it stays pending and `retryFeedback` can write it later.
    event FeedbackFailed(uint256 indexed marketId, uint256 indexed agentId, string tag, bytes reason);

    /// @notice Only the market that deployed this contract may call.
    error NotMarket(address caller);
    /// @notice A feedback call would not get its full gas cap (the caller sent too little gas for a retry).
    error FeedbackGasTooLow();
    /// @notice The reputation registry has no code.
    error NotAContract(address account);

    /// @notice The market at finalization of a Resolved market (`seats`: FeedbackCodec words in seat order): books
    ///         every `scored` seat, then writes the records
    ///         of the first `inlineSeats` seats as far as the gas allows.
    /// @return reached seats processed by the writer (from 0)
    /// @return failed bit 2i: seat i's correctness record failed, bit 2i+1: its quality record
    function settle(
        uint256 marketId,
        string calldata bundleURI,
        bytes32 bundleHash,
        uint256[] calldata seats,
        uint256 inlineSeats
    ) external returns (uint256 reached, uint256 failed);

    /// @notice The market (publishFeedback, retryFeedback): writes the records of `seats` as far as the gas allows;
    ///         with `strict`, reverts `FeedbackGasTooLow` instead of stopping.
    function write(uint256 marketId, string calldata bundleURI, bytes32 bundleHash, uint256[] calldata seats, bool strict)
        external
        returns (uint256 reached, uint256 failed);

    /// @notice Per-agent record in the market (only Resolved markets count).
    function getReputation(uint256 agentId) external view returns (IResolutionMarket.Reputation memory);
    /// @notice Settled seats and floor average correctness of `agentId` (TrackRecord admission).
    function settledAndCorrectness(uint256 agentId) external view returns (uint256 settled, uint256 correctness);
    /// @notice 100·(1 − Brier) of a Yes/No answer with `confidenceBps` against `outcome`, rounded half up.
    function correctnessOf(IResolutionMarket.Answer answer, uint16 confidenceBps, bool outcome)
        external
        pure
        returns (uint8);
    /// @notice The market this contract writes for (its deployer).
    function market() external view returns (address);
}
