// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

import {IIdentityRegistry} from "../erc8004/interfaces/IIdentityRegistry.sol";
import {IReputationRegistry} from "../erc8004/interfaces/IReputationRegistry.sol";
import {AnswerVerifier} from "./AnswerVerifier.sol";
import {IAnswerVerifier} from "./interfaces/IAnswerVerifier.sol";
import {IArbiter} from "./interfaces/IArbiter.sol";
import {IMarketGovernance} from "./interfaces/IMarketGovernance.sol";
import {IMarketReputation} from "./interfaces/IMarketReputation.sol";
import {IResolutionMarket} from "./interfaces/IResolutionMarket.sol";
import {ReportCodec} from "./libraries/ReportCodec.sol";
import {SettlementMath} from "./libraries/SettlementMath.sol";
import {MarketGovernance} from "./MarketGovernance.sol";
import {MarketReputation} from "./MarketReputation.sol";

/// @title Storage and finalization internals of the resolution market
/// @notice Holds the market, seat and proposal storage and everything that happens at finalization: on-chain
///         correctness and reward weights, the split, slashing, `WorkerSettled`, and the hand-over of every seat's
///         reputation observation and ERC-8004 records to the market's MarketReputation (which keeps refused
///         records pending and writes the seats past the inline ones later, reading them through `seatWords`). `ResolutionMarket` holds the external entry points and views.
abstract contract MarketSettlement is IResolutionMarket, ReentrancyGuardTransient {
    /// @notice Seats whose ERC-8004 records are written inside finalization; the rest via the writer's
    ///         `publishFeedback`.
    uint256 public constant INLINE_FEEDBACK_WORKERS = 10;

    /// @dev A market's snapshotted settings in two slots.
    struct Config {
        IArbiter arbiter;
        uint96 bond;
        uint40 createdAt;
        Admission admission;
        uint8 minCorrectness;
        uint32 minSettled;
        uint96 minStake;
        uint8 maxWorkers;
        uint32 gracePeriod;
        uint32 disputeWindow;
    }

    /// @dev Slot 0 creator|deadline|status|outcome|workerCount|recordCount (the track-record cut-off count, 32
    ///      bits: 4.29 billion finalized markets, far beyond any chain's gas; it was 24 bits, 16.7M); slot 1
    ///      rewardPool|totalStake|requestedAt; then the question and the cut-off head.
    struct Market {
        address creator;
        uint40 deadline;
        Status status;
        bool outcome;
        uint8 workerCount;
        uint32 recordCount;
        uint96 rewardPool;
        uint96 totalStake;
        uint40 requestedAt;
        string question;
        bytes32 recordHead;
    }

    /// @dev Slot 0 worker|stake; slot 1 agentId|report (ReportCodec's word: the report and its feedback flags),
    ///      so a proposal rewrites one warm-able slot per seat.
    struct Seat {
        address worker;
        uint96 stake;
        uint192 agentId;
        uint64 report;
    }

    /// @dev Slot 0 proposer|verdict|proposedAt|disputeEndsAt; slot 1 disputer|claimed|disputedAt|
    ///      cancelRequestedAt; then bundle hash and URI. The proposer's bond is the market's snapshotted
    ///      one, the disputer's `_disputeBond` (both fixed once resolution is requested).
    struct ProposalData {
        address proposer;
        Verdict verdict;
        uint40 proposedAt;
        uint40 disputeEndsAt;
        address disputer;
        Verdict claimed;
        /// When the arbiter in charge got the case (the hand-off time once escalated).
        uint40 disputedAt;
        uint40 cancelRequestedAt;
        bytes32 bundleHash;
        string bundleURI;
    }

    /// @notice Number of markets created; ids are 1..marketCount.
    uint256 public marketCount;
    /// @dev The track-record hash chain (docs/RECORDS.md §3): entries so far and the head after them.
    uint256 internal _recordCount;
    bytes32 internal _recordHead;

    /// @notice The ERC-8004 identity registry used to authorize joins.
    IIdentityRegistry public immutable identityRegistry;
    /// @notice The ERC-8004 reputation registry that receives the market's records (through `reputation`).
    IReputationRegistry public immutable reputationRegistry;
    /// @inheritdoc IResolutionMarket
    IMarketGovernance public immutable governance;
    /// @inheritdoc IResolutionMarket
    IMarketReputation public immutable reputation;
    /// @inheritdoc IResolutionMarket
    IAnswerVerifier public immutable answerVerifier;

    mapping(uint256 marketId => Market) internal _markets;
    mapping(uint256 marketId => Config) internal _configs;
    mapping(uint256 marketId => ProposalData) internal _proposals;
    mapping(uint256 marketId => mapping(uint256 index => Seat)) internal _seats;
    mapping(uint256 marketId => mapping(uint256 agentId => bool)) internal _agentSeated;
    mapping(uint256 marketId => mapping(address worker => bool)) internal _addressSeated;
    mapping(uint256 marketId => mapping(uint256 agentId => bool)) internal _allowed;
    /// @inheritdoc IResolutionMarket
    mapping(uint256 marketId => IArbiter) public fallbackArbiterOf;
    /// @dev Credit + 1 once the account was ever credited: the slot never returns to zero (cheaper repeats).
    mapping(address account => uint256) internal _credits;

    /// @dev Deploys the market's governance, reputation and answer-verifier contracts: their addresses are fixed
    ///      from here on.
    constructor(IIdentityRegistry identityRegistry_, IReputationRegistry reputationRegistry_, address initialOwner) {
        if (address(identityRegistry_).code.length == 0) revert NotAContract(address(identityRegistry_));
        if (address(reputationRegistry_).code.length == 0) revert NotAContract(address(reputationRegistry_));
        identityRegistry = identityRegistry_;
        reputationRegistry = reputationRegistry_;
        governance = new MarketGovernance(initialOwner);
        reputation = new MarketReputation(identityRegistry_, reputationRegistry_);
        answerVerifier = new AnswerVerifier(identityRegistry_);
    }

    // ------------------------------------------------------------------------------------------------
    // Internals
    // ------------------------------------------------------------------------------------------------

    /// @dev Final state of a proposal. Invalid: pool to the creator, stakes back. Yes/No: settlement + feedback.
    /// @param slashTo the dispute winner when an arbiter decided (0 otherwise: no slashing)
    /// @param disputed an arbiter ruled (`msg.sender`, recorded as the entry's arbiter)
    function _finalize(uint256 marketId, Market storage m, Verdict verdict, bool disputed, address slashTo) internal {
        _record(marketId, m, verdict, disputed ? msg.sender : address(0));
        if (verdict == Verdict.Invalid) {
            m.status = Status.Invalid;
            emit MarketFinalized(marketId, Status.Invalid, false, disputed);
            _refundCreator(marketId, m.creator, m.rewardPool);
            uint256 count = m.workerCount;
            mapping(uint256 => Seat) storage seats = _seats[marketId];
            for (uint256 i; i < count; ++i) {
                Seat storage seat = seats[i];
                WorkerResult memory r = _resultOf(ReportCodec.decode(seat.report));
                r.stakeReturned = seat.stake;
                _paySeat(marketId, seat, r, address(0));
            }
            return;
        }
        bool outcome = verdict == Verdict.Yes;
        m.status = Status.Resolved;
        m.outcome = outcome;
        emit MarketFinalized(marketId, Status.Resolved, outcome, disputed);
        uint256[] memory seatWords_ = _settleResolved(marketId, m, outcome, slashTo);

        // Interactions last: the reputation book and the ERC-8004 records of the first seats; the rest via the
        // writer's publishFeedback.
        ProposalData storage p = _proposals[marketId];
        reputation.settle(marketId, outcome, p.bundleURI, p.bundleHash, seatWords_, INLINE_FEEDBACK_WORKERS);
    }

    /// @dev Extends the track-record hash chain with this market (RECORDS §3) and emits the whole entry.
    function _record(uint256 marketId, Market storage m, Verdict verdict, address arbiter) private {
        uint256 n = m.workerCount;
        mapping(uint256 => Seat) storage seats = _seats[marketId];
        RecordEntry memory e;
        e.status = verdict == Verdict.Invalid ? Status.Invalid : Status.Resolved;
        e.outcome = verdict == Verdict.Yes;
        e.disputed = arbiter != address(0);
        e.arbiter = arbiter;
        e.creator = m.creator;
        e.value = uint256(m.rewardPool) + m.totalStake;
        e.seats = new SeatRecord[](n);
        // 28 spare bytes: each seat's second word is a full 32-byte store of which only 4 bytes belong to the seat,
        // so the last seat's store would otherwise run past the buffer into the SeatRecords allocated after it.
        bytes memory packed = new bytes(36 * n + 28);
        for (uint256 i; i < n; ++i) {
            Seat storage seat = seats[i];
            (Answer answer, uint16 confidenceBps, bool signed) = ReportCodec.recordFields(seat.report);
            uint256 agentId = seat.agentId;
            e.seats[i] = SeatRecord(agentId, answer, confidenceBps, signed);
            // abi.encodePacked(uint256 agentId, uint8 answer, uint16 confidenceBps, bool signed), 36 bytes a seat
            uint256 tail = (uint256(answer) << 248) | (uint256(confidenceBps) << 232) | (signed ? 1 << 224 : 0);
            assembly ("memory-safe") {
                let at := add(add(packed, 0x20), mul(i, 36))
                mstore(at, agentId)
                mstore(add(at, 0x20), tail)
            }
        }
        assembly ("memory-safe") {
            mstore(packed, mul(n, 36)) // the hashed length: the spare bytes are not part of the entry
        }
        uint256 index = _recordCount;
        bytes32 head = keccak256(
            abi.encode(
                _recordHead, index, marketId, e.status, e.outcome, e.disputed, arbiter, e.creator, e.value,
                keccak256(packed)
            )
        );
        _recordHead = head;
        _recordCount = index + 1;
        emit MarketRecorded(marketId, index, head, e);
    }

    /// @dev Rewards from the on-chain weights, stakes (or slashes), WorkerSettled per seat; returns every seat's
    ///      word (`seatWords` layout) for MarketReputation.
    function _settleResolved(uint256 marketId, Market storage m, bool outcome, address slashTo)
        internal
        returns (uint256[] memory words)
    {
        uint256 n = m.workerCount;
        mapping(uint256 => Seat) storage seats = _seats[marketId];
        WorkerResult[] memory results = new WorkerResult[](n);
        uint256[] memory weights = new uint256[](n);
        words = new uint256[](n);
        for (uint256 i; i < n; ++i) {
            (weights[i], words[i]) = _scoreSeat(seats[i], results[i], outcome, slashTo != address(0));
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

    /// @dev One seat of a Resolved market: its result (without reward), the refusal flag, its weight and its
    ///      seat word for the writer (`seatWords` layout; the writer derives the records and the observation).
    ///      The weight uses resQuality = correctness; an attested seat is never slashed.
    function _scoreSeat(Seat storage seat, WorkerResult memory r, bool outcome, bool slashing)
        private
        returns (uint256 weight, uint256 seatWord)
    {
        ReportCodec.Report memory report = ReportCodec.decode(seat.report);
        _fillResult(r, report);
        Answer answer = r.answer;
        uint256 stake = seat.stake;
        uint256 agentId = seat.agentId;
        if (answer == Answer.Abstained) {
            r.stakeReturned = stake;
            return (0, agentId | (uint256(seat.report) << 192));
        }
        bool yesNo = answer != Answer.None;
        r.scored = true;
        r.correctness = SettlementMath.correctness(answer, r.confidenceBps, outcome);
        // Resolution Quality is correctness against the final outcome (issue 20 item 6), not the proposer's figure.
        r.resQuality = r.correctness;
        // Only an answer its agent signed can cost the agent its stake: an attested one is the proposer's word.
        bool slashed = slashing && yesNo && report.signed && ((answer == Answer.Yes) != outcome);
        if (slashed) r.stakeSlashed = stake;
        else r.stakeReturned = stake;
        // A seat whose agent made the feedback writer its operator: no reward, records pending (reported failed).
        // An attested failure has neither a reward nor records to lose: no registry read for it.
        if ((yesNo || report.signed) && _isWriterOperator(agentId)) {
            report.refused = true;
            seat.report = ReportCodec.encode(report);
        } else if (yesNo && !slashed) {
            weight = SettlementMath.rewardWeight(r.correctness, r.resQuality, r.srcQuality, r.analysisDepth);
        }
        seatWord = agentId | (uint256(seat.report) << 192);
    }

    /// @dev `isAuthorizedOrOwner(reputation, agent)`: the registry would refuse the writer's records as
    ///      self-feedback. An agent the registry no longer knows reads as false.
    function _isWriterOperator(uint256 agentId) internal view returns (bool yes) {
        (, yes) = _authorized(address(reputation), agentId);
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
        if (admission == Admission.TrackRecord) return reputation.admits(marketId, agentId);
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

    function _resultOf(ReportCodec.Report memory report) internal pure returns (WorkerResult memory r) {
        _fillResult(r, report);
    }

    function _fillResult(WorkerResult memory r, ReportCodec.Report memory report) internal pure {
        r.answer = report.answer;
        r.confidenceBps = report.confidenceBps;
        r.resQuality = report.resQuality;
        r.srcQuality = report.srcQuality;
        r.analysisDepth = report.analysisDepth;
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

    /// @dev The disputer's bond (SettlementMath.disputeBond); pool and stakes are frozen from the request on.
    function _disputeBond(uint256 marketId) internal view returns (uint256) {
        Market storage m = _markets[marketId];
        return SettlementMath.disputeBond(_configs[marketId].bond, uint256(m.rewardPool) + m.totalStake);
    }

    function _credit(address account, uint256 amount) internal {
        uint256 raw = _credits[account];
        _credits[account] = (raw == 0 ? 1 : raw) + amount;
    }

    function _refundCreator(uint256 marketId, address creator, uint256 amount) internal {
        _credit(creator, amount);
        emit CreatorRefunded(marketId, creator, amount);
    }

    function _configView(Config memory c) internal pure returns (MarketConfig memory) {
        return MarketConfig({
            createdAt: c.createdAt,
            admission: c.admission,
            minCorrectness: c.minCorrectness,
            minSettled: c.minSettled,
            minStake: c.minStake,
            maxWorkers: c.maxWorkers,
            gracePeriod: c.gracePeriod,
            disputeWindow: c.disputeWindow,
            bond: c.bond,
            arbiter: c.arbiter
        });
    }
}
