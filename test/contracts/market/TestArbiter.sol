// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IArbiter} from "../../../contracts/market/interfaces/IArbiter.sol";
import {IResolutionMarket} from "../../../contracts/market/interfaces/IResolutionMarket.sol";

/// @notice A minimal arbiter for tests: records each dispute and rules when told to (the real ones live in
///         contracts/arbiter/). `refuse` makes onDispute revert; `reenter` makes it try resolveDispute at once.
contract TestArbiter is IArbiter {
    struct Case {
        IResolutionMarket.Verdict proposed;
        IResolutionMarket.Verdict claimed;
        address proposer;
        address disputer;
        bytes32 bundleHash;
        string bundleURI;
    }

    error Refused();

    mapping(address market => mapping(uint256 marketId => Case)) public cases;
    uint256 public disputes;
    bool public refuse;
    bool public reenter;

    function setRefuse(bool value) external {
        refuse = value;
    }

    function setReenter(bool value) external {
        reenter = value;
    }

    function onDispute(
        uint256 marketId,
        IResolutionMarket.Verdict proposed,
        IResolutionMarket.Verdict claimed,
        address proposer,
        address disputer,
        bytes32 bundleHash,
        string calldata bundleURI
    ) external {
        if (refuse) revert Refused();
        cases[msg.sender][marketId] = Case(proposed, claimed, proposer, disputer, bundleHash, bundleURI);
        ++disputes;
        if (reenter) IResolutionMarket(msg.sender).resolveDispute(marketId, claimed);
    }

    /// @notice Rules on `marketId` of `market` (anyone may call this test arbiter).
    function rule(IResolutionMarket market, uint256 marketId, IResolutionMarket.Verdict verdict) external {
        market.resolveDispute(marketId, verdict);
    }
}
