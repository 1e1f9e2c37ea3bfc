// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IMarketReputation} from "../interfaces/IMarketReputation.sol";
import {IResolutionMarket} from "../interfaces/IResolutionMarket.sol";
import {ReportCodec} from "./ReportCodec.sol";
import {SettlementMath} from "./SettlementMath.sol";

/// @title The one encoding of a seat's feedback as the market hands it to its MarketReputation
/// @notice One word per seat (a uint256[] is the cheapest array to pass between the two contracts):
///         agentId 0-191 | correctness 192-199 | resQuality 200-207 | srcQuality 208-215 | analysisDepth 216-223 |
///         answered 224 | scored 225 | writeCorrectness 226 | writeQuality 227 | refused 228.
library FeedbackCodec {
    uint256 private constant ANSWERED = 1 << 224;
    uint256 private constant SCORED = 1 << 225;
    uint256 private constant WRITE_CORRECTNESS = 1 << 226;
    uint256 private constant WRITE_QUALITY = 1 << 227;
    uint256 private constant REFUSED = 1 << 228;

    /// @notice Packs a seat's feedback (agent ids are at most 192 bits: the market refuses larger ones at join).
    function encode(IMarketReputation.SeatFeedback memory f) internal pure returns (uint256 word) {
        word = uint256(uint192(f.agentId)) | (uint256(f.correctness) << 192) | (uint256(f.resQuality) << 200)
            | (uint256(f.srcQuality) << 208) | (uint256(f.analysisDepth) << 216);
        if (f.answered) word |= ANSWERED;
        if (f.scored) word |= SCORED;
        if (f.writeCorrectness) word |= WRITE_CORRECTNESS;
        if (f.writeQuality) word |= WRITE_QUALITY;
        if (f.refused) word |= REFUSED;
    }

    /// @notice Unpacks a seat's feedback word.
    function decode(uint256 word) internal pure returns (IMarketReputation.SeatFeedback memory f) {
        f.agentId = uint192(word);
        f.correctness = uint8(word >> 192);
        f.resQuality = uint8(word >> 200);
        f.srcQuality = uint8(word >> 208);
        f.analysisDepth = uint8(word >> 216);
        f.answered = word & ANSWERED != 0;
        f.scored = word & SCORED != 0;
        f.writeCorrectness = word & WRITE_CORRECTNESS != 0;
        f.writeQuality = word & WRITE_QUALITY != 0;
        f.refused = word & REFUSED != 0;
    }

    /// @notice Whether a seat word (`IResolutionMarket.seatWords` layout) is {fromSeatWord}'s `scored`: signed and not
    ///         an abstention, i.e. it enters the reputation book and wants at least one record (read without decoding).
    function isScored(uint256 seatWord) internal pure returns (bool) {
        return ReportCodec.isScored(seatWord >> 192);
    }

    /// @notice A seat word as `IResolutionMarket.seatWords` returns it (agent id in bits 0-191, the ReportCodec word in
    ///         bits 192-255) as the records it wants against `outcome` (none for an abstention or an attested report,
    ///         correctness 0 only for a signed failure, both for a signed Yes/No answer) and whether it enters the
    ///         reputation book (`scored`: signed and not an abstention). The quality record's resQuality is the
    ///         seat's correctness. Read field by field (no Report in memory: this runs for every seat's records).
    function fromSeatWord(uint256 seatWord, bool outcome)
        internal
        pure
        returns (IMarketReputation.SeatFeedback memory f)
    {
        (IResolutionMarket.Answer answer, uint16 confidenceBps, uint8 srcQuality, uint8 analysisDepth, bool signed, bool refused) =
            ReportCodec.feedbackFields(seatWord >> 192);
        bool yesNo = ReportCodec.isYesNo(answer);
        f.agentId = uint192(seatWord);
        f.correctness = SettlementMath.correctness(answer, confidenceBps, outcome);
        // Resolution Quality = correctness against the final outcome (the proposer's resQuality is not used).
        f.resQuality = f.correctness;
        f.srcQuality = srcQuality;
        f.analysisDepth = analysisDepth;
        f.answered = yesNo;
        // An attested report (not signed by its agent) is the proposer's word: no record, no book entry.
        f.scored = signed && answer != IResolutionMarket.Answer.Abstained;
        f.writeCorrectness = f.scored;
        f.writeQuality = f.scored && yesNo;
        f.refused = refused;
    }
}
