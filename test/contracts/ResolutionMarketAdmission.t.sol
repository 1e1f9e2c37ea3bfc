// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IdentityRegistry} from "../../contracts/erc8004/IdentityRegistry.sol";
import {IAdmissionCounters} from "../../contracts/market/interfaces/IAdmissionCounters.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {MarketFixture, VmExtra} from "./market/MarketFixture.sol";

/// @notice Issue 20 item 5: TrackRecord admission counts only markets worth the gated market's floor per seat,
///         not created by the seat's controller, settled with an independent seat or by an allowed arbiter
///         (docs/RECORDS.md §5). The farmed-admission attack of 15142af, written as a test.
contract ResolutionMarketAdmissionTest is MarketFixture {
    IResolutionMarket.Answer internal constant YES = IResolutionMarket.Answer.Yes;
    IResolutionMarket.Verdict internal constant V_YES = IResolutionMarket.Verdict.Yes;
    IResolutionMarket.Verdict internal constant V_NO = IResolutionMarket.Verdict.No;
    uint96 internal constant FARM_STAKE = 0.0001 ether;
    address internal farmer = address(0xFA12);
    /// @dev Private keys of the agent owners this test registered (they sign their seats' answers).
    mapping(address => uint256) internal ownerKey;

    function setUp() public override {
        super.setUp();
        vm.deal(farmer, 1_000_000 ether);
    }

    /// @dev `_worker(i)`, its key remembered so the agents it owns sign their answers.
    function _keyed(uint256 i) internal returns (address w) {
        w = _worker(i);
        ownerKey[w] = _workerKey(i);
    }

    /// @dev `n` reports answering `answer` at 0.9, each signed (EIP-712) by its seat's agent owner: every seat is
    ///      stored as signed, so it is settled, recorded and can count for admission. Seats whose bit is set in
    ///      `attested` carry no signature (attested). Reverts when an owner's key is unknown (no silent attestation).
    function _signed(uint256 id, uint256 n, IResolutionMarket.Answer answer, uint256 attested)
        internal
        view
        returns (IResolutionMarket.WorkerReport[] memory r)
    {
        r = _uniform(n, answer);
        (, uint256[] memory agentIds,) = market.getWorkers(id);
        assertEq(agentIds.length, n, "one report per seat");
        for (uint256 i; i < n; ++i) {
            if ((attested >> i) & 1 == 1) continue;
            uint256 key = ownerKey[identity.ownerOf(agentIds[i])];
            assertTrue(key != 0, "the seat's owner key is known");
            r[i].signature = _signAnswer(market, key, id, agentIds[i], r[i]);
        }
    }

    function _signed(uint256 id, uint256 n, IResolutionMarket.Answer answer)
        internal
        view
        returns (IResolutionMarket.WorkerReport[] memory)
    {
        return _signed(id, n, answer, 0);
    }

    /// @dev `n` agents, each registered by its own account (Sybils look like independent owners).
    function _agents(uint256 n, uint256 offset) internal returns (address[] memory ws, uint256[] memory ids) {
        ws = new address[](n);
        ids = new uint256[](n);
        for (uint256 i; i < n; ++i) {
            ws[i] = _keyed(offset + i);
            vm.deal(ws[i], 1_000 ether);
            ids[i] = _registerAgent(ws[i]);
        }
    }

    /// @dev A market created by `by` with `pool`, the agents seated at FARM_STAKE each.
    function _open(address by, uint256 pool, address[] memory ws, uint256[] memory ids) internal returns (uint256 id) {
        IResolutionMarket.MarketParams memory p;
        p.minStake = FARM_STAKE;
        vm.prank(by);
        id = market.createMarketWith{value: pool}(QUESTION, uint64(block.timestamp + 1 days), p);
        for (uint256 i; i < ws.length; ++i) {
            vm.prank(ws[i]);
            market.joinMarket{value: FARM_STAKE}(id, ids[i]);
        }
        _request(market, id);
    }

    /// @dev One farmed round: every agent answers YES at 0.9 (correctness 99), undisputed, then counted for
    ///      admission (the farmer pays for the count).
    function _farm(address by, uint256 pool, address[] memory ws, uint256[] memory ids) internal returns (uint256 id) {
        id = _open(by, pool, ws, ids);
        _settle(market, id, V_YES, _signed(id, ws.length, YES));
        vm.prank(by);
        writer.countAdmission(id);
    }

    /// @dev The 100 ETH market of the issue, gated at minSettled 5 / minCorrectness 95, 10 seats.
    function _gated() internal returns (uint256) {
        IResolutionMarket.MarketParams memory p;
        p.admission = IResolutionMarket.Admission.TrackRecord;
        p.minSettled = 5;
        p.minCorrectness = 95;
        p.maxWorkers = 10;
        vm.prank(creator);
        return market.createMarketWith{value: 100 ether}(QUESTION, uint64(block.timestamp + 1 days), p);
    }

    function _expectRefused(uint256 gated, address[] memory ws, uint256[] memory ids) internal {
        for (uint256 i; i < ws.length; ++i) {
            vm.prank(ws[i]);
            vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.AgentNotAdmitted.selector, gated, ids[i]));
            market.joinMarket{value: STAKE}(gated, ids[i]);
        }
    }

    function _counted(uint256 agentId, uint256 floor) internal view returns (uint256 settled) {
        (settled,) = writer.admissionRecord(agentId, floor);
    }

    /// @notice The farm of 15142af: 10 Sybils (own accounts, so the creator rule alone does not stop them) each
    ///         settle 5 self-made 0.001 ETH markets at correctness 99, which the old rule (every Resolved market)
    ///         took as a record; none of them may join the gated 100 ETH market.
    function testFarmedSybilsCannotJoinGatedMarket() public {
        (address[] memory ws, uint256[] memory ids) = _agents(10, 5_000);
        for (uint256 k; k < 5; ++k) {
            _farm(farmer, 0.001 ether, ws, ids);
        }
        uint256 gated = _gated();
        for (uint256 i; i < 10; ++i) {
            IResolutionMarket.Reputation memory book = writer.getReputation(ids[i]);
            (uint256 settled, uint256 correctness) = (book.settled, book.correctness);
            assertEq(settled, 5, "the old rule's record: 5 settled");
            assertEq(correctness, 99, "the old rule's record: correctness 99 >= 95");
            assertEq(_counted(ids[i], writer.admissionFloor(gated)), 0, "nothing counts at the floor");
        }
        _expectRefused(gated, ws, ids);
        assertEq(market.getMarket(gated).workerCount, 0, "no Sybil seated");
    }

    /// @notice Getting in costs the floor per agent: 5 rounds with the gated market's whole pool (100 ETH) spread
    ///         over 10 Sybils, then 5 rounds 1 wei per seat under the power of two above the floor, are refused;
    ///         only rounds putting ≥ 2^ceil(log2(floor)) ≥ floor per seat at stake admit them. So seating k farmed
    ///         agents locks ≥ k·floor per round, and filling the 10 seats ≥ the gated market's 100 ETH pool.
    function testAdmissionCostsTheFloorPerAgent() public {
        (address[] memory ws, uint256[] memory ids) = _agents(10, 6_000);
        uint256 floor = writer.admissionFloor(_gated());
        assertEq(floor, 100 ether / 10 + 0.001 ether, "floor = pool / seats + min stake");
        uint256 need = 2 ** 64; // the power of two at or above 10.001 ETH
        assertTrue(need >= floor && need / 2 < floor, "need = 2^ceil(log2(floor))");

        for (uint256 k; k < 5; ++k) {
            _farm(farmer, 100 ether, ws, ids);
        }
        _expectRefused(_gated(), ws, ids);
        for (uint256 k; k < 5; ++k) {
            _farm(farmer, 10 * (need - 1 - FARM_STAKE), ws, ids); // value per seat need − 1 wei
        }
        _expectRefused(_gated(), ws, ids);
        assertEq(_counted(ids[0], floor), 0, "below the bucket: nothing counts");
        assertEq(_counted(ids[0], floor / 16), 10, "all 10 count at a 16x lower floor");

        for (uint256 k; k < 5; ++k) {
            _farm(farmer, 10 * (need - FARM_STAKE), ws, ids); // value per seat exactly need
        }
        uint256 gated = _gated();
        assertEq(writer.admissionFloor(gated), floor, "same floor");
        for (uint256 i; i < 10; ++i) {
            vm.prank(ws[i]);
            market.joinMarket{value: STAKE}(gated, ids[i]);
        }
        assertEq(market.getMarket(gated).workerCount, 10, "admitted after locking >= floor per agent per round");
        (uint256 settled, uint256 correctness) = writer.admissionRecord(ids[9], floor);
        assertEq(settled, 5, "only the 5 rounds at the floor count");
        assertEq(correctness, 99, "their correctness");
        assertTrue(10 * need >= 100 ether, "each admitting round locked >= the gated pool");
    }

    /// @notice A market created by a seat's owner, approved operator or joining address does not count for that
    ///         seat; it still counts for the others.
    function testCreatorControlledMarketsDoNotCountForTheirAgent() public {
        (address[] memory ws, uint256[] memory ids) = _agents(3, 7_000);
        address operator = address(0x0DE2);
        vm.deal(operator, 10 ether);
        vm.prank(ws[2]);
        IdentityRegistry(address(identity)).approve(operator, ids[2]);

        _farm(ws[0], 1 ether, ws, ids); // created by agent 0's owner
        _farm(operator, 1 ether, ws, ids); // created by agent 2's operator
        assertEq(_counted(ids[0], 1), 1, "owner-created market does not count for its agent");
        assertEq(_counted(ids[1], 1), 2, "it counts for the others");
        assertEq(_counted(ids[2], 1), 1, "operator-created market does not count for its agent");

        // Joined from an operator address that then lost its approval: the joining address is still a controller.
        address joiner = address(0x101E);
        vm.deal(joiner, 10 ether);
        vm.prank(ws[1]);
        IdentityRegistry(address(identity)).approve(joiner, ids[1]);
        address[] memory via = new address[](3);
        (via[0], via[1], via[2]) = (ws[0], joiner, ws[2]);
        uint256 id = _open(joiner, 1 ether, via, ids);
        vm.prank(ws[1]);
        IdentityRegistry(address(identity)).approve(address(0), ids[1]);
        _propose(market, id, V_YES, _signed(id, 3, YES));
        _warpPastWindow(market, id);
        market.finalize(id);
        assertEq(_counted(ids[0], 1), 1, "finalization counts nothing");
        vmx.recordLogs();
        writer.countAdmission(id);
        VmExtra.Log[] memory logs = vmx.getRecordedLogs();
        uint256 events;
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].topics[0] != IAdmissionCounters.AdmissionCounted.selector) continue;
            assertEq(logs[i].emitter, address(writer), "emitted by the reputation contract");
            assertEq(uint256(logs[i].topics[1]), id, "market");
            assertTrue(uint256(logs[i].topics[2]) != ids[1], "not for the joiner's agent");
            (uint256 bucket, uint8 correctness) = abi.decode(logs[i].data, (uint256, uint8));
            assertEq(bucket, 58, "(1 ETH + 3 stakes) / 3 lies in [2^58, 2^59)");
            assertEq(correctness, 99, "correctness");
            ++events;
        }
        assertEq(events, 2, "one AdmissionCounted per counted seat");
        assertEq(_counted(ids[1], 1), 2, "the joining address created it: not counted");
        assertEq(_counted(ids[0], 1), 2, "counted for the others");
    }

    /// @notice Seats of one owner are not independent: their undisputed market does not count; ruled by an
    ///         allowed arbiter it does; ruled by an arbiter removed from the allow-list it does not.
    function testOneOwnerPanelCountsOnlyWithAnAllowedRuling() public {
        address owner_ = _keyed(8_000);
        vm.deal(owner_, 100 ether);
        address[] memory ws = new address[](3);
        uint256[] memory ids = new uint256[](3);
        for (uint256 i; i < 3; ++i) {
            ids[i] = _registerAgent(owner_);
            ws[i] = i == 0 ? owner_ : _worker(8_000 + i);
            vm.deal(ws[i], 10 ether);
            if (i != 0) {
                vm.prank(owner_);
                IdentityRegistry(address(identity)).approve(ws[i], ids[i]);
            }
        }
        _farm(creator, 1 ether, ws, ids);
        assertEq(_counted(ids[0], 1) + _counted(ids[1], 1) + _counted(ids[2], 1), 0, "no independent seat");

        uint256 id = _open(creator, 1 ether, ws, ids);
        _propose(market, id, V_NO, _signed(id, 3, YES));
        _dispute(id, V_YES);
        arbiter.rule(market, id, V_YES);
        writer.countAdmission(id);
        for (uint256 i; i < 3; ++i) {
            assertEq(_counted(ids[i], 1), 1, "an allowed arbiter's ruling counts");
        }

        id = _open(creator, 1 ether, ws, ids);
        _propose(market, id, V_NO, _signed(id, 3, YES));
        _dispute(id, V_YES);
        vm.prank(owner);
        gov.removeArbiter(address(arbiter));
        arbiter.rule(market, id, V_YES);
        writer.countAdmission(id);
        assertEq(_counted(ids[0], 1), 1, "a ruling by an arbiter no longer allowed does not count");
    }

    /// @notice A mixed panel: one honest seat of another owner makes the market count for every seat.
    function testOneIndependentSeatSuffices() public {
        address owner_ = _keyed(9_100);
        (address[] memory others, uint256[] memory otherIds) = _agents(1, 9_000);
        address[] memory ws = new address[](3);
        uint256[] memory ids = new uint256[](3);
        ids[0] = _registerAgent(owner_);
        ids[1] = _registerAgent(owner_);
        ws[0] = owner_;
        ws[1] = address(0x0A80);
        vm.deal(owner_, 10 ether);
        vm.deal(ws[1], 10 ether);
        vm.prank(owner_);
        IdentityRegistry(address(identity)).approve(ws[1], ids[1]);
        (ws[2], ids[2]) = (others[0], otherIds[0]);
        _farm(creator, 1 ether, ws, ids);
        for (uint256 i; i < 3; ++i) {
            assertEq(_counted(ids[i], 1), 1, "counted");
        }
        (uint256 settled, uint256 correctness) = writer.admissionRecord(ids[0], 0);
        assertEq(settled, 1, "floor 0 reads every bucket");
        assertEq(correctness, 99, "correctness 99");
        assertEq(_counted(ids[0], type(uint256).max), 0, "no bucket above 2^255");
    }

    /// @notice A Resolved market nobody counted admits nobody; anyone (here a stranger) may count it, once.
    function testUncountedMarketDoesNotAdmitAndCountingIsPermissionless() public {
        (address[] memory ws, uint256[] memory ids) = _agents(2, 10_000);
        uint256 id = _open(farmer, 1 ether, ws, ids);
        _settle(market, id, V_YES, _signed(id, 2, YES));
        assertTrue(!writer.admissionCounted(id), "not counted at finalization");
        assertEq(_counted(ids[0], 1), 0, "finalization counts nothing");

        IResolutionMarket.MarketParams memory p;
        p.admission = IResolutionMarket.Admission.TrackRecord;
        p.minSettled = 1;
        vm.prank(creator);
        uint256 gated = market.createMarketWith{value: 0.01 ether}(QUESTION, uint64(block.timestamp + 1 days), p);
        vm.prank(ws[0]);
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.AgentNotAdmitted.selector, gated, ids[0]));
        market.joinMarket{value: STAKE}(gated, ids[0]);

        vm.prank(address(0x5742));
        writer.countAdmission(id);
        assertTrue(writer.admissionCounted(id), "counted");
        assertEq(_counted(ids[0], 1), 1, "counted for seat 0");
        assertEq(_counted(ids[1], 1), 1, "counted for seat 1");
        vm.prank(ws[0]);
        market.joinMarket{value: STAKE}(gated, ids[0]);
        assertEq(market.getMarket(gated).workerCount, 1, "admitted once counted");
    }

    /// @notice A second count of the same market reverts and changes nothing (no double counting).
    function testSecondCountReverts() public {
        (address[] memory ws, uint256[] memory ids) = _agents(2, 11_000);
        uint256 id = _farm(farmer, 1 ether, ws, ids);
        vm.expectRevert(abi.encodeWithSelector(IAdmissionCounters.AdmissionAlreadyCounted.selector, id));
        writer.countAdmission(id);
        vm.prank(ws[0]);
        vm.expectRevert(abi.encodeWithSelector(IAdmissionCounters.AdmissionAlreadyCounted.selector, id));
        writer.countAdmission(id);
        assertEq(_counted(ids[0], 1), 1, "counted once");
    }

    /// @notice Only a Resolved market can be counted: an unknown, an unfinalized (requested, proposed) and an
    ///         Invalid market revert with the market's error and leave the market uncounted.
    function testCountOfUnresolvedMarketReverts() public {
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.MarketNotFound.selector, 999));
        writer.countAdmission(999);

        (address[] memory ws, uint256[] memory ids) = _agents(2, 12_000);
        uint256 id = _open(farmer, 1 ether, ws, ids);
        vm.expectRevert(
            abi.encodeWithSelector(
                IResolutionMarket.WrongStatus.selector, id, IResolutionMarket.Status.ResolutionRequested
            )
        );
        writer.countAdmission(id);
        _propose(market, id, V_YES, _signed(id, 2, YES));
        vm.expectRevert(
            abi.encodeWithSelector(IResolutionMarket.WrongStatus.selector, id, IResolutionMarket.Status.Proposed)
        );
        writer.countAdmission(id);
        assertTrue(!writer.admissionCounted(id), "a reverted count leaves no flag");
        _warpPastWindow(market, id);
        market.finalize(id);
        writer.countAdmission(id);
        assertEq(_counted(ids[0], 1), 1, "counted once Resolved");

        uint256 invalid = _open(farmer, 1 ether, ws, ids);
        _settle(market, invalid, IResolutionMarket.Verdict.Invalid, _signed(invalid, 2, YES));
        vm.expectRevert(
            abi.encodeWithSelector(IResolutionMarket.WrongStatus.selector, invalid, IResolutionMarket.Status.Invalid)
        );
        writer.countAdmission(invalid);
        assertTrue(!writer.admissionCounted(invalid), "Invalid: never counted");
        assertEq(_counted(ids[0], 1), 1, "an Invalid market counts for nobody");
    }

    /// @notice An attested seat (its report carries no agent signature: the proposer's word only) is not counted
    ///         for admission, as it gets no record and no book entry (docs/RECORDS.md §2); the signed seats of the
    ///         same market are. Nor does an attested seat of another owner make a one-owner panel independent: the
    ///         proposer cannot vouch an answer into independence.
    function testAttestedSeatIsNotCounted() public {
        (address[] memory ws, uint256[] memory ids) = _agents(3, 14_000);
        uint256 id = _open(farmer, 1 ether, ws, ids);
        _attestMask = 1 << 2; // the fixture must not sign seat 2 either
        _settle(market, id, V_YES, _signed(id, 3, YES, 1 << 2));
        _attestMask = 0;
        uint256 settled = writer.getReputation(ids[2]).settled;
        assertEq(settled, 0, "attested: no book entry");
        settled = writer.getReputation(ids[0]).settled;
        assertEq(settled, 1, "signed: a book entry");
        vmx.recordLogs();
        writer.countAdmission(id);
        VmExtra.Log[] memory logs = vmx.getRecordedLogs();
        uint256 events;
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].topics[0] != IAdmissionCounters.AdmissionCounted.selector) continue;
            assertTrue(uint256(logs[i].topics[2]) != ids[2], "no AdmissionCounted for the attested seat");
            ++events;
        }
        assertEq(events, 2, "one AdmissionCounted per signed seat");
        assertEq(_counted(ids[0], 1), 1, "signed seat 0 counted");
        assertEq(_counted(ids[1], 1), 1, "signed seat 1 counted");
        assertEq(_counted(ids[2], 1), 0, "attested seat not counted");

        // One owner's two signed seats beside an attested seat of another owner: not independent, nothing counts.
        address owner_ = _keyed(14_100);
        address op = address(0x0A81);
        vm.deal(owner_, 10 ether);
        vm.deal(op, 10 ether);
        address[] memory panel = new address[](3);
        uint256[] memory panelIds = new uint256[](3);
        panelIds[0] = _registerAgent(owner_);
        panelIds[1] = _registerAgent(owner_);
        vm.prank(owner_);
        IdentityRegistry(address(identity)).approve(op, panelIds[1]);
        (panel[0], panel[1], panel[2]) = (owner_, op, ws[2]);
        panelIds[2] = ids[2];
        id = _open(farmer, 1 ether, panel, panelIds);
        _attestMask = 1 << 2;
        _settle(market, id, V_YES, _signed(id, 3, YES, 1 << 2));
        _attestMask = 0;
        writer.countAdmission(id);
        assertEq(_counted(panelIds[0], 1) + _counted(panelIds[1], 1), 0, "an attested seat is not independent");
        assertEq(_counted(panelIds[2], 1), 0, "and is still not counted");

        // The same panel with seat 2 signed: independent, every seat counts.
        id = _open(farmer, 1 ether, panel, panelIds);
        _settle(market, id, V_YES, _signed(id, 3, YES));
        writer.countAdmission(id);
        for (uint256 i; i < 3; ++i) {
            assertEq(_counted(panelIds[i], 1), 1, "signed and independent: counted");
        }
    }

    /// @notice Fuzz: whoever counts, and however often anyone retries, a market adds exactly one to each seat.
    function testFuzzCountsOnceWhoeverCalls(address caller, uint8 retries, uint96 pool) public {
        vm.assume(caller != address(0));
        pool = uint96(0.001 ether + uint256(pool) % 1_000 ether);
        (address[] memory ws, uint256[] memory ids) = _agents(3, 13_000);
        uint256 id = _open(farmer, pool, ws, ids);
        _settle(market, id, V_YES, _signed(id, 3, YES));
        vm.prank(caller);
        writer.countAdmission(id);
        for (uint256 k; k < retries % 4; ++k) {
            vm.prank(caller);
            vm.expectRevert(abi.encodeWithSelector(IAdmissionCounters.AdmissionAlreadyCounted.selector, id));
            writer.countAdmission(id);
        }
        for (uint256 i; i < 3; ++i) {
            assertEq(_counted(ids[i], 1), 1, "exactly once");
        }
    }
}
