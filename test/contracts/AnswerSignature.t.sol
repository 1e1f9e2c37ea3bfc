// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {IdentityRegistry} from "../../contracts/erc8004/IdentityRegistry.sol";
import {IResolutionMarket} from "../../contracts/market/interfaces/IResolutionMarket.sol";
import {IAnswerVerifier} from "../../contracts/market/interfaces/IAnswerVerifier.sol";
import {ResolutionMarket} from "../../contracts/market/ResolutionMarket.sol";
import {MarketFixture} from "./market/MarketFixture.sol";

/// @notice An agent whose key is a contract (ERC-1271): it registers an agent (so it is the agent's owner and
///         wallet), joins with it and approves exactly the digests its EOA `signer` signed.
contract Erc1271Agent {
    address public immutable signer;
    uint256 public agentId;

    constructor(address signer_) {
        signer = signer_;
    }

    function registerAndJoin(IdentityRegistry identity, ResolutionMarket market, uint256 marketId) external payable {
        agentId = identity.register("ipfs://wallet-agent");
        market.joinMarket{value: msg.value}(marketId, agentId);
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecover(hash, signature);
        return err == ECDSA.RecoverError.NoError && recovered == signer ? this.isValidSignature.selector : bytes4(0);
    }

    function onERC721Received(address, address, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC721Received.selector;
    }

    receive() external payable {}
}

