// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReputationRegistry} from "../../contracts/erc8004/ReputationRegistry.sol";
import {ReputationTestBase} from "./reputation/ReputationFixtures.sol";

/// @notice Storage cheatcodes beyond the shared `Vm` (same cheatcode address).
interface VmStorage {
    function store(address target, bytes32 slot, bytes32 value) external;
    function load(address target, bytes32 slot) external view returns (bytes32);
}

/// @notice ReputationRegistry's packed storage: three feedbacks per slot, the wide fallback for values outside
///         int32 and for large tag ids, and revocation of one lane leaving its neighbours alone.
contract ReputationRegistryStorageTest is ReputationTestBase {
    VmStorage internal constant vmStorage = VmStorage(address(uint160(uint256(keccak256("hevm cheat code")))));

    /// @dev Storage slot of the length of `ReputationRegistry._tags.names` (`_logs` 0, `_clientLists` 1, `_tags` 2-3).
    bytes32 internal constant TAGS_SLOT = bytes32(uint256(3));

    struct Expect {
        int128 value;
        uint8 decimals;
        string tag1;
        string tag2;
    }

    function _check(address client, uint64 index, Expect memory e, bool revoked, string memory what) internal view {
        (int128 v, uint8 d, string memory t1, string memory t2, bool r) = rep.readFeedback(agent, client, index);
        assertEq(int256(v), int256(e.value), string.concat(what, ": value"));
        assertEq(uint256(d), uint256(e.decimals), string.concat(what, ": decimals"));
        assertEq(t1, e.tag1, string.concat(what, ": tag1"));
        assertEq(t2, e.tag2, string.concat(what, ": tag2"));
        assertEq(r, revoked, string.concat(what, ": revoked"));
    }

    function testLanesRoundTripAcrossSlotsWithWideValues() public {
        Expect[8] memory e = [
            Expect(type(int32).min, 0, RQ, CR), // compact, lane 0 of slot 0
            Expect(type(int32).max, 18, SQ, CR), // compact, lane 1
            Expect(int128(type(int32).max) + 1, 3, AD, ""), // wide, lane 2
            Expect(int128(type(int32).min) - 1, 17, "", CR), // wide, lane 0 of slot 1
            Expect(0, 0, "", ""),
            Expect(1e38, 18, RQ, "x"), // wide
            Expect(-1e38, 1, "x", RQ), // wide, lane 0 of slot 2
            Expect(100, 2, AD, CR)
        ];
        for (uint256 i; i < 8; ++i) _give(alice, e[i].value, e[i].decimals, e[i].tag1, e[i].tag2);
        _give(bob, 5, 0, RQ, CR); // another client's lanes are separate

        vm.prank(alice);
        rep.revokeFeedback(agent, 3);
        vm.prank(alice);
        rep.revokeFeedback(agent, 5);
        vm.prank(alice);
        rep.revokeFeedback(agent, 7);

        for (uint64 i = 1; i <= 8; ++i) {
            bool revoked = i == 3 || i == 5 || i == 7;
            _check(alice, i, e[i - 1], revoked, string.concat("feedback ", _digit(i)));
        }
        _check(bob, 1, Expect(5, 0, RQ, CR), false, "bob");

        (, uint64[] memory idx, int128[] memory values,,,, bool[] memory revokedStatuses) =
            rep.readAllFeedback(agent, _list(alice), "", "", true);
        assertEq(idx.length, 8, "all eight");
        for (uint256 i; i < 8; ++i) {
            assertEq(uint256(idx[i]), i + 1, "index order");
            assertEq(int256(values[i]), int256(e[i].value), "readAll value");
            assertEq(revokedStatuses[i], i == 2 || i == 4 || i == 6, "readAll revoked");
        }
        // Filters see wide tag ids too: tag2 CR among live ones = #1, #2, #4, #8.
        (uint64 count,,) = _summary(_list(alice), "", CR);
        assertEq(uint256(count), 4, "tag2 filter across compact and wide lanes");
        (count,,) = _summary(_list(alice), "x", "");
        assertEq(uint256(count), 0, "tag1 x only on a revoked wide lane");
        (count,,) = _summary(_list(alice), "", "x");
        assertEq(uint256(count), 1, "tag2 x on a live wide lane");
    }

    function testLargeTagIdsGoWide() public {
        _give(alice, 1, 0, RQ, CR);
        assertEq(uint256(vmStorage.load(address(rep), TAGS_SLOT)), 2, "layout assumption: _tags length");
        // Pretend 2**23 - 1 tags exist: the next new tag gets id 2**23, which no longer fits a lane.
        vmStorage.store(address(rep), TAGS_SLOT, bytes32(uint256(2 ** 23 - 1)));
        _give(alice, 7, 1, "late-tag", CR);
        _give(alice, 8, 1, RQ, "late-tag");
        _give(alice, 9, 0, RQ, CR);
        _check(alice, 2, Expect(7, 1, "late-tag", CR), false, "wide by tag1");
        _check(alice, 3, Expect(8, 1, RQ, "late-tag"), false, "wide by tag2");
        _check(alice, 4, Expect(9, 0, RQ, CR), false, "compact after wide");
        _assertSummary(_list(alice), "late-tag", "", 1, 7, 1, "filter on a large tag id");
        _assertSummary(_list(alice), "", "late-tag", 1, 8, 1, "tag2 filter on a large tag id");
        vm.prank(alice);
        rep.revokeFeedback(agent, 2);
        _check(alice, 2, Expect(7, 1, "late-tag", CR), true, "wide revoked");
        _assertSummary(_list(alice), "late-tag", "", 0, 0, 0, "revoked wide excluded");
    }

    /// @dev One fuzzed feedback at a fuzzed position among known neighbours: it reads back exactly, and
    ///      revoking it touches no neighbour.
    function testFuzzLaneRoundTrip(int128 value, uint8 decimals, uint8 before, bool revoke) public {
        int128 max = 1e38;
        vm.assume(value >= -max && value <= max);
        decimals = decimals % 19;
        uint64 n = uint64(before % 7);
        for (uint64 i; i < n; ++i) _give(alice, int128(int64(i)) - 3, uint8(i), SQ, "");
        _give(alice, value, decimals, RQ, CR);
        _give(alice, -42, 5, AD, "");
        uint64 mine = n + 1;
        if (revoke) {
            vm.prank(alice);
            rep.revokeFeedback(agent, mine);
        }
        _check(alice, mine, Expect(value, decimals, RQ, CR), revoke, "fuzzed");
        for (uint64 i; i < n; ++i) _check(alice, i + 1, Expect(int128(int64(i)) - 3, uint8(i), SQ, ""), false, "before");
        _check(alice, mine + 1, Expect(-42, 5, AD, ""), false, "after");
        (uint64 count, int128 v, uint8 d) = _summary(_list(alice), RQ, CR);
        assertEq(uint256(count), revoke ? 0 : 1, "summary count");
        if (!revoke) {
            assertEq(int256(v), int256(value), "single-feedback summary is the value");
            assertEq(uint256(d), uint256(decimals), "single-feedback summary decimals");
        }
    }

    function _digit(uint64 i) internal pure returns (string memory) {
        bytes memory b = new bytes(1);
        b[0] = bytes1(uint8(48 + i));
        return string(b);
    }
}

/// @notice Gas shape of the layout (whole test = one transaction, so slots touched before are warm).
contract ReputationRegistryGasShapeTest is ReputationTestBase {
    function _gasOfGive(int128 value, string memory tag1) internal returns (uint256 used) {
        used = gasleft();
        rep.giveFeedback(agent, value, 0, tag1, CR, "", "ipfs://bundle", bytes32(uint256(1)));
        used -= gasleft();
    }

    /// @dev Feedbacks 4, 5, 6 of a client share one slot: only #4 pays for a new slot (20k set cost).
    function testThreeFeedbacksShareOneSlot() public {
        _gasOfGive(1, RQ);
        _gasOfGive(2, SQ);
        _gasOfGive(3, AD);
        uint256 opening = _gasOfGive(4, RQ);
        uint256 second = _gasOfGive(5, SQ);
        uint256 third = _gasOfGive(6, AD);
        assertTrue(second + 15_000 < opening, "second lane reuses the slot");
        assertTrue(third + 15_000 < opening, "third lane reuses the slot");
        uint256 nextOpening = _gasOfGive(7, RQ);
        assertTrue(nextOpening > second + 15_000, "feedback 7 opens a new slot");
    }
}
