// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IResolutionMarket} from "../market/interfaces/IResolutionMarket.sol";

/// @title RecordChainProbe
/// @notice Test harness only (not deployed in production): extends the track-record hash chain of
///         docs/RECORDS.md §3 with given entries and emits `MarketRecorded` exactly as the market does, so the
///         index, the range splitting and the served document are tested on a real chain with thousands of
///         entries and without running thousands of market lifecycles. Heads are computed here, in Solidity, so
///         the tests also check the TypeScript chain step against `abi.encode`.
contract RecordChainProbe {
    /// @notice One seat of a finalized market (seat order).
    struct SeatRecord {
        uint256 agentId;
        uint8 answer;
        uint16 confidenceBps;
        bool signed;
    }

    /// @notice One finalized market, as `MarketRecorded` carries it.
    struct RecordEntry {
        uint8 status;
        bool outcome;
        bool disputed;
        address arbiter;
        address creator;
        uint256 value;
        SeatRecord[] seats;
    }

    /// @notice A finalized market extended the record: its index and the head after it.
    /// @param marketId The market.
    /// @param index Its position in the record (0-based).
    /// @param head The record's head after this entry.
    /// @param entry The entry.
    event MarketRecorded(uint256 indexed marketId, uint256 indexed index, bytes32 head, RecordEntry entry);

    /// @notice Entries recorded so far.
    uint256 public recordCount;
    /// @notice The head after `recordCount` entries (zero for none).
    bytes32 public recordHeadHash;

    /// @notice The record's current `(count, head)`, as the market's `recordHead()`.
    /// @return count Entries recorded.
    /// @return head The head after them.
    function recordHead() external view returns (uint256 count, bytes32 head) {
        return (recordCount, recordHeadHash);
    }

    /// @notice No market here is ever requested: the market's `getMarket` with `requestedAt` 0, so a reader's
    ///         cut-off lookup (`readCutoff`) finds none and uses the current head, as for an unrequested market.
    /// @return info An empty MarketInfo.
    function getMarket(uint256) external pure returns (IResolutionMarket.MarketInfo memory info) {
        return info;
    }

    /// @notice Records `entries` in order, market ids `firstMarketId`, `firstMarketId + 1`, ….
    /// @param firstMarketId The market id of the first entry.
    /// @param entries The entries.
    function record(uint256 firstMarketId, RecordEntry[] calldata entries) external {
        bytes32 head = recordHeadHash;
        uint256 index = recordCount;
        for (uint256 i; i < entries.length; ++i) {
            RecordEntry calldata e = entries[i];
            bytes memory packed;
            for (uint256 s; s < e.seats.length; ++s) {
                SeatRecord calldata seat = e.seats[s];
                packed = abi.encodePacked(packed, seat.agentId, seat.answer, seat.confidenceBps, seat.signed);
            }
            head = keccak256(
                abi.encode(
                    head,
                    index,
                    firstMarketId + i,
                    e.status,
                    e.outcome,
                    e.disputed,
                    e.arbiter,
                    e.creator,
                    e.value,
                    keccak256(packed)
                )
            );
            emit MarketRecorded(firstMarketId + i, index, head, e);
            ++index;
        }
        recordHeadHash = head;
        recordCount = index;
    }
}
