/**
 * UMA's Optimistic Oracle V3 stack on a local chain, from UMA's compiled artifacts as published in
 * `@uma/contracts-node` (a dev dependency with no dependencies of its own; the bytecode is `@uma/core` 2.62.2's): Finder, Store (with a final fee for the currency), IdentifierWhitelist ("ASSERT_TRUTH"),
 * AddressWhitelist (the currency), a TestnetERC20 currency, MockOracleAncillary registered as the "Oracle"
 * (it stands in for UMA's DVM vote: `pushMockPrice`), and OptimisticOracleV3. Plus the moves a party makes
 * on OOv3: dispute an assertion, have the mock DVM answer, settle.
 *
 * The stack is for tests, demos and local chains only. The moves (`disputeAssertion`, `settleAssertion`,
 * `getAssertion`, `approveCurrency`, `assertionIdOf`) take just the addresses they need, so a daemon can make
 * them against UMA's own OOv3 deployment on a real network. Calls go through the project's writer (simulate,
 * nonce-serialised send, decoded reverts).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import {
  encodeDeployData,
  getAddress,
  parseAbi,
  stringToHex,
  zeroAddress,
  type Abi,
  type Address,
  type Hex,
} from "viem";
import { umaArbiterAbi } from "./abis.js";
import { requireWallet, type ChainContext } from "./clients.js";
import { deployContract, type DeployedContract } from "./deploy.js";
import { ChainError } from "./errors.js";
import { sendCreation } from "./send.js";
import { sendContractTx, type WriteArgs, type WriteFunctionName } from "./writer.js";

/** Artifact paths below {@link UMA_ARTIFACT_ROOT}. */
export const UMA_ARTIFACT_ROOT = "@uma/contracts-node/dist/packages/core/artifacts/contracts";
export const UMA_ARTIFACTS = {
  Finder: "data-verification-mechanism/implementation/Finder.sol/Finder.json",
  Store: "data-verification-mechanism/implementation/Store.sol/Store.json",
  IdentifierWhitelist: "data-verification-mechanism/implementation/IdentifierWhitelist.sol/IdentifierWhitelist.json",
  AddressWhitelist: "common/implementation/AddressWhitelist.sol/AddressWhitelist.json",
  TestnetERC20: "common/implementation/TestnetERC20.sol/TestnetERC20.json",
  MockOracleAncillary: "data-verification-mechanism/test/MockOracleAncillary.sol/MockOracleAncillary.json",
  OptimisticOracleV3: "optimistic-oracle-v3/implementation/OptimisticOracleV3.sol/OptimisticOracleV3.json",
} as const;
export type UmaContractName = keyof typeof UMA_ARTIFACTS;

