// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IReputationRegistry} from "../erc8004/interfaces/IReputationRegistry.sol";
import {IMarketReputation} from "./interfaces/IMarketReputation.sol";
import {IResolutionMarket} from "./interfaces/IResolutionMarket.sol";
import {FeedbackCodec} from "./libraries/FeedbackCodec.sol";
import {SettlementMath} from "./libraries/SettlementMath.sol";
import {ReputationFeedback} from "./ReputationFeedback.sol";

/// @title ERC-8004 feedback writer and per-agent reputation book of one resolution market
/// @notice Deployed by its market's constructor (`market` = the deployer), the only account that may write.
///         It is the ERC-8004 client of the market's records. It decides nothing: the market computes every value
///         and keeps which records are pending; this contract makes the capped calls, reports which failed, and
///         keeps the per-agent averages that TrackRecord admission and `getReputation` read. Holds no ETH.
contract MarketReputation is IMarketReputation, ReputationFeedback {
    using SettlementMath for uint256;

    /// @inheritdoc IMarketReputation
    address public immutable market;

    /// @dev Packed reputation accumulator per agent (SettlementMath).
    mapping(uint256 agentId => uint256) internal _book;

    /// @param reputationRegistry_ ERC-8004 reputation registry (must be a contract)
    constructor(IReputationRegistry reputationRegistry_) ReputationFeedback(reputationRegistry_) {
        market = msg.sender;
    }

    modifier onlyMarket() {
        if (msg.sender != market) revert NotMarket(msg.sender);
        _;
    }

    /// @inheritdoc IMarketReputation
    function settle(
        uint256 marketId,
        string calldata bundleURI,
        bytes32 bundleHash,
        uint256[] calldata seats,
        uint256 inlineSeats
    ) external onlyMarket returns (uint256 reached, uint256 failed) {
        uint256 n = seats.length;
        for (uint256 i; i < n; ++i) {
            SeatFeedback memory s = FeedbackCodec.decode(seats[i]);
            if (!s.scored) continue;
            _book[s.agentId] = _book[s.agentId].addObservation(
                s.answered, s.correctness, s.resQuality, s.srcQuality, s.analysisDepth
            );
        }
        return _write(marketId, bundleURI, bundleHash, seats, inlineSeats < n ? inlineSeats : n, false);
    }

    /// @inheritdoc IMarketReputation
    function write(uint256 marketId, string calldata bundleURI, bytes32 bundleHash, uint256[] calldata seats, bool strict)
        external
        onlyMarket
        returns (uint256 reached, uint256 failed)
    {
        return _write(marketId, bundleURI, bundleHash, seats, seats.length, strict);
    }

    /// @inheritdoc IMarketReputation
    function getReputation(uint256 agentId) external view returns (IResolutionMarket.Reputation memory) {
        return SettlementMath.reputation(_book[agentId]);
    }

    /// @inheritdoc IMarketReputation
    function settledAndCorrectness(uint256 agentId) external view returns (uint256 settled, uint256 correctness) {
        return SettlementMath.settledAndCorrectness(_book[agentId]);
    }

    /// @inheritdoc IMarketReputation
    function correctnessOf(IResolutionMarket.Answer answer, uint16 confidenceBps, bool outcome)
        external
        pure
        returns (uint8)
    {
        return SettlementMath.correctness(answer, confidenceBps, outcome);
    }

    /// @dev Records of `seats[0..to)` while a seat's worth of gas is left (or revert, when `strict`).
    function _write(
        uint256 marketId,
        string calldata bundleURI,
        bytes32 bundleHash,
        uint256[] calldata seats,
        uint256 to,
        bool strict
    ) private returns (uint256 i, uint256 failed) {
        bytes memory data = _feedbackTemplate(bundleURI, bundleHash);
        for (; i < to; ++i) {
            if (gasleft() < FEEDBACK_WORKER_MIN_GAS) {
                if (strict) revert FeedbackGasTooLow();
                break;
            }
            failed |= _seatRecords(marketId, data, FeedbackCodec.decode(seats[i])) << (2 * i);
        }
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
