// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IArbiter} from "../market/interfaces/IArbiter.sol";
import {IResolutionMarket} from "../market/interfaces/IResolutionMarket.sol";
import {ArbiterMarkets} from "./ArbiterMarkets.sol";
import {ICommitteeArbiter} from "./interfaces/ICommitteeArbiter.sol";

/// @title Committee arbiter: M-of-N members rule on disputed proposals
/// @author cresolver
/// @notice For deployments without UMA. Members may be plain accounts, a Safe, or a DAO's executor (a 1-of-1
///         committee whose member is a governor timelock is "the DAO decides"). Only the markets named at
///         deployment can open cases, so nobody can make members spend gas on fake disputes.
/// @dev Any verdict may be voted, not only the proposed or the claimed one (e.g. Invalid when both are wrong).
///      Cases have no deadline here: the market's own arbitration timeout makes a silent committee harmless
///      (the market then ends Invalid with both bonds returned).
contract CommitteeArbiter is ICommitteeArbiter, ArbiterMarkets {
    /// @notice Upper bound on members (keeps the constructor and the views bounded).
    uint256 public constant MAX_MEMBERS = 50;

    /// @inheritdoc ICommitteeArbiter
    uint256 public immutable threshold;

    address[] private _members;
    mapping(address account => bool) public isMember;

    mapping(address market => mapping(uint256 marketId => Case)) private _cases;
    mapping(address market => mapping(uint256 marketId => mapping(address member => bool))) private _voted;

    /// @param members_ the committee (non-zero, distinct, at most `MAX_MEMBERS`)
    /// @param threshold_ votes needed for one verdict, in [1, members]; a majority (> members/2) is advisable
    /// @param markets_ the ResolutionMarket contracts that may send disputes (at most `MAX_MARKETS`)
    constructor(address[] memory members_, uint256 threshold_, address[] memory markets_) ArbiterMarkets(markets_) {
        uint256 n = members_.length;
        if (n == 0) revert NoMembers();
        if (n > MAX_MEMBERS) revert TooManyMembers(n, MAX_MEMBERS);
        if (threshold_ == 0 || threshold_ > n) revert ThresholdOutOfRange(threshold_, n);
        for (uint256 i = 0; i < n; ++i) {
            address m = members_[i];
            if (m == address(0)) revert ZeroAddress();
            if (isMember[m]) revert DuplicateMember(m);
            isMember[m] = true;
        }
        _members = members_;
        threshold = threshold_;
    }

    /// @inheritdoc IArbiter
    function onDispute(
        uint256 marketId,
        IResolutionMarket.Verdict proposed,
        IResolutionMarket.Verdict claimed,
        address proposer,
        address disputer,
        bytes32 bundleHash,
        string calldata bundleURI
    ) external {
        _requireMarket(msg.sender);
        Case storage c = _cases[msg.sender][marketId];
        if (c.status != CaseStatus.None) revert CaseAlreadyOpened(msg.sender, marketId);
        c.status = CaseStatus.Open;
        c.proposed = proposed;
        c.claimed = claimed;
        c.openedAt = uint64(block.timestamp);
        c.proposer = proposer;
        c.disputer = disputer;
        c.bundleHash = bundleHash;
        emit CaseOpened(msg.sender, marketId, proposed, claimed, proposer, disputer, bundleHash, bundleURI);
    }

    /// @inheritdoc ICommitteeArbiter
    function vote(address market, uint256 marketId, IResolutionMarket.Verdict verdict) external {
        if (!isMember[msg.sender]) revert NotAMember(msg.sender);
        Case storage c = _cases[market][marketId];
        if (c.status != CaseStatus.Open) revert CaseNotOpen(market, marketId, c.status);
        if (_voted[market][marketId][msg.sender]) revert AlreadyVoted(market, marketId, msg.sender);
        _voted[market][marketId][msg.sender] = true;
        uint256 count = ++c.votes[uint8(verdict)];
        emit Voted(market, marketId, msg.sender, verdict);
        if (count < threshold) return;

        // Effects before the call: a re-entrant vote finds the case decided.
        c.status = CaseStatus.Decided;
        c.ruling = verdict;
        c.decidedAt = uint64(block.timestamp);
        emit CaseDecided(market, marketId, verdict, count);
        IResolutionMarket(market).resolveDispute(marketId, verdict);
    }

    /// @inheritdoc ICommitteeArbiter
    function getMembers() external view returns (address[] memory) {
        return _members;
    }

    /// @inheritdoc ICommitteeArbiter
    function getCase(address market, uint256 marketId) external view returns (Case memory) {
        return _cases[market][marketId];
    }

    /// @inheritdoc ICommitteeArbiter
    function hasVoted(address market, uint256 marketId, address member) external view returns (bool) {
        return _voted[market][marketId][member];
    }
}
