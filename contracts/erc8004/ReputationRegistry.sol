// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IIdentityRegistry} from "./interfaces/IIdentityRegistry.sol";
import {IReputationRegistry} from "./interfaces/IReputationRegistry.sol";
import {FeedbackLanes} from "./libraries/FeedbackLanes.sol";
import {TagBook} from "./libraries/TagBook.sol";

/// @title ReputationRegistry
/// @notice ERC-8004 Reputation Registry with the canonical v2.0.0 ABI, deployed without a proxy: the identity
///         registry is fixed at construction. Clients rate agents with a signed fixed-point value and two tags.
/// @dev Storage is laid out for cheap writes (a market writes three feedbacks per worker per resolution):
///      - each distinct tag string is stored once and referred to by a small id (see TagBook);
///      - three feedbacks share one slot (see FeedbackLanes), so the three records a market writes per worker
///        open one new slot; a value outside int32 or a tag id >= 2**23 costs a side slot, same behaviour;
///      - the per-(agent, client) header slot holds the last index and a link to the previous client, which
///        replaces the canonical clients array and its membership flag.
///      Reverts use custom errors where the canonical contract uses revert strings.
contract ReputationRegistry is IReputationRegistry {
    /// @notice The identity registry address given to the constructor was zero.
    error ZeroIdentityRegistry();
    /// @notice `valueDecimals` is above 18.
    error ValueDecimalsTooLarge(uint8 valueDecimals);
    /// @notice `|value|` is above 1e38.
    error ValueOutOfRange(int128 value);
    /// @notice The caller owns the agent, is approved for it, or is an operator of its owner.
    error SelfFeedbackNotAllowed(uint256 agentId, address caller);
    /// @notice Feedback indexes start at 1.
    error ZeroFeedbackIndex();
    /// @notice No feedback with this index exists for the (agent, client) pair.
    error FeedbackIndexOutOfBounds(uint64 feedbackIndex, uint64 lastIndex);
    /// @notice The feedback was already revoked.
    error FeedbackAlreadyRevoked(uint256 agentId, address clientAddress, uint64 feedbackIndex);
    /// @notice A response needs a non-empty URI.
    error EmptyResponseURI();
    /// @notice `getSummary` needs an explicit, non-empty client list.
    error ClientAddressesRequired();

    /// @dev Responses to one feedback: who responded (in first-response order) and how many times.
    struct Responses {
        address[] responders;
        mapping(address responder => uint64) countOf;
    }

    /// @dev Everything one client wrote about one agent. `lastIndex` and `previousClient` share a slot.
    struct ClientLog {
        uint64 lastIndex;
        address previousClient; // link in the agent's client list (newest first)
        FeedbackLanes.Book records;
        mapping(uint64 feedbackIndex => Responses) responses;
    }

    /// @dev Head of an agent's client list (singly linked through `ClientLog.previousClient`), in one slot.
    struct ClientList {
        address newest;
        uint96 count;
    }

    /// @dev A read filter: tag ids (0 = any, TagBook.UNUSED = matches nothing) and whether revoked ones count.
    struct Filter {
        uint32 tag1;
        uint32 tag2;
        bool includeRevoked;
    }

    /// @dev The columns `readAllFeedback` returns.
    struct FeedbackList {
        address[] clients;
        uint64[] feedbackIndexes;
        int128[] values;
        uint8[] valueDecimals;
        string[] tag1s;
        string[] tag2s;
        bool[] revokedStatuses;
    }

    uint8 private constant MAX_DECIMALS = 18;
    int128 private constant MAX_ABS_VALUE = 1e38;
    string private constant VERSION = "2.0.0";

    IIdentityRegistry private immutable _identityRegistry;

    mapping(uint256 agentId => mapping(address client => ClientLog)) private _logs;
    mapping(uint256 agentId => ClientList) private _clientLists;
    TagBook.Book private _tags;

    /// @param identityRegistry_ The ERC-8004 identity registry whose agents are rated.
    constructor(address identityRegistry_) {
        if (identityRegistry_ == address(0)) revert ZeroIdentityRegistry();
        _identityRegistry = IIdentityRegistry(identityRegistry_);
    }

    /// @notice The identity registry whose agents this registry rates.
    function getIdentityRegistry() external view returns (address) {
        return address(_identityRegistry);
    }

    /// @notice The ERC-8004 interface version implemented ("2.0.0").
    function getVersion() external pure returns (string memory) {
        return VERSION;
    }

    /// @notice Records feedback from the caller about `agentId`, under the next index of (agent, caller).
    /// @dev Reverts if the agent does not exist (the identity registry's own error bubbles up), if the caller
    ///      owns the agent or is approved/operator for it, if `valueDecimals > 18` or `|value| > 1e38`.
    ///      `endpoint`, `feedbackURI` and `feedbackHash` are only emitted, never stored (as canonical).
    ///      Odd but canonical: the agent's `agentWallet`, when it is not also owner/approved/operator, may rate
    ///      its own agent, and the check uses current ownership (a former owner may rate after a transfer).
    /// @param agentId The rated agent.
    /// @param value Signed fixed-point value; `value / 10**valueDecimals` is the rating.
    /// @param valueDecimals Decimals of `value`, 0-18.
    /// @param tag1 First tag ("" for none).
    /// @param tag2 Second tag ("" for none).
    /// @param endpoint The agent endpoint the feedback is about (emitted only).
    /// @param feedbackURI Off-chain feedback file (emitted only).
    /// @param feedbackHash Hash of the off-chain feedback file (emitted only).
    function giveFeedback(
        uint256 agentId,
        int128 value,
        uint8 valueDecimals,
        string calldata tag1,
        string calldata tag2,
        string calldata endpoint,
        string calldata feedbackURI,
        bytes32 feedbackHash
    ) external {
        if (valueDecimals > MAX_DECIMALS) revert ValueDecimalsTooLarge(valueDecimals);
        if (value > MAX_ABS_VALUE || value < -MAX_ABS_VALUE) revert ValueOutOfRange(value);
        // A view call: it reverts for an agent that does not exist, and cannot change state.
        if (_identityRegistry.isAuthorizedOrOwner(msg.sender, agentId)) {
            revert SelfFeedbackNotAllowed(agentId, msg.sender);
        }

        uint64 feedbackIndex = _record(agentId, value, valueDecimals, tag1, tag2);
        _emitNewFeedback(agentId, feedbackIndex, value, valueDecimals, tag1, tag2, endpoint, feedbackURI, feedbackHash);
    }

    /// @notice Revokes the caller's own feedback `feedbackIndex` about `agentId`.
    /// @dev Only the client that gave the feedback can revoke it; anyone else finds the index out of bounds.
    /// @param agentId The rated agent.
    /// @param feedbackIndex The 1-based index of the caller's feedback.
    function revokeFeedback(uint256 agentId, uint64 feedbackIndex) external {
        if (feedbackIndex == 0) revert ZeroFeedbackIndex();
        ClientLog storage log = _logs[agentId][msg.sender];
        uint64 lastIndex = log.lastIndex;
        if (feedbackIndex > lastIndex) revert FeedbackIndexOutOfBounds(feedbackIndex, lastIndex);
        if (!FeedbackLanes.revoke(log.records, feedbackIndex)) {
            revert FeedbackAlreadyRevoked(agentId, msg.sender, feedbackIndex);
        }
        emit FeedbackRevoked(agentId, msg.sender, feedbackIndex);
    }

    /// @notice Appends a response (e.g. the agent's rebuttal or a refund proof) to a feedback.
    /// @dev Anyone may respond, any number of times, also to revoked feedback (as canonical); responses are
    ///      counted per responder and only the URI/hash event is kept as content.
    /// @param agentId The rated agent.
    /// @param clientAddress The client that gave the feedback.
    /// @param feedbackIndex The 1-based index of that feedback.
    /// @param responseURI Off-chain response file; must not be empty.
    /// @param responseHash Hash of the response file (emitted only).
    function appendResponse(
        uint256 agentId,
        address clientAddress,
        uint64 feedbackIndex,
        string calldata responseURI,
        bytes32 responseHash
    ) external {
        if (feedbackIndex == 0) revert ZeroFeedbackIndex();
        if (bytes(responseURI).length == 0) revert EmptyResponseURI();
        ClientLog storage log = _logs[agentId][clientAddress];
        uint64 lastIndex = log.lastIndex;
        if (feedbackIndex > lastIndex) revert FeedbackIndexOutOfBounds(feedbackIndex, lastIndex);

        Responses storage responses = log.responses[feedbackIndex];
        uint64 previous = responses.countOf[msg.sender];
        if (previous == 0) responses.responders.push(msg.sender);
        responses.countOf[msg.sender] = previous + 1;

        emit ResponseAppended(agentId, clientAddress, feedbackIndex, msg.sender, responseURI, responseHash);
    }

    /// @notice The number of feedbacks `clientAddress` gave `agentId` (revoked included); 0 if none.
    function getLastIndex(uint256 agentId, address clientAddress) external view returns (uint64) {
        return _logs[agentId][clientAddress].lastIndex;
    }

    /// @notice Every client that ever gave `agentId` feedback, in order of their first feedback.
    function getClients(uint256 agentId) public view returns (address[] memory) {
        ClientList memory list = _clientLists[agentId];
        address[] memory clients = new address[](list.count);
        address client = list.newest;
        for (uint256 i = list.count; i > 0; --i) {
            clients[i - 1] = client;
            client = _logs[agentId][client].previousClient;
        }
        return clients;
    }

    /// @notice One feedback record.
    /// @dev Reverts for index 0 or an index above the client's last index; does not check the agent exists.
    function readFeedback(uint256 agentId, address clientAddress, uint64 feedbackIndex)
        external
        view
        returns (int128 value, uint8 valueDecimals, string memory tag1, string memory tag2, bool isRevoked)
    {
        if (feedbackIndex == 0) revert ZeroFeedbackIndex();
        ClientLog storage log = _logs[agentId][clientAddress];
        if (feedbackIndex > log.lastIndex) revert FeedbackIndexOutOfBounds(feedbackIndex, log.lastIndex);
        FeedbackLanes.Record memory record = FeedbackLanes.load(log.records, feedbackIndex);
        return (record.value, record.valueDecimals, TagBook.name(_tags, record.tag1), TagBook.name(_tags, record.tag2), record.isRevoked);
    }

    /// @notice Count and average of the non-revoked feedback of `clientAddresses` matching the tags.
    /// @dev Canonical arithmetic: each value is scaled to 18 decimals, the sum is divided by the count
    ///      (truncating toward zero), then scaled down to the most frequent `valueDecimals` (ties: the
    ///      smallest), truncating again. Odd but matched: the final int256 -> int128 conversion is an
    ///      unchecked truncation, so an average that no longer fits in int128 wraps instead of reverting;
    ///      a client listed twice is counted twice; no matching feedback gives (0, 0, 0).
    /// @param clientAddresses The clients to include; must not be empty (guards against Sybil averages).
    /// @param tag1 Only feedback with this tag1 ("" = any).
    /// @param tag2 Only feedback with this tag2 ("" = any).
    function getSummary(uint256 agentId, address[] calldata clientAddresses, string calldata tag1, string calldata tag2)
        external
        view
        returns (uint64 count, int128 summaryValue, uint8 summaryValueDecimals)
    {
        if (clientAddresses.length == 0) revert ClientAddressesRequired();
        uint64[19] memory perDecimals;
        int256 sumWad;
        (sumWad, count) = _sum(agentId, clientAddresses, _filter(tag1, tag2, false), perDecimals);
        if (count == 0) return (0, 0, 0);

        uint64 best;
        for (uint8 d; d <= MAX_DECIMALS; ++d) {
            if (perDecimals[d] > best) {
                best = perDecimals[d];
                summaryValueDecimals = d;
            }
        }
        int256 averageWad = sumWad / int256(uint256(count));
        summaryValue = int128(averageWad / int256(10 ** uint256(MAX_DECIMALS - summaryValueDecimals)));
    }

    /// @notice Every feedback of the given clients (all clients if the list is empty) matching the tags.
    /// @dev Ordered by client (list order), then by index. A client listed twice appears twice (as canonical).
    ///      `public` with memory arguments only because the calldata version does not fit the legacy stack.
    /// @param tag1 Only feedback with this tag1 ("" = any).
    /// @param tag2 Only feedback with this tag2 ("" = any).
    /// @param includeRevoked Whether revoked feedback is returned too.
    function readAllFeedback(
        uint256 agentId,
        address[] memory clientAddresses,
        string memory tag1,
        string memory tag2,
        bool includeRevoked
    )
        public
        view
        returns (
            address[] memory clients,
            uint64[] memory feedbackIndexes,
            int128[] memory values,
            uint8[] memory valueDecimals,
            string[] memory tag1s,
            string[] memory tag2s,
            bool[] memory revokedStatuses
        )
    {
        FeedbackList memory list = _readAll(agentId, clientAddresses, _filter(tag1, tag2, includeRevoked));
        clients = list.clients;
        feedbackIndexes = list.feedbackIndexes;
        values = list.values;
        valueDecimals = list.valueDecimals;
        tag1s = list.tag1s;
        tag2s = list.tag2s;
        revokedStatuses = list.revokedStatuses;
    }

    /// @notice Number of responses, narrowed step by step as in the canonical registry.
    /// @dev `clientAddress == 0`: every feedback of every client of the agent; else `feedbackIndex == 0`:
    ///      every feedback of that client; else that one feedback (no bounds check: an unknown index gives 0).
    ///      An empty `responders` list counts every responder; otherwise only the listed ones (a responder
    ///      listed twice is counted twice, as canonical).
    function getResponseCount(uint256 agentId, address clientAddress, uint64 feedbackIndex, address[] calldata responders)
        external
        view
        returns (uint64 count)
    {
        if (clientAddress == address(0)) {
            address[] memory clients = getClients(agentId);
            for (uint256 i; i < clients.length; ++i) {
                count += _countAll(_logs[agentId][clients[i]], responders);
            }
        } else if (feedbackIndex == 0) {
            count = _countAll(_logs[agentId][clientAddress], responders);
        } else {
            count = _countOne(_logs[agentId][clientAddress].responses[feedbackIndex], responders);
        }
    }

    // ------------------------------------------------------------------ internals

    /// @dev The storage half of `giveFeedback` (split off to keep the stack shallow).
    function _record(uint256 agentId, int128 value, uint8 valueDecimals, string calldata tag1, string calldata tag2)
        private
        returns (uint64 feedbackIndex)
    {
        ClientLog storage log = _logs[agentId][msg.sender];
        feedbackIndex = log.lastIndex + 1;
        if (feedbackIndex == 1) {
            ClientList storage list = _clientLists[agentId];
            log.previousClient = list.newest;
            list.newest = msg.sender;
            list.count += 1;
        }
        log.lastIndex = feedbackIndex;
        FeedbackLanes.store(log.records, feedbackIndex, value, valueDecimals, TagBook.intern(_tags, tag1), TagBook.intern(_tags, tag2));
    }

    /// @dev Emits `NewFeedback` from memory copies (the event has too many calldata arguments for the stack).
    function _emitNewFeedback(
        uint256 agentId,
        uint64 feedbackIndex,
        int128 value,
        uint8 valueDecimals,
        string memory tag1,
        string memory tag2,
        string memory endpoint,
        string memory feedbackURI,
        bytes32 feedbackHash
    ) private {
        emit NewFeedback(
            agentId, msg.sender, feedbackIndex, value, valueDecimals, tag1, tag1, tag2, endpoint, feedbackURI, feedbackHash
        );
    }

    function _filter(string memory tag1, string memory tag2, bool includeRevoked) private view returns (Filter memory) {
        return Filter(TagBook.filterId(_tags, tag1), TagBook.filterId(_tags, tag2), includeRevoked);
    }

    function _matches(FeedbackLanes.Record memory record, Filter memory filter) private pure returns (bool) {
        if (record.isRevoked && !filter.includeRevoked) return false;
        if (filter.tag1 != 0 && record.tag1 != filter.tag1) return false;
        if (filter.tag2 != 0 && record.tag2 != filter.tag2) return false;
        return true;
    }

    /// @dev Sum (each value scaled to 18 decimals) and count of the matching feedback; tallies the decimals.
    function _sum(uint256 agentId, address[] calldata clientAddresses, Filter memory filter, uint64[19] memory perDecimals)
        private
        view
        returns (int256 sumWad, uint64 count)
    {
        for (uint256 i; i < clientAddresses.length; ++i) {
            ClientLog storage log = _logs[agentId][clientAddresses[i]];
            uint64 lastIndex = log.lastIndex;
            for (uint64 j = 1; j <= lastIndex; ++j) {
                FeedbackLanes.Record memory record = FeedbackLanes.load(log.records, j);
                if (!_matches(record, filter)) continue;
                sumWad += int256(record.value) * int256(10 ** uint256(MAX_DECIMALS - record.valueDecimals));
                ++perDecimals[record.valueDecimals];
                ++count;
            }
        }
    }

    function _readAll(uint256 agentId, address[] memory clientAddresses, Filter memory filter)
        private
        view
        returns (FeedbackList memory list)
    {
        address[] memory clientList = clientAddresses.length > 0 ? clientAddresses : getClients(agentId);
        uint256 total;
        for (uint256 i; i < clientList.length; ++i) {
            ClientLog storage log = _logs[agentId][clientList[i]];
            uint64 lastIndex = log.lastIndex;
            for (uint64 j = 1; j <= lastIndex; ++j) {
                if (_matches(FeedbackLanes.load(log.records, j), filter)) ++total;
            }
        }
        list.clients = new address[](total);
        list.feedbackIndexes = new uint64[](total);
        list.values = new int128[](total);
        list.valueDecimals = new uint8[](total);
        list.tag1s = new string[](total);
        list.tag2s = new string[](total);
        list.revokedStatuses = new bool[](total);
        if (total == 0) return list;

        uint256 k;
        for (uint256 i; i < clientList.length; ++i) {
            ClientLog storage log = _logs[agentId][clientList[i]];
            uint64 lastIndex = log.lastIndex;
            for (uint64 j = 1; j <= lastIndex; ++j) {
                FeedbackLanes.Record memory record = FeedbackLanes.load(log.records, j);
                if (!_matches(record, filter)) continue;
                list.clients[k] = clientList[i];
                list.feedbackIndexes[k] = j;
                list.values[k] = record.value;
                list.valueDecimals[k] = record.valueDecimals;
                list.tag1s[k] = TagBook.name(_tags, record.tag1);
                list.tag2s[k] = TagBook.name(_tags, record.tag2);
                list.revokedStatuses[k] = record.isRevoked;
                ++k;
            }
        }
    }

    function _countAll(ClientLog storage log, address[] calldata responders) private view returns (uint64 count) {
        uint64 lastIndex = log.lastIndex;
        for (uint64 j = 1; j <= lastIndex; ++j) {
            count += _countOne(log.responses[j], responders);
        }
    }

    function _countOne(Responses storage responses, address[] calldata responders) private view returns (uint64 count) {
        if (responders.length == 0) {
            address[] storage all = responses.responders;
            for (uint256 k; k < all.length; ++k) {
                count += responses.countOf[all[k]];
            }
        } else {
            for (uint256 k; k < responders.length; ++k) {
                count += responses.countOf[responders[k]];
            }
        }
    }
}
