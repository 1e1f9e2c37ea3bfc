// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IIdentityRegistry} from "../../../contracts/erc8004/interfaces/IIdentityRegistry.sol";
import {IReputationRegistry} from "../../../contracts/erc8004/interfaces/IReputationRegistry.sol";
import {ResolutionMarket} from "../../../contracts/market/ResolutionMarket.sol";
import {SettlementMath} from "../../../contracts/market/libraries/SettlementMath.sol";
import {ReportCodec} from "../../../contracts/market/libraries/ReportCodec.sol";
import {MarketReputation} from "../../../contracts/market/MarketReputation.sol";
import {IResolutionMarket} from "../../../contracts/market/interfaces/IResolutionMarket.sol";

/// @notice Base of the hostile reputation registries: only `giveFeedback` matters to the market.
abstract contract FeedbackSink {
    uint256 public calls;

    function getIdentityRegistry() external pure returns (address) {
        return address(0);
    }

    function giveFeedback(
        uint256 agentId,
        int128 value,
        uint8 valueDecimals,
        string calldata tag1,
        string calldata tag2,
        string calldata endpoint,
        string calldata feedbackURI,
        bytes32 feedbackHash
    ) external virtual;
}

/// @notice Always reverts with a custom error.
contract RevertingReputationRegistry is FeedbackSink {
    error Nope(uint256 agentId);

    function giveFeedback(uint256 agentId, int128, uint8, string calldata, string calldata, string calldata, string calldata, bytes32)
        external
        pure
        override
    {
        revert Nope(agentId);
    }
}

/// @notice Burns every unit of gas it is given.
contract GasBurningReputationRegistry is FeedbackSink {
    function giveFeedback(uint256, int128, uint8, string calldata, string calldata, string calldata, string calldata, bytes32)
        external
        pure
        override
    {
        assembly {
            for {} 1 {} {}
        }
    }
}

/// @notice Reverts with 100 kB of revert data (return-data bomb).
contract ReturnBombReputationRegistry is FeedbackSink {
    function giveFeedback(uint256, int128, uint8, string calldata, string calldata, string calldata, string calldata, bytes32)
        external
        pure
        override
    {
        assembly {
            revert(0x100, 100000) // untouched memory: 100 kB of zeros
        }
    }
}

/// @notice Succeeds, counts calls, and counts the calls that arrived with less than the promised gas cap.
///         It also spends `burn` gas per call so that a caller could try to starve later calls.
contract GasRecordingReputationRegistry is FeedbackSink {
    uint256 public immutable expectedGas;
    uint256 public starvedCalls;
    uint256 public minGasSeen = type(uint256).max;
    uint256 public burn;
    mapping(uint256 agentId => uint256) public perAgent;

    constructor(uint256 expectedGas_, uint256 burn_) {
        expectedGas = expectedGas_;
        burn = burn_;
    }

    function giveFeedback(uint256 agentId, int128, uint8, string calldata, string calldata, string calldata, string calldata, bytes32)
        external
        override
    {
        uint256 g = gasleft();
        if (g < minGasSeen) minGasSeen = g;
        if (g < expectedGas) ++starvedCalls;
        ++calls;
        ++perAgent[agentId];
        uint256 stop = g > burn ? g - burn : 0;
        while (gasleft() > stop) {}
    }
}

/// @notice Tries to re-enter the market from inside `giveFeedback`.
contract ReentrantReputationRegistry is FeedbackSink {
    ResolutionMarket public market;
    uint256 public marketId;
    bool public reentered;

    function arm(ResolutionMarket market_, uint256 marketId_) external {
        market = market_;
        marketId = marketId_;
    }

    function giveFeedback(uint256, int128, uint8, string calldata, string calldata, string calldata, string calldata, bytes32)
        external
        override
    {
        // Must revert with ReentrancyGuardReentrantCall; the revert bubbles into FeedbackFailed.
        market.reputation().publishFeedback(marketId, 1);
        reentered = true;
    }
}

