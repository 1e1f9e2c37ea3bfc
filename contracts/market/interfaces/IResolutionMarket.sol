// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAnswerVerifier} from "./IAnswerVerifier.sol";
import {IArbiter} from "./IArbiter.sol";
import {IMarketBoundErrors} from "./IMarketBoundErrors.sol";
import {IMarketGovernance} from "./IMarketGovernance.sol";
import {IMarketReputation} from "./IMarketReputation.sol";

/// @title Resolution market: ERC-8004 agents stake to resolve a question; a bonded, disputable proposal settles it
/// @notice Lifecycle:
///         Open (joining until `deadline`) -> ResolutionRequested (worker set frozen)
///         -> Proposed (resolver's bonded verdict, dispute window open)
///            -> [no dispute, window over] finalize -> Resolved | Invalid
///            -> dispute (matching bond) -> Disputed -> arbiter's `resolveDispute` -> Resolved | Invalid
///                                                   -> arbitration timeout, `expireDispute` -> Invalid
///         ResolutionRequested -> (grace over) requestCancel -> (cancel window over, still no proposal) cancelStale
///         -> Cancelled.
///         Rewards, stakes, reputation and ERC-8004 records are written only at finalization; every path ends with
///         all funds withdrawable by someone (pull payments). The owner's powers live in the market's
///         `governance()`, the ERC-8004 writer and reputation book in its `reputation()` (both deployed by the
///         market's constructor, so their addresses are fixed at deployment).
interface IResolutionMarket is IMarketBoundErrors {
    // ------------------------------------------------------------------------------------------------
    // Types
    // ------------------------------------------------------------------------------------------------

    /// @dev Appended values only: `Proposed`/`Disputed` come last so the first six keep their numbers.
    enum Status {
        None,
        Open,
        ResolutionRequested,
        Resolved,
        Invalid,
        Cancelled,
        Proposed,
        Disputed
    }

    /// @notice What one worker answered, as reported by the proposer. `None` = asked but no valid answer (failure).
    enum Answer {
        None,
        Abstained,
        No,
        Yes
    }

    /// @notice A proposal's, a disputer's or an arbiter's verdict.
    enum Verdict {
        No,
        Yes,
        Invalid
    }

    /// @notice Who may take a seat: anyone; agents with a track record in this contract; or a creator's allow-list.
    enum Admission {
        Open,
        TrackRecord,
        AllowList
    }

    /// @notice Per-market settings chosen at creation. Zero values mean "the contract default at creation time".
    struct MarketParams {
        Admission admission;
        /// TrackRecord: the agent's average correctness (0-100) in this contract must be >= this.
        uint8 minCorrectness;
        /// TrackRecord: the agent must have at least this many settled (answered, Resolved) markets here.
        uint32 minSettled;
        /// Minimum stake per seat; 0 = default; never below `MIN_STAKE_FLOOR`.
        uint96 minStake;
        /// Seat limit; 0 = default; at most `MAX_WORKERS_CAP`.
        uint8 maxWorkers;
        /// Seconds a proposal can be disputed; 0 = default; within [MIN_DISPUTE_WINDOW, MAX_DISPUTE_WINDOW].
        uint32 disputeWindow;
        /// Bond of a proposal and of a dispute; 0 = default.
        uint96 bond;
        /// Arbiter of disputes; address(0) = the default arbiter in force at creation.
        IArbiter arbiter;
        /// AllowList: the agent ids that may join (ignored otherwise).
        uint256[] allowedAgents;
    }

    /// @notice Everything the workflow and the betting market need to know about one market.
    struct MarketInfo {
        address creator;
        uint64 deadline;
        uint64 requestedAt;
        Status status;
        /// Final outcome when Resolved (true = YES).
        bool outcome;
        uint32 workerCount;
        uint256 rewardPool;
        uint256 totalStake;
        /// The proposal's bundle hash once proposed (0 before).
        bytes32 bundleHash;
        string question;
        /// Track-record cut-off stored at `requestResolution`: entries in the record then (the market's history
        /// is the first `recordCount` entries) and the head after them (0 before the request).
        uint256 recordCount;
        bytes32 recordHead;
    }

