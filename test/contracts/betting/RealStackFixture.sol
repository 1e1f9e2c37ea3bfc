// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TestBase} from "../utils/Vm.sol";
import {IdentityRegistry} from "../../../contracts/erc8004/IdentityRegistry.sol";
import {ReputationRegistry} from "../../../contracts/erc8004/ReputationRegistry.sol";
import {IIdentityRegistry} from "../../../contracts/erc8004/interfaces/IIdentityRegistry.sol";
import {IReputationRegistry} from "../../../contracts/erc8004/interfaces/IReputationRegistry.sol";
import {ResolutionMarket} from "../../../contracts/market/ResolutionMarket.sol";
import {IResolutionMarket} from "../../../contracts/market/interfaces/IResolutionMarket.sol";
import {BettingMarket} from "../../../contracts/market/BettingMarket.sol";
import {CREReceiver} from "../../../contracts/cre/CREReceiver.sol";
import {MockKeystoneForwarder} from "../mocks/MockKeystoneForwarder.sol";

/// @notice The real contracts wired together: ERC-8004 registries, ResolutionMarket, BettingMarket, and a
///         CREReceiver behind a Keystone-style forwarder, the receiver being a resolver of the market.
abstract contract RealStackFixture is TestBase {
    IdentityRegistry internal identity;
    ReputationRegistry internal reputation;
    ResolutionMarket internal market;
    BettingMarket internal betting;
    CREReceiver internal receiver;
    MockKeystoneForwarder internal forwarder;

    address internal admin = address(0xAD);
    address internal creator = address(0xC2EA);
    address internal resolverEOA = address(0x2E50);

    bytes32 internal constant WF_ID = keccak256("cresolver-workflow-v1");
    bytes10 internal constant WF_NAME = bytes10(0x63726573736f6c766572);
    address internal constant WF_OWNER = address(0x0DE2);

    uint256 internal constant REWARD = 3 ether;
    uint256 internal constant STAKE = 0.01 ether;

    function _deployStack() internal {
        vm.warp(1_000_000);
        identity = new IdentityRegistry();
        reputation = new ReputationRegistry(address(identity));
        market = new ResolutionMarket(
            IIdentityRegistry(address(identity)), IReputationRegistry(address(reputation)), address(this)
        );
        betting = new BettingMarket(IResolutionMarket(address(market)));
        forwarder = new MockKeystoneForwarder();
        receiver = new CREReceiver(IResolutionMarket(address(market)), address(forwarder), admin);
        vm.startPrank(admin);
        receiver.setWorkflowIdAllowed(WF_ID, true);
        receiver.setExpectedWorkflowOwner(WF_OWNER);
        receiver.setExpectedWorkflowName(WF_NAME);
        vm.stopPrank();
        market.addResolver(address(receiver));
        market.addResolver(resolverEOA);
        vm.deal(creator, 100 ether);
    }

    function _worker(uint256 i) internal pure returns (address) {
        return address(uint160(0x7000 + i));
    }

    function _createMarket() internal returns (uint256 marketId, uint64 deadline) {
        deadline = uint64(block.timestamp + 1 days);
        vm.prank(creator);
        marketId = market.createMarket{value: REWARD}("Will it rain in Lisbon tomorrow?", deadline);
    }

    /// @return workers in join order
    function _joinWorkers(uint256 marketId, uint256 n) internal returns (address[] memory workers) {
        workers = new address[](n);
        for (uint256 i = 0; i < n; ++i) {
            address w = _worker(i);
            workers[i] = w;
            vm.deal(w, 1 ether);
            vm.prank(w);
            uint256 agentId = identity.register("ipfs://agent");
            vm.prank(w);
            market.joinMarket{value: STAKE}(marketId, agentId);
        }
    }

    function _request(uint256 marketId, uint64 deadline) internal {
        vm.warp(deadline);
        market.requestResolution(marketId);
    }

    function _reportFor(uint256 marketId, address[] memory workers, uint256[] memory weights, bool resolution)
        internal
        pure
        returns (bytes memory)
    {
        uint8[] memory scores = new uint8[](3 * workers.length);
        for (uint256 i = 0; i < scores.length; ++i) {
            scores[i] = uint8(40 + (i * 7) % 61);
        }
        return abi.encode(marketId, workers, weights, scores, resolution);
    }

    function _deliver(bytes memory report) internal {
        forwarder.report(address(receiver), WF_ID, WF_NAME, WF_OWNER, report);
    }
}
