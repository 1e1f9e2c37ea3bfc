// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

import {IIdentityRegistry} from "../erc8004/interfaces/IIdentityRegistry.sol";
import {IAnswerVerifier} from "./interfaces/IAnswerVerifier.sol";
import {IResolutionMarket} from "./interfaces/IResolutionMarket.sol";

/// @title Agent-signed answers of one resolution market (docs/RECORDS.md §2)
/// @notice Deployed by the market's constructor so the market's bytecode stays small; the market calls {isValid}
///         only for reports that carry a signature (unsigned reports cost nothing here).
/// @dev The domain separator is built per call from `block.chainid`, so a fork's chain id is never accepted for the
///      original chain's signatures (and vice versa). Identity-registry reads are try/catch: a reverting registry
///      or an unknown agent makes the signature invalid rather than reverting the verifier.
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

    /// @dev The EIP-712 domain separator on the current chain.
    function _domainSeparator() private view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, market));
    }

    /// @inheritdoc IAnswerVerifier
    function answerDigest(
        uint256 marketId,
        uint256 agentId,
        IResolutionMarket.Answer answer,
        uint16 confidenceBps,
        bytes32 replyHash
    ) public view returns (bytes32 digest) {
        bytes32 structHash =
            keccak256(abi.encode(ANSWER_TYPEHASH, marketId, agentId, uint8(answer), confidenceBps, replyHash));
        bytes32 domain = _domainSeparator();
        // keccak256("\x19\x01" ‖ domainSeparator ‖ structHash), as OpenZeppelin's MessageHashUtils.toTypedDataHash
        assembly ("memory-safe") {
            let ptr := mload(0x40)
            mstore(ptr, hex"1901")
            mstore(add(ptr, 0x02), domain)
            mstore(add(ptr, 0x22), structHash)
            digest := keccak256(ptr, 0x42)
        }
    }

    /// @inheritdoc IAnswerVerifier
    function isValid(uint256 marketId, uint256 agentId, IResolutionMarket.WorkerReport calldata report)
        external
        view
        returns (bool)
    {
        bytes calldata signature = report.signature;
        if (signature.length == 0) return false;
        bytes32 digest = answerDigest(marketId, agentId, report.answer, report.confidenceBps, report.replyHash);
        address wallet;
        try identityRegistry.getAgentWallet(agentId) returns (address w) {
            wallet = w;
        } catch {}
        if (wallet != address(0) && SignatureChecker.isValidSignatureNowCalldata(wallet, digest, signature)) {
            return true;
        }
        address owner;
        try identityRegistry.ownerOf(agentId) returns (address o) {
            owner = o;
        } catch {}
        return owner != address(0) && owner != wallet
            && SignatureChecker.isValidSignatureNowCalldata(owner, digest, signature);
    }
}
