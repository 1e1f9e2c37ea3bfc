// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

import {IIdentityRegistry} from "../erc8004/interfaces/IIdentityRegistry.sol";
import {IReputationRegistry} from "../erc8004/interfaces/IReputationRegistry.sol";
import {SettlementMath} from "./libraries/SettlementMath.sol";
import {MarketGovernance} from "./MarketGovernance.sol";
import {ReputationFeedback} from "./ReputationFeedback.sol";

/// @title Storage and finalization internals of the resolution market
/// @notice Holds the market, seat and proposal storage and everything that happens at finalization: on-chain
///         correctness and reward weights, the split, slashing, reputation, `WorkerSettled`, and the ERC-8004
///         records with their pending flags. `ResolutionMarket` holds the external entry points and views.
abstract contract MarketSettlement is MarketGovernance, ReentrancyGuardTransient, ReputationFeedback {
    using SettlementMath for uint256;

    /// @notice Seats whose ERC-8004 records are written inside finalization; the rest via `publishFeedback`.
    uint256 public constant INLINE_FEEDBACK_WORKERS = 10;

    /// @dev Slot 0 creator|deadline|status|outcome|workerCount|feedbackCursor; slot 1 rewardPool|totalStake|
    ///      requestedAt; then the question.
    struct Market {
        address creator;
        uint40 deadline;
        Status status;
        bool outcome;
        uint8 workerCount;
        uint8 feedbackCursor;
        uint96 rewardPool;
        uint96 totalStake;
        uint40 requestedAt;
        string question;
    }

    /// @dev Slot 0 worker|stake; slot 1 agentId|report (the packed WorkerReport + feedback flags, see
    ///      SettlementMath), so a proposal rewrites one warm-able slot per seat.
    struct Seat {
        address worker;
        uint96 stake;
        uint192 agentId;
        uint64 report;
    }

    /// @dev Slot 0 proposer|verdict|proposedAt|disputeEndsAt; slot 1 disputer|claimed|disputedAt|
    ///      cancelRequestedAt; then bundle hash and URI. The bond is the market's snapshotted one.
    struct ProposalData {
        address proposer;
        Verdict verdict;
        uint40 proposedAt;
        uint40 disputeEndsAt;
        address disputer;
        Verdict claimed;
        uint40 disputedAt;
        uint40 cancelRequestedAt;
        bytes32 bundleHash;
        string bundleURI;
    }

    /// @notice The ERC-8004 identity registry used to authorize joins.
    IIdentityRegistry public immutable identityRegistry;

    mapping(uint256 marketId => Market) internal _markets;
    mapping(uint256 marketId => Config) internal _configs;
    mapping(uint256 marketId => ProposalData) internal _proposals;
    mapping(uint256 marketId => mapping(uint256 index => Seat)) internal _seats;
    mapping(uint256 marketId => mapping(uint256 agentId => bool)) internal _agentSeated;
    mapping(uint256 marketId => mapping(address worker => bool)) internal _addressSeated;
    mapping(uint256 marketId => mapping(uint256 agentId => bool)) internal _allowed;
    /// @dev Credit + 1 once the account was ever credited: the slot never returns to zero (cheaper repeats).
    mapping(address account => uint256) internal _credits;
    /// @dev Packed reputation accumulator per agent (SettlementMath).
    mapping(uint256 agentId => uint256) internal _reputation;

    constructor(IIdentityRegistry identityRegistry_, IReputationRegistry reputationRegistry_, address initialOwner)
        MarketGovernance(initialOwner)
        ReputationFeedback(reputationRegistry_)
    {
        if (address(identityRegistry_).code.length == 0) revert NotAContract(address(identityRegistry_));
        identityRegistry = identityRegistry_;
    }

    // ------------------------------------------------------------------------------------------------
    // Internals
    // ------------------------------------------------------------------------------------------------

    /// @dev Final state of a proposal. Invalid: pool to the creator, stakes back. Yes/No: settlement + feedback.
    /// @param slashTo the dispute winner when an arbiter decided (0 otherwise: no slashing)
    function _finalize(uint256 marketId, Market storage m, Verdict verdict, bool disputed, address slashTo) internal {
        if (verdict == Verdict.Invalid) {
            m.status = Status.Invalid;
            emit MarketFinalized(marketId, Status.Invalid, false, disputed);
            _refundCreator(marketId, m.creator, m.rewardPool);
            uint256 count = m.workerCount;
            mapping(uint256 => Seat) storage seats = _seats[marketId];
            for (uint256 i; i < count; ++i) {
                Seat storage seat = seats[i];
                WorkerResult memory r = _resultOf(seat.report);
                r.stakeReturned = seat.stake;
                _paySeat(marketId, seat, r, address(0));
            }
            return;
        }
        bool outcome = verdict == Verdict.Yes;
        m.status = Status.Resolved;
        m.outcome = outcome;
        emit MarketFinalized(marketId, Status.Resolved, outcome, disputed);
        _settleResolved(marketId, m, outcome, slashTo);

        // Interactions last: best-effort ERC-8004 records of the first seats; the rest via publishFeedback.
        uint256 n = m.workerCount;
        uint256 cursor = _writeFeedback(marketId, outcome, 0, n < INLINE_FEEDBACK_WORKERS ? n : INLINE_FEEDBACK_WORKERS);
        if (cursor != 0) m.feedbackCursor = uint8(cursor);
        if (cursor < n) emit FeedbackProgress(marketId, cursor, n);
    }

    /// @dev Rewards from the on-chain weights, stakes (or slashes), reputation, WorkerSettled per seat.
    function _settleResolved(uint256 marketId, Market storage m, bool outcome, address slashTo) internal {
        uint256 n = m.workerCount;
        mapping(uint256 => Seat) storage seats = _seats[marketId];
        WorkerResult[] memory results = new WorkerResult[](n);
        uint256[] memory weights = new uint256[](n);
        for (uint256 i; i < n; ++i) {
            weights[i] = _scoreSeat(seats[i], results[i], outcome, slashTo != address(0));
        }
        (uint256[] memory payouts, uint256 total) = SettlementMath.split(m.rewardPool, weights);
        if (total == 0) _refundCreator(marketId, m.creator, m.rewardPool);
        for (uint256 i; i < n; ++i) {
            results[i].reward = payouts[i];
            _paySeat(marketId, seats[i], results[i], slashTo);
        }
    }

    /// @dev Credits a seat's reward and stake (or its slashed stake to the dispute winner).
    function _paySeat(uint256 marketId, Seat storage seat, WorkerResult memory r, address slashTo) internal {
        uint256 agentId = seat.agentId;
        address worker = seat.worker;
        if (r.stakeSlashed != 0) {
            _credit(slashTo, r.stakeSlashed);
            emit StakeSlashed(marketId, agentId, slashTo, r.stakeSlashed);
        }
        uint256 amount = r.reward + r.stakeReturned;
        if (amount != 0) _credit(worker, amount);
        emit WorkerSettled(marketId, agentId, worker, r);
    }

    /// @dev One seat of a Resolved market: its result (without reward), reputation, refusal flags, weight.
    function _scoreSeat(Seat storage seat, WorkerResult memory r, bool outcome, bool slashing)
        private
        returns (uint256 weight)
    {
        uint256 report = seat.report;
        _fillResult(r, report);
        Answer answer = r.answer;
        uint256 stake = seat.stake;
        if (answer == Answer.Abstained) {
            r.stakeReturned = stake;
            return 0;
        }
        uint256 agentId = seat.agentId;
        bool yesNo = answer != Answer.None;
        r.scored = true;
        r.correctness = SettlementMath.correctness(answer, r.confidenceBps, outcome);
        _reputation[agentId] = _reputation[agentId].addObservation(
            yesNo, r.correctness, r.resQuality, r.srcQuality, r.analysisDepth
        );
        bool slashed = slashing && yesNo && ((answer == Answer.Yes) != outcome);
        if (slashed) r.stakeSlashed = stake;
        else r.stakeReturned = stake;
        // A seat whose agent made the market its operator: no reward, records pending (skipped by the writer).
        if (_isMarketOperator(agentId)) {
            seat.report = uint64(
                report | SettlementMath.REFUSED | SettlementMath.PENDING_CORRECTNESS
                    | (yesNo ? SettlementMath.PENDING_QUALITY : 0)
            );
            return 0;
        }
        if (yesNo && !slashed) {
            weight = SettlementMath.rewardWeight(r.correctness, r.resQuality, r.srcQuality, r.analysisDepth);
        }
    }

    /// @dev Records of seats `from..to-1` as far as the gas allows; returns the seat reached.
    function _writeFeedback(uint256 marketId, bool outcome, uint256 from, uint256 to) internal returns (uint256 i) {
        ProposalData storage p = _proposals[marketId];
        bytes memory data = _feedbackTemplate(p.bundleURI, p.bundleHash);
        mapping(uint256 => Seat) storage seats = _seats[marketId];
        for (i = from; i < to; ++i) {
            if (gasleft() < FEEDBACK_WORKER_MIN_GAS) break;
            _feedbackForSeat(marketId, data, seats[i], outcome);
        }
    }

    /// @dev A seat's records (none for an abstention, correctness only for a failure). A refused seat is skipped
    ///      (its flags are already pending); a record the registry refuses stays pending in the seat's flags.
    function _feedbackForSeat(uint256 marketId, bytes memory data, Seat storage seat, bool outcome) internal {
        uint256 report = seat.report;
        Answer answer = Answer(report & 0xff);
        if (answer == Answer.Abstained) return;
        uint256 agentId = seat.agentId;
        bool yesNo = answer != Answer.None;
        if (report & SettlementMath.REFUSED != 0) {
            bytes memory reason = abi.encodeWithSelector(MarketIsAgentOperator.selector, agentId);
            _emitFeedbackFailed(marketId, agentId, false, reason);
            if (yesNo) _emitFeedbackFailed(marketId, agentId, true, reason);
            return;
        }
        uint256 pending;
        uint256 c = SettlementMath.correctness(answer, (report >> 8) & 0xffff, outcome);
        if (!_giveFeedback(marketId, data, agentId, c, false)) pending = SettlementMath.PENDING_CORRECTNESS;
        if (yesNo && !_giveFeedback(marketId, data, agentId, _quality(report), true)) {
            pending |= SettlementMath.PENDING_QUALITY;
        }
        if (pending != 0) seat.report = uint64(report | pending);
    }

    /// @dev `isAuthorizedOrOwner(market, agent)`; an agent the registry no longer knows reads as false.
    function _isMarketOperator(uint256 agentId) internal view returns (bool yes) {
        (, yes) = _authorized(address(this), agentId);
    }

    /// @dev `isAuthorizedOrOwner` without reverting: `known` is false when the registry reverts (unknown agent).
    function _authorized(address account, uint256 agentId) internal view returns (bool known, bool yes) {
        try identityRegistry.isAuthorizedOrOwner(account, agentId) returns (bool ok) {
            return (true, ok);
        } catch {
            return (false, false);
        }
    }

    function _admitted(uint256 marketId, Config storage c, uint256 agentId) internal view returns (bool) {
        Admission admission = c.admission;
        if (admission == Admission.AllowList) return _allowed[marketId][agentId];
        if (admission == Admission.TrackRecord) {
            (uint256 settled, uint256 avg) = SettlementMath.settledAndCorrectness(_reputation[agentId]);
            return settled >= c.minSettled && avg >= c.minCorrectness;
        }
        return true;
    }

    /// @dev `isAuthorizedOrOwner` reverts for unknown agents: that becomes AgentNotFound.
    function _checkAgentControl(address caller, uint256 agentId) internal view {
        (bool known, bool authorized) = _authorized(caller, agentId);
        if (!known) revert AgentNotFound(agentId);
        if (!authorized && identityRegistry.getAgentWallet(agentId) != caller) {
            revert NotAgentOperator(caller, agentId);
        }
    }

    function _quality(uint256 report) internal pure returns (uint256) {
        return (((report >> 24) & 0xff) + ((report >> 32) & 0xff) + ((report >> 40) & 0xff)) / 3;
    }

    function _resultOf(uint256 report) internal pure returns (WorkerResult memory r) {
        _fillResult(r, report);
    }

    function _fillResult(WorkerResult memory r, uint256 report) internal pure {
        r.answer = Answer(report & 0xff);
        r.confidenceBps = uint16(report >> 8);
        r.resQuality = uint8(report >> 24);
        r.srcQuality = uint8(report >> 32);
        r.analysisDepth = uint8(report >> 40);
    }

    function _market(uint256 marketId) internal view returns (Market storage m) {
        m = _markets[marketId];
        if (m.status == Status.None) revert MarketNotFound(marketId);
    }

    function _requireStatus(uint256 marketId, Status expected) internal view returns (Market storage m) {
        m = _markets[marketId];
        Status status = m.status;
        if (status != expected) {
            if (status == Status.None) revert MarketNotFound(marketId);
            revert WrongStatus(marketId, status);
        }
    }

    function _credit(address account, uint256 amount) internal {
        uint256 raw = _credits[account];
        _credits[account] = (raw == 0 ? 1 : raw) + amount;
    }

    function _refundCreator(uint256 marketId, address creator, uint256 amount) internal {
        _credit(creator, amount);
        emit CreatorRefunded(marketId, creator, amount);
    }

    function _emitFeedbackFailed(uint256 marketId, uint256 agentId, bool quality, bytes memory reason)
        internal
        override
    {
        emit FeedbackFailed(marketId, agentId, _tag(quality), reason);
    }
}
