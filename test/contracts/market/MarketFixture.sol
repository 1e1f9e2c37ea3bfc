// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TestBase} from "../utils/Vm.sol";
import {IdentityRegistry} from "../../../contracts/erc8004/IdentityRegistry.sol";
import {ReputationRegistry} from "../../../contracts/erc8004/ReputationRegistry.sol";
import {IIdentityRegistry} from "../../../contracts/erc8004/interfaces/IIdentityRegistry.sol";
import {IReputationRegistry} from "../../../contracts/erc8004/interfaces/IReputationRegistry.sol";
import {IResolutionMarket} from "../../../contracts/market/interfaces/IResolutionMarket.sol";
import {ResolutionMarket} from "../../../contracts/market/ResolutionMarket.sol";
import {TestArbiter} from "./TestArbiter.sol";
import {MarketGovernance} from "../../../contracts/market/MarketGovernance.sol";
import {MarketReputation} from "../../../contracts/market/MarketReputation.sol";
import {_gov, _rep} from "./Split.sol";

/// @notice Extra cheatcodes (same address as `vm`).
interface VmExtra {
    struct Log {
        bytes32[] topics;
        bytes data;
        address emitter;
    }

    function recordLogs() external;
    function getRecordedLogs() external returns (Log[] memory);
}

/// @notice Registries + market + test arbiter deployed; helpers to register agents, open markets, propose,
///         dispute and finalize.
abstract contract MarketFixture is TestBase {
    VmExtra internal constant vmx = VmExtra(address(uint160(uint256(keccak256("hevm cheat code")))));

    uint256 internal constant POOL = 1 ether;
    uint256 internal constant STAKE = 0.01 ether;
    uint256 internal constant BOND = 0.01 ether;
    string internal constant QUESTION = "Will it rain in Lisbon on 2026-12-01?";
    string internal constant URI = "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/bundle.json";
    bytes32 internal constant HASH = keccak256("bundle");

    IIdentityRegistry internal identity;
    IReputationRegistry internal reputation;
    ResolutionMarket internal market;
    TestArbiter internal arbiter;
    /// @dev The governance and the feedback writer of `market` (read once: pranks apply to the next call).
    MarketGovernance internal gov;
    MarketReputation internal writer;

    address internal owner = address(0xA11CE);
    address internal resolver = address(0xBEEF);
    address internal creator = address(0xC0FFEE);
    address internal stranger = address(0xBAD);
    address internal disputer = address(0xD15);

    bytes32 internal constant FEEDBACK_FAILED_TOPIC = keccak256("FeedbackFailed(uint256,uint256,string,bytes)");

    function setUp() public virtual {
        vm.warp(1_800_000_000);
        identity = IIdentityRegistry(address(new IdentityRegistry()));
        reputation = IReputationRegistry(address(new ReputationRegistry(address(identity))));
        arbiter = new TestArbiter();
        market = _deployMarket(identity, reputation);
        gov = _gov(market);
        writer = _rep(market);
        vm.deal(creator, 1_000_000 ether);
        vm.deal(stranger, 1_000 ether);
        vm.deal(resolver, 1_000 ether);
        vm.deal(disputer, 1_000 ether);
    }

    /// @dev Bootstrap (no market yet): the resolver and the arbiter apply at once; defaults allow 100 seats.
    function _deployMarket(IIdentityRegistry id, IReputationRegistry rep) internal returns (ResolutionMarket m) {
        m = new ResolutionMarket(id, rep, owner);
        MarketGovernance g = _gov(m);
        vm.startPrank(owner);
        g.queueResolver(resolver);
        g.queueDefaultArbiter(arbiter);
        g.setDefaults(0.001 ether, 100, 3 days, 1 days, uint96(BOND));
        vm.stopPrank();
    }

    /// @dev Private key of worker `i` (its address is `vm.addr` of it, so fixtures can sign its answers).
    function _workerKey(uint256 i) internal pure returns (uint256) {
        return 0x100000 + i;
    }

    function _worker(uint256 i) internal pure returns (address) {
        return vm.addr(_workerKey(i));
    }

    /// @dev Keys of the workers `_joinFresh` registered (or `_keyOf` found), by address.
    mapping(address => uint256) internal _workerKeys;
    /// @dev Seats whose bit is set are proposed without a signature (attested) by `_propose`.
    uint256 internal _attestMask;
    /// @dev When false, `_propose` signs nothing (every seat attested).
    bool internal _autoSign = true;

    /// @dev The key of worker address `w` if it is `_worker(i)` for a small `i` (memoized), else 0.
    function _keyOf(address w) internal returns (uint256 key) {
        key = _workerKeys[w];
        if (key != 0) return key;
        for (uint256 i; i < 64; ++i) {
            if (_worker(i) == w) {
                key = _workerKey(i);
                _workerKeys[w] = key;
                return key;
            }
        }
    }

    /// @dev An EIP-712 answer signature by `key` over `r` for seat `agentId` of `marketId` (65 bytes, r‖s‖v).
    function _signAnswer(
        ResolutionMarket m,
        uint256 key,
        uint256 marketId,
        uint256 agentId,
        IResolutionMarket.WorkerReport memory r
    ) internal view returns (bytes memory) {
        bytes32 digest = m.answerVerifier().answerDigest(marketId, agentId, r.answer, r.confidenceBps, r.replyHash);
        (uint8 v, bytes32 rs, bytes32 ss) = vm.sign(key, digest);
        return abi.encodePacked(rs, ss, v);
    }

    /// @dev Signs (in place) every unsigned report whose seat's worker key is known and whose bit in
    ///      `_attestMask` is clear: those seats are stored as signed, as the reference agent's would be.
    function _signReports(ResolutionMarket m, uint256 marketId, IResolutionMarket.WorkerReport[] memory reports)
        internal
    {
        if (!_autoSign) return;
        (address[] memory workers, uint256[] memory agentIds,) = m.getWorkers(marketId);
        for (uint256 i; i < reports.length && i < workers.length; ++i) {
            if (reports[i].signature.length != 0 || (i < 256 && (_attestMask >> i) & 1 == 1)) continue;
            uint256 key = _keyOf(workers[i]);
            if (key != 0) reports[i].signature = _signAnswer(m, key, marketId, agentIds[i], reports[i]);
        }
    }

    function _registerAgent(address who) internal returns (uint256 agentId) {
        vm.prank(who);
        agentId = IdentityRegistry(address(identity)).register("ipfs://agent");
    }

    function _createMarket() internal returns (uint256 marketId) {
        return _createMarketOn(market, POOL);
    }

    function _createMarketOn(ResolutionMarket m, uint256 pool) internal returns (uint256 marketId) {
        vm.prank(creator);
        marketId = m.createMarket{value: pool}(QUESTION, uint64(block.timestamp + 1 days));
    }

    function _createWith(IResolutionMarket.MarketParams memory params) internal returns (uint256 marketId) {
        vm.prank(creator);
        marketId = market.createMarketWith{value: POOL}(QUESTION, uint64(block.timestamp + 1 days), params);
    }

    /// @dev Registers `n` fresh agents for workers `offset..offset+n-1` (real identity registry) and joins them.
    function _joinFresh(uint256 marketId, uint256 n, uint256 offset)
        internal
        returns (address[] memory workers, uint256[] memory agentIds)
    {
        workers = new address[](n);
        agentIds = new uint256[](n);
        for (uint256 i; i < n; ++i) {
            address w = _worker(offset + i);
            _workerKeys[w] = _workerKey(offset + i);
            vm.deal(w, 10 ether);
            uint256 id = _registerAgent(w);
            vm.prank(w);
            market.joinMarket{value: STAKE}(marketId, id);
            workers[i] = w;
            agentIds[i] = id;
        }
    }

    /// @dev Joins existing agents owned by `workers`.
    function _joinAgents(uint256 marketId, address[] memory workers, uint256[] memory agentIds) internal {
        for (uint256 i; i < workers.length; ++i) {
            vm.prank(workers[i]);
            market.joinMarket{value: STAKE}(marketId, agentIds[i]);
        }
    }

    function _request(ResolutionMarket m, uint256 marketId) internal {
        vm.warp(m.getMarket(marketId).deadline);
        m.requestResolution(marketId);
    }

    function _report(IResolutionMarket.Answer answer, uint16 confidenceBps, uint8 res, uint8 src, uint8 depth)
        internal
        pure
        returns (IResolutionMarket.WorkerReport memory)
    {
        return IResolutionMarket.WorkerReport(answer, confidenceBps, res, src, depth, bytes32(0), "");
    }

    /// @dev `n` seats answering `answer` with confidence 9000 and scores 80/70/60.
    function _uniform(uint256 n, IResolutionMarket.Answer answer)
        internal
        pure
        returns (IResolutionMarket.WorkerReport[] memory r)
    {
        r = new IResolutionMarket.WorkerReport[](n);
        for (uint256 i; i < n; ++i) {
            r[i] = answer == IResolutionMarket.Answer.Yes || answer == IResolutionMarket.Answer.No
                ? IResolutionMarket.WorkerReport(answer, 9_000, 80, 70, 60, bytes32(0), "")
                : IResolutionMarket.WorkerReport(answer, 0, 0, 0, 0, bytes32(0), "");
        }
    }

    function _propose(
        ResolutionMarket m,
        uint256 marketId,
        IResolutionMarket.Verdict verdict,
        IResolutionMarket.WorkerReport[] memory reports
    ) internal {
        _signReports(m, marketId, reports);
        uint256 bond = m.getMarketConfig(marketId).bond;
        vm.prank(resolver);
        m.proposeResolution{value: bond}(marketId, verdict, reports, HASH, URI);
    }

    function _dispute(uint256 marketId, IResolutionMarket.Verdict claimed) internal {
        uint256 bond = gov.disputeBond(marketId);
        vm.prank(disputer);
        market.dispute{value: bond}(marketId, claimed);
    }

    function _warpPastWindow(ResolutionMarket m, uint256 marketId) internal {
        vm.warp(m.getProposal(marketId).disputeEndsAt);
    }

    /// @dev Propose and finalize after the window (explicit gas: the whole inline feedback fits).
    function _settle(
        ResolutionMarket m,
        uint256 marketId,
        IResolutionMarket.Verdict verdict,
        IResolutionMarket.WorkerReport[] memory reports
    ) internal {
        _propose(m, marketId, verdict, reports);
        _warpPastWindow(m, marketId);
        m.finalize(marketId);
    }

    function _countFeedbackFailed(VmExtra.Log[] memory logs) internal pure returns (uint256 count) {
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].topics.length > 0 && logs[i].topics[0] == FEEDBACK_FAILED_TOPIC) ++count;
        }
    }

    function _pending(uint256 marketId) internal view returns (uint256 p) {
        (, p) = writer.feedbackStatus(marketId);
    }
}
