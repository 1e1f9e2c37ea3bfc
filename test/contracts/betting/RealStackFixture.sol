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
import {TestArbiter} from "../market/TestArbiter.sol";
import {_gov, _rep} from "../market/Split.sol";

/// @notice The real contracts wired together: ERC-8004 registries, ResolutionMarket (with a test arbiter as the
///         default arbiter and an EOA resolver), BettingMarket.
abstract contract RealStackFixture is TestBase {
    IdentityRegistry internal identity;
    ReputationRegistry internal reputation;
    ResolutionMarket internal market;
    BettingMarket internal betting;
    TestArbiter internal arbiter;

    address internal admin = address(0xAD);
    address internal creator = address(0xC2EA);
    address internal resolverEOA = address(0x2E50);

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
        arbiter = new TestArbiter();
        // Before the first market: both apply at once (deployment bootstrap).
        _gov(market).queueDefaultArbiter(arbiter);
        _gov(market).queueResolver(resolverEOA);
        // The betting pool is capped at ten times the market's bond (BettingMarket.poolCap): room for the bets.
        _gov(market).setBondRange(0.001 ether, 10 ether);
        _gov(market).setDefaults(0.001 ether, 10, 3 days, 1 days, uint96(_defaultBond()));
        vm.deal(creator, 100 ether);
        vm.deal(resolverEOA, 100 ether);
    }

    /// @dev The markets' bond (default settings); BettingMarket takes ten times it.
    function _defaultBond() internal pure virtual returns (uint256) {
        return 10 ether;
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

    /// @dev Every seat answers `outcome` with 90 % confidence.
    function _reports(uint256 n, bool outcome) internal pure returns (IResolutionMarket.WorkerReport[] memory r) {
        r = new IResolutionMarket.WorkerReport[](n);
        for (uint256 i = 0; i < n; ++i) {
            r[i] = IResolutionMarket.WorkerReport(
                outcome ? IResolutionMarket.Answer.Yes : IResolutionMarket.Answer.No,
                9_000,
                uint8(40 + (i * 7) % 61),
                50,
                60
            , bytes32(0), "");
        }
    }

    function _propose(uint256 marketId, IResolutionMarket.Verdict verdict, uint256 n) internal {
        bool outcome = verdict == IResolutionMarket.Verdict.Yes;
        uint256 bond = market.getMarketConfig(marketId).bond;
        vm.prank(resolverEOA);
        market.proposeResolution{value: bond}(
            marketId, verdict, _reports(n, outcome), keccak256("bundle"), "ipfs://bundle"
        );
    }

    /// @dev Propose and finalize after the dispute window.
    function _settle(uint256 marketId, IResolutionMarket.Verdict verdict, uint256 n) internal {
        _propose(marketId, verdict, n);
        vm.warp(market.getProposal(marketId).disputeEndsAt);
        market.finalize(marketId);
    }
}