/** Typed views of the functions we call (checked against the artifacts' ABIs in test/ts/contracts/uma.test.ts). */
export const umaAbis = {
  finder: parseAbi([
    "function changeImplementationAddress(bytes32 interfaceName, address implementationAddress)",
    "function getImplementationAddress(bytes32 interfaceName) view returns (address)",
  ]),
  store: parseAbi([
    "function setFinalFee(address currency, (uint256 rawValue) newFinalFee)",
    "function computeFinalFee(address currency) view returns ((uint256 rawValue))",
  ]),
  identifierWhitelist: parseAbi([
    "function addSupportedIdentifier(bytes32 identifier)",
    "function isIdentifierSupported(bytes32 identifier) view returns (bool)",
  ]),
  addressWhitelist: parseAbi([
    "function addToWhitelist(address newElement)",
    "function isOnWhitelist(address elementToCheck) view returns (bool)",
  ]),
  currency: parseAbi([
    "function allocateTo(address ownerAddress, uint256 value)",
    "function approve(address spender, uint256 amount) returns (bool)",
    "function balanceOf(address account) view returns (uint256)",
    "function allowance(address owner, address spender) view returns (uint256)",
  ]),
  mockOracle: parseAbi([
    "function pushPrice(bytes32 identifier, uint256 time, bytes ancillaryData, int256 price)",
    "function hasPrice(bytes32 identifier, uint256 time, bytes ancillaryData) view returns (bool)",
  ]),
  optimisticOracle: parseAbi([
    "struct EscalationManagerSettings { bool arbitrateViaEscalationManager; bool discardOracle; bool validateDisputers; address assertingCaller; address escalationManager; }",
    "struct Assertion { EscalationManagerSettings escalationManagerSettings; address asserter; uint64 assertionTime; bool settled; address currency; uint64 expirationTime; bool settlementResolution; bytes32 domainId; bytes32 identifier; uint256 bond; address callbackRecipient; address disputer; }",
    "function getAssertion(bytes32 assertionId) view returns (Assertion)",
    "function disputeAssertion(bytes32 assertionId, address disputer)",
    "function settleAssertion(bytes32 assertionId)",
    "function getMinimumBond(address currency) view returns (uint256)",
    "function stampAssertion(bytes32 assertionId) view returns (bytes)",
    "function burnedBondPercentage() view returns (uint256)",
    "function defaultIdentifier() view returns (bytes32)",
    "event AssertionMade(bytes32 indexed assertionId, bytes32 domainId, bytes claim, address indexed asserter, address callbackRecipient, address escalationManager, address caller, uint64 expirationTime, address currency, uint256 bond, bytes32 indexed identifier)",
    "event AssertionSettled(bytes32 indexed assertionId, address indexed bondRecipient, bool disputed, bool settlementResolution, address settleCaller)",
  ]),
} as const;

export const ASSERT_TRUTH: Hex = stringToHex("ASSERT_TRUTH", { size: 32 });
/** OOv3's numerical "true" answer from the DVM. */
export const DVM_TRUE = 10n ** 18n;

export interface UmaStack {
  finder: Address;
  store: Address;
  identifierWhitelist: Address;
  addressWhitelist: Address;
  currency: Address;
  mockOracle: Address;
  optimisticOracle: Address;
  /** UMA's final fee for `currency`; OOv3's minimum bond is finalFee / burnedBondPercentage (2x by default). */
  finalFee: bigint;
}

export interface DeployUmaOptions {
  /** Final fee of the currency in its base units (default 100e18, i.e. a 200e18 minimum bond). */
  finalFee?: bigint;
  /** OOv3's default liveness in seconds (default 7200). */
  defaultLiveness?: bigint;
  currencyName?: string;
  currencySymbol?: string;
  currencyDecimals?: number;
}

/** Reads one UMA artifact (ABI + bytecode); a clear error when the package is missing. */
export function loadUmaArtifact(name: UmaContractName): { abi: Abi; bytecode: Hex } {
  const require = createRequire(import.meta.url);
  let file: string;
  try {
    file = require.resolve(`${UMA_ARTIFACT_ROOT}/${UMA_ARTIFACTS[name]}`);
  } catch {
    throw new ChainError(
      "precondition",
      `@uma/contracts-node is not installed (needed for UMA's ${name}): run \`npm install\``,
    );
  }
  const parsed = JSON.parse(readFileSync(file, "utf8")) as {
    abi: Abi;
    bytecode: Hex;
    linkReferences?: Record<string, unknown>;
  };
  if (parsed.linkReferences && Object.keys(parsed.linkReferences).length > 0)
    throw new ChainError("precondition", `UMA artifact ${name} needs library linking`);
  return { abi: parsed.abi, bytecode: parsed.bytecode };
}

async function deployUma(ctx: ChainContext, name: UmaContractName, args: readonly unknown[]): Promise<Address> {
  const { abi, bytecode } = loadUmaArtifact(name);
  const { address } = await sendCreation(ctx, {
    data: encodeDeployData({ abi, bytecode, args }),
    label: `deploy UMA ${name}`,
  });
  return address;
}

function tx<const A extends Abi, F extends WriteFunctionName<A>>(
  ctx: ChainContext,
  address: Address,
  abi: A,
  functionName: F,
  args: WriteArgs<A, F>,
  label: string,
) {
  return sendContractTx(ctx, { address, abi, functionName, args, label });
}