    /// @notice One seat of a finalized market in the track record (seat order).
    struct SeatRecord {
        uint256 agentId;
        Answer answer;
        uint16 confidenceBps;
        /// The agent signed its answer (EIP-712); false: attested by the proposer only.
        bool signed;
    }

    /// @notice One finalized market in the track-record hash chain (docs/RECORDS.md §3).
    struct RecordEntry {
        /// Resolved or Invalid.
        Status status;
        /// The outcome; false unless Resolved.
        bool outcome;
        /// An arbiter (the market's or a fallback) ruled.
        bool disputed;
        /// The address that ruled; address(0) when undisputed.
        address arbiter;
        address creator;
        /// Reward pool plus every seat's stake at the request, in wei.
        uint256 value;
        SeatRecord[] seats;
    }

    /// @notice The per-market settings snapshotted at creation.
    struct MarketConfig {
        uint64 createdAt;
        Admission admission;
        uint8 minCorrectness;
        uint32 minSettled;
        uint96 minStake;
        uint8 maxWorkers;
        uint32 gracePeriod;
        uint32 disputeWindow;
        uint96 bond;
        IArbiter arbiter;
    }

    /// @notice One worker's answer and evaluation, in seat order, as posted with a proposal.
    /// @dev `confidenceBps` is the worker's stated probability (5000-10000) that its Yes/No answer is right; it must be
    ///      0 for None/Abstained. Scores are 0-100 and must be 0 for None/Abstained. `replyHash` is keccak256 of the
    ///      agent's canonical reply without its signature; `signature` is the agent's EIP-712 `Answer` signature
    ///      (docs/RECORDS.md §2), empty for a report only the proposer attests.
    struct WorkerReport {
        Answer answer;
        uint16 confidenceBps;
        uint8 resQuality;
        uint8 srcQuality;
        uint8 analysisDepth;
        bytes32 replyHash;
        bytes signature;
    }

    struct Proposal {
        address proposer;
        Verdict verdict;
        uint64 proposedAt;
        uint64 disputeEndsAt;
        uint96 bond;
        address disputer;
        Verdict claimed;
        uint64 disputedAt;
        bytes32 bundleHash;
        string bundleURI;
    }

    /// @notice What a worker got at finalization; emitted once per seat in `WorkerSettled`.
    /// @dev `correctness` is 100·(1 − Brier) of the answer against the final outcome (see `correctnessOf`), 0 for a
    ///      failed seat, and 0 with `scored == false` for abstentions and for Invalid markets.
    struct WorkerResult {
        Answer answer;
        uint16 confidenceBps;
        bool scored;
        uint8 correctness;
        uint8 resQuality;
        uint8 srcQuality;
        uint8 analysisDepth;
        uint256 reward;
        uint256 stakeReturned;
        uint256 stakeSlashed;
    }

    /// @notice Per-agent record in this contract (only Resolved markets count).
    struct Reputation {
        /// Seats in Resolved markets with a Yes/No answer or a failure (abstentions are not counted).
        uint64 settled;
        /// Averages over `settled` (0-100); quality averages are over answered seats only.
        uint8 correctness;
        uint8 resQuality;
        uint8 srcQuality;
        uint8 analysisDepth;
    }

    // ------------------------------------------------------------------------------------------------
    // Events
    // ------------------------------------------------------------------------------------------------

