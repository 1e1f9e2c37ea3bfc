// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IReputationRegistry} from "../erc8004/interfaces/IReputationRegistry.sol";
import {SettlementMath} from "./libraries/SettlementMath.sol";

/// @title Best-effort ERC-8004 feedback of the resolution market
/// @notice Writes three `giveFeedback` records per worker (tag1 resolution_quality / source_quality /
///         analysis_depth, tag2 "cresolver", endpoint "", feedbackURI/feedbackHash = the resolution bundle).
///         The registry may refuse any record (e.g. ERC-8004's self-feedback rule when an agent owner approves
///         the market as operator), revert, burn gas or return huge revert data: none of it can block settlement.
/// @dev Every call gets exactly FEEDBACK_CALL_GAS and is made only if the caller's remaining gas guarantees the
///      callee that full amount under EIP-150's 63/64 rule; otherwise the caller's loop stops and the rest stays
///      pending, so a transaction sender cannot starve records into "failure". A failure is logged with at most
///      MAX_FAILURE_REASON_BYTES of revert data and the loop continues.
abstract contract ReputationFeedback {
    /// @notice Gas forwarded to every `giveFeedback` call.
    uint256 public constant FEEDBACK_CALL_GAS = 300_000;
    /// @notice Gas that must be left right before a feedback call so that the callee receives the whole
    ///         `FEEDBACK_CALL_GAS` despite the 63/64 rule, the cold-account access and the opcodes in between.
    uint256 public constant FEEDBACK_CALL_MIN_GAS = FEEDBACK_CALL_GAS + FEEDBACK_CALL_GAS / 63 + 2_600 + 1_000;
    /// @notice Gas that must be left before starting a worker's three feedback records (calls + encoding +
    ///         a FeedbackFailed event each, and the bookkeeping after the loop).
    uint256 public constant FEEDBACK_WORKER_MIN_GAS = 3 * (FEEDBACK_CALL_MIN_GAS + 15_000) + 30_000;
    /// @notice At most this many bytes of a failed call's revert data are logged in FeedbackFailed.
    uint256 public constant MAX_FAILURE_REASON_BYTES = 256;

    string public constant TAG_RESOLUTION_QUALITY = "resolution_quality";
    string public constant TAG_SOURCE_QUALITY = "source_quality";
    string public constant TAG_ANALYSIS_DEPTH = "analysis_depth";
    string public constant FEEDBACK_TAG2 = "cresolver";
    bytes32 private constant TAG_RESOLUTION_QUALITY_WORD = "resolution_quality";
    bytes32 private constant TAG_SOURCE_QUALITY_WORD = "source_quality";
    bytes32 private constant TAG_ANALYSIS_DEPTH_WORD = "analysis_depth";

    /// @notice The ERC-8004 reputation registry that receives feedback.
    IReputationRegistry public immutable reputationRegistry;

    /// @dev Scores of workers whose feedback is still pending: 10 workers x 24 bits per word.
    mapping(uint256 marketId => mapping(uint256 chunk => uint256)) internal _pendingScores;
    /// @dev Bundle URI of markets with pending feedback (not stored otherwise: it is in MarketResolved).
    mapping(uint256 marketId => string) internal _pendingFeedbackURI;

    /// @notice A `giveFeedback` call failed (reverted or ran out of its gas cap); settlement is unaffected.
    event FeedbackFailed(uint256 indexed marketId, uint256 indexed agentId, string tag, bytes reason);

    /// @notice A constructor argument that must be a contract is not.
    error NotAContract(address account);
    /// @notice Defensive: a feedback call was about to be made without its full gas cap (unreachable through
    ///         the market's loops, which check FEEDBACK_WORKER_MIN_GAS first).
    error FeedbackGasTooLow();

    /// @param reputationRegistry_ ERC-8004 reputation registry (must be a contract)
    constructor(IReputationRegistry reputationRegistry_) {
        if (address(reputationRegistry_).code.length == 0) revert NotAContract(address(reputationRegistry_));
        reputationRegistry = reputationRegistry_;
    }

    /// @dev Persists what publishFeedback needs for workers `cursor..n-1`: the URI and packed scores.
    function _storePending(uint256 marketId, uint256 cursor, uint256 n, uint8[] calldata scores, string calldata uri)
        internal
    {
        _pendingFeedbackURI[marketId] = uri;
        uint256 lastChunk = (n - 1) / 10;
        for (uint256 c = cursor / 10; c <= lastChunk; ++c) {
            uint256 word;
            uint256 first = c * 10;
            uint256 end = first + 10 < n ? first + 10 : n;
            for (uint256 i = first; i < end; ++i) {
                uint256 k = 3 * i;
                word |= SettlementMath.packScores(scores[k], scores[k + 1], scores[k + 2]) << ((i - first) * 24);
            }
            _pendingScores[marketId][c] = word;
        }
    }

    /// @dev Encodes `giveFeedback(0, 0, 0, <tag1>, "cresolver", "", uri, hash)` once per transaction. Every
    ///      tag1 is at most 32 bytes, so the layout is identical for all records: {_giveFeedback} only patches
    ///      the agent id, the value and tag1's length and word in place.
    function _feedbackTemplate(string memory uri, bytes32 hash) internal pure returns (bytes memory) {
        return abi.encodeCall(
            IReputationRegistry.giveFeedback,
            (0, int128(0), uint8(0), TAG_RESOLUTION_QUALITY, FEEDBACK_TAG2, "", uri, hash)
        );
    }

    /// @dev The three ERC-8004 records of one worker.
    function _feedbackForWorker(uint256 marketId, bytes memory data, uint256 agentId, uint256 res, uint256 src, uint256 depth)
        internal
    {
        _giveFeedback(marketId, data, agentId, res, 0);
        _giveFeedback(marketId, data, agentId, src, 1);
        _giveFeedback(marketId, data, agentId, depth, 2);
    }

    /// @dev One capped, failure-tolerant `giveFeedback`. Reverts (undoing the whole transaction) rather than
    ///      make a call whose callee could get less than FEEDBACK_CALL_GAS: a failure is then always the
    ///      registry's own. At most MAX_FAILURE_REASON_BYTES of revert data are copied (no returndata bomb).
    /// @param data the template of {_feedbackTemplate}; words patched: agentId (args+0x00), value (args+0x20),
    ///        tag1 length (args+0x100) and tag1 content (args+0x120), where args = data + 0x20 + 4
    /// @param tagIndex 0 resolution_quality, 1 source_quality, 2 analysis_depth
    function _giveFeedback(uint256 marketId, bytes memory data, uint256 agentId, uint256 score, uint256 tagIndex)
        internal
    {
        uint256 tagLength;
        bytes32 tagWord;
        if (tagIndex == 0) {
            (tagLength, tagWord) = (bytes(TAG_RESOLUTION_QUALITY).length, TAG_RESOLUTION_QUALITY_WORD);
        } else if (tagIndex == 1) {
            (tagLength, tagWord) = (bytes(TAG_SOURCE_QUALITY).length, TAG_SOURCE_QUALITY_WORD);
        } else {
            (tagLength, tagWord) = (bytes(TAG_ANALYSIS_DEPTH).length, TAG_ANALYSIS_DEPTH_WORD);
        }
        address registry = address(reputationRegistry);
        bool ok;
        uint256 size;
        if (gasleft() < FEEDBACK_CALL_MIN_GAS) revert FeedbackGasTooLow();
        assembly ("memory-safe") {
            let args := add(data, 0x24)
            mstore(args, agentId)
            mstore(add(args, 0x20), score) // int128 value, 0-100: same word as uint256
            mstore(add(args, 0x100), tagLength)
            mstore(add(args, 0x120), tagWord)
            ok := call(FEEDBACK_CALL_GAS, registry, 0, add(data, 0x20), mload(data), 0, 0)
            size := returndatasize()
        }
        if (!ok) {
            if (size > MAX_FAILURE_REASON_BYTES) size = MAX_FAILURE_REASON_BYTES;
            uint256 freePtr;
            assembly ("memory-safe") {
                freePtr := mload(0x40)
            }
            bytes memory reason = new bytes(size);
            assembly ("memory-safe") {
                returndatacopy(add(reason, 0x20), 0, size)
            }
            emit FeedbackFailed(marketId, agentId, _tag(tagIndex), reason);
            // Release the scratch allocation: hundreds of failures must not grow memory quadratically.
            assembly ("memory-safe") {
                mstore(0x40, freePtr)
            }
        }
    }

    function _tag(uint256 tagIndex) private pure returns (string memory) {
        if (tagIndex == 0) return TAG_RESOLUTION_QUALITY;
        if (tagIndex == 1) return TAG_SOURCE_QUALITY;
        return TAG_ANALYSIS_DEPTH;
    }
}