/** Deploys and wires UMA's OOv3 stack; `ctx`'s account owns every UMA contract. */
export async function deployUmaStack(ctx: ChainContext, options: DeployUmaOptions = {}): Promise<UmaStack> {
  const finalFee = options.finalFee ?? 100n * 10n ** 18n;
  const finder = await deployUma(ctx, "Finder", []);
  const store = await deployUma(ctx, "Store", [{ rawValue: 0n }, { rawValue: 0n }, zeroAddress]);
  const identifierWhitelist = await deployUma(ctx, "IdentifierWhitelist", []);
  const addressWhitelist = await deployUma(ctx, "AddressWhitelist", []);
  const currency = await deployUma(ctx, "TestnetERC20", [
    options.currencyName ?? "Test Bond",
    options.currencySymbol ?? "TBOND",
    options.currencyDecimals ?? 18,
  ]);
  const mockOracle = await deployUma(ctx, "MockOracleAncillary", [finder, zeroAddress]);

  await tx(
    ctx,
    identifierWhitelist,
    umaAbis.identifierWhitelist,
    "addSupportedIdentifier",
    [ASSERT_TRUTH],
    "UMA IdentifierWhitelist.addSupportedIdentifier",
  );
  await tx(
    ctx,
    addressWhitelist,
    umaAbis.addressWhitelist,
    "addToWhitelist",
    [currency],
    "UMA AddressWhitelist.addToWhitelist",
  );
  await tx(ctx, store, umaAbis.store, "setFinalFee", [currency, { rawValue: finalFee }], "UMA Store.setFinalFee");
  const register: [string, Address][] = [
    ["Store", store],
    ["IdentifierWhitelist", identifierWhitelist],
    ["CollateralWhitelist", addressWhitelist],
    ["Oracle", mockOracle],
  ];
  for (const [name, address] of register) {
    await tx(
      ctx,
      finder,
      umaAbis.finder,
      "changeImplementationAddress",
      [stringToHex(name, { size: 32 }), address],
      `UMA Finder.changeImplementationAddress(${name})`,
    );
  }
  // OOv3 caches the oracle, identifier and currency at construction: deploy it last.
  const optimisticOracle = await deployUma(ctx, "OptimisticOracleV3", [
    finder,
    currency,
    options.defaultLiveness ?? 7200n,
  ]);
  return { finder, store, identifierWhitelist, addressWhitelist, currency, mockOracle, optimisticOracle, finalFee };
}

/** Mints test currency to `to` (TestnetERC20.allocateTo, open to anyone). */
export async function mintCurrency(
  ctx: ChainContext,
  uma: Pick<UmaStack, "currency">,
  to: Address,
  amount: bigint,
): Promise<void> {
  await tx(ctx, uma.currency, umaAbis.currency, "allocateTo", [to, amount], "UMA TestnetERC20.allocateTo");
}

/** Approves `spender` (e.g. an UmaArbiter before `dispute`, or OOv3 before countering) for `amount`. */
export async function approveCurrency(
  ctx: ChainContext,
  uma: Pick<UmaStack, "currency">,
  spender: Address,
  amount: bigint,
): Promise<void> {
  await tx(ctx, uma.currency, umaAbis.currency, "approve", [spender, amount], "UMA currency approve");
}

export async function currencyBalance(
  ctx: ChainContext,
  uma: Pick<UmaStack, "currency">,
  account: Address,
): Promise<bigint> {
  return ctx.publicClient.readContract({
    address: uma.currency,
    abi: umaAbis.currency,
    functionName: "balanceOf",
    args: [account],
  });
}

export async function getAssertion(ctx: ChainContext, uma: Pick<UmaStack, "optimisticOracle">, assertionId: Hex) {
  return ctx.publicClient.readContract({
    address: uma.optimisticOracle,
    abi: umaAbis.optimisticOracle,
    functionName: "getAssertion",
    args: [assertionId],
  });
}