    /// @notice A market was created with its question, deadline and reward pool (paid in with the call).
    event MarketCreated(uint256 indexed marketId, address indexed creator, string question, uint64 deadline, uint256 rewardPool);
    /// @notice The configuration snapshotted for a new market and its admission allow-list.
    event MarketConfigured(uint256 indexed marketId, MarketConfig config, uint256[] allowedAgents);
    /// @notice Agent `agentId` took a seat on the market, operated by `worker`, with `stake` wei staked.
    event WorkerJoined(uint256 indexed marketId, uint256 indexed agentId, address indexed worker, uint256 stake);
    /// @notice The event the resolver watches. Emitted once per market.
    event ResolutionRequested(uint256 indexed marketId, string question);
    /// @notice A bonded proposal; `reports` is every seat's answer and scores (the public track record).
    event ResolutionProposed(
        uint256 indexed marketId,
        address indexed proposer,
        Verdict verdict,
        bytes32 bundleHash,
        string bundleURI,
        uint64 disputeEndsAt,
        WorkerReport[] reports
    );
    /// @notice `disputer` bonded a dispute claiming `claimed`; the case went to `arbiter`.
    event ProposalDisputed(uint256 indexed marketId, address indexed disputer, Verdict claimed, IArbiter arbiter);
    /// @notice The arbiter ruled `verdict`; `winner` (proposer or disputer) is owed `bondPaid`.
    event DisputeResolved(uint256 indexed marketId, Verdict verdict, address indexed winner, uint256 bondPaid);
    /// @notice Both arbiters (or the only one) stayed silent or refused: Invalid, each party's bond returned.
    event DisputeExpired(uint256 indexed marketId);
    /// @notice The market's arbiter did not rule within ARBITRATION_TIMEOUT: the dispute went to the market's
    ///         fallback arbiter (snapshotted at creation), which is now the config's arbiter and has
    ///         ARBITRATION_TIMEOUT of its own.
    event DisputeEscalated(uint256 indexed marketId, IArbiter indexed fallbackArbiter);
    /// @notice Final state. `disputed` = the outcome was decided by the arbiter (known truth for accuracy estimates).
    event MarketFinalized(uint256 indexed marketId, Status status, bool outcome, bool disputed);
    /// @notice The settlement of one seat at finalization: correctness, reward, stake returned or slashed.
    event WorkerSettled(uint256 indexed marketId, uint256 indexed agentId, address indexed worker, WorkerResult result);
    /// @notice `amount` of the seat's stake went to `beneficiary` (arbitrated markets only).
    event StakeSlashed(uint256 indexed marketId, uint256 indexed agentId, address indexed beneficiary, uint256 amount);
    /// @notice Nobody proposed within the grace period; the market can be cancelled from `cancellableAt`.
    event CancelRequested(uint256 indexed marketId, address indexed caller, uint64 cancellableAt);
    /// @notice The market was cancelled without a proposal; every stake and the reward pool are refundable.
    event MarketCancelled(uint256 indexed marketId, address indexed caller);
    /// @notice `amount` went back to the creator (pull payment credited).
    event CreatorRefunded(uint256 indexed marketId, address indexed creator, uint256 amount);
    /// @notice `account` withdrew `amount` wei of what it was owed.
    event Withdrawal(address indexed account, uint256 amount);
    /// @notice A market reached Resolved or Invalid and extended the track-record hash chain: `index` counts
    ///         finalized markets from 0, `head` is the chain's head after this entry.
    event MarketRecorded(uint256 indexed marketId, uint256 indexed index, bytes32 head, RecordEntry entry);
    /// @notice A stake went back to its worker because the market was cancelled (no proposal).
    event StakeRefunded(uint256 indexed marketId, uint256 indexed agentId, address indexed worker, uint256 stake);

    // ------------------------------------------------------------------------------------------------
    // Errors
    // ------------------------------------------------------------------------------------------------

