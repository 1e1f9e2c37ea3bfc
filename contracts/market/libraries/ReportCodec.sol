// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IResolutionMarket} from "../interfaces/IResolutionMarket.sol";

/// @title The one encoding of a seat's stored report
/// @notice A seat keeps its report in 64 bits next to its agent id. Every read and write of that word goes
///         through {encode} / {decode} (named fields) or the single-purpose helpers below, which use the same
///         layout constants:
///         answer 0-7 | confidenceBps 8-23 | resQuality 24-31 | srcQuality 32-39 | analysisDepth 40-47 |
///         refused 50 | signed 51 (bits 48-49 are unused: pending records live in MarketReputation).
library ReportCodec {
    /// @notice A seat's report, its refusal and whether it was signed.
    struct Report {
        IResolutionMarket.Answer answer;
        uint16 confidenceBps;
        uint8 resQuality;
        uint8 srcQuality;
        uint8 analysisDepth;
        /// The agent had made the feedback writer its operator at finalization: no reward, records pending.
        bool refused;
        /// The agent signed the answer (EIP-712); false: attested by the proposer only.
        bool signed;
    }

    uint256 internal constant MAX_SCORE = 100;
    uint256 private constant CONFIDENCE_SHIFT = 8;
    uint256 private constant RES_SHIFT = 24;
    uint256 private constant SRC_SHIFT = 32;
    uint256 private constant DEPTH_SHIFT = 40;
    uint256 private constant REFUSED = 1 << 50;
    uint256 private constant SIGNED = 1 << 51;

    /// @notice Validates a proposal's report and encodes it (feedback flags clear). Yes/No: confidence in
    ///         [5000, 10000]; None/Abstained: confidence and scores 0; scores <= 100. Reverts `InvalidReport(index)`.
    function fromProposal(IResolutionMarket.WorkerReport calldata r, uint256 index, bool signed)
        internal
        pure
        returns (uint64)
    {
        // Packed straight from calldata (no Report in memory): this runs once per seat in every proposal.
        IResolutionMarket.Answer answer = r.answer;
        uint256 confidence = r.confidenceBps;
        uint256 res = r.resQuality;
        uint256 src = r.srcQuality;
        uint256 depth = r.analysisDepth;
        if (isYesNo(answer)) {
            if (confidence < 5_000 || confidence > 10_000 || res > MAX_SCORE || src > MAX_SCORE || depth > MAX_SCORE) {
                revert IResolutionMarket.InvalidReport(index);
            }
        } else if (confidence | res | src | depth != 0) {
            revert IResolutionMarket.InvalidReport(index);
        }
        uint256 word = uint256(answer) | (confidence << CONFIDENCE_SHIFT) | (res << RES_SHIFT) | (src << SRC_SHIFT)
            | (depth << DEPTH_SHIFT);
        if (signed) word |= SIGNED;
        return uint64(word);
    }

    /// @notice Packs a report into its stored word.
    function encode(Report memory r) internal pure returns (uint64) {
        uint256 word = uint256(r.answer) | (uint256(r.confidenceBps) << CONFIDENCE_SHIFT)
            | (uint256(r.resQuality) << RES_SHIFT) | (uint256(r.srcQuality) << SRC_SHIFT)
            | (uint256(r.analysisDepth) << DEPTH_SHIFT);
        if (r.refused) word |= REFUSED;
        if (r.signed) word |= SIGNED;
        return uint64(word);
    }

    /// @notice Unpacks a stored word.
    function decode(uint256 word) internal pure returns (Report memory r) {
        r.answer = IResolutionMarket.Answer(word & 0xff);
        r.confidenceBps = uint16(word >> CONFIDENCE_SHIFT);
        r.resQuality = uint8(word >> RES_SHIFT);
        r.srcQuality = uint8(word >> SRC_SHIFT);
        r.analysisDepth = uint8(word >> DEPTH_SHIFT);
        r.refused = word & REFUSED != 0;
        r.signed = word & SIGNED != 0;
    }

    /// @notice The fields of a stored word that the track record keeps (docs/RECORDS.md §3), without decoding the rest.
    function recordFields(uint256 word)
        internal
        pure
        returns (IResolutionMarket.Answer answer, uint16 confidenceBps, bool signed)
    {
        answer = IResolutionMarket.Answer(word & 0xff);
        confidenceBps = uint16(word >> CONFIDENCE_SHIFT);
        signed = word & SIGNED != 0;
    }

    /// @notice The fields of a stored word that its ERC-8004 records need, without decoding into memory.
    function feedbackFields(uint256 word)
        internal
        pure
        returns (
            IResolutionMarket.Answer answer,
            uint16 confidenceBps,
            uint8 srcQuality,
            uint8 analysisDepth,
            bool signed,
            bool refused
        )
    {
        (answer, confidenceBps, signed) = recordFields(word);
        srcQuality = uint8(word >> SRC_SHIFT);
        analysisDepth = uint8(word >> DEPTH_SHIFT);
        refused = word & REFUSED != 0;
    }

    /// @notice The proposal-facing view of a report (its reply hash and signature are not stored).
    function toWorkerReport(Report memory r) internal pure returns (IResolutionMarket.WorkerReport memory w) {
        w.answer = r.answer;
        w.confidenceBps = r.confidenceBps;
        w.resQuality = r.resQuality;
        w.srcQuality = r.srcQuality;
        w.analysisDepth = r.analysisDepth;
    }

    /// @notice Floor mean of the three scores: the value of the `quality` record.
    function quality(Report memory r) internal pure returns (uint8) {
        return uint8((uint256(r.resQuality) + r.srcQuality + r.analysisDepth) / 3);
    }

    /// @notice Whether a stored word is a signed report other than an abstention: the seats that enter the reputation
    ///         book and get ERC-8004 records (read without decoding; FeedbackCodec's `scored`).
    function isScored(uint256 word) internal pure returns (bool) {
        return word & SIGNED != 0 && uint8(word) != uint8(IResolutionMarket.Answer.Abstained);
    }

    /// @notice Whether `answer` is Yes or No.
    function isYesNo(IResolutionMarket.Answer answer) internal pure returns (bool) {
        return answer == IResolutionMarket.Answer.Yes || answer == IResolutionMarket.Answer.No;
    }
}
