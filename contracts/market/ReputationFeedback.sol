// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IReputationRegistry} from "../erc8004/interfaces/IReputationRegistry.sol";
import {IMarketReputation} from "./interfaces/IMarketReputation.sol";

/// @title Best-effort ERC-8004 feedback of the resolution market
/// @notice Writes `giveFeedback(agentId, value, 0, tag1, "cresolver", "", bundleURI, bundleHash)` records with
///         tag1 `correctness` (100·(1 − Brier) against the final outcome) or `quality` (floor mean of the three
///         scores). The registry may refuse a record (ERC-8004's self-feedback rule when an agent owner approves
///         the market as operator), revert, burn gas or return huge revert data: none of it blocks settlement,
///         and the market keeps a refused record pending for a retry.
/// @dev Every call gets exactly FEEDBACK_CALL_GAS and is made only if the remaining gas guarantees the callee
///      that amount under EIP-150's 63/64 rule; the market's loops stop earlier (FEEDBACK_WORKER_MIN_GAS per
///      seat), so a transaction sender cannot starve records into "failure". A failure is logged with at most
///      MAX_FAILURE_REASON_BYTES of revert data. Base of MarketReputation (the records' client).
abstract contract ReputationFeedback {
    /// @notice Gas forwarded to every `giveFeedback` call.
    uint256 public constant FEEDBACK_CALL_GAS = 300_000;
    /// @notice Gas that must be left right before a feedback call so that the callee receives the whole
    ///         `FEEDBACK_CALL_GAS` despite the 63/64 rule, the cold-account access and the opcodes in between.
    uint256 internal constant FEEDBACK_CALL_MIN_GAS = FEEDBACK_CALL_GAS + FEEDBACK_CALL_GAS / 63 + 2_600 + 1_000;
    /// @notice Gas that must be left before starting a seat's (at most two) records: calls, encoding, a
    ///         FeedbackFailed event each and the bookkeeping after them.
    uint256 public constant FEEDBACK_WORKER_MIN_GAS = 2 * (FEEDBACK_CALL_MIN_GAS + 15_000) + 30_000;
    /// @notice At most this many bytes of a failed call's revert data are logged in FeedbackFailed.
    uint256 internal constant MAX_FAILURE_REASON_BYTES = 256;

    string internal constant TAG_CORRECTNESS = "correctness";
    string internal constant TAG_QUALITY = "quality";
    string internal constant FEEDBACK_TAG2 = "cresolver";
    bytes32 private constant TAG_CORRECTNESS_WORD = "correctness";
    bytes32 private constant TAG_QUALITY_WORD = "quality";

    /// @notice The ERC-8004 reputation registry that receives feedback.
    IReputationRegistry public immutable reputationRegistry;

    /// @param reputationRegistry_ ERC-8004 reputation registry (must be a contract)
    constructor(IReputationRegistry reputationRegistry_) {
        if (address(reputationRegistry_).code.length == 0) revert IMarketReputation.NotAContract(address(reputationRegistry_));
        reputationRegistry = reputationRegistry_;
    }

    /// @dev Encodes `giveFeedback(0, 0, 0, "correctness", "cresolver", "", uri, hash)` once per transaction.
    ///      Both tags are at most 32 bytes, so every record has the same layout: {_giveFeedback} only patches
    ///      the agent id, the value and tag1's length and word in place.
    function _feedbackTemplate(string memory uri, bytes32 hash) internal pure returns (bytes memory) {
        return abi.encodeCall(
            IReputationRegistry.giveFeedback, (0, int128(0), uint8(0), TAG_CORRECTNESS, FEEDBACK_TAG2, "", uri, hash)
        );
    }

    /// @dev One capped, failure-tolerant `giveFeedback`. Reverts (undoing the whole transaction) rather than
    ///      make a call whose callee could get less than FEEDBACK_CALL_GAS: a failure is then always the
    ///      registry's own. At most MAX_FAILURE_REASON_BYTES of revert data are copied (no returndata bomb).
    /// @param data the template of {_feedbackTemplate}; words patched: agentId (args+0x00), value (args+0x20),
    ///        tag1 length (args+0x100) and tag1 content (args+0x120), where args = data + 0x20 + 4
    /// @param quality false: the `correctness` record, true: the `quality` record
    /// @return ok whether the registry accepted the record
    function _giveFeedback(uint256 marketId, bytes memory data, uint256 agentId, uint256 value, bool quality)
        internal
        returns (bool ok)
    {
        // Lengths of TAG_QUALITY ("quality") and TAG_CORRECTNESS ("correctness") as constants: no string in memory.
        (uint256 tagLength, bytes32 tagWord) = quality ? (7, TAG_QUALITY_WORD) : (11, TAG_CORRECTNESS_WORD);
        address registry = address(reputationRegistry);
        uint256 size;
        if (gasleft() < FEEDBACK_CALL_MIN_GAS) revert IMarketReputation.FeedbackGasTooLow();
        assembly ("memory-safe") {
            let args := add(data, 0x24)
            mstore(args, agentId)
            mstore(add(args, 0x20), value) // int128 value, 0-100: same word as uint256
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
            _emitFeedbackFailed(marketId, agentId, quality, reason);
            // Release the scratch allocation: hundreds of failures must not grow memory quadratically.
            assembly ("memory-safe") {
                mstore(0x40, freePtr)
            }
        }
    }

    /// @dev Emits the interface's FeedbackFailed.
    function _emitFeedbackFailed(uint256 marketId, uint256 agentId, bool quality, bytes memory reason) internal virtual;

    function _tag(bool quality) internal pure returns (string memory) {
        return quality ? TAG_QUALITY : TAG_CORRECTNESS;
    }
}