/// @notice Agent-signed answers on-chain (docs/RECORDS.md §2): what verifies, what reverts `BadAnswerSignature`, and
///         what an attested (unsigned) seat can and cannot cost its agent.
contract AnswerSignatureTest is MarketFixture {
    IResolutionMarket.Answer internal constant YES = IResolutionMarket.Answer.Yes;
    IResolutionMarket.Answer internal constant NO = IResolutionMarket.Answer.No;
    IResolutionMarket.Verdict internal constant V_YES = IResolutionMarket.Verdict.Yes;
    IResolutionMarket.Verdict internal constant V_NO = IResolutionMarket.Verdict.No;
    bytes32 internal constant REPLY = keccak256("the agent's canonical reply");
    uint256 internal constant STRANGER_KEY = 0xBAD5EED;

    uint256 internal id;
    address[] internal ws;
    uint256[] internal ids;
    IAnswerVerifier internal verifier;

    function setUp() public override {
        super.setUp();
        verifier = market.answerVerifier();
        id = _createMarket();
        (ws, ids) = _joinFresh(id, 3, 0);
        _request(market, id);
    }

    // ------------------------------------------------------------------ helpers

    /// @dev The EIP-712 digest derived here, independently of AnswerVerifier.
    function _digest(uint256 chainId, address verifyingContract, uint256 marketId, uint256 agentId,
        IResolutionMarket.WorkerReport memory r) internal pure returns (bytes32) {
        bytes32 domain = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256(bytes("cresolver")),
                keccak256(bytes("1")),
                chainId,
                verifyingContract
            )
        );
        bytes32 structHash = keccak256(
            abi.encode(
                keccak256("Answer(uint256 marketId,uint256 agentId,uint8 answer,uint16 confidenceBps,bytes32 replyHash)"),
                marketId,
                agentId,
                uint8(r.answer),
                r.confidenceBps,
                r.replyHash
            )
        );
        return keccak256(abi.encodePacked(hex"1901", domain, structHash));
    }

    function _sig(uint256 key, bytes32 digest) internal pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }

    function _yes(uint16 conf) internal pure returns (IResolutionMarket.WorkerReport memory) {
        return IResolutionMarket.WorkerReport(YES, conf, 80, 70, 60, REPLY, "");
    }

    /// @dev Three YES 0.9 reports with the given signature on seat 0 (the others attested).
    function _withSeat0(bytes memory signature) internal pure returns (IResolutionMarket.WorkerReport[] memory r) {
        r = new IResolutionMarket.WorkerReport[](3);
        for (uint256 i; i < 3; ++i) r[i] = _yes(9_000);
        r[0].signature = signature;
    }

    function _proposeRaw(uint256 marketId, IResolutionMarket.Verdict verdict, IResolutionMarket.WorkerReport[] memory r)
        internal
    {
        vm.prank(resolver);
        market.proposeResolution{value: BOND}(marketId, verdict, r, HASH, URI);
    }

    function _expectBad(uint256 seat) internal {
        vm.expectRevert(abi.encodeWithSelector(IResolutionMarket.BadAnswerSignature.selector, seat));
    }

    /// @dev Whether seat `seat` of Resolved market `marketId` was stored as signed (ReportCodec bit 51).
    function _storedSigned(uint256 marketId, uint256 seat) internal view returns (bool) {
        (uint256[] memory words,,,) = market.seatWords(marketId, seat, 1);
        return (words[0] >> (192 + 51)) & 1 == 1;
    }

    function _records(uint256 agentId, string memory tag) internal view returns (uint64 count, int128 value) {
        address[] memory clients = new address[](1);
        clients[0] = address(writer);
        (count, value,) = reputation.getSummary(agentId, clients, tag, "cresolver");
    }

    // ------------------------------------------------------------------ digest

    function testDigestMatchesAnIndependentDerivation() public view {
        IResolutionMarket.WorkerReport memory r = _yes(8_500);
        assertEq(
            verifier.answerDigest(id, ids[1], YES, 8_500, REPLY),
            _digest(block.chainid, address(market), id, ids[1], r),
            "EIP-712 digest"
        );
        assertEq(verifier.market(), address(market), "verifyingContract is the market");
    }

    // ------------------------------------------------------------------ what verifies

    function testAgentWalletSignatureIsStoredSigned() public {
        bytes memory s = _sig(_workerKey(0), _digest(block.chainid, address(market), id, ids[0], _yes(9_000)));
        _proposeRaw(id, V_YES, _withSeat0(s));
        _warpPastWindow(market, id);
        market.finalize(id);
        assertTrue(_storedSigned(id, 0), "seat 0 signed");
        assertTrue(!_storedSigned(id, 1), "seat 1 (no signature) attested");
    }

    function testOwnerSignsWhenNoWalletIsSet() public {
        vm.prank(ws[0]);
        IdentityRegistry(address(identity)).unsetAgentWallet(ids[0]);
        assertEq(identity.getAgentWallet(ids[0]), address(0), "no wallet");
        bytes memory s = _sig(_workerKey(0), verifier.answerDigest(id, ids[0], YES, 9_000, REPLY));
        _proposeRaw(id, V_YES, _withSeat0(s));
        _warpPastWindow(market, id);
        market.finalize(id);
        assertTrue(_storedSigned(id, 0), "the owner's signature counts");
    }

    function testErc1271WalletSignatureVerifies() public {
        uint256 walletSignerKey = 0x1271;
        Erc1271Agent agent = new Erc1271Agent(vm.addr(walletSignerKey));
        uint256 m = _createMarket();
        agent.registerAndJoin{value: STAKE}(IdentityRegistry(address(identity)), market, m);
        uint256 agentId = agent.agentId();
        assertEq(identity.getAgentWallet(agentId), address(agent), "the contract is the agent's wallet");
        _request(market, m);
        IResolutionMarket.WorkerReport[] memory r = new IResolutionMarket.WorkerReport[](1);
        r[0] = _yes(9_000);
        // Another key's signature: the wallet refuses it.
        r[0].signature = _sig(STRANGER_KEY, verifier.answerDigest(m, agentId, YES, 9_000, REPLY));
        vm.prank(resolver);
        _expectBad(0);
        market.proposeResolution{value: BOND}(m, V_YES, r, HASH, URI);
        r[0].signature = _sig(walletSignerKey, verifier.answerDigest(m, agentId, YES, 9_000, REPLY));
        _proposeRaw(m, V_YES, r);
        _warpPastWindow(market, m);
        market.finalize(m);
        assertTrue(_storedSigned(m, 0), "ERC-1271 approval counts");
    }

    /// @dev Binds `walletKey`'s address as seat `seat`'s agent wallet (the registry's EIP-712 AgentWalletSet, signed by
    ///      the new wallet; the seat's worker owns the agent).
    function _setWallet(uint256 seat, uint256 walletKey) internal returns (address wallet) {
        wallet = vm.addr(walletKey);
        uint256 deadline = block.timestamp + 60;
        bytes32 structHash = keccak256(
            abi.encode(
                keccak256("AgentWalletSet(uint256 agentId,address newWallet,address owner,uint256 deadline)"),
                ids[seat],
                wallet,
                ws[seat],
                deadline
            )
        );
        bytes32 digest = keccak256(abi.encodePacked(hex"1901", _registryDomain(), structHash));
        (uint8 v, bytes32 r, bytes32 sig) = vm.sign(walletKey, digest);
        vm.prank(ws[seat]);
        IdentityRegistry(address(identity)).setAgentWallet(ids[seat], wallet, deadline, abi.encodePacked(r, sig, v));
    }

    /// @dev The identity registry's EIP-712 domain separator, from its own `eip712Domain`.
    function _registryDomain() internal view returns (bytes32) {
        (, string memory name, string memory version, uint256 chainId, address verifyingContract,,) =
            IdentityRegistry(address(identity)).eip712Domain();
        return keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256(bytes(name)),
                keccak256(bytes(version)),
                chainId,
                verifyingContract
            )
        );
    }

    /// @notice One ecrecover serves both candidates: with a wallet bound that is not the owner, the wallet's signature
    ///         and the owner's both verify, a stranger's does not, and the owner's is stored signed.
    function testOwnerSignsWhileAnotherWalletIsBound() public {
        uint256 walletKey = 0x3A11E7;
        address wallet = _setWallet(0, walletKey);
        assertEq(identity.getAgentWallet(ids[0]), wallet, "a wallet other than the owner");
        IResolutionMarket.WorkerReport memory r = _yes(9_000);
        bytes32 digest = verifier.answerDigest(id, ids[0], YES, 9_000, REPLY);
        r.signature = _sig(walletKey, digest);
        assertTrue(verifier.isValid(id, ids[0], r), "the wallet's signature");
        r.signature = _sig(STRANGER_KEY, digest);
        assertTrue(!verifier.isValid(id, ids[0], r), "a stranger's signature");
        r.signature = _sig(_workerKey(0), digest);
        assertTrue(verifier.isValid(id, ids[0], r), "the owner's signature");
        _proposeRaw(id, V_YES, _withSeat0(r.signature));
        _warpPastWindow(market, id);
        market.finalize(id);
        assertTrue(_storedSigned(id, 0), "the owner's signature counts while a wallet is bound");
    }

    /// @notice An attested failed seat has neither a reward nor a record to lose, so finalization does not ask the
    ///         registry whether its agent made the feedback writer an operator: it is not marked refused, nothing is
    ///         pending, its stake comes back. A signed failed seat in the same position is refused (records pending).
    function testAttestedFailureIsNotCheckedForTheWriterOperator() public {
        for (uint256 i; i < 2; ++i) {
            vm.prank(ws[i]);
            IdentityRegistry(address(identity)).setApprovalForAll(address(writer), true);
        }
        IResolutionMarket.WorkerReport[] memory r = _withSeat0("");
        r[0] = IResolutionMarket.WorkerReport(IResolutionMarket.Answer.None, 0, 0, 0, 0, REPLY, ""); // attested
        r[1] = IResolutionMarket.WorkerReport(IResolutionMarket.Answer.None, 0, 0, 0, 0, REPLY, "");
        r[1].signature = _sig(_workerKey(1), verifier.answerDigest(id, ids[1], IResolutionMarket.Answer.None, 0, REPLY));
        _proposeRaw(id, V_YES, r);
        _warpPastWindow(market, id);
        uint256 before = market.pendingWithdrawal(ws[0]);
        market.finalize(id);
        (uint256[] memory words,,,) = market.seatWords(id, 0, 2);
        assertEq((words[0] >> (192 + 50)) & 1, 0, "attested failure: not refused");
        assertEq((words[1] >> (192 + 50)) & 1, 1, "signed failure: refused");
        (bool c0, bool q0) = writer.pendingFeedback(id, 0);
        assertTrue(!c0 && !q0, "attested failure: nothing pending");
        (bool c1,) = writer.pendingFeedback(id, 1);
        assertTrue(c1, "signed failure: its correctness record is pending");
        assertEq(market.pendingWithdrawal(ws[0]) - before, STAKE, "attested failure: stake back, no reward");
    }

    // ------------------------------------------------------------------ what reverts

    function testStrangerSignatureReverts() public {
        bytes memory s = _sig(STRANGER_KEY, verifier.answerDigest(id, ids[0], YES, 9_000, REPLY));
        vm.prank(resolver);
        _expectBad(0);
        market.proposeResolution{value: BOND}(id, V_YES, _withSeat0(s), HASH, URI);
    }

    function testAnotherSeatsAgentSignatureReverts() public {
        // Worker 1 signs an answer for seat 0's agent: neither its wallet nor its owner.
        bytes memory s = _sig(_workerKey(1), verifier.answerDigest(id, ids[0], YES, 9_000, REPLY));
        vm.prank(resolver);
        _expectBad(0);
        market.proposeResolution{value: BOND}(id, V_YES, _withSeat0(s), HASH, URI);
    }

    function testTamperedFieldsRevert() public {
        uint256 key = _workerKey(2);
        IResolutionMarket.WorkerReport memory signed = _yes(9_000);
        bytes32[5] memory digests = [
            // answer flipped: the agent signed YES, the proposer reports NO
            verifier.answerDigest(id, ids[2], NO, 9_000, REPLY),
            // confidence changed
            verifier.answerDigest(id, ids[2], YES, 9_500, REPLY),
            // reply hash changed
            verifier.answerDigest(id, ids[2], YES, 9_000, keccak256("another reply")),
            // another market id
            verifier.answerDigest(id + 1, ids[2], YES, 9_000, REPLY),
            // another chain
            _digest(block.chainid + 1, address(market), id, ids[2], signed)
        ];
        for (uint256 k; k < digests.length; ++k) {
            IResolutionMarket.WorkerReport[] memory r = _withSeat0("");
            r[2].signature = _sig(key, digests[k]);
            vm.prank(resolver);
            _expectBad(2);
            market.proposeResolution{value: BOND}(id, V_YES, r, HASH, URI);
        }
        // Another market contract (verifyingContract) on the same chain.
        IResolutionMarket.WorkerReport[] memory r2 = _withSeat0("");
        r2[2].signature = _sig(key, _digest(block.chainid, address(writer), id, ids[2], signed));
        vm.prank(resolver);
        _expectBad(2);
        market.proposeResolution{value: BOND}(id, V_YES, r2, HASH, URI);
        // The untampered one goes through.
        r2[2].signature = _sig(key, _digest(block.chainid, address(market), id, ids[2], signed));
        _proposeRaw(id, V_YES, r2);
    }

    function testMalformedSignaturesRevert() public {
        bytes memory good = _sig(_workerKey(0), verifier.answerDigest(id, ids[0], YES, 9_000, REPLY));
        bytes[3] memory bad = [bytes(hex"01"), bytes.concat(good, hex"00"), new bytes(65)];
        for (uint256 k; k < bad.length; ++k) {
            vm.prank(resolver);
            _expectBad(0);
            market.proposeResolution{value: BOND}(id, V_YES, _withSeat0(bad[k]), HASH, URI);
        }
    }

    function testVerifierRejectsUnknownAgentsAndEmptySignatures() public view {
        IResolutionMarket.WorkerReport memory r = _yes(9_000);
        assertTrue(!verifier.isValid(id, ids[0], r), "empty signature is not a signature");
        r.signature = _sig(_workerKey(0), verifier.answerDigest(id, 999_999, YES, 9_000, REPLY));
        assertTrue(!verifier.isValid(id, 999_999, r), "unknown agent: no wallet, no owner");
    }

    // ------------------------------------------------------------------ attested seats never cost the agent

    /// @notice The issue's attack: the truth is YES and every agent answered YES. The resolver proposes YES but
    ///         writes the honest seats as "NO, 100 %" (attested: it cannot sign for them), its accomplice disputes,
    ///         and the honest arbiter rules YES. Before: the honest seats were slashed to the proposer and got a
    ///         correctness-0 record. Now: every stake comes back and no record or reputation entry is written.
    function testMisreportedAttestedSeatsAreNotSlashedNorRecorded() public {
        _autoSign = false;
        IResolutionMarket.WorkerReport[] memory r = new IResolutionMarket.WorkerReport[](3);
        for (uint256 i; i < 3; ++i) r[i] = IResolutionMarket.WorkerReport(NO, 10_000, 0, 0, 0, REPLY, "");
        r[0] = _yes(9_000); // one seat reported as it answered, so the YES verdict has a Yes report
        _proposeRaw(id, V_YES, r);
        _dispute(id, V_NO); // the accomplice
        arbiter.rule(market, id, V_YES);

        assertEq(uint256(market.getMarket(id).status), uint256(IResolutionMarket.Status.Resolved), "resolved YES");
        for (uint256 i = 1; i < 3; ++i) {
            assertTrue(market.pendingWithdrawal(ws[i]) >= STAKE, "misreported honest seat keeps its stake");
            (uint64 count,) = _records(ids[i], "correctness");
            assertEq(uint256(count), 0, "no correctness record against it");
            (count,) = _records(ids[i], "quality");
            assertEq(uint256(count), 0, "no quality record either");
            assertEq(uint256(market.getReputation(ids[i]).settled), 0, "not in the reputation averages");
        }
        // The proposer won the dispute, but only the bonds: no slashed stake reaches it.
        assertEq(market.pendingWithdrawal(resolver), BOND + gov.disputeBond(id), "proposer: both bonds, no stakes");
        assertEq(
            address(market).balance,
            _credits(),
            "balance == credits (nothing slashed, nothing lost)"
        );
    }

    /// @notice The same attack with a forged "signed" report: the resolver signs the NO itself. It reverts, and so
    ///         does replaying the agent's genuine YES signature on a NO report.
    function testForgedSignedReportIsImpossible() public {
        IResolutionMarket.WorkerReport[] memory r = _withSeat0("");
        r[1] = IResolutionMarket.WorkerReport(NO, 10_000, 0, 0, 0, REPLY, "");
        r[1].signature = _sig(STRANGER_KEY, verifier.answerDigest(id, ids[1], NO, 10_000, REPLY));
        vm.prank(resolver);
        _expectBad(1);
        market.proposeResolution{value: BOND}(id, V_YES, r, HASH, URI);
        // The agent's real signature over its YES, pasted onto the NO report.
        r[1].signature = _sig(_workerKey(1), verifier.answerDigest(id, ids[1], YES, 9_000, REPLY));
        vm.prank(resolver);
        _expectBad(1);
        market.proposeResolution{value: BOND}(id, V_YES, r, HASH, URI);
    }

    /// @notice A signed wrong answer is still slashed in an arbitrated market (signed seats behave as before);
    ///         the attested wrong seat next to it is not.
    function testSignedWrongSeatIsSlashedAttestedIsNot() public {
        _attestMask = 1 << 2; // seat 2 attested, seats 0 and 1 signed by their agents
        IResolutionMarket.WorkerReport[] memory r = new IResolutionMarket.WorkerReport[](3);
        r[0] = _yes(9_000);
        r[1] = IResolutionMarket.WorkerReport(NO, 9_000, 80, 70, 60, REPLY, "");
        r[2] = IResolutionMarket.WorkerReport(NO, 9_000, 80, 70, 60, REPLY, "");
        _propose(market, id, V_YES, r);
        _dispute(id, V_NO);
        arbiter.rule(market, id, V_YES);
        assertEq(market.pendingWithdrawal(ws[1]), 0, "signed wrong seat: slashed, no reward");
        assertTrue(market.pendingWithdrawal(ws[2]) >= STAKE, "attested wrong seat: stake back");
        assertEq(
            market.pendingWithdrawal(resolver), BOND + gov.disputeBond(id) + STAKE, "winner: bonds + the one signed stake"
        );
        (uint64 count, int128 value) = _records(ids[1], "correctness");
        assertEq(uint256(count), 1, "signed seat recorded");
        assertEq(int256(value), 19, "wrong at 0.9");
        (count,) = _records(ids[2], "correctness");
        assertEq(uint256(count), 0, "attested seat: no record");
    }

    function _credits() internal view returns (uint256 sum) {
        sum = market.pendingWithdrawal(creator) + market.pendingWithdrawal(resolver) + market.pendingWithdrawal(disputer);
        for (uint256 i; i < ws.length; ++i) sum += market.pendingWithdrawal(ws[i]);
    }

    // ------------------------------------------------------------------ Resolution Quality = correctness

    /// @notice Over three markets an always-wrong agent is reported with the best scores (100/100/100) and an honest
    ///         one with the worst (0/0/0); the contract derives resQuality from correctness, so both the
    ///         `correctness` and the `quality` records rank the wrong agent below the honest one (before: quality
    ///         followed the proposer's figure, and herding scored higher).
    function testQualityAndCorrectnessRankAlwaysWrongBelowHonest() public {
        (address[] memory pair, uint256[] memory agents) = _joinFresh(_createMarket(), 2, 10);
        for (uint256 k; k < 3; ++k) {
            uint256 m = k == 0 ? market.marketCount() : _createMarket();
            if (k != 0) _joinAgents(m, pair, agents);
            _request(market, m);
            IResolutionMarket.WorkerReport[] memory r = new IResolutionMarket.WorkerReport[](2);
            r[0] = IResolutionMarket.WorkerReport(YES, 9_000, 0, 40, 40, REPLY, ""); // honest, truth is YES
            r[1] = IResolutionMarket.WorkerReport(NO, 9_000, 100, 40, 40, REPLY, ""); // always wrong
            _settle(market, m, V_YES, r);
        }
        (uint64 n0, int128 c0) = _records(agents[0], "correctness");
        (uint64 n1, int128 c1) = _records(agents[1], "correctness");
        assertEq(uint256(n0), 3, "three signed records");
        assertEq(uint256(n1), 3, "three signed records");
        assertTrue(c1 < c0, "correctness ranks the wrong agent below");
        (, int128 q0) = _records(agents[0], "quality");
        (, int128 q1) = _records(agents[1], "quality");
        assertEq(int256(q0), 59, "honest: floor((99 + 40 + 40) / 3)");
        assertEq(int256(q1), 33, "wrong: floor((19 + 40 + 40) / 3), its reported 100 ignored");
        assertTrue(q1 < q0, "quality ranks the wrong agent below");
        assertTrue(
            market.getReputation(agents[1]).resQuality < market.getReputation(agents[0]).resQuality,
            "book: resQuality follows correctness"
        );
    }
}
