// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title FeedbackLanes
/// @notice Storage encoding of the feedback one client gave one agent: three feedbacks per storage slot.
/// @dev Feedback `i` (1-based) is the 85-bit lane `(i - 1) % 3` of slot `(i - 1) / 3`. Lane bits, from the lowest:
///      value as int32 (32) | valueDecimals (5) | revoked (1) | wide (1) | tag1 id (23) | tag2 id (23).
///      A feedback whose value is outside int32 or whose tag id is >= 2**23 is "wide": its lane keeps the
///      decimals and flags, and a side slot holds the full value and both tag ids. So a market writing three
///      small-valued feedbacks per worker opens one slot, not three.
library FeedbackLanes {
    /// @dev One feedback, decoded. Tag id 0 is the empty tag.
    struct Record {
        int128 value;
        uint8 valueDecimals;
        bool isRevoked;
        uint32 tag1;
        uint32 tag2;
    }

    /// @dev The part of a wide feedback that does not fit its lane (one slot).
    struct Wide {
        int128 value;
        uint32 tag1;
        uint32 tag2;
    }

    /// @dev The feedback of one (agent, client) pair.
    struct Book {
        mapping(uint256 slotIndex => uint256) lanes;
        mapping(uint64 feedbackIndex => Wide) wide;
    }

    uint256 private constant LANE_BITS = 85;
    uint256 private constant LANE_MASK = (1 << 85) - 1;
    uint256 private constant DECIMALS_SHIFT = 32;
    uint256 private constant REVOKED_BIT = 1 << 37;
    uint256 private constant WIDE_BIT = 1 << 38;
    uint256 private constant TAG1_SHIFT = 39;
    uint256 private constant TAG2_SHIFT = 62;
    uint256 private constant TAG_ID_LIMIT = 1 << 23;

    /// @dev Writes feedback `index` into its lane, which must still be empty (indexes are written in order).
    function store(Book storage book, uint64 index, int128 value, uint8 valueDecimals, uint32 tag1, uint32 tag2)
        internal
    {
        uint256 lane = uint256(valueDecimals) << DECIMALS_SHIFT;
        if (value >= type(int32).min && value <= type(int32).max && tag1 < TAG_ID_LIMIT && tag2 < TAG_ID_LIMIT) {
            lane |= uint256(uint32(int32(value))) | (uint256(tag1) << TAG1_SHIFT) | (uint256(tag2) << TAG2_SHIFT);
        } else {
            lane |= WIDE_BIT;
            book.wide[index] = Wide({value: value, tag1: tag1, tag2: tag2});
        }
        (uint256 slotIndex, uint256 shift) = _position(index);
        // Lane 0 opens a fresh slot: write it without reading it.
        if (shift == 0) book.lanes[slotIndex] = lane;
        else book.lanes[slotIndex] |= lane << shift;
    }

    /// @dev Sets the revoked flag of feedback `index`; returns false (and changes nothing) if it was already set.
    function revoke(Book storage book, uint64 index) internal returns (bool) {
        (uint256 slotIndex, uint256 shift) = _position(index);
        uint256 word = book.lanes[slotIndex];
        if (word & (REVOKED_BIT << shift) != 0) return false;
        book.lanes[slotIndex] = word | (REVOKED_BIT << shift);
        return true;
    }

    /// @dev Decodes feedback `index`, which must have been stored.
    function load(Book storage book, uint64 index) internal view returns (Record memory record) {
        (uint256 slotIndex, uint256 shift) = _position(index);
        uint256 lane = (book.lanes[slotIndex] >> shift) & LANE_MASK;
        record.valueDecimals = uint8((lane >> DECIMALS_SHIFT) & 31);
        record.isRevoked = lane & REVOKED_BIT != 0;
        if (lane & WIDE_BIT == 0) {
            record.value = int32(uint32(lane));
            record.tag1 = uint32((lane >> TAG1_SHIFT) & (TAG_ID_LIMIT - 1));
            record.tag2 = uint32(lane >> TAG2_SHIFT);
        } else {
            Wide memory wide = book.wide[index];
            (record.value, record.tag1, record.tag2) = (wide.value, wide.tag1, wide.tag2);
        }
    }

    function _position(uint64 index) private pure returns (uint256 slotIndex, uint256 shift) {
        uint256 i = index - 1;
        return (i / 3, (i % 3) * LANE_BITS);
    }
}