    /// @notice `account` may not propose on this market (not an active resolver for its creation time).
    error NotResolver(address account, uint256 marketId);
    /// @notice `account` is not the market's arbiter.
    error NotArbiter(address account, uint256 marketId);
    /// @notice No market has this id.
    error MarketNotFound(uint256 marketId);
    /// @notice The market is in `status`, not the one this call needs.
    error WrongStatus(uint256 marketId, Status status);
    /// @notice The market's deadline has passed: it takes no more workers.
    error JoiningClosed(uint256 marketId);
    /// @notice The stake is below the market's minimum.
    error StakeTooLow(uint256 stake, uint256 minStake);
    /// @notice The market's total stake would reach 2^96 wei.
    error StakeTooLarge(uint256 stake);
    /// @notice No agent has this id in the identity registry.
    error AgentNotFound(uint256 agentId);
    /// @notice `caller` neither owns nor operates agent `agentId`.
    error NotAgentOperator(address caller, uint256 agentId);
    /// @notice The market (its reputation writer) operates the agent: ERC-8004 would refuse its feedback, so it may
    ///         not join.
    error MarketIsAgentOperator(uint256 agentId);
    /// @notice The agent does not meet the market's admission rule (allow-list or proven track record).
    error AgentNotAdmitted(uint256 marketId, uint256 agentId);
    /// @notice The agent already holds a seat on this market.
    error AgentAlreadyJoined(uint256 marketId, uint256 agentId);
    /// @notice `worker` already holds a seat on this market.
    error AddressAlreadyJoined(uint256 marketId, address worker);
    /// @notice Every seat (`maxWorkers`) is taken.
    error MarketFull(uint256 marketId, uint256 maxWorkers);
    /// @notice The market's deadline has not passed yet.
    error DeadlineNotReached(uint256 marketId, uint64 deadline);
    /// @notice A proposal must carry one report per seat.
    error ReportsLengthMismatch(uint256 expected, uint256 actual);
    /// @notice The report at `index` is malformed (answer, confidence or scores out of range).
    error InvalidReport(uint256 index);
    /// @notice A Yes/No verdict needs at least one answered report.
    error NoAnswerForVerdict(uint256 marketId);
    /// @notice The ETH sent is not the bond the market asks.
    error WrongBond(uint256 sent, uint256 required);
    /// @notice The bundle URI is longer than MAX_BUNDLE_URI_BYTES.
    error BundleURITooLong(uint256 length);
    /// @notice The dispute window ended at `endedAt`.
    error DisputeWindowOver(uint256 marketId, uint64 endedAt);
    /// @notice The dispute window is open until `endsAt`.
    error DisputeWindowOpen(uint256 marketId, uint64 endsAt);
    /// @notice A dispute must claim a verdict other than the proposed one.
    error ClaimEqualsProposal(uint256 marketId);
    /// @notice The arbiter may still rule until `expiresAt`.
    error ArbitrationNotExpired(uint256 marketId, uint256 expiresAt);
    /// @notice `expireDispute` must leave the fallback arbiter `required` gas for `onDispute`, so a caller cannot
    ///         starve the hand-off into a refusal.
    error EscalationNeedsGas(uint256 required);
    /// @notice A cancellation may be requested only after the grace period, at `endsAt`.
    error GracePeriodNotOver(uint256 marketId, uint256 endsAt);
    /// @notice A cancellation is already requested.
    error CancelAlreadyRequested(uint256 marketId);
    /// @notice Cancellation was not requested first (`requestCancel`).
    error CancelNotRequested(uint256 marketId);
    /// @notice The market can be cancelled only from `endsAt`.
    error CancelWindowOpen(uint256 marketId, uint256 endsAt);
    /// @notice The caller is owed nothing.
    error NothingToWithdraw();
    /// @notice Sending `amount` wei to `account` failed.
    error TransferFailed(address account, uint256 amount);
    /// @notice A constructor argument that must be a contract (a registry) is not.
    error NotAContract(address account);
    /// @notice Agent ids are stored in 192 bits next to the seat's report (ERC-8004 ids are sequential).
    error AgentIdTooLarge(uint256 agentId);
    /// @notice The report of seat `seat` carries a signature that is neither its agent's wallet's nor its owner's
    ///         over that report (docs/RECORDS.md §2): the whole proposal is refused. An empty signature is allowed
    ///         (the seat is then attested by the proposer only).
    error BadAnswerSignature(uint256 seat);

    // ------------------------------------------------------------------------------------------------
    // Lifecycle
    // ------------------------------------------------------------------------------------------------

    /// @notice A market with the contract defaults (open admission). `msg.value` is the reward pool.
    function createMarket(string calldata question, uint64 deadline) external payable returns (uint256 marketId);

    /// @notice A market with explicit settings (see `MarketParams`). `msg.value` is the reward pool.
    function createMarketWith(string calldata question, uint64 deadline, MarketParams calldata params)
        external
        payable
        returns (uint256 marketId);

    /// @notice Take a seat behind an ERC-8004 agent the caller controls; `msg.value` is the stake.
    function joinMarket(uint256 marketId, uint256 agentId) external payable;

    /// @notice After the deadline, once: freezes the worker set and emits `ResolutionRequested`.
    function requestResolution(uint256 marketId) external;

