// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable, Ownable2Step} from "@openzeppelin/contracts/access/Ownable2Step.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

import {IIdentityRegistry} from "../erc8004/interfaces/IIdentityRegistry.sol";
import {IReputationRegistry} from "../erc8004/interfaces/IReputationRegistry.sol";
import {IResolutionMarket} from "./interfaces/IResolutionMarket.sol";
import {SettlementMath} from "./libraries/SettlementMath.sol";

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
contract ResolutionMarket is IResolutionMarket, Ownable2Step, ReentrancyGuardTransient {
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

    /// @notice Gas forwarded to every `giveFeedback` call.
    uint256 public constant FEEDBACK_CALL_GAS = 300_000;
    /// @notice Gas that must be left right before a feedback call so that the callee receives the whole
    ///         `FEEDBACK_CALL_GAS` despite the 63/64 rule, the cold-account access and the opcodes in between.
    uint256 public constant FEEDBACK_CALL_MIN_GAS = FEEDBACK_CALL_GAS + FEEDBACK_CALL_GAS / 63 + 2_600 + 1_000;
    /// @notice Gas that must be left before starting a worker's three feedback records (calls + encoding +
    ///         a FeedbackFailed event each, and the bookkeeping after the loop).
    uint256 public constant FEEDBACK_WORKER_MIN_GAS = 3 * (FEEDBACK_CALL_MIN_GAS + 15_000) + 30_000;
    /// @notice Workers whose feedback is written inside {resolveMarket}; the rest goes through {publishFeedback}.
    uint256 public constant INLINE_FEEDBACK_WORKERS = 10;
    /// @notice At most this many bytes of a failed call's revert data are logged in FeedbackFailed.
    uint256 public constant MAX_FAILURE_REASON_BYTES = 256;

    string public constant TAG_RESOLUTION_QUALITY = "resolution_quality";
    string public constant TAG_SOURCE_QUALITY = "source_quality";
    string public constant TAG_ANALYSIS_DEPTH = "analysis_depth";
    string public constant FEEDBACK_TAG2 = "cresolver";
    bytes32 private constant TAG_RESOLUTION_QUALITY_WORD = "resolution_quality";
    bytes32 private constant TAG_SOURCE_QUALITY_WORD = "source_quality";
    bytes32 private constant TAG_ANALYSIS_DEPTH_WORD = "analysis_depth";

    // ------------------------------------------------------------------------------------------------
    // Storage
    // ------------------------------------------------------------------------------------------------

    /// @dev Packed so that settlement touches two slots: slot 0 creator|deadline|status|outcome|workerCount|
    ///      feedbackCursor|maxWorkers (30 bytes); slot 1 rewardPool|totalStake; slot 2 requestedAt|gracePeriod;
    ///      slot 3 bundleHash; slot 4 question. uint40 timestamps last until year 36812; uint8 counts suffice
    ///      because MAX_WORKERS_CAP <= 255.
    struct Market {
        address creator;
        uint40 deadline;
        Status status;
        bool outcome;
        uint8 workerCount;
        uint8 feedbackCursor;
        uint8 maxWorkers;
        uint128 rewardPool;
        uint128 totalStake;
        uint40 requestedAt;
        uint32 gracePeriod;
        bytes32 bundleHash;
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
    /// @notice The ERC-8004 reputation registry that receives feedback.
    IReputationRegistry public immutable reputationRegistry;

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
    /// @dev Scores of workers whose feedback is still pending: 10 workers x 24 bits per word.
    mapping(uint256 marketId => mapping(uint256 chunk => uint256)) private _pendingScores;
    /// @dev Bundle URI of markets with pending feedback (not stored otherwise: it is in MarketResolved).
    mapping(uint256 marketId => string) private _pendingFeedbackURI;
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
    /// @notice A worker's stake and reward were credited at settlement (or the stake alone on refund).
    event WorkerCredited(
        uint256 indexed marketId, uint256 indexed agentId, address indexed worker, uint256 reward, uint256 stake
    );
    /// @notice The reward pool went back to the market creator (nobody joined, all weights zero, invalid, stale).
    event CreatorRefunded(uint256 indexed marketId, address indexed creator, uint256 amount);
    event Withdrawal(address indexed account, uint256 amount);
    /// @notice A `giveFeedback` call failed (reverted or ran out of its gas cap); settlement is unaffected.
    event FeedbackFailed(uint256 indexed marketId, uint256 indexed agentId, string tag, bytes reason);
    /// @notice Feedback of a market advanced to `cursor` workers out of `total`. Emitted by {resolveMarket}
    ///         only when feedback remains pending, and by every {publishFeedback} that makes progress.
    event FeedbackProgress(uint256 indexed marketId, uint256 cursor, uint256 total);

    // ------------------------------------------------------------------------------------------------
    // Errors
    // ------------------------------------------------------------------------------------------------

    error ZeroAddress();
    error NotAContract(address account);
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
    error FeedbackGasTooLow();

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
    {
        if (address(identityRegistry_).code.length == 0) revert NotAContract(address(identityRegistry_));
        if (address(reputationRegistry_).code.length == 0) revert NotAContract(address(reputationRegistry_));
        identityRegistry = identityRegistry_;
        reputationRegistry = reputationRegistry_;
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
        if (msg.value > type(uint128).max) revert RewardPoolTooLarge(msg.value);
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
        m.gracePeriod = gracePeriod;
        m.rewardPool = uint128(msg.value);
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
        _checkAgentControl(msg.sender, agentId);

        _agentSeated[marketId][agentId] = true;
        _addressSeated[marketId][msg.sender] = true;
        _seats[marketId][count] = Seat({worker: msg.sender, stake: uint96(msg.value), agentId: agentId});
        m.workerCount = count + 1;
        m.totalStake += uint128(msg.value);
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
        m.bundleHash = bundleHash;
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
        m.bundleHash = bundleHash;
        emit MarketInvalidated(marketId, bundleHash, bundleURI);
        _refundAll(marketId, m);
    }

    /// @inheritdoc IResolutionMarket
    /// @dev Uses the grace period snapshotted when the market was created. A resolver may still settle
    ///      after the grace period as long as nobody has cancelled.
    function cancelStale(uint256 marketId) external nonReentrant {
        Market storage m = _requireStatus(marketId, Status.ResolutionRequested);
        uint256 endsAt = uint256(m.requestedAt) + m.gracePeriod;
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
        bytes memory data = _feedbackTemplate(_pendingFeedbackURI[marketId], m.bundleHash);
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
            bundleHash: m.bundleHash,
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

    /// @notice Grace period and seat limit snapshotted into `marketId` at creation.
    function marketLimits(uint256 marketId) external view returns (uint8 seatLimit, uint32 grace) {
        Market storage m = _markets[marketId];
        return (m.maxWorkers, m.gracePeriod);
    }

    // ------------------------------------------------------------------------------------------------
    // Internals
    // ------------------------------------------------------------------------------------------------

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
        emit WorkerCredited(marketId, agentId, worker, payout, stake);
        _credit(worker, payout + stake);
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

    /// @dev Persists what publishFeedback needs for workers `cursor..n-1`: the URI and packed scores.
    function _storePending(uint256 marketId, uint256 cursor, uint256 n, uint8[] calldata scores, string calldata uri)
        private
    {
        _pendingFeedbackURI[marketId] = uri;
        uint256 lastChunk = (n - 1) / 10;
        for (uint256 c = cursor / 10; c <= lastChunk; ++c) {
            uint256 word;
            uint256 first = c * 10;
            uint256 end = first + 10 < n ? first + 10 : n;
            for (uint256 i = first; i < end; ++i) {
                uint256 k = 3 * i;
                word |= SettlementMath.packScores(scores[k], scores[k + 1], scores[k + 2]) << ((i - first) * 24);
            }
            _pendingScores[marketId][c] = word;
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
            emit WorkerCredited(marketId, seat.agentId, worker, 0, stake);
        }
    }

    /// @dev Encodes `giveFeedback(0, 0, 0, <tag1>, "cresolver", "", uri, hash)` once per transaction. Every
    ///      tag1 is at most 32 bytes, so the layout is identical for all records: {_giveFeedback} only patches
    ///      the agent id, the value and tag1's length and word in place.
    function _feedbackTemplate(string memory uri, bytes32 hash) private pure returns (bytes memory) {
        return abi.encodeCall(
            IReputationRegistry.giveFeedback,
            (0, int128(0), uint8(0), TAG_RESOLUTION_QUALITY, FEEDBACK_TAG2, "", uri, hash)
        );
    }

    /// @dev The three ERC-8004 records of one worker.
    function _feedbackForWorker(uint256 marketId, bytes memory data, uint256 agentId, uint256 res, uint256 src, uint256 depth)
        private
    {
        _giveFeedback(marketId, data, agentId, res, 0);
        _giveFeedback(marketId, data, agentId, src, 1);
        _giveFeedback(marketId, data, agentId, depth, 2);
    }

    /// @dev One capped, failure-tolerant `giveFeedback`. Reverts (undoing the whole transaction) rather than
    ///      make a call whose callee could get less than FEEDBACK_CALL_GAS: a failure is then always the
    ///      registry's own. At most MAX_FAILURE_REASON_BYTES of revert data are copied (no returndata bomb).
    /// @param data the template of {_feedbackTemplate}; words patched: agentId (args+0x00), value (args+0x20),
    ///        tag1 length (args+0x100) and tag1 content (args+0x120), where args = data + 0x20 + 4
    /// @param tagIndex 0 resolution_quality, 1 source_quality, 2 analysis_depth
    function _giveFeedback(uint256 marketId, bytes memory data, uint256 agentId, uint256 score, uint256 tagIndex)
        private
    {
        uint256 tagLength;
        bytes32 tagWord;
        if (tagIndex == 0) {
            (tagLength, tagWord) = (bytes(TAG_RESOLUTION_QUALITY).length, TAG_RESOLUTION_QUALITY_WORD);
        } else if (tagIndex == 1) {
            (tagLength, tagWord) = (bytes(TAG_SOURCE_QUALITY).length, TAG_SOURCE_QUALITY_WORD);
        } else {
            (tagLength, tagWord) = (bytes(TAG_ANALYSIS_DEPTH).length, TAG_ANALYSIS_DEPTH_WORD);
        }
        address registry = address(reputationRegistry);
        bool ok;
        uint256 size;
        if (gasleft() < FEEDBACK_CALL_MIN_GAS) revert FeedbackGasTooLow();
        assembly ("memory-safe") {
            let args := add(data, 0x24)
            mstore(args, agentId)
            mstore(add(args, 0x20), score) // int128 value, 0-100: same word as uint256
            mstore(add(args, 0x100), tagLength)
            mstore(add(args, 0x120), tagWord)
            ok := call(FEEDBACK_CALL_GAS, registry, 0, add(data, 0x20), mload(data), 0, 0)
            size := returndatasize()
        }
        if (!ok) {
            if (size > MAX_FAILURE_REASON_BYTES) size = MAX_FAILURE_REASON_BYTES;
            bytes memory reason = new bytes(size);
            assembly ("memory-safe") {
                returndatacopy(add(reason, 0x20), 0, size)
            }
            emit FeedbackFailed(marketId, agentId, _tag(tagIndex), reason);
        }
    }

    function _tag(uint256 tagIndex) private pure returns (string memory) {
        if (tagIndex == 0) return TAG_RESOLUTION_QUALITY;
        if (tagIndex == 1) return TAG_SOURCE_QUALITY;
        return TAG_ANALYSIS_DEPTH;
    }
}
