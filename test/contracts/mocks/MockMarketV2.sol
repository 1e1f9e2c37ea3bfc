// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IArbiter} from "../../../contracts/market/interfaces/IArbiter.sol";
import {IResolutionMarket} from "../../../contracts/market/interfaces/IResolutionMarket.sol";

/// @notice Test double of the v2 market surface the arbiters and the CRE receiver use: it opens disputes on an
///         arbiter, records `resolveDispute` and `proposeResolution` calls, and pays back credited ETH on `withdraw`.
contract MockMarketV2 {
    error NotArbiter(address caller);
    error NotResolver(address caller);
    error WrongBond(uint256 sent, uint256 required);
    error ForcedRevert();
    error NothingToWithdraw();

    IArbiter public arbiter;
    mapping(address => bool) public isResolver;
    mapping(uint256 => uint96) public bondOf;
    mapping(uint256 => string) public questionOf;
    mapping(address => uint256) public credit;
    bool public revertOnResolve;
    bool public revertOnPropose;
    /// @dev When set, `resolveDispute` writes 8 fresh slots (~180k gas), like a real finalization does.
    bool public heavyResolve;
    mapping(uint256 => uint256) internal _sink;

    uint256 public resolveCalls;
    uint256 public lastResolvedId;
    IResolutionMarket.Verdict public lastRuling;

    uint256 public proposeCalls;
    uint256 public lastProposedId;
    IResolutionMarket.Verdict public lastVerdict;
    bytes32 public lastBundleHash;
    string public lastBundleURI;
    uint256 public lastBondPaid;
    IResolutionMarket.WorkerReport[] internal _lastReports;

    /// @dev Arbiters the double's "governance" (itself) does not allow; every other one is allowed.
    mapping(address => bool) public arbiterBarred;

    /// @notice Stands in for `governance()`: the double answers the governance views itself.
    function governance() external view returns (address) {
        return address(this);
    }

    /// @notice Stands in for `MarketGovernance.isArbiterAllowed`.
    function isArbiterAllowed(address a) external view returns (bool) {
        return !arbiterBarred[a];
    }

    function setArbiterBarred(address a, bool barred) external {
        arbiterBarred[a] = barred;
    }

    function setArbiter(IArbiter a) external {
        arbiter = a;
    }

    function setResolver(address account, bool allowed) external {
        isResolver[account] = allowed;
    }

    function setBond(uint256 marketId, uint96 bond) external {
        bondOf[marketId] = bond;
    }

    function setQuestion(uint256 marketId, string calldata q) external {
        questionOf[marketId] = q;
    }

    function setRevertOnResolve(bool v) external {
        revertOnResolve = v;
    }

    function setHeavyResolve(bool v) external {
        heavyResolve = v;
    }

    function setRevertOnPropose(bool v) external {
        revertOnPropose = v;
    }

    /// @notice Stands in for `dispute`: forwards the case to the arbiter as the real market does.
    function openDispute(
        uint256 marketId,
        IResolutionMarket.Verdict proposed,
        IResolutionMarket.Verdict claimed,
        address proposer,
        address disputer,
        bytes32 bundleHash,
        string calldata bundleURI
    ) external {
        arbiter.onDispute(marketId, proposed, claimed, proposer, disputer, bundleHash, bundleURI);
    }

    function resolveDispute(uint256 marketId, IResolutionMarket.Verdict verdict) external {
        if (msg.sender != address(arbiter)) revert NotArbiter(msg.sender);
        if (revertOnResolve) revert ForcedRevert();
        if (heavyResolve) {
            for (uint256 i = 0; i < 8; ++i) {
                _sink[resolveCalls * 8 + i] = 1;
            }
        }
        ++resolveCalls;
        lastResolvedId = marketId;
        lastRuling = verdict;
    }

    function proposeResolution(
        uint256 marketId,
        IResolutionMarket.Verdict verdict,
        IResolutionMarket.WorkerReport[] calldata reports,
        bytes32 bundleHash,
        string calldata bundleURI
    ) external payable {
        if (!isResolver[msg.sender]) revert NotResolver(msg.sender);
        if (revertOnPropose) revert ForcedRevert();
        if (msg.value != bondOf[marketId]) revert WrongBond(msg.value, bondOf[marketId]);
        ++proposeCalls;
        lastProposedId = marketId;
        lastVerdict = verdict;
        lastBundleHash = bundleHash;
        lastBundleURI = bundleURI;
        lastBondPaid = msg.value;
        delete _lastReports;
        for (uint256 i = 0; i < reports.length; ++i) {
            _lastReports.push(reports[i]);
        }
    }

    function lastReports() external view returns (IResolutionMarket.WorkerReport[] memory) {
        return _lastReports;
    }

    /// @notice Credits `account` (e.g. a won bond) with the ETH sent.
    function creditTo(address account) external payable {
        credit[account] += msg.value;
    }

    function withdraw() external {
        uint256 amount = credit[msg.sender];
        if (amount == 0) revert NothingToWithdraw();
        credit[msg.sender] = 0;
        (bool ok,) = msg.sender.call{value: amount}("");
        require(ok, "transfer");
    }

    function getMarket(uint256 marketId) external view returns (IResolutionMarket.MarketInfo memory info) {
        info.question = questionOf[marketId];
        info.status = IResolutionMarket.Status.Disputed;
    }

    function getMarketConfig(uint256 marketId) external view returns (IResolutionMarket.MarketConfig memory cfg) {
        cfg.bond = bondOf[marketId];
        cfg.arbiter = arbiter;
    }
}
