// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TestBase} from "../utils/Vm.sol";
import {IdentityRegistry} from "../../../contracts/erc8004/IdentityRegistry.sol";
import {ReputationRegistry} from "../../../contracts/erc8004/ReputationRegistry.sol";
import {IIdentityRegistry} from "../../../contracts/erc8004/interfaces/IIdentityRegistry.sol";
import {IReputationRegistry} from "../../../contracts/erc8004/interfaces/IReputationRegistry.sol";
import {IResolutionMarket} from "../../../contracts/market/interfaces/IResolutionMarket.sol";
import {ResolutionMarket} from "../../../contracts/market/ResolutionMarket.sol";

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

/// @notice Registries + market deployed, helpers to register agents, open markets and settle them.
abstract contract MarketFixture is TestBase {
    VmExtra internal constant vmx = VmExtra(address(uint160(uint256(keccak256("hevm cheat code")))));

    uint256 internal constant POOL = 1 ether;
    uint256 internal constant STAKE = 0.01 ether;
    string internal constant QUESTION = "Will it rain in Lisbon on 2026-12-01?";
    string internal constant URI = "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/bundle.json";
    bytes32 internal constant HASH = keccak256("bundle");

    IIdentityRegistry internal identity;
    IReputationRegistry internal reputation;
    ResolutionMarket internal market;

    address internal owner = address(0xA11CE);
    address internal resolver = address(0xBEEF);
    address internal creator = address(0xC0FFEE);
    address internal stranger = address(0xBAD);

    bytes32 internal constant FEEDBACK_FAILED_TOPIC = keccak256("FeedbackFailed(uint256,uint256,string,bytes)");

    function setUp() public virtual {
        vm.warp(1_800_000_000);
        identity = IIdentityRegistry(address(new IdentityRegistry()));
        reputation = IReputationRegistry(address(new ReputationRegistry(address(identity))));
        market = _deployMarket(identity, reputation);
        vm.deal(creator, 1_000_000 ether);
        vm.deal(stranger, 1_000 ether);
    }

    function _deployMarket(IIdentityRegistry id, IReputationRegistry rep) internal returns (ResolutionMarket m) {
        m = new ResolutionMarket(id, rep, owner);
        vm.prank(owner);
        m.addResolver(resolver);
        vm.prank(owner);
        m.setMaxWorkers(100);
    }

    function _worker(uint256 i) internal pure returns (address) {
        return address(uint160(0x100000 + i));
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

    /// @dev Registers `n` fresh agents for workers `offset..offset+n-1` (real identity registry) and joins them.
    function _joinFresh(uint256 marketId, uint256 n, uint256 offset)
        internal
        returns (address[] memory workers, uint256[] memory agentIds)
    {
        workers = new address[](n);
        agentIds = new uint256[](n);
        for (uint256 i; i < n; ++i) {
            address w = _worker(offset + i);
            vm.deal(w, 10 ether);
            uint256 id = _registerAgent(w);
            vm.prank(w);
            market.joinMarket{value: STAKE}(marketId, id);
            workers[i] = w;
            agentIds[i] = id;
        }
    }

    function _request(ResolutionMarket m, uint256 marketId) internal {
        vm.warp(m.getMarket(marketId).deadline);
        m.requestResolution(marketId);
    }

    function _ones(uint256 n) internal pure returns (uint256[] memory w) {
        w = new uint256[](n);
        for (uint256 i; i < n; ++i) w[i] = 1;
    }

    function _scores(uint256 n, uint8 a, uint8 b, uint8 c) internal pure returns (uint8[] memory s) {
        s = new uint8[](3 * n);
        for (uint256 i; i < n; ++i) {
            s[3 * i] = a;
            s[3 * i + 1] = b;
            s[3 * i + 2] = c;
        }
    }

    function _resolve(ResolutionMarket m, uint256 marketId, address[] memory workers, uint256[] memory weights)
        internal
    {
        vm.prank(resolver);
        m.resolveMarket(marketId, workers, weights, _scores(workers.length, 80, 70, 60), true, HASH, URI);
    }

    function _countFeedbackFailed(VmExtra.Log[] memory logs) internal pure returns (uint256 count) {
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].topics.length > 0 && logs[i].topics[0] == FEEDBACK_FAILED_TOPIC) ++count;
        }
    }

    function _pending(uint256 marketId) internal view returns (uint256 p) {
        (, p) = market.feedbackStatus(marketId);
    }
}