/**
 * Counters an assertion on OOv3 (escalates it to the DVM): approves the assertion's bond from `ctx`'s
 * account and disputes with `disputer` (default: that account) as the recipient if the DVM rejects the claim.
 */
export async function disputeAssertion(
  ctx: ChainContext,
  uma: Pick<UmaStack, "optimisticOracle" | "currency">,
  assertionId: Hex,
  disputer?: Address,
): Promise<void> {
  const { account } = requireWallet(ctx);
  const assertion = await getAssertion(ctx, uma, assertionId);
  if (assertion.asserter === zeroAddress) throw new ChainError("precondition", `no OOv3 assertion ${assertionId}`);
  if (assertion.disputer !== zeroAddress)
    throw new ChainError("precondition", `OOv3 assertion ${assertionId} is already disputed by ${assertion.disputer}`);
  await approveCurrency(ctx, uma, uma.optimisticOracle, assertion.bond);
  await tx(
    ctx,
    uma.optimisticOracle,
    umaAbis.optimisticOracle,
    "disputeAssertion",
    [assertionId, disputer ?? account.address],
    "OOv3.disputeAssertion",
  );
}

/** The mock DVM's vote on a disputed assertion: `truthful` = the claim was true. */
export async function pushMockPrice(
  ctx: ChainContext,
  uma: Pick<UmaStack, "optimisticOracle" | "mockOracle">,
  assertionId: Hex,
  truthful: boolean,
): Promise<void> {
  const assertion = await getAssertion(ctx, uma, assertionId);
  if (assertion.disputer === zeroAddress)
    throw new ChainError(
      "precondition",
      `OOv3 assertion ${assertionId} is not disputed: nothing for the DVM to vote on`,
    );
  const ancillary = await ctx.publicClient.readContract({
    address: uma.optimisticOracle,
    abi: umaAbis.optimisticOracle,
    functionName: "stampAssertion",
    args: [assertionId],
  });
  await tx(
    ctx,
    uma.mockOracle,
    umaAbis.mockOracle,
    "pushPrice",
    [assertion.identifier, BigInt(assertion.assertionTime), ancillary, truthful ? DVM_TRUE : 0n],
    "UMA MockOracleAncillary.pushPrice",
  );
}

/** Settles an assertion (after liveness, or once the DVM answered); OOv3 then calls the UmaArbiter back. */
export async function settleAssertion(ctx: ChainContext, uma: Pick<UmaStack, "optimisticOracle">, assertionId: Hex) {
  return tx(
    ctx,
    uma.optimisticOracle,
    umaAbis.optimisticOracle,
    "settleAssertion",
    [assertionId],
    "OOv3.settleAssertion",
  );
}

export interface UmaArbiterOptions {
  /** UMA bond per dispute in the currency's base units (0 = OOv3's minimum). */
  bond?: bigint;
  /** Seconds the asserted claim can be countered on OOv3 (600 … 604800; default 7200). */
  liveness?: number;
  /** Markets allowed to open cases. */
  markets: Address[];
}

/** Deploys our UmaArbiter against `uma`'s OOv3 and currency (needs `npx hardhat build`). */
export async function deployUmaArbiter(
  ctx: ChainContext,
  uma: Pick<UmaStack, "optimisticOracle" | "currency">,
  options: UmaArbiterOptions,
): Promise<DeployedContract> {
  return deployContract(ctx, "UmaArbiter", umaArbiterAbi, [
    uma.optimisticOracle,
    uma.currency,
    options.bond ?? 0n,
    BigInt(options.liveness ?? 7200),
    options.markets.map((m) => getAddress(m)),
  ]);
}

/** The OOv3 assertion of a market's dispute, or undefined when the arbiter has none for it. */
export async function assertionIdOf(
  ctx: ChainContext,
  arbiter: Address,
  market: Address,
  marketId: bigint,
): Promise<Hex | undefined> {
  const id = await ctx.publicClient.readContract({
    address: arbiter,
    abi: umaArbiterAbi,
    functionName: "assertionIdOf",
    args: [market, marketId],
  });
  return /^0x0+$/.test(id) ? undefined : id;
}
