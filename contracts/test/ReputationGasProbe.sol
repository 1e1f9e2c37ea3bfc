// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IReputationRegistry} from "../erc8004/interfaces/IReputationRegistry.sol";

/// @title ReputationGasProbe
/// @notice Measurement harness only (not deployed in production): writes the three feedback records a
///         resolution market writes per worker and reports the gas of each `giveFeedback` call.
contract ReputationGasProbe {
    /// @notice Gas of the three `giveFeedback` calls for one agent, in call order.
    event Measured(uint256 indexed agentId, uint256 resolutionQuality, uint256 sourceQuality, uint256 analysisDepth);

    IReputationRegistry public immutable reputation;

    constructor(IReputationRegistry reputation_) {
        reputation = reputation_;
    }

    /// @notice For each agent, gives the three market feedback records (tag2 "cresolver", 0 decimals).
    function rate(uint256[] calldata agentIds, string calldata feedbackURI, bytes32 feedbackHash) external {
        for (uint256 i; i < agentIds.length; ++i) {
            uint256 agentId = agentIds[i];
            uint256 g0 = gasleft();
            reputation.giveFeedback(agentId, 87, 0, "resolution_quality", "cresolver", "", feedbackURI, feedbackHash);
            uint256 g1 = gasleft();
            reputation.giveFeedback(agentId, 64, 0, "source_quality", "cresolver", "", feedbackURI, feedbackHash);
            uint256 g2 = gasleft();
            reputation.giveFeedback(agentId, 100, 0, "analysis_depth", "cresolver", "", feedbackURI, feedbackHash);
            uint256 g3 = gasleft();
            emit Measured(agentId, g0 - g1, g1 - g2, g2 - g3);
        }
    }
}
