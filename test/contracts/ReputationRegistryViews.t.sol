// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReputationRegistry} from "../../contracts/erc8004/ReputationRegistry.sol";
import {ReputationTestBase} from "./reputation/ReputationFixtures.sol";

/// @notice ReputationRegistry: getSummary and readAllFeedback (filters, revocation, decimals), plus fuzz tests.
contract ReputationRegistryViewsTest is ReputationTestBase {
    // ---------------------------------------------------------------- getSummary

    function testSummaryNeedsClients() public {
        _give(alice, 1, 0, "", "");
        vm.expectRevert(ReputationRegistry.ClientAddressesRequired.selector);
        rep.getSummary(agent, new address[](0), "", "");
    }

    function testSummaryEmptyAndUnknown() public {
        _assertSummary(_list(alice), "", "", 0, 0, 0, "nobody rated");
        _give(alice, 50, 0, RQ, CR);
        _assertSummary(_list(bob), "", "", 0, 0, 0, "bob gave nothing");
        _assertSummary(_list(alice), "never-used", "", 0, 0, 0, "unknown tag1");
        _assertSummary(_list(alice), "", "never-used", 0, 0, 0, "unknown tag2");
        _assertSummary(_list(alice), CR, "", 0, 0, 0, "tag2 value is not a tag1 match");
    }

    function testSummaryTagFilters() public {
        _give(alice, 90, 0, RQ, CR);
        _give(alice, 60, 0, SQ, CR);
        _give(alice, 30, 0, RQ, "other");
        _give(alice, 10, 0, "", "");
        address[] memory a = _list(alice);
        _assertSummary(a, "", "", 4, 47, 0, "no filter"); // 190 / 4 = 47.5 -> 47
        _assertSummary(a, RQ, "", 2, 60, 0, "tag1 only");
        _assertSummary(a, "", CR, 2, 75, 0, "tag2 only");
        _assertSummary(a, RQ, CR, 1, 90, 0, "both");
        _assertSummary(a, SQ, "other", 0, 0, 0, "both, no match");
    }

    function testSummaryMultipleClientsAndListedOnly() public {
        _give(alice, 80, 0, RQ, CR);
        _give(bob, 40, 0, RQ, CR);
        _give(carol, 0, 0, RQ, CR);
        _assertSummary(_list(alice, bob), RQ, CR, 2, 60, 0, "alice+bob");
        _assertSummary(_list(alice, bob, carol), RQ, CR, 3, 40, 0, "all three");
        _assertSummary(_list(carol), RQ, CR, 1, 0, 0, "carol");
        // Canonical quirk, matched: a client listed twice is counted twice.
        _assertSummary(_list(alice, alice, bob), RQ, CR, 3, 66, 0, "alice twice");
    }

    function testSummarySkipsRevoked() public {
        _give(alice, 100, 0, RQ, CR);
        _give(alice, 0, 0, RQ, CR);
        _give(bob, 50, 0, RQ, CR);
        _assertSummary(_list(alice, bob), "", "", 3, 50, 0, "before revocation");
        vm.prank(alice);
        rep.revokeFeedback(agent, 2);
        _assertSummary(_list(alice, bob), "", "", 2, 75, 0, "revoked skipped");
        vm.prank(alice);
        rep.revokeFeedback(agent, 1);
        vm.prank(bob);
        rep.revokeFeedback(agent, 1);
        _assertSummary(_list(alice, bob), "", "", 0, 0, 0, "all revoked");
    }

    function testSummaryDecimalsNormalisation() public {
        // 1 (0 dp) + 2.50 + 2.50 (2 dp): mode is 2 dp, mean 2.00 -> 200 with 2 decimals.
        _give(alice, 1, 0, "", "");
        _give(alice, 250, 2, "", "");
        _give(bob, 250, 2, "", "");
        _assertSummary(_list(alice, bob), "", "", 3, 200, 2, "mode 2 dp");
    }

    function testSummaryDecimalsTieTakesSmallestAndTruncates() public {
        // 1 (0 dp) and 1.5 (1 dp): one each, tie -> 0 dp; mean 1.25 truncated to 1.
        _give(alice, 1, 0, "", "");
        _give(alice, 15, 1, "", "");
        _assertSummary(_list(alice), "", "", 2, 1, 0, "tie -> smallest decimals");
        // Add 0.07 (2 dp) twice: mode becomes 2 dp; mean (1 + 1.5 + 0.14) / 4 = 0.66 -> 66.
        _give(bob, 7, 2, "", "");
        _give(bob, 7, 2, "", "");
        _assertSummary(_list(alice, bob), "", "", 4, 66, 2, "mode 2 dp");
    }

    function testSummaryNegativeTruncatesTowardZero() public {
        _give(alice, -3, 0, "", "");
        _give(alice, 0, 0, "", "");
        _assertSummary(_list(alice), "", "", 2, -1, 0, "-1.5 -> -1");
        _give(bob, -1, 18, "", "");
        _give(bob, -1, 18, "", "");
        _give(bob, -1, 18, "", "");
        // mode 18 dp: (-3e18 - 3) / 5 = -600000000000000000 (-0.6 + tiny, truncated)
        _assertSummary(_list(alice, bob), "", "", 5, -600000000000000000, 18, "18 dp");
    }

    /// @dev Canonical quirk, matched: the average is cast to int128 without a range check, so it wraps.
    function testSummaryInt128WrapMatchesCanonical() public {
        int128 max = 1e38;
        _give(alice, max, 0, "", "");
        _give(bob, 0, 18, "", "");
        _give(carol, 0, 18, "", "");
        int256 averageWad = (int256(max) * 1e18) / 3; // mode is 18 dp: no scaling down
        (uint64 c, int128 v, uint8 d) = _summary(_list(alice, bob, carol), "", "");
        assertEq(uint256(c), 3, "count");
        assertEq(uint256(d), 18, "decimals");
        assertEq(int256(v), int256(int128(averageWad)), "wrapped like canonical");
        assertTrue(int256(v) != averageWad, "the true average does not fit");
    }

    // ---------------------------------------------------------------- readAllFeedback

    function testReadAllFeedbackDefaultsToAllClientsAndFilters() public {
        _give(bob, 1, 0, RQ, CR); //   bob #1
        _give(alice, 2, 1, SQ, CR); // alice #1
        _give(bob, 3, 0, AD, ""); //   bob #2
        _give(alice, 4, 0, RQ, "x"); // alice #2
        vm.prank(bob);
        rep.revokeFeedback(agent, 1);

        (
            address[] memory clients,
            uint64[] memory indexes,
            int128[] memory values,
            uint8[] memory decimals,
            string[] memory tag1s,
            string[] memory tag2s,
            bool[] memory revoked
        ) = rep.readAllFeedback(agent, new address[](0), "", "", true);
        assertEq(clients.length, 4, "all four");
        // Client order = first-feedback order (bob, alice), then index order.
        assertEq(clients[0], bob, "c0");
        assertEq(uint256(indexes[0]), 1, "i0");
        assertEq(revoked[0], true, "r0");
        assertEq(tag1s[0], RQ, "t1 0");
        assertEq(clients[1], bob, "c1");
        assertEq(uint256(indexes[1]), 2, "i1");
        assertEq(tag2s[1], "", "t2 1");
        assertEq(clients[2], alice, "c2");
        assertEq(int256(values[2]), 2, "v2");
        assertEq(uint256(decimals[2]), 1, "d2");
        assertEq(tag1s[2], SQ, "t1 2");
        assertEq(tag2s[2], CR, "t2 2");
        assertEq(clients[3], alice, "c3");
        assertEq(uint256(indexes[3]), 2, "i3");
        assertEq(tag2s[3], "x", "t2 3");
        assertEq(revoked[3], false, "r3");

        (clients, indexes,,,,, revoked) = rep.readAllFeedback(agent, new address[](0), "", "", false);
        assertEq(clients.length, 3, "revoked excluded by default");
        assertEq(uint256(indexes[0]), 2, "bob #2 first");

        (clients, indexes,,,,,) = rep.readAllFeedback(agent, new address[](0), RQ, "", true);
        assertEq(clients.length, 2, "tag1 filter");
        assertEq(clients[0], bob, "tag1 filter c0");
        assertEq(clients[1], alice, "tag1 filter c1");
        (clients,,,,,,) = rep.readAllFeedback(agent, new address[](0), RQ, "", false);
        assertEq(clients.length, 1, "tag1 filter, no revoked");
        (clients,,,,,,) = rep.readAllFeedback(agent, new address[](0), "", CR, true);
        assertEq(clients.length, 2, "tag2 filter");
        (clients, indexes,,,,,) = rep.readAllFeedback(agent, new address[](0), RQ, "x", true);
        assertEq(clients.length, 1, "both filters");
        assertEq(uint256(indexes[0]), 2, "both filters index");
        (clients,,,,,,) = rep.readAllFeedback(agent, new address[](0), "nope", "", true);
        assertEq(clients.length, 0, "unknown tag");
    }

    function testReadAllFeedbackExplicitClients() public {
        _give(alice, 1, 0, "", "");
        _give(bob, 2, 0, "", "");
        _give(bob, 3, 0, "", "");
        (address[] memory clients,, int128[] memory values,,,,) =
            rep.readAllFeedback(agent, _list(bob, carol), "", "", false);
        assertEq(clients.length, 2, "bob only (carol has none)");
        assertEq(int256(values[0]), 2, "bob #1");
        assertEq(int256(values[1]), 3, "bob #2");
        (clients,,,,,,) = rep.readAllFeedback(agent, _list(alice, alice), "", "", false);
        assertEq(clients.length, 2, "listed twice, returned twice (as canonical)");
        (clients,,,,,,) = rep.readAllFeedback(agent + 1, new address[](0), "", "", true);
        assertEq(clients.length, 0, "other agent: nothing");
    }

    // ---------------------------------------------------------------- fuzz

    /// @dev Three feedbacks with fuzzed values/decimals, checked against an independent computation
    ///      (a single division by count * 10**(18 - mode), mode picked by counting pairwise).
    function testFuzzSummaryMatchesIndependentMath(int128 v1, uint8 d1, int128 v2, uint8 d2, int128 v3, uint8 d3)
        public
    {
        int128[3] memory v = [_boundValue(v1), _boundValue(v2), _boundValue(v3)];
        uint8[3] memory d = [d1 % 19, d2 % 19, d3 % 19];
        _give(alice, v[0], d[0], RQ, CR);
        _give(bob, v[1], d[1], RQ, CR);
        _give(carol, v[2], d[2], SQ, CR);

        // Mode: the decimals occurring most often; ties go to the smallest.
        uint8 mode = 255;
        uint256 modeCount;
        for (uint256 i; i < 3; ++i) {
            uint256 n;
            for (uint256 j; j < 3; ++j) if (d[j] == d[i]) ++n;
            if (n > modeCount || (n == modeCount && d[i] < mode)) (mode, modeCount) = (d[i], n);
        }
        int256 total;
        for (uint256 i; i < 3; ++i) total += int256(v[i]) * int256(10 ** (18 - uint256(d[i])));
        int256 expected = total / (3 * int256(10 ** (18 - uint256(mode))));

        (uint64 c, int128 value, uint8 decimals) = _summary(_list(alice, bob, carol), "", CR);
        assertEq(uint256(c), 3, "count");
        assertEq(uint256(decimals), uint256(mode), "mode decimals");
        assertEq(int256(value), int256(int128(expected)), "value");
        if (expected >= type(int128).min && expected <= type(int128).max) {
            assertEq(int256(value), expected, "no wrap when it fits");
        }
        // The tag1 filter keeps only the first two.
        (c,,) = _summary(_list(alice, bob, carol), RQ, "");
        assertEq(uint256(c), 2, "tag1 count");
    }

    /// @dev A fuzzed sequence of gives and revokes by two clients; counts are checked against a model.
    function testFuzzGiveRevokeSequence(uint256 seed) public {
        address[2] memory who = [alice, bob];
        uint64[2] memory given;
        uint64[2] memory live;
        bool[16][2] memory isRevoked;
        for (uint256 step; step < 24; ++step) {
            uint256 r = uint256(keccak256(abi.encode(seed, step)));
            uint256 c = r & 1;
            if ((r >> 1) % 3 != 0 || given[c] == 0) {
                if (given[c] == 16) continue;
                _give(who[c], int128(int256((r >> 8) % 101)), 0, RQ, CR);
                ++given[c];
                ++live[c];
            } else {
                uint64 index = uint64((r >> 16) % given[c]) + 1;
                vm.prank(who[c]);
                if (isRevoked[c][index - 1]) {
                    vm.expectRevert(
                        abi.encodeWithSelector(ReputationRegistry.FeedbackAlreadyRevoked.selector, agent, who[c], index)
                    );
                    rep.revokeFeedback(agent, index);
                } else {
                    rep.revokeFeedback(agent, index);
                    isRevoked[c][index - 1] = true;
                    --live[c];
                }
            }
        }
        for (uint256 c; c < 2; ++c) {
            assertEq(uint256(rep.getLastIndex(agent, who[c])), uint256(given[c]), "last index = gives");
            (uint64 n,,) = _summary(_list(who[c]), RQ, CR);
            assertEq(uint256(n), uint256(live[c]), "summary counts live feedback");
            (address[] memory all,,,,,,) = rep.readAllFeedback(agent, _list(who[c]), "", "", true);
            assertEq(all.length, uint256(given[c]), "readAll with revoked = gives");
            (all,,,,,,) = rep.readAllFeedback(agent, _list(who[c]), "", "", false);
            assertEq(all.length, uint256(live[c]), "readAll without revoked = live");
        }
        uint256 clientCount = (given[0] > 0 ? 1 : 0) + (given[1] > 0 ? 1 : 0);
        assertEq(rep.getClients(agent).length, clientCount, "clients");
    }

    function _boundValue(int128 x) internal pure returns (int128) {
        int128 max = 1e38;
        if (x > max || x < -max) return x % (max + 1);
        return x;
    }
}
