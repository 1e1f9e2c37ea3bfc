// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";
import {IArbiter} from "../market/interfaces/IArbiter.sol";
import {IResolutionMarket} from "../market/interfaces/IResolutionMarket.sol";
import {IOptimisticOracleV3, IOptimisticOracleV3CallbackRecipient} from "./interfaces/IOptimisticOracleV3.sol";
import {ArbiterMarkets} from "./ArbiterMarkets.sol";
import {IUmaArbiter} from "./interfaces/IUmaArbiter.sol";

/// @title UMA Optimistic Oracle V3 arbiter
/// @author cresolver
/// @notice Bonds: the market's ETH bonds follow the market's rules; UMA's ERC-20 bond is the disputer's, posted on
///         OOv3 as asserter (it gets it back if the claim stands; if the claim is countered and the DVM rejects
///         it, the counter-party gets both UMA bonds minus UMA's burned share, which goes to UMA's Store).
/// @dev No owner: oracle, currency, bond, liveness and markets are fixed at deployment. Only the named markets may
///      open cases, because `onDispute` pulls tokens from the `disputer` the caller names (a stranger could
///      otherwise spend an approval given for a real dispute on a claim of its own choosing).
contract UmaArbiter is IUmaArbiter, ArbiterMarkets {
    using SafeERC20 for IERC20;

    /// @notice Shortest liveness: the proposer's side needs time to counter a wrong claim on OOv3.
    uint64 public constant MIN_LIVENESS = 10 minutes;
    /// @notice Longest liveness: liveness plus a DVM vote (a few days) must end well before the market's
    ///         30-day arbitration timeout.
    uint64 public constant MAX_LIVENESS = 7 days;
    /// @notice How long an escalated claim whose bond the disputer did not post can be funded by anyone. Funding,
    ///         liveness (at most 7 days) and a DVM vote (a few days) fit in the fallback's 30-day timeout.
    uint64 public constant FUNDING_WINDOW = 7 days;
    /// @notice Longest quoted field (question or bundle URI) in a claim, in bytes before escaping.
    uint256 public constant MAX_QUOTED_BYTES = 1024;

    IOptimisticOracleV3 public immutable oracle;
    IERC20 public immutable currency;
    /// @notice Configured UMA bond; the effective one is never below OOv3's minimum (`disputeBond`).
    uint256 public immutable bond;
    uint64 public immutable liveness;
    bytes32 public immutable identifier;

    struct CaseKey {
        address market;
        uint256 marketId;
    }

    mapping(address market => mapping(uint256 marketId => Case)) private _cases;
    mapping(bytes32 assertionId => CaseKey) private _byAssertion;

    /// @param oracle_ UMA's OptimisticOracleV3 on this chain
    /// @param currency_ a currency OOv3 accepts (on UMA's collateral whitelist), e.g. USDC or WETH
    /// @param bond_ UMA bond per dispute (0 = OOv3's minimum for `currency_`)
    /// @param liveness_ seconds the asserted claim can be countered on OOv3, in [MIN_LIVENESS, MAX_LIVENESS]
    /// @param markets_ the ResolutionMarket contracts that may send disputes
    constructor(IOptimisticOracleV3 oracle_, IERC20 currency_, uint256 bond_, uint64 liveness_, address[] memory markets_)
        ArbiterMarkets(markets_)
    {
        if (address(oracle_) == address(0) || address(currency_) == address(0)) revert ZeroAddress();
        if (liveness_ < MIN_LIVENESS || liveness_ > MAX_LIVENESS) {
            revert LivenessOutOfRange(liveness_, MIN_LIVENESS, MAX_LIVENESS);
        }
        oracle = oracle_;
        currency = currency_;
        bond = bond_;
        liveness = liveness_;
        bytes32 identifier_ = oracle_.defaultIdentifier();
        identifier = identifier_;
        // A currency or identifier OOv3 refuses would make every dispute revert, i.e. proposals unchallengeable.
        oracle_.syncUmaParams(identifier_, address(currency_));
        (bool whitelisted,) = oracle_.cachedCurrencies(address(currency_));
        if (!whitelisted) revert CurrencyNotSupported(address(currency_));
        if (!oracle_.cachedIdentifiers(identifier_)) revert IdentifierNotSupported(identifier_);
    }

    // ------------------------------------------------------------------------------------------------
    // IArbiter
    // ------------------------------------------------------------------------------------------------

    /// @inheritdoc IArbiter
    /// @dev The disputer must have approved `disputeBond()` of `currency` to this contract. As the market's own
    ///      arbiter a bond that cannot be pulled refuses the case (the dispute reverts: nothing is at stake yet). As
    ///      its fallback (an escalation: the market's arbiter is still the silent one while it hands over) the case
    ///      is accepted and awaits its bond, so a disputer cannot turn the escalation into an Invalid ending with
    ///      both bonds back by revoking its approval.
    function onDispute(
        uint256 marketId,
        IResolutionMarket.Verdict proposed,
        IResolutionMarket.Verdict claimed,
        address, /* proposer */
        address disputer,
        bytes32 bundleHash,
        string calldata bundleURI
    ) external {
        address market = msg.sender;
        _requireMarket(market);
        Case storage c = _cases[market][marketId];
        if (c.status != CaseStatus.None) revert CaseAlreadyOpened(market, marketId);
        uint256 amount = disputeBond();
        c.proposed = proposed;
        c.claimed = claimed;
        c.disputer = disputer;
        if (_isHandOff(market, marketId)) {
            if (!currency.trySafeTransferFrom(disputer, address(this), amount)) {
                uint64 endsAt = uint64(block.timestamp) + FUNDING_WINDOW;
                c.status = CaseStatus.AwaitingBond;
                c.fundingEndsAt = endsAt;
                c.umaBond = amount;
                emit ClaimAwaitingBond(market, marketId, disputer, amount, endsAt);
                return;
            }
        } else {
            currency.safeTransferFrom(disputer, address(this), amount);
        }
        _assert(market, marketId, c, disputer, amount, bundleHash, bundleURI);
    }

    /// @inheritdoc IUmaArbiter
    /// @dev The claim is the one the disputer made (verdicts stored at the hand-off, bundle read from the market):
    ///      a funder can only back it, never change it.
    function fundAssertion(address market, uint256 marketId) external {
        Case storage c = _cases[market][marketId];
        if (c.status != CaseStatus.AwaitingBond) revert WrongCaseStatus(market, marketId, c.status);
        if (block.timestamp >= c.fundingEndsAt) revert FundingWindowOver(market, marketId, c.fundingEndsAt);
        c.status = CaseStatus.Asserted; // before the pull: funded once
        uint256 amount = disputeBond();
        IResolutionMarket.Proposal memory p = IResolutionMarket(market).getProposal(marketId);
        currency.safeTransferFrom(msg.sender, address(this), amount);
        _assert(market, marketId, c, msg.sender, amount, p.bundleHash, p.bundleURI);
    }

    /// @inheritdoc IUmaArbiter
    function ruleAbandoned(address market, uint256 marketId) external {
        Case storage c = _cases[market][marketId];
        if (c.status != CaseStatus.AwaitingBond) revert WrongCaseStatus(market, marketId, c.status);
        if (block.timestamp < c.fundingEndsAt) revert FundingWindowOpen(market, marketId, c.fundingEndsAt);
        IResolutionMarket.Verdict ruling = c.proposed;
        c.status = CaseStatus.Ruled;
        c.ruling = ruling;
        emit ClaimAbandoned(market, marketId, ruling);
        emit RulingDelivered(market, marketId, ruling);
        IResolutionMarket(market).resolveDispute(marketId, ruling);
    }

    // ------------------------------------------------------------------------------------------------
    // OOv3 callbacks
    // ------------------------------------------------------------------------------------------------

    /// @inheritdoc IOptimisticOracleV3CallbackRecipient
    /// @dev Does not revert when the market refuses the ruling (that would revert OOv3's settlement and lock both
    ///      UMA bonds): the ruling stays pending for `retryRuling`. It does revert when the market call ran out
    ///      of gas, so the settlement is simply retried with more gas.
    function assertionResolvedCallback(bytes32 assertionId, bool assertedTruthfully) external {
        (address market, uint256 marketId, Case storage c) = _caseFromOracle(assertionId);
        if (c.status != CaseStatus.Asserted) revert WrongCaseStatus(market, marketId, c.status);
        IResolutionMarket.Verdict ruling = assertedTruthfully ? c.claimed : c.proposed;
        c.status = CaseStatus.RulingPending;
        c.assertedTruthfully = assertedTruthfully;
        c.ruling = ruling;
        emit AssertionSettled(market, marketId, assertionId, assertedTruthfully, ruling);
        uint256 gasBefore = gasleft();
        try IResolutionMarket(market).resolveDispute(marketId, ruling) {
            c.status = CaseStatus.Ruled;
            emit RulingDelivered(market, marketId, ruling);
        } catch (bytes memory reason) {
            // Out of gas inside the market leaves at most 1/64 of the gas: revert the whole settlement then, so
            // a settler (or a gas estimator) cannot settle cheaply with the ruling undelivered.
            if (gasleft() <= gasBefore / 63) revert RulingOutOfGas(market, marketId);
            emit RulingDeliveryFailed(market, marketId, reason);
        }
    }

    /// @inheritdoc IOptimisticOracleV3CallbackRecipient
    function assertionDisputedCallback(bytes32 assertionId) external {
        (address market, uint256 marketId, Case storage c) = _caseFromOracle(assertionId);
        c.assertionDisputed = true;
        emit AssertionEscalated(market, marketId, assertionId);
    }

    /// @inheritdoc IUmaArbiter
    function retryRuling(address market, uint256 marketId) external {
        Case storage c = _cases[market][marketId];
        if (c.status != CaseStatus.RulingPending) revert WrongCaseStatus(market, marketId, c.status);
        c.status = CaseStatus.Ruled;
        emit RulingDelivered(market, marketId, c.ruling);
        IResolutionMarket(market).resolveDispute(marketId, c.ruling);
    }

    // ------------------------------------------------------------------------------------------------
    // Views
    // ------------------------------------------------------------------------------------------------

    /// @inheritdoc IUmaArbiter
    function disputeBond() public view returns (uint256) {
        uint256 minimum = oracle.getMinimumBond(address(currency));
        return bond > minimum ? bond : minimum;
    }

    /// @inheritdoc IUmaArbiter
    function assertionIdOf(address market, uint256 marketId) external view returns (bytes32) {
        return _cases[market][marketId].assertionId;
    }

    /// @inheritdoc IUmaArbiter
    function getCase(address market, uint256 marketId) external view returns (Case memory) {
        return _cases[market][marketId];
    }

    /// @inheritdoc IUmaArbiter
    function caseOfAssertion(bytes32 assertionId) external view returns (address market, uint256 marketId) {
        CaseKey storage k = _byAssertion[assertionId];
        return (k.market, k.marketId);
    }

    /// @notice The claim asserted on OOv3 for a dispute: what UMA's voters read, so it names everything they need.
    /// @dev The claim comes first, in our words; the creator's question and the proposer's bundle URI follow as
    ///      quoted, escaped (`"`, `\`, control bytes) and length-capped fields, so neither can pose as the claim
    ///      (e.g. a question ending in `| Claim: ... is NO`).
    function claimText(
        address market,
        uint256 marketId,
        IResolutionMarket.Verdict proposed,
        IResolutionMarket.Verdict claimed,
        bytes32 bundleHash,
        string memory bundleURI
    ) public view returns (bytes memory) {
        string memory question;
        try IResolutionMarket(market).getMarket(marketId) returns (IResolutionMarket.MarketInfo memory info) {
            question = info.question;
        } catch {
            question = "(see the market contract)";
        }
        return bytes(
            string.concat(
                string.concat(
                    "Claim: the correct outcome of cresolver market ",
                    Strings.toString(marketId),
                    " on contract ",
                    Strings.toHexString(market),
                    " (chain ",
                    Strings.toString(block.chainid),
                    ") is ",
                    _verdictName(claimed),
                    " (the resolver proposed ",
                    _verdictName(proposed),
                    "). INVALID means the question cannot be answered YES or NO as worded."
                ),
                string.concat(
                    " Evidence bundle (keccak256 ",
                    Strings.toHexString(uint256(bundleHash), 32),
                    "): ",
                    _quoted(bytes(bundleURI)),
                    ". Question (keccak256 ",
                    Strings.toHexString(uint256(keccak256(bytes(question))), 32),
                    ", quoted): ",
                    _quoted(bytes(question)),
                    "."
                )
            )
        );
    }

    // ------------------------------------------------------------------------------------------------
    // Internal
    // ------------------------------------------------------------------------------------------------

    /// @dev Asserts the case's claim on OOv3 with `asserter` as asserter; `amount` of `currency` is already here.
    function _assert(
        address market,
        uint256 marketId,
        Case storage c,
        address asserter,
        uint256 amount,
        bytes32 bundleHash,
        string memory bundleURI
    ) private {
        c.status = CaseStatus.Asserted;
        c.asserter = asserter;
        c.umaBond = amount;
        bytes memory claim = claimText(market, marketId, c.proposed, c.claimed, bundleHash, bundleURI);
        currency.forceApprove(address(oracle), amount);
        bytes32 assertionId = oracle.assertTruth(
            claim, asserter, address(this), address(0), liveness, currency, amount, identifier, bytes32(0)
        );
        c.assertionId = assertionId;
        _byAssertion[assertionId] = CaseKey(market, marketId);
        emit ClaimAsserted(market, marketId, assertionId, asserter, amount, uint64(block.timestamp) + liveness, claim);
    }

    /// @dev True when `market` is handing a dispute over to this arbiter as its fallback: during the hand-off the
    ///      market's config still names the silent first arbiter, and this one is the market's fallback.
    function _isHandOff(address market, uint256 marketId) private view returns (bool) {
        IResolutionMarket m = IResolutionMarket(market);
        return address(m.getMarketConfig(marketId).arbiter) != address(this)
            && address(m.fallbackArbiterOf(marketId)) == address(this);
    }

    function _caseFromOracle(bytes32 assertionId) private view returns (address market, uint256 marketId, Case storage c) {
        if (msg.sender != address(oracle)) revert NotOracle(msg.sender);
        CaseKey storage k = _byAssertion[assertionId];
        market = k.market;
        if (market == address(0)) revert UnknownAssertion(assertionId);
        marketId = k.marketId;
        c = _cases[market][marketId];
    }

    /// @dev `"…"` with `"` and `\` backslash-escaped, control bytes as `\u00XX`, cut to MAX_QUOTED_BYTES (at a
    ///      UTF-8 character boundary) with `...` appended when cut.
    function _quoted(bytes memory text) private pure returns (string memory) {
        uint256 n = text.length;
        bool cut = n > MAX_QUOTED_BYTES;
        if (cut) {
            n = MAX_QUOTED_BYTES;
            while (n > 0 && uint8(text[n]) & 0xC0 == 0x80) --n;
        }
        bytes memory out = new bytes(2 + n * 6 + (cut ? 3 : 0));
        // One pass of single-byte stores: a 1,024-byte question of control bytes must quote well inside the 2M gas
        // an escalation hands over (checked indexing cost ~1.4M gas there).
        assembly ("memory-safe") {
            let src := add(text, 32)
            let dst := add(out, 32)
            mstore8(dst, 0x22)
            dst := add(dst, 1)
            for { let i := 0 } lt(i, n) { i := add(i, 1) } {
                let c := byte(0, mload(add(src, i)))
                switch or(eq(c, 0x22), eq(c, 0x5c))
                case 1 {
                    mstore8(dst, 0x5c)
                    mstore8(add(dst, 1), c)
                    dst := add(dst, 2)
                }
                default {
                    switch or(lt(c, 0x20), eq(c, 0x7f))
                    case 1 {
                        // \u00XX
                        mstore8(dst, 0x5c)
                        mstore8(add(dst, 1), 0x75)
                        mstore8(add(dst, 2), 0x30)
                        mstore8(add(dst, 3), 0x30)
                        mstore8(add(dst, 4), byte(shr(4, c), "0123456789abcdef"))
                        mstore8(add(dst, 5), byte(and(c, 15), "0123456789abcdef"))
                        dst := add(dst, 6)
                    }
                    default {
                        mstore8(dst, c)
                        dst := add(dst, 1)
                    }
                }
            }
            if cut {
                mstore8(dst, 0x2e)
                mstore8(add(dst, 1), 0x2e)
                mstore8(add(dst, 2), 0x2e)
                dst := add(dst, 3)
            }
            mstore8(dst, 0x22)
            dst := add(dst, 1)
            mstore(out, sub(dst, add(out, 32)))
        }
        return string(out);
    }

    function _verdictName(IResolutionMarket.Verdict v) private pure returns (string memory) {
        if (v == IResolutionMarket.Verdict.Yes) return "YES";
        if (v == IResolutionMarket.Verdict.No) return "NO";
        return "INVALID";
    }
}
