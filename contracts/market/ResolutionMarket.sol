// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable, Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

import {IIdentityRegistry} from "../erc8004/interfaces/IIdentityRegistry.sol";
import {IReputationRegistry} from "../erc8004/interfaces/IReputationRegistry.sol";
import {IResolutionMarket} from "./interfaces/IResolutionMarket.sol";
import {SettlementMath} from "./libraries/SettlementMath.sol";
import {ReputationFeedback} from "./ReputationFeedback.sol";

/// @title Resolution market: ERC-8004 agents stake to resolve a question; an authorized resolver settles it
/// @notice Lifecycle: Open (joining until `deadline`) -> ResolutionRequested (worker set frozen) ->
///         Resolved | Invalid | Cancelled. Every terminal state credits every wei held for the market to
///         someone (pull payments through {withdraw}); no path locks funds.
///         Per-worker results (weights, payouts, scores) are public once settled: nothing here is secret.
/// @dev Accounting invariant: `address(this).balance == sum(pendingWithdrawal) +
///      sum(rewardPool + totalStake of markets in Open or ResolutionRequested)` (plus any ETH force-sent).
///      ERC-8004 feedback is best effort: each `giveFeedback` runs with a fixed gas cap inside a failure-tolerant
///      low-level call, only when the callee is guaranteed the full cap (EIP-150), and whatever does not fit in
///      the settling transaction is published later by anyone through {publishFeedback}.
contract ResolutionMarket is IResolutionMarket, Ownable2Step, ReentrancyGuardTransient, ReputationFeedback {
    // ------------------------------------------------------------------------------------------------
    // Constants
    // ------------------------------------------------------------------------------------------------

    /// @notice Hard upper bound for `maxWorkers` (snapshotted per market at creation).
    uint8 public constant MAX_WORKERS_CAP = 100;
    /// @notice Default seat limit of new markets.
    uint8 public constant DEFAULT_MAX_WORKERS = 10;
    /// @notice Bounds and default of the grace period after a resolution request (snapshotted per market).
    uint32 public constant MIN_GRACE_PERIOD = 1 hours;
    uint32 public constant MAX_GRACE_PERIOD = 30 days;
    uint32 public constant DEFAULT_GRACE_PERIOD = 3 days;
    /// @notice Default minimum stake to join a market.
    uint256 public constant DEFAULT_MIN_STAKE = 0.001 ether;
    /// @notice Question length cap in bytes.
    uint256 public constant MAX_QUESTION_BYTES = 1024;
    /// @notice Bundle URI length cap in bytes (it is forwarded to 3 feedback records per worker).
    uint256 public constant MAX_BUNDLE_URI_BYTES = 512;
    /// @notice A deadline may be at most this far in the future.
    uint256 public constant MAX_DEADLINE_HORIZON = 365 days;
    /// @notice Largest score of one dimension.
    uint8 public constant MAX_SCORE = 100;
    /// @notice Workers whose feedback is written inside {resolveMarket}; the rest goes through {publishFeedback}.
    uint256 public constant INLINE_FEEDBACK_WORKERS = 10;

    // ------------------------------------------------------------------------------------------------
    // Storage
    // ------------------------------------------------------------------------------------------------

    /// @dev Packed so that settlement reads two slots and writes two: slot 0 creator|deadline|status|outcome|
    ///      workerCount|feedbackCursor|maxWorkers (30 bytes); slot 1 rewardPool|totalStake|requestedAt (29 bytes);
    ///      slot 2 `graceOrBundleHash`; slot 3 question. uint40 timestamps last until year 36812; uint8 counts
    ///      suffice because MAX_WORKERS_CAP <= 255; uint96 amounts hold 79 billion ETH.
    ///      `graceOrBundleHash` is a status-tagged union: while the market is Open or ResolutionRequested it holds
    ///      the snapshotted grace period (low 32 bits, never zero); once Resolved or Invalid it holds the bundle
    ///      hash (the grace period is dead by then). Settlement thus overwrites a non-zero slot instead of
    ///      paying for a fresh one. Read it only through {_gracePeriodOf} and {_bundleHashOf}.
    struct Market {
        address creator;
        uint40 deadline;
        Status status;
        bool outcome;
        uint8 workerCount;
        uint8 feedbackCursor;
        uint8 maxWorkers;
        uint96 rewardPool;
        uint96 totalStake;
        uint40 requestedAt;
        bytes32 graceOrBundleHash;
        string question;
    }

    /// @dev One worker seat: slot 0 worker|stake, slot 1 agentId.
    struct Seat {
        address worker;
        uint96 stake;
        uint256 agentId;
    }

    /// @notice The ERC-8004 identity registry used to authorize joins.
    IIdentityRegistry public immutable identityRegistry;

    /// @notice Minimum stake to join (owner-settable).
    uint256 public minStake;
    /// @notice Seat limit given to new markets (owner-settable, <= MAX_WORKERS_CAP).
    uint8 public maxWorkers;
    /// @notice Grace period given to new markets (owner-settable, within the bounds).
    uint32 public gracePeriod;
    /// @notice Number of markets created; ids are 1..marketCount.
    uint256 public marketCount;

    mapping(uint256 marketId => Market) private _markets;
    mapping(uint256 marketId => mapping(uint256 index => Seat)) private _seats;
    mapping(uint256 marketId => mapping(uint256 agentId => bool)) private _agentSeated;
    mapping(uint256 marketId => mapping(address worker => bool)) private _addressSeated;
    /// @dev Credit + 1 once the account was ever credited: the slot never returns to zero, so repeat
    ///      credits cost a non-zero write instead of a fresh one. 0 and 1 both mean "nothing owed".
    mapping(address account => uint256) private _credits;
    /// @dev Packed reputation accumulator per agent, see SettlementMath.addObservation.
    mapping(uint256 agentId => uint256) private _reputation;
    mapping(address account => bool) private _resolvers;

    // ------------------------------------------------------------------------------------------------
    // Events (in addition to IResolutionMarket's)
    // ------------------------------------------------------------------------------------------------

    event ResolverAdded(address indexed resolver);
    event ResolverRemoved(address indexed resolver);
    event MinStakeUpdated(uint256 minStake);
    event MaxWorkersUpdated(uint8 maxWorkers);
    event GracePeriodUpdated(uint32 gracePeriod);
    /// @notice A worker was settled: reward + stake credited, reputation updated with these scores.
    event WorkerSettled(
        uint256 indexed marketId,
        uint256 indexed agentId,
        address indexed worker,
        uint256 reward,
        uint256 stake,
        uint8 resQuality,
        uint8 srcQuality,
        uint8 analysisDepth
    );
    /// @notice A worker's stake was credited back (invalid or cancelled market).
    event StakeRefunded(uint256 indexed marketId, uint256 indexed agentId, address indexed worker, uint256 stake);
    /// @notice The reward pool went back to the market creator (nobody joined, all weights zero, invalid, stale).
    event CreatorRefunded(uint256 indexed marketId, address indexed creator, uint256 amount);
    event Withdrawal(address indexed account, uint256 amount);
    /// @notice Feedback of a market advanced to `cursor` workers out of `total`. Emitted by {resolveMarket}
    ///         only when feedback remains pending, and by every {publishFeedback} that makes progress.
    event FeedbackProgress(uint256 indexed marketId, uint256 cursor, uint256 total);

    // ------------------------------------------------------------------------------------------------
    // Errors
    // ------------------------------------------------------------------------------------------------

    error ZeroAddress();
    error NotResolver(address account);
    error MaxWorkersOutOfRange(uint256 value);
    error GracePeriodOutOfRange(uint256 value);
    error MinStakeTooLarge(uint256 value);
    error EmptyRewardPool();
    error RewardPoolTooLarge(uint256 value);
    error EmptyQuestion();
    error QuestionTooLong(uint256 length);
    error DeadlineNotInFuture(uint64 deadline);
    error DeadlineTooFar(uint64 deadline);
    error MarketNotFound(uint256 marketId);
    error WrongStatus(uint256 marketId, Status status);
    error JoiningClosed(uint256 marketId);
    error StakeTooLow(uint256 stake, uint256 minStake);
    error StakeTooLarge(uint256 stake);
    error AgentNotFound(uint256 agentId);
    error NotAgentOperator(address caller, uint256 agentId);
    error AgentAlreadyJoined(uint256 marketId, uint256 agentId);
    error AddressAlreadyJoined(uint256 marketId, address worker);
    error MarketFull(uint256 marketId, uint256 maxWorkers);
    error DeadlineNotReached(uint256 marketId, uint64 deadline);
    error WorkerCountMismatch(uint256 expected, uint256 actual);
    error WorkerMismatch(uint256 index, address expected, address actual);
    error WeightsLengthMismatch(uint256 expected, uint256 actual);
    error ScoresLengthMismatch(uint256 expected, uint256 actual);
    error ScoreOutOfRange(uint256 index, uint8 score);
    error BundleURITooLong(uint256 length);
    error GracePeriodNotOver(uint256 marketId, uint256 endsAt);
    error NothingToWithdraw();
    error TransferFailed(address account, uint256 amount);

    // ------------------------------------------------------------------------------------------------
    // Construction and admin
    // ------------------------------------------------------------------------------------------------

    modifier onlyResolver() {
        if (!_resolvers[msg.sender]) revert NotResolver(msg.sender);
        _;
    }

    /// @param identityRegistry_ ERC-8004 identity registry (must be a contract)
    /// @param reputationRegistry_ ERC-8004 reputation registry (must be a contract)
    /// @param initialOwner admin (two-step transfers)
    constructor(IIdentityRegistry identityRegistry_, IReputationRegistry reputationRegistry_, address initialOwner)
        Ownable(initialOwner)
        ReputationFeedback(reputationRegistry_)
    {
        if (address(identityRegistry_).code.length == 0) revert NotAContract(address(identityRegistry_));
        identityRegistry = identityRegistry_;
        minStake = DEFAULT_MIN_STAKE;
        maxWorkers = DEFAULT_MAX_WORKERS;
        gracePeriod = DEFAULT_GRACE_PERIOD;
        emit MinStakeUpdated(DEFAULT_MIN_STAKE);
        emit MaxWorkersUpdated(DEFAULT_MAX_WORKERS);
        emit GracePeriodUpdated(DEFAULT_GRACE_PERIOD);
    }

    /// @notice Authorizes `resolver` to settle markets (e.g. the CRE receiver).
    function addResolver(address resolver) external onlyOwner {
        if (resolver == address(0)) revert ZeroAddress();
        if (!_resolvers[resolver]) {
            _resolvers[resolver] = true;
            emit ResolverAdded(resolver);
        }
    }

    /// @notice Revokes `resolver`.
    function removeResolver(address resolver) external onlyOwner {
        if (_resolvers[resolver]) {
            _resolvers[resolver] = false;
            emit ResolverRemoved(resolver);
        }
    }

    /// @notice Sets the minimum stake of future joins (any market).
    function setMinStake(uint256 newMinStake) external onlyOwner {
        if (newMinStake > type(uint96).max) revert MinStakeTooLarge(newMinStake);
        minStake = newMinStake;
        emit MinStakeUpdated(newMinStake);
    }

    /// @notice Sets the seat limit of markets created from now on (1..MAX_WORKERS_CAP).
    function setMaxWorkers(uint8 newMaxWorkers) external onlyOwner {
        if (newMaxWorkers == 0 || newMaxWorkers > MAX_WORKERS_CAP) revert MaxWorkersOutOfRange(newMaxWorkers);
        maxWorkers = newMaxWorkers;
        emit MaxWorkersUpdated(newMaxWorkers);
    }

    /// @notice Sets the grace period of markets created from now on (MIN_GRACE_PERIOD..MAX_GRACE_PERIOD).
    function setGracePeriod(uint32 newGracePeriod) external onlyOwner {
        if (newGracePeriod < MIN_GRACE_PERIOD || newGracePeriod > MAX_GRACE_PERIOD) {
            revert GracePeriodOutOfRange(newGracePeriod);
        }
        gracePeriod = newGracePeriod;
        emit GracePeriodUpdated(newGracePeriod);
    }

    // ------------------------------------------------------------------------------------------------
    // Lifecycle
    // ------------------------------------------------------------------------------------------------

    /// @inheritdoc IResolutionMarket
    /// @dev `msg.value` is the reward pool. The current `maxWorkers` and `gracePeriod` are snapshotted.
    function createMarket(string calldata question, uint64 deadline)
        external
        payable
        nonReentrant
        returns (uint256 marketId)
    {
        if (msg.value == 0) revert EmptyRewardPool();
        if (msg.value > type(uint96).max) revert RewardPoolTooLarge(msg.value);
        uint256 qlen = bytes(question).length;
        if (qlen == 0) revert EmptyQuestion();
        if (qlen > MAX_QUESTION_BYTES) revert QuestionTooLong(qlen);
        if (deadline <= block.timestamp) revert DeadlineNotInFuture(deadline);
        if (deadline > block.timestamp + MAX_DEADLINE_HORIZON) revert DeadlineTooFar(deadline);

        marketId = ++marketCount;
        Market storage m = _markets[marketId];
        m.creator = msg.sender;
        m.deadline = uint40(deadline);
        m.status = Status.Open;
        m.maxWorkers = maxWorkers;
        m.graceOrBundleHash = bytes32(uint256(gracePeriod));
        m.rewardPool = uint96(msg.value);
        m.question = question;
        emit MarketCreated(marketId, msg.sender, question, deadline, msg.value);
    }

    /// @inheritdoc IResolutionMarket
    /// @dev The caller must own/operate the agent (`isAuthorizedOrOwner`) or be its ERC-8004 agent wallet.
    ///      `msg.value` is the stake; the seat (and later the payout) belongs to `msg.sender`.
    function joinMarket(uint256 marketId, uint256 agentId) external payable nonReentrant {
        Market storage m = _markets[marketId];
        Status status = m.status;
        if (status != Status.Open) {
            if (status == Status.None) revert MarketNotFound(marketId);
            revert WrongStatus(marketId, status);
        }
        if (block.timestamp >= m.deadline) revert JoiningClosed(marketId);
        if (msg.value < minStake) revert StakeTooLow(msg.value, minStake);
        if (msg.value > type(uint96).max) revert StakeTooLarge(msg.value);
        uint8 count = m.workerCount;
        if (count >= m.maxWorkers) revert MarketFull(marketId, m.maxWorkers);
        if (_agentSeated[marketId][agentId]) revert AgentAlreadyJoined(marketId, agentId);
        if (_addressSeated[marketId][msg.sender]) revert AddressAlreadyJoined(marketId, msg.sender);
        uint256 newTotal = uint256(m.totalStake) + msg.value;
        if (newTotal > type(uint96).max) revert StakeTooLarge(msg.value);
        // A view (STATICCALL) into the identity registry: it cannot re-enter or change state.
        _checkAgentControl(msg.sender, agentId);

        _agentSeated[marketId][agentId] = true;
        _addressSeated[marketId][msg.sender] = true;
        _seats[marketId][count] = Seat({worker: msg.sender, stake: uint96(msg.value), agentId: agentId});
        m.workerCount = count + 1;
        m.totalStake = uint96(newTotal);
        emit WorkerJoined(marketId, agentId, msg.sender, msg.value);
    }

    /// @inheritdoc IResolutionMarket
    /// @dev Anyone, once, at or after the deadline. A market nobody joined is cancelled instead and its pool
    ///      credited back to the creator (no ResolutionRequested event then).
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
        emit ResolutionRequested(marketId, m.question);
    }

    /// @inheritdoc IResolutionMarket
    /// @dev Pool split: see SettlementMath (floor shares, remainder to the largest weight, lowest index on
    ///      ties; all-zero weights return the pool to the creator). Feedback of the first
    ///      INLINE_FEEDBACK_WORKERS workers is written here as far as the gas given allows; the rest stays
    ///      pending for {publishFeedback}. Pass an explicit gas limit: gas estimation may find that the
    ///      transaction succeeds with all feedback deferred.
    function resolveMarket(
        uint256 marketId,
        address[] calldata workers,
        uint256[] calldata weights,
        uint8[] calldata scores,
        bool resolution,
        bytes32 bundleHash,
        string calldata bundleURI
    ) external onlyResolver nonReentrant {
        Market storage m = _requireStatus(marketId, Status.ResolutionRequested);
        uint256 n = m.workerCount;
        if (workers.length != n) revert WorkerCountMismatch(n, workers.length);
        if (weights.length != n) revert WeightsLengthMismatch(n, weights.length);
        if (scores.length != 3 * n) revert ScoresLengthMismatch(3 * n, scores.length);
        if (bytes(bundleURI).length > MAX_BUNDLE_URI_BYTES) revert BundleURITooLong(bytes(bundleURI).length);

        // Effects: status first, then every credit.
        m.status = Status.Resolved;
        m.outcome = resolution;
        m.graceOrBundleHash = bundleHash;
        emit MarketResolved(marketId, resolution, bundleHash, bundleURI);
        _settle(marketId, m, workers, weights, scores);

        // Interactions: best-effort ERC-8004 feedback. nonReentrant guards every state-changing entry point,
        // so the registry can neither observe nor alter the feedback bookkeeping written after the calls.
        uint256 cursor = _inlineFeedback(marketId, n, scores, bundleURI, bundleHash);
        if (cursor != 0) m.feedbackCursor = uint8(cursor);
        if (cursor < n) {
            _storePending(marketId, cursor, n, scores, bundleURI);
            emit FeedbackProgress(marketId, cursor, n);
        }
    }

    /// @inheritdoc IResolutionMarket
    function settleInvalid(uint256 marketId, bytes32 bundleHash, string calldata bundleURI)
        external
        onlyResolver
        nonReentrant
    {
        Market storage m = _requireStatus(marketId, Status.ResolutionRequested);
        if (bytes(bundleURI).length > MAX_BUNDLE_URI_BYTES) revert BundleURITooLong(bytes(bundleURI).length);
        m.status = Status.Invalid;
        m.graceOrBundleHash = bundleHash;
        emit MarketInvalidated(marketId, bundleHash, bundleURI);
        _refundAll(marketId, m);
    }

    /// @inheritdoc IResolutionMarket
    /// @dev Uses the grace period snapshotted when the market was created. A resolver may still settle
    ///      after the grace period as long as nobody has cancelled.
    function cancelStale(uint256 marketId) external nonReentrant {
        Market storage m = _requireStatus(marketId, Status.ResolutionRequested);
        uint256 endsAt = uint256(m.requestedAt) + _gracePeriodOf(m);
        if (block.timestamp < endsAt) revert GracePeriodNotOver(marketId, endsAt);
        m.status = Status.Cancelled;
        emit MarketCancelled(marketId, msg.sender);
        _refundAll(marketId, m);
    }

    /// @inheritdoc IResolutionMarket
    /// @dev Permissionless. Processes workers from the market's feedback cursor, stopping early when the
    ///      remaining gas could not give the next worker's three calls their full gas cap.
    /// @return published number of workers whose three feedback records were processed (written or
    ///         reported through FeedbackFailed)
    function publishFeedback(uint256 marketId, uint256 maxWorkers_) external nonReentrant returns (uint256 published) {
        Market storage m = _requireStatus(marketId, Status.Resolved);
        uint256 n = m.workerCount;
        uint256 cursor = m.feedbackCursor;
        if (cursor >= n || maxWorkers_ == 0) return 0;
        uint256 end = n - cursor > maxWorkers_ ? cursor + maxWorkers_ : n;
        bytes memory data = _feedbackTemplate(_pendingFeedbackURI[marketId], m.graceOrBundleHash);
        mapping(uint256 => Seat) storage seats = _seats[marketId];
        uint256 start = cursor;
        uint256 chunkIndex = type(uint256).max;
        uint256 word;
        for (; cursor < end; ++cursor) {
            if (gasleft() < FEEDBACK_WORKER_MIN_GAS) break;
            if (cursor / 10 != chunkIndex) {
                chunkIndex = cursor / 10;
                word = _pendingScores[marketId][chunkIndex];
            }
            uint256 packed = word >> ((cursor % 10) * 24);
            _feedbackForWorker(
                marketId, data, seats[cursor].agentId, packed & 0xff, (packed >> 8) & 0xff, (packed >> 16) & 0xff
            );
        }
        published = cursor - start;
        if (published != 0) {
            m.feedbackCursor = uint8(cursor);
            if (cursor == n) delete _pendingFeedbackURI[marketId];
            emit FeedbackProgress(marketId, cursor, n);
        }
    }

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
        Market storage m = _markets[marketId];
        if (m.status == Status.None) revert MarketNotFound(marketId);
        info = MarketInfo({
            creator: m.creator,
            deadline: m.deadline,
            requestedAt: m.requestedAt,
            status: m.status,
            outcome: m.outcome,
            workerCount: m.workerCount,
            rewardPool: m.rewardPool,
            totalStake: m.totalStake,
            bundleHash: _bundleHashOf(m),
            question: m.question
        });
    }

    /// @inheritdoc IResolutionMarket
    /// @dev In join order; frozen once resolution is requested.
    function getWorkers(uint256 marketId)
        external
        view
        returns (address[] memory workers, uint256[] memory agentIds, uint256[] memory stakes)
    {
        Market storage m = _markets[marketId];
        if (m.status == Status.None) revert MarketNotFound(marketId);
        uint256 n = m.workerCount;
        workers = new address[](n);
        agentIds = new uint256[](n);
        stakes = new uint256[](n);
        mapping(uint256 => Seat) storage seats = _seats[marketId];
        for (uint256 i; i < n; ++i) {
            Seat storage seat = seats[i];
            workers[i] = seat.worker;
            stakes[i] = seat.stake;
            agentIds[i] = seat.agentId;
        }
    }

    /// @inheritdoc IResolutionMarket
    /// @return count number of settled markets the agent was scored in
    /// @return resQuality floor average resolution quality (0-100)
    /// @return srcQuality floor average source quality (0-100)
    /// @return analysisDepth floor average analysis depth (0-100)
    function getReputation(uint256 agentId)
        external
        view
        returns (uint64 count, uint8 resQuality, uint8 srcQuality, uint8 analysisDepth)
    {
        return SettlementMath.averages(_reputation[agentId]);
    }

    /// @inheritdoc IResolutionMarket
    function isResolver(address account) external view returns (bool) {
        return _resolvers[account];
    }

    /// @inheritdoc IResolutionMarket
    function pendingWithdrawal(address account) public view returns (uint256) {
        uint256 raw = _credits[account];
        return raw == 0 ? 0 : raw - 1;
    }

    /// @notice Feedback progress of a market, in workers.
    /// @return cursor workers whose feedback was processed
    /// @return pending workers still waiting for {publishFeedback} (0 unless the market is Resolved)
    function feedbackStatus(uint256 marketId) external view returns (uint256 cursor, uint256 pending) {
        Market storage m = _markets[marketId];
        cursor = m.feedbackCursor;
        if (m.status == Status.Resolved) pending = m.workerCount - cursor;
    }

    /// @notice Whether `agentId` / `worker` holds a seat in `marketId`.
    function hasJoined(uint256 marketId, uint256 agentId, address worker)
        external
        view
        returns (bool agentSeated, bool addressSeated)
    {
        return (_agentSeated[marketId][agentId], _addressSeated[marketId][worker]);
    }

    /// @notice Seat limit and grace period snapshotted into `marketId` at creation (grace reads 0 once the
    ///         market is Resolved or Invalid: it no longer applies).
    function marketLimits(uint256 marketId) external view returns (uint8 seatLimit, uint32 grace) {
        Market storage m = _markets[marketId];
        return (m.maxWorkers, _gracePeriodOf(m));
    }

    // ------------------------------------------------------------------------------------------------
    // Internals
    // ------------------------------------------------------------------------------------------------

    /// @dev The grace period of an Open/ResolutionRequested/Cancelled market (0 once Resolved or Invalid).
    function _gracePeriodOf(Market storage m) private view returns (uint32) {
        Status status = m.status;
        if (status == Status.Resolved || status == Status.Invalid) return 0;
        return uint32(uint256(m.graceOrBundleHash));
    }

    /// @dev The bundle hash of a Resolved/Invalid market (0 otherwise).
    function _bundleHashOf(Market storage m) private view returns (bytes32) {
        Status status = m.status;
        return status == Status.Resolved || status == Status.Invalid ? m.graceOrBundleHash : bytes32(0);
    }

    function _requireStatus(uint256 marketId, Status expected) private view returns (Market storage m) {
        m = _markets[marketId];
        Status status = m.status;
        if (status != expected) {
            if (status == Status.None) revert MarketNotFound(marketId);
            revert WrongStatus(marketId, status);
        }
    }

    /// @dev `isAuthorizedOrOwner` reverts for unknown agents: that becomes AgentNotFound.
    function _checkAgentControl(address caller, uint256 agentId) private view {
        bool authorized;
        try identityRegistry.isAuthorizedOrOwner(caller, agentId) returns (bool ok) {
            authorized = ok;
        } catch {
            revert AgentNotFound(agentId);
        }
        if (!authorized && identityRegistry.getAgentWallet(agentId) != caller) {
            revert NotAgentOperator(caller, agentId);
        }
    }

    /// @dev Validates the worker list and scores, credits payouts + stakes, updates reputation averages.
    function _settle(
        uint256 marketId,
        Market storage m,
        address[] calldata workers,
        uint256[] calldata weights,
        uint8[] calldata scores
    ) private {
        uint256[] memory payouts = _payouts(marketId, m, weights);
        mapping(uint256 => Seat) storage seats = _seats[marketId];
        uint256 n = workers.length;
        for (uint256 i; i < n; ++i) {
            _settleWorker(marketId, seats[i], workers[i], i, payouts[i], scores);
        }
    }

    /// @dev One worker of {_settle}: the seat must match the submitted address.
    function _settleWorker(
        uint256 marketId,
        Seat storage seat,
        address submitted,
        uint256 i,
        uint256 payout,
        uint8[] calldata scores
    ) private {
        address worker = seat.worker;
        if (submitted != worker) revert WorkerMismatch(i, worker, submitted);
        uint256 agentId = seat.agentId;
        _reputation[agentId] = _addScores(_reputation[agentId], scores, i);
        uint256 stake = seat.stake;
        _emitSettled(marketId, agentId, worker, payout, stake, scores[3 * i:3 * i + 3]);
        _credit(worker, payout + stake);
    }

    function _emitSettled(
        uint256 marketId,
        uint256 agentId,
        address worker,
        uint256 payout,
        uint256 stake,
        uint8[] calldata s
    ) private {
        emit WorkerSettled(marketId, agentId, worker, payout, stake, s[0], s[1], s[2]);
    }

    /// @dev Reward split of a market; an all-zero weight vector sends the pool back to the creator.
    function _payouts(uint256 marketId, Market storage m, uint256[] calldata weights)
        private
        returns (uint256[] memory payouts)
    {
        uint256 pool = m.rewardPool;
        uint256 totalWeight;
        (payouts, totalWeight) = SettlementMath.split(pool, weights);
        if (totalWeight == 0) _refundCreator(marketId, m.creator, pool);
    }

    /// @dev Range-checks worker `i`'s three scores and adds them to a reputation accumulator.
    function _addScores(uint256 packed, uint8[] calldata scores, uint256 i) private pure returns (uint256) {
        uint256 k = 3 * i;
        uint8 res = scores[k];
        uint8 src = scores[k + 1];
        uint8 depth = scores[k + 2];
        if (res > MAX_SCORE) revert ScoreOutOfRange(k, res);
        if (src > MAX_SCORE) revert ScoreOutOfRange(k + 1, src);
        if (depth > MAX_SCORE) revert ScoreOutOfRange(k + 2, depth);
        return SettlementMath.addObservation(packed, res, src, depth);
    }

    /// @dev Feedback of the first INLINE_FEEDBACK_WORKERS workers, as far as the gas allows.
    /// @return cursor number of workers processed
    function _inlineFeedback(
        uint256 marketId,
        uint256 n,
        uint8[] calldata scores,
        string calldata bundleURI,
        bytes32 bundleHash
    ) private returns (uint256 cursor) {
        uint256 inlineCount = n < INLINE_FEEDBACK_WORKERS ? n : INLINE_FEEDBACK_WORKERS;
        mapping(uint256 => Seat) storage seats = _seats[marketId];
        bytes memory data = _feedbackTemplate(bundleURI, bundleHash);
        for (; cursor < inlineCount; ++cursor) {
            if (gasleft() < FEEDBACK_WORKER_MIN_GAS) break;
            uint256 k = 3 * cursor;
            _feedbackForWorker(marketId, data, seats[cursor].agentId, scores[k], scores[k + 1], scores[k + 2]);
        }
    }


    function _credit(address account, uint256 amount) private {
        uint256 raw = _credits[account];
        _credits[account] = (raw == 0 ? 1 : raw) + amount;
    }

    function _refundCreator(uint256 marketId, address creator, uint256 amount) private {
        _credit(creator, amount);
        emit CreatorRefunded(marketId, creator, amount);
    }

    /// @dev Stakes back to every worker, pool back to the creator.
    function _refundAll(uint256 marketId, Market storage m) private {
        _refundCreator(marketId, m.creator, m.rewardPool);
        uint256 n = m.workerCount;
        mapping(uint256 => Seat) storage seats = _seats[marketId];
        for (uint256 i; i < n; ++i) {
            Seat storage seat = seats[i];
            address worker = seat.worker;
            uint256 stake = seat.stake;
            _credit(worker, stake);
            emit StakeRefunded(marketId, seat.agentId, worker, stake);
        }
    }

}
