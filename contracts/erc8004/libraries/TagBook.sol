// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title TagBook
/// @notice Interned tag strings: each distinct tag is stored once and referred to by a small id.
/// @dev Ids start at 1 in order of first use; the empty tag is always id 0 and never stored.
library TagBook {
    struct Book {
        mapping(bytes32 tagHash => uint32 tagId) ids; // 0 = never used
        string[] names; // names[id - 1]
    }

    /// @dev What `filterId` returns for a non-empty tag that was never used: it matches no stored id.
    uint32 internal constant UNUSED = type(uint32).max;

    /// @dev The id of `tag`, assigning the next one on first use.
    function intern(Book storage book, string calldata tag) internal returns (uint32 tagId) {
        if (bytes(tag).length == 0) return 0;
        bytes32 tagHash = keccak256(bytes(tag));
        tagId = book.ids[tagHash];
        if (tagId == 0) {
            book.names.push(tag);
            // Reaching 2**32 - 1 distinct tags would take more gas than exists, so the cast never wraps.
            tagId = uint32(book.names.length);
            book.ids[tagHash] = tagId;
        }
    }

    /// @dev The string of an id returned by `intern`.
    function name(Book storage book, uint32 tagId) internal view returns (string memory) {
        return tagId == 0 ? "" : book.names[tagId - 1];
    }

    /// @dev The id to filter on: 0 (any) for "", the tag's id if it was ever used, else UNUSED.
    function filterId(Book storage book, string memory tag) internal view returns (uint32) {
        if (bytes(tag).length == 0) return 0;
        uint32 tagId = book.ids[keccak256(bytes(tag))];
        return tagId == 0 ? UNUSED : tagId;
    }
}
