// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IIdentityRegistry} from "../erc8004/interfaces/IIdentityRegistry.sol";
import {IReputationRegistry} from "../erc8004/interfaces/IReputationRegistry.sol";
import {IArbiter} from "./interfaces/IArbiter.sol";
import {IResolutionMarket} from "./interfaces/IResolutionMarket.sol";
import {FeedbackCodec} from "./libraries/FeedbackCodec.sol";
import {ReportCodec} from "./libraries/ReportCodec.sol";
import {SettlementMath} from "./libraries/SettlementMath.sol";
import {MarketSettlement} from "./MarketSettlement.sol";

/// @title Resolution market: ERC-8004 agents stake to resolve a question; a bonded, disputable proposal settles it
/// @notice See IResolutionMarket for the lifecycle and README.md for the settlement rules. Rewards, stakes,
///         reputation and ERC-8004 records are written only at finalization; all payments are pull payments.
/// @dev Accounting invariant: `address(this).balance == sum(pendingWithdrawal) + sum over live markets (Open,
///      ResolutionRequested, Proposed, Disputed) of rewardPool + totalStake + bonds held (1 if Proposed, 2 if
///      Disputed)` (plus any ETH force-sent). Every state-changing entry point is nonReentrant. Storage and the
///      finalization internals live in MarketSettlement; the owner is the separately deployed MarketGovernance,
///      the ERC-8004 writer and reputation book the separately deployed MarketReputation (both created here).
contract ResolutionMarket is MarketSettlement {
    /// @notice Arbiter silence after which anyone may `expireDispute`: escalation to the fallback arbiter the first
    ///         time, else Invalid with the bonds returned.
    uint64 public constant ARBITRATION_TIMEOUT = 30 days;
    /// @notice Gas the fallback arbiter's `onDispute` gets at escalation (UMA's bond pull and assertion fit).
    uint256 internal constant ESCALATION_GAS = 2_000_000;
    /// @notice Delay between `requestCancel` and `cancelStale`, during which a resolver can still propose.
    uint64 public constant CANCEL_WINDOW = 1 days;
    uint256 internal constant MAX_BUNDLE_URI_BYTES = 512;

    /// @param identityRegistry_ ERC-8004 identity registry (must be a contract)
    /// @param reputationRegistry_ ERC-8004 reputation registry (must be a contract)
    /// @param initialOwner the owner of the market's MarketGovernance (two-step transfers, no renounce)
    constructor(IIdentityRegistry identityRegistry_, IReputationRegistry reputationRegistry_, address initialOwner)
        MarketSettlement(identityRegistry_, reputationRegistry_, initialOwner)
    {}

    // ------------------------------------------------------------------------------------------------
    // Creation and joining
    // ------------------------------------------------------------------------------------------------

    /// @inheritdoc IResolutionMarket
    function createMarket(string calldata question, uint64 deadline)
        external
        payable
        nonReentrant
        returns (uint256 marketId)
    {
        MarketParams memory params;
        return _create(question, deadline, params);
    }

    /// @inheritdoc IResolutionMarket
    function createMarketWith(string calldata question, uint64 deadline, MarketParams calldata params)
        external
        payable
        nonReentrant
        returns (uint256 marketId)
    {
        return _create(question, deadline, params);
    }

    /// @dev Stores a market; MarketGovernance validates it and fills zero params with the defaults in force now.
    function _create(string calldata question, uint64 deadline, MarketParams memory p)
        private
        returns (uint256 marketId)
    {
        uint256[] memory list;
        if (p.admission == Admission.AllowList) list = p.allowedAgents;
        (MarketConfig memory g, address f) = governance.snapshotConfig(p, bytes(question).length, deadline, msg.value);
        Config memory c;
        c.arbiter = g.arbiter;
        c.bond = g.bond;
        c.minStake = g.minStake;
        c.maxWorkers = g.maxWorkers;
        c.gracePeriod = g.gracePeriod;
        c.disputeWindow = g.disputeWindow;
        c.createdAt = uint40(block.timestamp);
        c.admission = p.admission;
        c.minCorrectness = p.minCorrectness;
        c.minSettled = p.minSettled;

        marketId = ++marketCount;
        // The fallback is snapshotted like the arbiter: a later change never reaches a live market.
        if (f != address(0)) fallbackArbiterOf[marketId] = IArbiter(f);
        Market storage m = _markets[marketId];
        m.creator = msg.sender;
        m.deadline = uint40(deadline);
        m.status = Status.Open;
        m.rewardPool = uint96(msg.value);
        m.question = question;
        _configs[marketId] = c;
        for (uint256 i; i < list.length; ++i) {
            _allowed[marketId][list[i]] = true;
        }
        emit MarketCreated(marketId, msg.sender, question, deadline, msg.value);
        emit MarketConfigured(marketId, _configView(c), list);
    }

    /// @inheritdoc IResolutionMarket
    /// @dev The seat (and its payout) belongs to the joining address: the agent's owner, an approved operator or
    ///      the agent wallet. Refused if the market's feedback writer (`reputation`) may act for the agent (it could
    ///      then not write the agent's ERC-8004 records: the registry forbids self-feedback).
    function joinMarket(uint256 marketId, uint256 agentId) external payable nonReentrant {
        Market storage m = _requireStatus(marketId, Status.Open);
        if (block.timestamp >= m.deadline) revert JoiningClosed(marketId);
        Config storage c = _configs[marketId];
        if (msg.value < c.minStake) revert StakeTooLow(msg.value, c.minStake);
        uint256 count = m.workerCount;
        if (count >= c.maxWorkers) revert MarketFull(marketId, c.maxWorkers);
        if (_agentSeated[marketId][agentId]) revert AgentAlreadyJoined(marketId, agentId);
        if (_addressSeated[marketId][msg.sender]) revert AddressAlreadyJoined(marketId, msg.sender);
        uint256 newTotal = uint256(m.totalStake) + msg.value;
        if (newTotal > type(uint96).max) revert StakeTooLarge(msg.value);
        if (agentId > type(uint192).max) revert AgentIdTooLarge(agentId);
        // Views (STATICCALL) into the identity registry: they cannot re-enter or change state.
        _checkAgentControl(msg.sender, agentId);
        if (_isWriterOperator(agentId)) revert MarketIsAgentOperator(agentId);
        if (!_admitted(marketId, c, agentId)) revert AgentNotAdmitted(marketId, agentId);

        _agentSeated[marketId][agentId] = true;
        _addressSeated[marketId][msg.sender] = true;
        Seat storage seat = _seats[marketId][count];
        seat.worker = msg.sender;
        seat.stake = uint96(msg.value);
        seat.agentId = uint192(agentId);
        m.workerCount = uint8(count + 1);
        m.totalStake = uint96(newTotal);
        emit WorkerJoined(marketId, agentId, msg.sender, msg.value);
    }

    /// @inheritdoc IResolutionMarket
    /// @dev A market nobody joined is cancelled instead and its pool credited back to the creator.
    function requestResolution(uint256 marketId) external nonReentrant {
        Market storage m = _requireStatus(marketId, Status.Open);
        if (block.timestamp < m.deadline) revert DeadlineNotReached(marketId, uint64(m.deadline));
        m.requestedAt = uint40(block.timestamp);
        if (m.workerCount == 0) {
            m.status = Status.Cancelled;
            emit MarketCancelled(marketId, msg.sender);
            _refundCreator(marketId, m.creator, m.rewardPool);
            return;
        }
        m.status = Status.ResolutionRequested;
        // The track-record cut-off every resolver uses for this market (RECORDS §3).
        m.recordCount = uint32(_recordCount); // 2^32 finalizations would take > 2^48 gas: never reached
        m.recordHead = _recordHead;
        emit ResolutionRequested(marketId, m.question);
    }

    // ------------------------------------------------------------------------------------------------
    // Proposal, dispute, finalization
    // ------------------------------------------------------------------------------------------------

    /// @inheritdoc IResolutionMarket
    function proposeResolution(
        uint256 marketId,
        Verdict verdict,
        WorkerReport[] calldata reports,
        bytes32 bundleHash,
        string calldata bundleURI
    ) external payable nonReentrant {
        Market storage m = _requireStatus(marketId, Status.ResolutionRequested);
        Config storage c = _configs[marketId];
        // No owner stall: once the grace period is over, anyone may propose (bonded, same dispute path).
        if (!isResolverFor(msg.sender, marketId) && block.timestamp < uint256(m.requestedAt) + c.gracePeriod) {
            revert NotResolver(msg.sender, marketId);
        }
        uint256 bond = c.bond;
        if (msg.value != bond) revert WrongBond(msg.value, bond);
        uint256 n = m.workerCount;
        if (reports.length != n) revert ReportsLengthMismatch(n, reports.length);
        if (bytes(bundleURI).length > MAX_BUNDLE_URI_BYTES) revert BundleURITooLong(bytes(bundleURI).length);

        if (!_storeReports(marketId, reports) && verdict != Verdict.Invalid) revert NoAnswerForVerdict(marketId);
        m.status = Status.Proposed;
        _recordProposal(marketId, verdict, reports, bundleHash, bundleURI);
    }

    /// @dev Validates and encodes every report into its seat; returns whether any seat answered Yes/No. A report
    ///      with a signature is stored as signed once `answerVerifier` accepts it (else `BadAnswerSignature`); one
    ///      without is attested and costs no verification.
    function _storeReports(uint256 marketId, WorkerReport[] calldata reports) private returns (bool answered) {
        mapping(uint256 => Seat) storage seats = _seats[marketId];
        uint256 n = reports.length;
        for (uint256 i; i < n; ++i) {
            WorkerReport calldata r = reports[i];
            Seat storage seat = seats[i];
            bool signed = r.signature.length != 0;
            if (signed && !answerVerifier.isValid(marketId, seat.agentId, r)) revert BadAnswerSignature(i);
            seat.report = ReportCodec.fromProposal(r, i, signed);
            if (r.answer >= Answer.No) answered = true;
        }
    }

    function _recordProposal(
        uint256 marketId,
        Verdict verdict,
        WorkerReport[] calldata reports,
        bytes32 bundleHash,
        string calldata bundleURI
    ) private {
        ProposalData storage p = _proposals[marketId];
        uint40 endsAt = uint40(block.timestamp + _configs[marketId].disputeWindow);
        p.proposer = msg.sender;
        p.verdict = verdict;
        p.proposedAt = uint40(block.timestamp);
        p.disputeEndsAt = endsAt;
        p.bundleHash = bundleHash;
        p.bundleURI = bundleURI;
        emit ResolutionProposed(marketId, msg.sender, verdict, bundleHash, bundleURI, endsAt, reports);
    }

    /// @inheritdoc IResolutionMarket
    /// @dev The disputer's bond grows with what the dispute can move (`governance().disputeBond`), the
    ///      proposer's does not.
    function dispute(uint256 marketId, Verdict claimed) external payable nonReentrant {
        _requireStatus(marketId, Status.Proposed);
        ProposalData storage p = _proposals[marketId];
        if (block.timestamp >= p.disputeEndsAt) revert DisputeWindowOver(marketId, p.disputeEndsAt);
        uint256 bond = _disputeBond(marketId);
        if (msg.value != bond) revert WrongBond(msg.value, bond);
        Verdict proposed = p.verdict;
        if (claimed == proposed) revert ClaimEqualsProposal(marketId);

        _markets[marketId].status = Status.Disputed;
        p.disputer = msg.sender;
        p.claimed = claimed;
        p.disputedAt = uint40(block.timestamp);
        IArbiter arbiter = _configs[marketId].arbiter;
        emit ProposalDisputed(marketId, msg.sender, claimed, arbiter);
        // The arbiter cannot re-enter (nonReentrant): it rules later through resolveDispute. Its refusal reverts
        // the dispute with the arbiter's own error.
        if (!_openCase(arbiter, marketId, p, gasleft())) {
            assembly ("memory-safe") {
                returndatacopy(0, 0, returndatasize())
                revert(0, returndatasize())
            }
        }
    }

    /// @dev `arbiter.onDispute(...)` with `gas`; false when the arbiter refused the case (reverted).
    function _openCase(IArbiter arbiter, uint256 marketId, ProposalData storage p, uint256 gas)
        private
        returns (bool ok)
    {
        (ok,) = address(arbiter).call{gas: gas}(
            abi.encodeCall(
                IArbiter.onDispute,
                (marketId, p.verdict, p.claimed, p.proposer, p.disputer, p.bundleHash, p.bundleURI)
            )
        );
    }

    /// @inheritdoc IResolutionMarket
    /// @dev The winner (proposer iff `verdict` equals the proposal) is credited both bonds; with a Yes/No verdict
    ///      every seat that answered the other side loses its stake to the winner. Once escalated the config's
    ///      arbiter is the fallback: only it may rule.
    function resolveDispute(uint256 marketId, Verdict verdict) external nonReentrant {
        Market storage m = _requireStatus(marketId, Status.Disputed);
        Config storage c = _configs[marketId];
        if (msg.sender != address(c.arbiter)) revert NotArbiter(msg.sender, marketId);
        ProposalData storage p = _proposals[marketId];
        address winner = verdict == p.verdict ? p.proposer : p.disputer;
        uint256 bonds = c.bond + _disputeBond(marketId);
        _credit(winner, bonds);
        emit DisputeResolved(marketId, verdict, winner, bonds);
        _finalize(marketId, m, verdict, true, winner);
    }

    /// @inheritdoc IResolutionMarket
    /// @dev The hand-off gets exactly ESCALATION_GAS (checked first), so a refusal is the fallback's, not a
    ///      starved call's. A refused hand-off ends the dispute like a silent fallback (`DisputeExpired` without
    ///      `DisputeEscalated`).
    function expireDispute(uint256 marketId) external nonReentrant {
        Market storage m = _requireStatus(marketId, Status.Disputed);
        ProposalData storage p = _proposals[marketId];
        uint256 expiresAt = uint256(p.disputedAt) + ARBITRATION_TIMEOUT;
        if (block.timestamp < expiresAt) revert ArbitrationNotExpired(marketId, expiresAt);
        IArbiter f = fallbackArbiterOf[marketId];
        Config storage c = _configs[marketId];
        // Not escalated yet (a fallback is never the market's own arbiter): hand the case over, once.
        if (address(f) != address(0) && address(c.arbiter) != address(f)) {
            if (gasleft() < ESCALATION_GAS + ESCALATION_GAS / 63 + 10_000) revert EscalationNeedsGas(ESCALATION_GAS);
            if (_openCase(f, marketId, p, ESCALATION_GAS)) {
                c.arbiter = f;
                p.disputedAt = uint40(block.timestamp);
                emit DisputeEscalated(marketId, f);
                return;
            }
        }
        _credit(p.proposer, c.bond);
        _credit(p.disputer, _disputeBond(marketId));
        emit DisputeExpired(marketId);
        _finalize(marketId, m, Verdict.Invalid, false, address(0));
    }

    /// @inheritdoc IResolutionMarket
    /// @dev Give it an explicit gas limit: gas estimation may find a run with all feedback deferred.
    function finalize(uint256 marketId) external nonReentrant {
        Market storage m = _requireStatus(marketId, Status.Proposed);
        ProposalData storage p = _proposals[marketId];
        if (block.timestamp < p.disputeEndsAt) revert DisputeWindowOpen(marketId, p.disputeEndsAt);
        _credit(p.proposer, _configs[marketId].bond);
        _finalize(marketId, m, p.verdict, false, address(0));
    }

    // ------------------------------------------------------------------------------------------------
    // Cancellation
    // ------------------------------------------------------------------------------------------------

    /// @inheritdoc IResolutionMarket
    function requestCancel(uint256 marketId) external nonReentrant {
        Market storage m = _requireStatus(marketId, Status.ResolutionRequested);
        uint256 endsAt = uint256(m.requestedAt) + _configs[marketId].gracePeriod;
        if (block.timestamp < endsAt) revert GracePeriodNotOver(marketId, endsAt);
        ProposalData storage p = _proposals[marketId];
        if (p.cancelRequestedAt != 0) revert CancelAlreadyRequested(marketId);
        p.cancelRequestedAt = uint40(block.timestamp);
        emit CancelRequested(marketId, msg.sender, uint64(block.timestamp + CANCEL_WINDOW));
    }

    /// @inheritdoc IResolutionMarket
    function cancelStale(uint256 marketId) external nonReentrant {
        Market storage m = _requireStatus(marketId, Status.ResolutionRequested);
        uint256 requested = _proposals[marketId].cancelRequestedAt;
        if (requested == 0) revert CancelNotRequested(marketId);
        uint256 endsAt = requested + CANCEL_WINDOW;
        if (block.timestamp < endsAt) revert CancelWindowOpen(marketId, endsAt);
        m.status = Status.Cancelled;
        emit MarketCancelled(marketId, msg.sender);
        _refundCreator(marketId, m.creator, m.rewardPool);
        uint256 n = m.workerCount;
        mapping(uint256 => Seat) storage seats = _seats[marketId];
        for (uint256 i; i < n; ++i) {
            Seat storage seat = seats[i];
            _credit(seat.worker, seat.stake);
            emit StakeRefunded(marketId, seat.agentId, seat.worker, seat.stake);
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Withdrawals
    // ------------------------------------------------------------------------------------------------

    /// @inheritdoc IResolutionMarket
    /// @dev The credit is zeroed before the transfer; a failed transfer reverts and leaves it intact.
    function withdraw() external nonReentrant {
        uint256 raw = _credits[msg.sender];
        if (raw <= 1) revert NothingToWithdraw();
        uint256 amount = raw - 1;
        _credits[msg.sender] = 1;
        emit Withdrawal(msg.sender, amount);
        (bool ok,) = payable(msg.sender).call{value: amount}("");
        if (!ok) revert TransferFailed(msg.sender, amount);
    }

    // ------------------------------------------------------------------------------------------------
    // Views
    // ------------------------------------------------------------------------------------------------

    /// @inheritdoc IResolutionMarket
    function getMarket(uint256 marketId) external view returns (MarketInfo memory info) {
        Market storage m = _market(marketId);
        info = MarketInfo({
            creator: m.creator,
            deadline: m.deadline,
            requestedAt: m.requestedAt,
            status: m.status,
            outcome: m.outcome,
            workerCount: m.workerCount,
            rewardPool: m.rewardPool,
            totalStake: m.totalStake,
            bundleHash: _proposals[marketId].bundleHash,
            question: m.question,
            recordCount: m.recordCount,
            recordHead: m.recordHead
        });
    }

    /// @inheritdoc IResolutionMarket
    function recordHead() external view returns (uint256 count, bytes32 head) {
        return (_recordCount, _recordHead);
    }

    /// @inheritdoc IResolutionMarket
    function getMarketConfig(uint256 marketId) external view returns (MarketConfig memory) {
        _market(marketId);
        return _configView(_configs[marketId]);
    }

    /// @inheritdoc IResolutionMarket
    function getProposal(uint256 marketId) external view returns (Proposal memory) {
        _market(marketId);
        ProposalData storage p = _proposals[marketId];
        return Proposal({
            proposer: p.proposer,
            verdict: p.verdict,
            proposedAt: p.proposedAt,
            disputeEndsAt: p.disputeEndsAt,
            bond: p.proposer == address(0) ? 0 : _configs[marketId].bond,
            disputer: p.disputer,
            claimed: p.claimed,
            disputedAt: p.disputedAt,
            bundleHash: p.bundleHash,
            bundleURI: p.bundleURI
        });
    }

    /// @inheritdoc IResolutionMarket
    function getWorkers(uint256 marketId)
        external
        view
        returns (address[] memory workers, uint256[] memory agentIds, uint256[] memory stakes)
    {
        uint256 n = _market(marketId).workerCount;
        workers = new address[](n);
        agentIds = new uint256[](n);
        stakes = new uint256[](n);
        mapping(uint256 => Seat) storage seats = _seats[marketId];
        for (uint256 i; i < n; ++i) {
            Seat storage seat = seats[i];
            (workers[i], stakes[i], agentIds[i]) = (seat.worker, seat.stake, seat.agentId);
        }
    }

    /// @inheritdoc IResolutionMarket
    function seatWords(uint256 marketId, uint256 from, uint256 count)
        external
        view
        returns (uint256[] memory words, bool outcome, string memory bundleURI, bytes32 bundleHash)
    {
        Market storage m = _requireStatus(marketId, Status.Resolved);
        uint256 n = m.workerCount;
        if (from > n) from = n;
        if (count > n - from) count = n - from;
        mapping(uint256 => Seat) storage seats = _seats[marketId];
        words = new uint256[](count);
        for (uint256 i; i < count; ++i) {
            Seat storage seat = seats[from + i];
            words[i] = uint256(seat.agentId) | (uint256(seat.report) << 192);
        }
        ProposalData storage p = _proposals[marketId];
        return (words, m.outcome, p.bundleURI, p.bundleHash);
    }

    /// @inheritdoc IResolutionMarket
    function getReputation(uint256 agentId) external view returns (Reputation memory) {
        return reputation.getReputation(agentId);
    }

    /// @inheritdoc IResolutionMarket
    function isResolverFor(address account, uint256 marketId) public view returns (bool) {
        uint256 from = governance.resolverActiveFrom(account);
        return from != 0 && _configs[marketId].createdAt >= from;
    }

    /// @inheritdoc IResolutionMarket
    function pendingWithdrawal(address account) external view returns (uint256) {
        uint256 raw = _credits[account];
        return raw == 0 ? 0 : raw - 1;
    }

}
