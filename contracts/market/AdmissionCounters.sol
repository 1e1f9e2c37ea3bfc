// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {BitMaps} from "@openzeppelin/contracts/utils/structs/BitMaps.sol";

import {IIdentityRegistry} from "../erc8004/interfaces/IIdentityRegistry.sol";
import {IAdmissionCounters} from "./interfaces/IAdmissionCounters.sol";
import {IMarketReputation} from "./interfaces/IMarketReputation.sol";
import {IResolutionMarket} from "./interfaces/IResolutionMarket.sol";
import {FeedbackCodec} from "./libraries/FeedbackCodec.sol";

/// @title Per-agent admission counters by value bucket (docs/RECORDS.md §5), base of MarketReputation
/// @notice A Resolved market is counted once, by anyone's `countAdmission` after finalization (settlement pays
///         nothing for admission), from the market's own views (seats, creator, value, workers, dispute, arbiter)
///         and the identity registry (owners, operators, wallets) as they are at the count; read at `joinMarket`
///         through `admits`. The rule is stated in IAdmissionCounters. A registry call that fails makes the seat
///         not count.
/// @dev Gas: `countAdmission` pays one flag write, ≤ 4 registry views and one counter write per counted seat (two
///      when the agent's market is outside its first bucket); `admits` reads one word, plus one per other non-empty
///      bucket at or above the floor's.
abstract contract AdmissionCounters is IAdmissionCounters {
    using BitMaps for BitMaps.BitMap;

    /// @inheritdoc IAdmissionCounters
    IIdentityRegistry public immutable identityRegistry;
    /// @dev The market that deployed this contract (the same account as MarketReputation.market).
    IResolutionMarket private immutable _host;

    /// @dev Mask of non-empty buckets (bits 0-127: bit b set when bucket b counts a market) | primary bucket + 1
    ///      (bits 128-135: the agent's first bucket, 0 = none yet) | its count (bits 136-175) | its correctness sum
    ///      (bits 176-223). An agent that stays in one bucket costs one slot.
    mapping(uint256 agentId => uint256) private _heads;
    /// @dev The agent's other buckets: counted markets whose value per seat lies in [2^b, 2^(b+1)) wei, as
    ///      `count | correctnessSum << 128`.
    mapping(uint256 agentId => mapping(uint256 bucket => uint256)) private _counters;
    /// @dev Markets already counted by `countAdmission` (256 a slot: a later count in the same word is cheaper).
    BitMaps.BitMap private _counted;

    /// @param identityRegistry_ the market's ERC-8004 identity registry
    constructor(IIdentityRegistry identityRegistry_) {
        identityRegistry = identityRegistry_;
        _host = IResolutionMarket(msg.sender);
    }

    /// @inheritdoc IAdmissionCounters
    function admits(uint256 marketId, uint256 agentId) external view returns (bool) {
        IResolutionMarket.MarketConfig memory c = _host.getMarketConfig(marketId);
        (uint256 settled, uint256 correctness) = admissionRecord(agentId, _floor(marketId, c));
        return settled >= c.minSettled && correctness >= c.minCorrectness;
    }

    /// @inheritdoc IAdmissionCounters
    function admissionFloor(uint256 marketId) external view returns (uint256) {
        return _floor(marketId, _host.getMarketConfig(marketId));
    }

    /// @inheritdoc IAdmissionCounters
    function admissionRecord(uint256 agentId, uint256 floor)
        public
        view
        returns (uint256 settled, uint256 correctness)
    {
        uint256 from = floor <= 1 ? 0 : Math.log2(floor, Math.Rounding.Ceil);
        if (from > 127) return (0, 0);
        uint256 head = _heads[agentId];
        uint256 primary = uint8(head >> 128);
        uint256 mask = uint128(head) >> from;
        uint256 sum;
        for (uint256 b = from; mask != 0; ++b) {
            if (mask & 1 != 0) {
                if (b + 1 == primary) {
                    settled += uint40(head >> 136);
                    sum += uint48(head >> 176);
                } else {
                    uint256 word = _counters[agentId][b];
                    settled += uint128(word);
                    sum += word >> 128;
                }
            }
            mask >>= 1;
        }
        if (settled != 0) correctness = sum / settled;
    }

    /// @inheritdoc IAdmissionCounters
    function countAdmission(uint256 marketId) external {
        if (_counted.get(marketId)) revert AdmissionAlreadyCounted(marketId);
        _counted.set(marketId);
        // Reverts `WrongStatus` unless Resolved (`MarketNotFound` for an unknown id).
        (uint256[] memory words, bool outcome,,) = _host.seatWords(marketId, 0, type(uint256).max);
        uint256 n = words.length;
        if (n == 0) return;
        (address creator, uint256 value) = _creatorAndValue(marketId);
        if (value < n) return; // under 1 wei per seat: no bucket
        uint256 bucket = Math.log2(value / n);
        address[] memory owners = _independentOwners(marketId, words, outcome);
        (address[] memory workers,,) = _host.getWorkers(marketId);
        for (uint256 i; i < n; ++i) {
            address owner = owners[i];
            if (owner == address(0)) continue;
            uint256 agentId = uint192(words[i]);
            if (_controls(creator, workers[i], owner, agentId)) continue;
            uint8 correctness = uint8(words[i] >> 192);
            _count(agentId, bucket, correctness);
            emit AdmissionCounted(marketId, agentId, bucket, correctness);
        }
    }

    /// @dev The owner of each seat that counts by independence (address(0) for the others): a scored seat with an
    ///      owner, when another Yes/No seat has a different owner or an allowed arbiter ruled. Rewrites `words`
    ///      (the market's seat words) to `agentId | correctness << 192`.
    function _independentOwners(uint256 marketId, uint256[] memory words, bool outcome)
        private
        view
        returns (address[] memory owners)
    {
        uint256 n = words.length;
        owners = new address[](n);
        address first; // the owner of the first Yes/No seat
        bool many; // another owner answered too
        for (uint256 i; i < n; ++i) {
            IMarketReputation.SeatFeedback memory s = FeedbackCodec.fromSeatWord(words[i], outcome);
            words[i] = (uint256(s.correctness) << 192) | s.agentId;
            if (!s.scored) continue;
            address owner = _ownerOf(s.agentId);
            owners[i] = owner;
            if (!s.answered || owner == address(0)) continue;
            if (first == address(0)) first = owner;
            else if (owner != first) many = true;
        }
        if (many || _trustedRuling(marketId)) return owners;
        // Only one owner answered (or none): the seats it owns are not independent; others (failed seats of
        // other owners) are, of that one answer.
        for (uint256 i; i < n; ++i) {
            if (first == address(0) || owners[i] == first) owners[i] = address(0);
        }
    }

    /// @inheritdoc IAdmissionCounters
    function admissionCounted(uint256 marketId) external view returns (bool) {
        return _counted.get(marketId);
    }

    /// @dev Adds one market of `correctness` to the agent's `bucket` (< 128: values per seat are < 2^97 wei).
    function _count(uint256 agentId, uint256 bucket, uint256 correctness) internal {
        uint256 head = _heads[agentId] | (1 << bucket);
        uint256 primary = uint8(head >> 128);
        if (primary == 0) {
            primary = bucket + 1;
            head |= primary << 128;
        }
        if (primary == bucket + 1) head += (1 << 136) | (correctness << 176);
        else _counters[agentId][bucket] += 1 | (correctness << 128);
        _heads[agentId] = head;
    }

    /// @dev Disputed (a dispute was filed and the market Resolved: its arbiter ruled) by an allowed arbiter.
    function _trustedRuling(uint256 marketId) private view returns (bool) {
        if (_host.getProposal(marketId).disputer == address(0)) return false;
        return _host.governance().isArbiterAllowed(address(_host.getMarketConfig(marketId).arbiter));
    }

    /// @dev Whether `account` is one of the seat's controllers (true when the registry cannot say).
    function _controls(address account, address worker, address owner, uint256 agentId) private view returns (bool) {
        if (account == worker || account == owner) return true;
        try identityRegistry.getAgentWallet(agentId) returns (address wallet) {
            if (wallet == account) return true;
        } catch {
            return true;
        }
        try identityRegistry.isAuthorizedOrOwner(account, agentId) returns (bool yes) {
            return yes;
        } catch {
            return true;
        }
    }

    /// @dev The agent's owner, or address(0) when the registry reverts.
    function _ownerOf(uint256 agentId) private view returns (address) {
        try identityRegistry.ownerOf(agentId) returns (address owner) {
            return owner;
        } catch {
            return address(0);
        }
    }

    /// @dev The market's creator and its value (reward pool + every seat's stake) in wei.
    function _creatorAndValue(uint256 marketId) private view returns (address, uint256) {
        IResolutionMarket.MarketInfo memory info = _host.getMarket(marketId);
        return (info.creator, info.rewardPool + info.totalStake);
    }

    /// @dev Reward pool / seat cap + minimum stake.
    function _floor(uint256 marketId, IResolutionMarket.MarketConfig memory c) private view returns (uint256) {
        uint256 seats = c.maxWorkers == 0 ? 1 : c.maxWorkers;
        return _host.getMarket(marketId).rewardPool / seats + c.minStake;
    }
}
