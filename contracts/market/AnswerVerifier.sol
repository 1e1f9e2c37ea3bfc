// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

import {IIdentityRegistry} from "../erc8004/interfaces/IIdentityRegistry.sol";
import {IAnswerVerifier} from "./interfaces/IAnswerVerifier.sol";
import {IResolutionMarket} from "./interfaces/IResolutionMarket.sol";

/// @title Agent-signed answers of one resolution market (docs/RECORDS.md §2)
/// @notice Deployed by the market's constructor so the market's bytecode stays small; the market calls
///         {isValid} only for reports that carry a signature (unsigned reports cost nothing here).
/// @dev The domain separator is built from `block.chainid` on every call, so a fork's chain id is never accepted for
///      the original chain's signatures (and vice versa). Identity-registry reads are try/catch: a reverting registry
///      or an unknown agent makes the signature invalid rather than reverting the verifier. A signer is checked with
///      ECDSA first (an EOA, or an account with code that also has a key, e.g. EIP-7702), then, if it has code, with
///      ERC-1271: one `ecrecover` serves both the wallet and the owner, and an EOA wallet's code is never read.
contract AnswerVerifier is IAnswerVerifier {
    // Private constants and an internal domain separator: the verifier's creation code is embedded in the market's,
    // which must stay under EIP-3860's 49,152-byte initcode limit.
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant ANSWER_TYPEHASH =
        keccak256("Answer(uint256 marketId,uint256 agentId,uint8 answer,uint16 confidenceBps,bytes32 replyHash)");
    bytes32 private constant NAME_HASH = keccak256("cresolver");
    bytes32 private constant VERSION_HASH = keccak256("1");

    /// @inheritdoc IAnswerVerifier
    address public immutable market;
    /// @dev The ERC-8004 identity registry holding each agent's wallet and owner (the market's; no getter, to keep
    ///      the market's creation code under EIP-3860).
    IIdentityRegistry private immutable identityRegistry;

    /// @param identityRegistry_ the market's ERC-8004 identity registry; the deployer is the market
    constructor(IIdentityRegistry identityRegistry_) {
        market = msg.sender;
        identityRegistry = identityRegistry_;
    }

    /// @inheritdoc IAnswerVerifier
    function answerDigest(
        uint256 marketId,
        uint256 agentId,
        IResolutionMarket.Answer answer,
        uint16 confidenceBps,
        bytes32 replyHash
    ) external view returns (bytes32 digest) {
        return _digest(_domainSeparator(), marketId, agentId, uint8(answer), confidenceBps, replyHash);
    }

    /// @inheritdoc IAnswerVerifier
    function isValid(uint256 marketId, uint256 agentId, IResolutionMarket.WorkerReport calldata report)
        external
        view
        returns (bool)
    {
        bytes calldata signature = report.signature;
        if (signature.length == 0) return false;
        bytes32 digest = _digest(
            _domainSeparator(), marketId, agentId, uint8(report.answer), report.confidenceBps, report.replyHash
        );
        // One ecrecover for both candidate signers; an EOA wallet's code is never read.
        (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(digest, signature);
        if (err != ECDSA.RecoverError.NoError) recovered = address(0);
        address wallet;
        try identityRegistry.getAgentWallet(agentId) returns (address w) {
            wallet = w;
        } catch {}
        if (_signedBy(wallet, recovered, digest, signature)) return true;
        address owner;
        try identityRegistry.ownerOf(agentId) returns (address o) {
            owner = o;
        } catch {}
        return owner != wallet && _signedBy(owner, recovered, digest, signature);
    }

    /// @dev The EIP-712 domain separator on the current chain.
    function _domainSeparator() private view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, market));
    }

    /// @dev keccak256("\x19\x01" ‖ domain ‖ hashStruct(Answer)), as OpenZeppelin's MessageHashUtils.toTypedDataHash,
    ///      built in scratch memory past the free pointer (nothing is allocated).
    function _digest(
        bytes32 domain,
        uint256 marketId,
        uint256 agentId,
        uint8 answer,
        uint16 confidenceBps,
        bytes32 replyHash
    ) private pure returns (bytes32 digest) {
        bytes32 typeHash = ANSWER_TYPEHASH;
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, typeHash)
            mstore(add(ptr, 0x20), marketId)
            mstore(add(ptr, 0x40), agentId)
            mstore(add(ptr, 0x60), answer)
            mstore(add(ptr, 0x80), confidenceBps)
            mstore(add(ptr, 0xa0), replyHash)
            let structHash := keccak256(ptr, 0xc0)
            mstore(ptr, hex"1901")
            mstore(add(ptr, 0x02), domain)
            mstore(add(ptr, 0x22), structHash)
            digest := keccak256(ptr, 0x42)
        }
    }

    /// @dev `signer` (non-zero) is the ECDSA `recovered` address, or has code and approves `digest` (ERC-1271).
    function _signedBy(address signer, address recovered, bytes32 digest, bytes calldata signature)
        private
        view
        returns (bool)
    {
        if (signer == address(0)) return false;
        if (recovered == signer) return true;
        return signer.code.length != 0 && SignatureChecker.isValidERC1271SignatureNowCalldata(signer, digest, signature);
    }
}