/// @notice Minimal identity registry for hostile-reputation tests: every agent id < 1000 exists and is
///         controlled by `controller[agentId]`.
contract SimpleIdentityRegistry {
    mapping(uint256 agentId => address) public controller;
    mapping(uint256 agentId => address) public wallet;

    function setController(uint256 agentId, address account) external {
        controller[agentId] = account;
    }

    function setWallet(uint256 agentId, address account) external {
        wallet[agentId] = account;
    }

    function isAuthorizedOrOwner(address spender, uint256 agentId) external view returns (bool) {
        require(agentId < 1000, "no agent");
        return controller[agentId] == spender;
    }

    function getAgentWallet(uint256 agentId) external view returns (address) {
        return wallet[agentId];
    }
}

/// @notice A worker contract that holds an agent, joins markets and attacks on withdraw.
contract MaliciousWorker {
    enum Mode {
        None,
        ReenterWithdraw, // re-enter withdraw and swallow the failure
        ReenterJoin, // re-enter joinMarket and swallow the failure
        ReenterCreate, // re-enter createMarket and swallow the failure
        RevertOnReceive, // re-enter withdraw and bubble the failure (whole withdraw must fail)
        RejectEther // refuse ETH outright
    }

    ResolutionMarket public immutable market;
    IIdentityRegistry public immutable identity;
    Mode public mode;
    uint256 public agentId;
    uint256 public reentryAttempts;
    uint256 public reentrySuccesses;
    bytes public lastReentryError;
    uint256 public targetMarket;

    constructor(ResolutionMarket market_, IIdentityRegistry identity_) {
        market = market_;
        identity = identity_;
    }

    function setMode(Mode mode_, uint256 targetMarket_) external {
        mode = mode_;
        targetMarket = targetMarket_;
    }

    function registerAgent() external returns (uint256) {
        agentId = identity.register("ipfs://malicious");
        return agentId;
    }

    function join(uint256 marketId) external payable {
        market.joinMarket{value: msg.value}(marketId, agentId);
    }

    function withdraw() external {
        market.withdraw();
    }

    function onERC721Received(address, address, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC721Received.selector;
    }

    receive() external payable {
        Mode m = mode;
        if (m == Mode.None) return;
        if (m == Mode.RejectEther) revert("no ether");
        ++reentryAttempts;
        bool ok;
        bytes memory err;
        if (m == Mode.ReenterWithdraw || m == Mode.RevertOnReceive) {
            (ok, err) = address(market).call(abi.encodeCall(ResolutionMarket.withdraw, ()));
        } else if (m == Mode.ReenterJoin) {
            (ok, err) = address(market).call{value: 0.01 ether}(
                abi.encodeCall(ResolutionMarket.joinMarket, (targetMarket, agentId))
            );
        } else if (m == Mode.ReenterCreate) {
            (ok, err) = address(market).call{value: 1 ether}(
                abi.encodeCall(ResolutionMarket.createMarket, ("reentrant?", uint64(block.timestamp + 1 days)))
            );
        }
        if (ok) ++reentrySuccesses;
        lastReentryError = err;
        if (m == Mode.RevertOnReceive) {
            assembly {
                revert(add(err, 0x20), mload(err))
            }
        }
    }
}

/// @notice Exposes the library to fuzzing.
contract SettlementMathHarness {
    function split(uint256 pool, uint256[] memory weights)
        external
        pure
        returns (uint256[] memory payouts, uint256 totalWeight)
    {
        return SettlementMath.split(pool, weights);
    }

    function correctness(IResolutionMarket.Answer answer, uint256 confidenceBps, bool outcome)
        external
        pure
        returns (uint8)
    {
        return SettlementMath.correctness(answer, confidenceBps, outcome);
    }

    function packReport(IResolutionMarket.WorkerReport calldata r, uint256 index, bool signed)
        external
        pure
        returns (uint64)
    {
        return ReportCodec.fromProposal(r, index, signed);
    }

    function decodeReport(uint256 packed) external pure returns (ReportCodec.Report memory) {
        return ReportCodec.decode(packed);
    }

    function encodeReport(ReportCodec.Report memory r) external pure returns (uint64) {
        return ReportCodec.encode(r);
    }
}

/// @notice Exposes the single feedback call so the defensive EIP-150 guard can be exercised directly.
contract MarketReputationHarness is MarketReputation {
    constructor(address reputation_) MarketReputation(IIdentityRegistry(address(0)), IReputationRegistry(reputation_)) {}

    function exposedGiveFeedback(uint256 agentId) external {
        _giveFeedback(0, _feedbackTemplate("", bytes32(0)), agentId, 1, false);
    }
}
