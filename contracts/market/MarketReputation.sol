// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

import {IIdentityRegistry} from "../erc8004/interfaces/IIdentityRegistry.sol";
import {IReputationRegistry} from "../erc8004/interfaces/IReputationRegistry.sol";
import {IMarketReputation} from "./interfaces/IMarketReputation.sol";
import {IResolutionMarket} from "./interfaces/IResolutionMarket.sol";
import {FeedbackCodec} from "./libraries/FeedbackCodec.sol";
import {SettlementMath} from "./libraries/SettlementMath.sol";
import {AdmissionCounters} from "./AdmissionCounters.sol";
import {ReputationFeedback} from "./ReputationFeedback.sol";

/// @title ERC-8004 feedback writer and per-agent reputation book of one resolution market
/// @notice Deployed by its market's constructor (`market` = the deployer), the only account that may `settle`.
///         It is the ERC-8004 client of the market's records. It decides nothing: the market computes every value
///         (at `settle`; later from the seats as stored, `IResolutionMarket.seatWords`); this contract makes the capped
///         calls, keeps which records are pending and how far the records of each market got, runs the
///         permissionless `publishFeedback` / `retryFeedback`, keeps the per-agent averages `getReputation` reads
///         and the admission counters by value bucket that TrackRecord admission reads (`admits`, RECORDS §5).
///         Holds no ETH.
contract MarketReputation is IMarketReputation, ReputationFeedback, AdmissionCounters, ReentrancyGuardTransient {
    using SettlementMath for uint256;

    /// @dev `publishFeedback` batch cap: at most the market's seat cap (2 pending bits per seat fit one word).
    uint256 private constant MAX_PUBLISH_SEATS = 128;

    /// @inheritdoc IMarketReputation
    address public immutable market;

    /// @dev Packed reputation accumulator per agent (SettlementMath).
    mapping(uint256 agentId => uint256) internal _book;
    /// @dev `cursor | total << 8` while seats of a Resolved market still wait for `publishFeedback`, else 0
    ///      (written only for markets with more than the inline seats: no storage cost for the others).
    mapping(uint256 marketId => uint256) internal _progress;
    /// @dev Pending records, bit 2i: seat i's correctness record, bit 2i+1: its quality record.
    mapping(uint256 marketId => uint256) internal _pending;

    /// @param identityRegistry_ ERC-8004 identity registry of the market (owners, operators, wallets of agents)
    /// @param reputationRegistry_ ERC-8004 reputation registry (must be a contract)
    constructor(IIdentityRegistry identityRegistry_, IReputationRegistry reputationRegistry_)
        ReputationFeedback(reputationRegistry_)
        AdmissionCounters(identityRegistry_)
    {
        market = msg.sender;
    }

    /// @inheritdoc IMarketReputation
    function settle(
        uint256 marketId,
        bool outcome,
        string calldata bundleURI,
        bytes32 bundleHash,
        uint256[] calldata seatWords,
        uint256 inlineSeats
    ) external nonReentrant {
        if (msg.sender != market) revert NotMarket(msg.sender);
        uint256 n = seatWords.length;
        for (uint256 i; i < n; ++i) {
            uint256 word = seatWords[i];
            // Only a signed seat that did not abstain enters the book: skip the rest without decoding.
            if (!FeedbackCodec.isScored(word)) continue;
            SeatFeedback memory s = FeedbackCodec.fromSeatWord(word, outcome);
            _book[s.agentId] = _book[s.agentId].addObservation(
                s.answered, s.correctness, s.resQuality, s.srcQuality, s.analysisDepth
            );
        }
        (uint256 reached, uint256 failed) =
            _write(marketId, bundleURI, bundleHash, seatWords, outcome, inlineSeats < n ? inlineSeats : n);
        if (failed != 0) _pending[marketId] = failed;
        if (reached < n) {
            _progress[marketId] = reached | (n << 8);
            emit FeedbackProgress(marketId, reached, n);
        }
    }

    /// @inheritdoc IMarketReputation
    function publishFeedback(uint256 marketId, uint256 maxWorkers) external nonReentrant returns (uint256 published) {
        uint256 progress = _progress[marketId];
        if (progress == 0 || maxWorkers == 0) return 0;
        uint256 cursor = uint8(progress);
        uint256 n = progress >> 8;
        if (maxWorkers > MAX_PUBLISH_SEATS) maxWorkers = MAX_PUBLISH_SEATS;
        uint256 count = n - cursor > maxWorkers ? maxWorkers : n - cursor;
        (uint256[] memory words, bool outcome, string memory uri, bytes32 hash) =
            IResolutionMarket(market).seatWords(marketId, cursor, count);
        uint256 failed;
        (published, failed) = _write(marketId, uri, hash, words, outcome, count);
        if (failed != 0) _pending[marketId] |= failed << (2 * cursor);
        if (published != 0) {
            uint256 reached = cursor + published;
            _progress[marketId] = reached == n ? 0 : reached | (n << 8);
            emit FeedbackProgress(marketId, reached, n);
        }
    }

    /// @inheritdoc IMarketReputation
    function retryFeedback(uint256 marketId, uint256 seat) external nonReentrant returns (uint256 written) {
        uint256 pending = _pending[marketId];
        uint256 bits = seat < MAX_PUBLISH_SEATS ? (pending >> (2 * seat)) & 3 : 0;
        if (bits == 0) revert NothingPending(marketId, seat);
        (uint256[] memory words, bool outcome, string memory uri, bytes32 hash) =
            IResolutionMarket(market).seatWords(marketId, seat, 1);
        SeatFeedback memory f = FeedbackCodec.fromSeatWord(words[0], outcome);
        f.writeCorrectness = bits & 1 != 0;
        f.writeQuality = bits & 2 != 0;
        f.refused = false; // the registry itself refuses while the agent still has this contract as operator
        if (gasleft() < FEEDBACK_WORKER_MIN_GAS) revert FeedbackGasTooLow();
        uint256 still = _seatRecords(marketId, _feedbackTemplate(uri, hash), f);
        _pending[marketId] = (pending & ~(3 << (2 * seat))) | (still << (2 * seat));
        written = _count(bits) - _count(still);
        emit FeedbackRetried(marketId, seat, written, _count(still));
    }

    /// @inheritdoc IMarketReputation
    function feedbackStatus(uint256 marketId) external view returns (uint256 cursor, uint256 pending) {
        uint256 progress = _progress[marketId];
        if (progress != 0) {
            cursor = uint8(progress);
            return (cursor, (progress >> 8) - cursor);
        }
        try IResolutionMarket(market).getMarket(marketId) returns (IResolutionMarket.MarketInfo memory info) {
            if (info.status == IResolutionMarket.Status.Resolved) cursor = info.workerCount;
        } catch {} // unknown market: nothing

    }

    /// @inheritdoc IMarketReputation
    function pendingFeedback(uint256 marketId, uint256 seat) external view returns (bool correctness, bool quality) {
        if (seat >= MAX_PUBLISH_SEATS) return (false, false);
        uint256 bits = _pending[marketId] >> (2 * seat);
        return (bits & 1 != 0, bits & 2 != 0);
    }

    /// @inheritdoc IMarketReputation
    function getReputation(uint256 agentId) external view returns (IResolutionMarket.Reputation memory) {
        return SettlementMath.reputation(_book[agentId]);
    }

    /// @inheritdoc IMarketReputation
    function correctnessOf(IResolutionMarket.Answer answer, uint16 confidenceBps, bool outcome)
        external
        pure
        returns (uint8)
    {
        return SettlementMath.correctness(answer, confidenceBps, outcome);
    }

    /// @dev Records of the seats `seatWords[0..to)` (`IResolutionMarket.seatWords` layout) against `outcome`, while a
    ///      seat's worth of gas is left. A seat that wants no record (an abstention, an attested report) is skipped
    ///      without decoding.
    function _write(
        uint256 marketId,
        string memory bundleURI,
        bytes32 bundleHash,
        uint256[] memory seatWords,
        bool outcome,
        uint256 to
    ) private returns (uint256 i, uint256 failed) {
        bytes memory data = _feedbackTemplate(bundleURI, bundleHash);
        for (; i < to; ++i) {
            if (gasleft() < FEEDBACK_WORKER_MIN_GAS) break;
            uint256 word = seatWords[i];
            if (!FeedbackCodec.isScored(word)) continue;
            failed |= _seatRecords(marketId, data, FeedbackCodec.fromSeatWord(word, outcome)) << (2 * i);
        }
    }

    /// @dev Number of set bits of a 2-bit pending mask.
    function _count(uint256 bits) private pure returns (uint256) {
        return (bits & 1) + (bits >> 1);
    }
    /// @dev One seat's wanted records; returns bit 0 = correctness failed, bit 1 = quality failed.
    function _seatRecords(uint256 marketId, bytes memory data, SeatFeedback memory s) private returns (uint256 failed) {
        uint256 agentId = s.agentId;
        if (s.refused) {
            bytes memory reason = abi.encodeWithSelector(IResolutionMarket.MarketIsAgentOperator.selector, agentId);
            if (s.writeCorrectness) {
                _emitFeedbackFailed(marketId, agentId, false, reason);
                failed = 1;
            }
            if (s.writeQuality) {
                _emitFeedbackFailed(marketId, agentId, true, reason);
                failed |= 2;
            }
            return failed;
        }
        if (s.writeCorrectness && !_giveFeedback(marketId, data, agentId, s.correctness, false)) failed = 1;
        if (s.writeQuality) {
            uint256 quality = (uint256(s.resQuality) + s.srcQuality + s.analysisDepth) / 3;
            if (!_giveFeedback(marketId, data, agentId, quality, true)) failed |= 2;
        }
    }

    function _emitFeedbackFailed(uint256 marketId, uint256 agentId, bool quality, bytes memory reason)
        internal
        override
    {
        emit FeedbackFailed(marketId, agentId, _tag(quality), reason);
    }
}
