// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IResolutionMarket} from "./IResolutionMarket.sol";

/// @title Checks agents' EIP-712 signatures over their answers for one resolution market
/// @notice Deployed by its market's constructor (`market`). The signed type (docs/RECORDS.md §2):
///         `Answer(uint256 marketId,uint256 agentId,uint8 answer,uint16 confidenceBps,bytes32 replyHash)` under the
///         domain `{name: "cresolver", version: "1", chainId, verifyingContract: market}`. A signature is valid if
///         it is the agent's ERC-8004 `agentWallet`'s or its owner's (`ownerOf`), an EOA signature or an ERC-1271
///         contract's approval (OpenZeppelin `ECDSA`, then `SignatureChecker`'s ERC-1271 check for a signer with
///         code). Stateless apart from its two fixed addresses.
interface IAnswerVerifier {
    /// @notice The market whose address is the domain's `verifyingContract`.
    function market() external view returns (address);

    /// @notice The EIP-712 digest an agent signs for one answer.
    function answerDigest(
        uint256 marketId,
        uint256 agentId,
        IResolutionMarket.Answer answer,
        uint16 confidenceBps,
        bytes32 replyHash
    ) external view returns (bytes32);

    /// @notice Whether `report.signature` signs `report`'s answer, confidence and reply hash for `agentId` in
    ///         `marketId`, by the agent's wallet or, failing that, its owner. An unknown agent or an empty or
    ///         malformed signature is simply not valid.
    function isValid(uint256 marketId, uint256 agentId, IResolutionMarket.WorkerReport calldata report)
        external
        view
        returns (bool);
}
