/**
 * The few contract functions the workflow calls, as human-readable ABI (the generated workflow/chain/abis.ts holds
 * every contract's full ABI; the WASM bundle only needs these). Signatures follow IResolutionMarket v2,
 * IMarketGovernance, IIdentityRegistry and Multicall3.
 */
import { parseAbi, toEventSelector } from "viem";

export const marketReadAbi = parseAbi([
  "struct MarketInfo { address creator; uint64 deadline; uint64 requestedAt; uint8 status; bool outcome; uint32 workerCount; uint256 rewardPool; uint256 totalStake; bytes32 bundleHash; string question; uint256 recordCount; bytes32 recordHead; }",
  "function getMarket(uint256 marketId) view returns (MarketInfo)",
  "function getWorkers(uint256 marketId) view returns (address[] workers, uint256[] agentIds, uint256[] stakes)",
  "function identityRegistry() view returns (address)",
  "function governance() view returns (address)",
]);

/** MarketGovernance's allow-list view (whose rulings are known truth, docs/RECORDS.md §4). */
export const governanceReadAbi = parseAbi(["function isArbiterAllowed(address arbiter) view returns (bool)"]);

export const identityReadAbi = parseAbi([
  "function tokenURI(uint256 tokenId) view returns (string)",
  "function getAgentWallet(uint256 agentId) view returns (address)",
  "function ownerOf(uint256 tokenId) view returns (address)",
]);

/** ERC-1271: a contract wallet's approval of a signature over a digest (agent wallets and owners, docs/CRE.md). */
export const erc1271Abi = parseAbi([
  "function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4 magicValue)",
]);

export const multicall3Abi = parseAbi([
  "struct Call3 { address target; bool allowFailure; bytes callData; }",
  "struct Result { bool success; bytes returnData; }",
  "function aggregate3(Call3[] calls) payable returns (Result[] returnData)",
]);

/** IResolutionMarket.ResolutionRequested(uint256 indexed marketId, string question): the trigger's topic 0. */
export const RESOLUTION_REQUESTED_TOPIC = toEventSelector(
  "event ResolutionRequested(uint256 indexed marketId, string question)",
);

/** IResolutionMarket.Status.ResolutionRequested: the only status a proposal can be made in. */
export const STATUS_RESOLUTION_REQUESTED = 2;