    /// @notice A resolver active for this market posts its verdict with `msg.value == bond`.
    /// @param reports one per seat, in join order (the public record of every worker's answer)
    /// @param bundleHash keccak256 of the canonical evidence bundle
    /// @param bundleURI where the bundle can be fetched (may be empty)
    function proposeResolution(
        uint256 marketId,
        Verdict verdict,
        WorkerReport[] calldata reports,
        bytes32 bundleHash,
        string calldata bundleURI
    ) external payable;

    /// @notice Anyone, during the dispute window, with `msg.value == governance().disputeBond(marketId)` (the
    ///         market's bond plus 10 % of its reward pool and stakes): escalates to the market's arbiter.
    function dispute(uint256 marketId, Verdict claimed) external payable;

    /// @notice The arbiter in charge (the market's, or its fallback once escalated) rules on a disputed proposal;
    ///         the market is finalized with `verdict` and the winner credited both bonds.
    function resolveDispute(uint256 marketId, Verdict verdict) external;

    /// @notice Anyone, once the arbiter in charge has not ruled within `ARBITRATION_TIMEOUT`: the first time, the
    ///         dispute goes to the market's fallback arbiter (`DisputeEscalated`; it becomes the config's arbiter);
    ///         with no fallback, a refused hand-off (its `onDispute` reverted) or a silent fallback: Invalid, each
    ///         party's bond returned (`DisputeExpired`).
    function expireDispute(uint256 marketId) external;

    /// @notice Anyone, after an undisputed proposal's window: writes rewards, stakes, reputation, ERC-8004 records.
    function finalize(uint256 marketId) external;

    /// @notice Step 1 of cancelling a market nobody proposed on: anyone, after the grace period.
    function requestCancel(uint256 marketId) external;

    /// @notice Step 2: anyone, `CANCEL_WINDOW` after `requestCancel`, if still no proposal: full refunds.
    function cancelStale(uint256 marketId) external;

    /// @notice Pull payment of everything credited to the caller.
    function withdraw() external;

    // ------------------------------------------------------------------------------------------------
    // Views
    // ------------------------------------------------------------------------------------------------

    /// @notice The bounded owner: resolvers, default arbiter, defaults (deployed by this market).
    function governance() external view returns (IMarketGovernance);
    /// @notice The ERC-8004 feedback writer and reputation book (deployed by this market; the records' client).
    function reputation() external view returns (IMarketReputation);
    /// @notice The contract that checks agents' answer signatures for this market (created with it).
    function answerVerifier() external view returns (IAnswerVerifier);
    /// @notice Seats `from..from+count-1` of a Resolved market as stored (agent id in bits 0-191, the seat's
    ///         ReportCodec word in bits 192-255: answer, confidence, scores, refusal, signed), with the outcome and
    ///         the bundle the ERC-8004 records cite: what `reputation()` writes the deferred records from.
    ///         Reverts `WrongStatus` unless Resolved; `count` is clipped to the seats that exist.
    function seatWords(uint256 marketId, uint256 from, uint256 count)
        external
        view
        returns (uint256[] memory words, bool outcome, string memory bundleURI, bytes32 bundleHash);

    function getMarket(uint256 marketId) external view returns (MarketInfo memory);
    /// @notice The fallback arbiter snapshotted at creation (zero: none, disputes end Invalid when the arbiter is
    ///         silent).
    function fallbackArbiterOf(uint256 marketId) external view returns (IArbiter);
    /// @notice The track record now: entries (finalized markets) and the head after them (0 when empty).
    function recordHead() external view returns (uint256 count, bytes32 head);
    function getMarketConfig(uint256 marketId) external view returns (MarketConfig memory);
    function getProposal(uint256 marketId) external view returns (Proposal memory);
    function getWorkers(uint256 marketId)
        external
        view
        returns (address[] memory workers, uint256[] memory agentIds, uint256[] memory stakes);
    /// @notice Forwarded to `reputation().getReputation`.
    function getReputation(uint256 agentId) external view returns (Reputation memory);
    /// @notice Whether `account` may propose on `marketId` (resolver active from before the market's creation).
    function isResolverFor(address account, uint256 marketId) external view returns (bool);
    function pendingWithdrawal(address account) external view returns (uint256);
}
