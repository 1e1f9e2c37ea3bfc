/**
 * Deployment of the registries and markets with plain viem from the Hardhat artifacts (no Ignition: a few
 * contracts in a fixed order with our own small journal, deploy-journal.ts, so one code path serves the CLI,
 * the demo and the tests on any RPC endpoint and an interrupted deployment resumes).
 *
 * On chains where the canonical ERC-8004 singletons exist (Sepolia and other testnets, mainnets)
 * they are used by default and only our markets are deployed; `ownRegistries` deploys ours.
 */
import {
  encodeDeployData,
  getAddress,
  isAddress,
  keccak256,
  type Abi,
  type Address,
  type ContractConstructorArgs,
  type Hex,
} from "viem";
import {
  bettingMarketAbi,
  committeeArbiterAbi,
  creReceiverAbi,
  identityRegistryAbi,
  reputationRegistryAbi,
  marketGovernanceAbi,
  resolutionMarketAbi,
  umaArbiterAbi,
} from "./abis.js";
import { loadArtifact, type ContractName } from "./artifacts.js";
import { LOCAL_CHAIN_IDS, requireWallet, type ChainContext } from "./clients.js";
import type { DeployedContract, DeployJournal } from "./deploy-journal.js";
import { ChainError, toChainError } from "./errors.js";
import { getDefaults, governanceOf, readGovernance, readMarket } from "./lifecycle.js";
import { sendCreation } from "./send.js";
import { sendContractTx } from "./writer.js";

/** Canonical ERC-8004 registries (erc-8004/erc-8004-contracts v2.0.0). */
export const CANONICAL_REGISTRIES = {
  testnet: {
    identityRegistry: "0x8004A818BFB912233c491871b3d84c89A494BD9e",
    reputationRegistry: "0x8004B663056A597Dffe9eCcC1965A193B7388713",
  },
  mainnet: {
    identityRegistry: "0x8004A169FB4a3325136EB29fA0ceB6D2e539a432",
    reputationRegistry: "0x8004BAa17C55a88189AE136b182e5fdA19dE9b63",
  },
} as const satisfies Record<string, { identityRegistry: Address; reputationRegistry: Address }>;

export type { DeployedContract } from "./deploy-journal.js";

export interface Deployment {
  network: string;
  chainId: number;
  deployer: Address;
  deployedAt: string;
  registries: "canonical" | "own" | "given";
  resolvers: Address[];
  /** Default arbiter of disputes, set at deployment (a later change is timelocked). */
  arbiter: Address;
  contracts: {
    IdentityRegistry: DeployedContract;
    ReputationRegistry: DeployedContract;
    ResolutionMarket: DeployedContract;
    /** Created by the ResolutionMarket's constructor (same transaction): the bounded owner. */
    MarketGovernance: DeployedContract;
    /** Created by the ResolutionMarket's constructor: the ERC-8004 feedback writer (the records' client). */
    MarketReputation: DeployedContract;
    /** Created by the ResolutionMarket's constructor: checks agents' answer signatures (absent in older files). */
    AnswerVerifier?: DeployedContract;
    BettingMarket?: DeployedContract;
    CREReceiver?: DeployedContract & { forwarder: Address };
    CommitteeArbiter?: DeployedContract & { members: Address[]; threshold: number };
    UmaArbiter?: DeployedContract & { oracle: Address; currency: Address; bond: string; liveness: number };
  };
}

export interface DeployOptions {
  /** Name written into the file (e.g. "localhost", "sepolia"). */
  network: string;
  /** Deploy our registries even where the canonical ones exist. */
  ownRegistries?: boolean;
  /** Use these registries (both or neither). Overrides detection. */
  identityRegistry?: Address;
  reputationRegistry?: Address;
  /** Resolvers to authorise on the market (default: the deployer). Queued before the first market: active at once. */
  resolvers?: Address[];
  /** Default arbiter (a contract), queued before the first market: in force at once. */
  arbiter?: Address;
  /**
   * Without `arbiter`: deploy a CommitteeArbiter for this market with these members (default: the deployer alone)
   * and threshold (default 1) and make it the default arbiter. Markets cannot be created without an arbiter.
   */
  committee?: { members?: Address[]; threshold?: number };
  /**
   * Instead of `arbiter`/`committee`: deploy an UmaArbiter on this UMA Optimistic Oracle V3 (its ERC-20 `currency`
   * on UMA's collateral whitelist, UMA bond per dispute — 0 = OOv3's minimum — and liveness in seconds, default
   * 7200) for this market, and make it the default arbiter.
   */
  uma?: { oracle: Address; currency: Address; bond?: bigint; liveness?: number };
  /**
   * On a non-local chain, a committee whose only member is the deployer makes the deployer the judge of every
   * dispute: refused unless this is set.
   */
  allowDeployerArbiter?: boolean;
  /** Deploy BettingMarket (default true). */
  betting?: boolean;
  /** Deploy CREReceiver with this KeystoneForwarder and make it a resolver. */
  forwarder?: Address;
  /** The CREReceiver's initial workflow check (ids, owner, 10-byte name, allowAny); without it the receiver refuses every report. */
  creWorkflow?: { ids?: Hex[]; owner?: Address; name?: Hex; allowAny?: boolean };
  /** Progress lines (never secrets). */
  onProgress?: (message: string) => void;
  /** Contracts of an interrupted run to reuse, and where each new one is recorded (deploy-journal.ts). */
  journal?: DeployJournal;
  /** Called after every step (a contract name, `queueResolver <address>`, `queueDefaultArbiter`); a throw stops the deployment there, as a crash would. */
  afterStep?: (step: string) => void;
}

async function hasCode(ctx: ChainContext, address: Address): Promise<boolean> {
  const code = await ctx.publicClient.getCode({ address }).catch((e: unknown) => {
    throw toChainError(e, `eth_getCode(${address})`);
  });
  return code !== undefined && code !== "0x";
}

/** The canonical registries when both have code on this chain, else undefined. */
export async function detectCanonicalRegistries(
  ctx: ChainContext,
): Promise<{ identityRegistry: Address; reputationRegistry: Address; kind: "testnet" | "mainnet" } | undefined> {
  for (const kind of ["testnet", "mainnet"] as const) {
    const set = CANONICAL_REGISTRIES[kind];
    const [identity, reputation] = await Promise.all([
      hasCode(ctx, set.identityRegistry),
      hasCode(ctx, set.reputationRegistry),
    ]);
    if (identity && reputation) return { ...set, kind };
  }
  return undefined;
}

/** keccak256 of the creation input (bytecode + encoded constructor `args`): what the deploy journal compares. */
function creationInput<const A extends Abi>(name: ContractName, abi: A, args: ContractConstructorArgs<A>): Hex;
function creationInput(name: ContractName, abi: Abi, args: readonly unknown[]): Hex {
  return keccak256(encodeDeployData({ abi, bytecode: loadArtifact(name).bytecode, args }));
}

/**
 * Deploys `name` with `args` (typed by the constructor of `abi`) through the one send path (send.ts: decoded
 * constructor reverts, gas under 2^24). The implementation hands viem a plain `Abi` (see reads.ts).
 */
export function deployContract<const A extends Abi>(
  ctx: ChainContext,
  name: ContractName,
  abi: A,
  args: ContractConstructorArgs<A>,
): Promise<DeployedContract>;
export async function deployContract(
  ctx: ChainContext,
  name: ContractName,
  abi: Abi,
  args: readonly unknown[],
): Promise<DeployedContract> {
  const { bytecode } = loadArtifact(name);
  const { address, hash, receipt } = await sendCreation(ctx, {
    data: encodeDeployData({ abi, bytecode, args }),
    label: `deploy ${name}`,
  });
  const constructorArgs = JSON.parse(
    JSON.stringify(args, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)),
  ) as unknown[];
  return {
    address,
    blockNumber: Number(receipt.blockNumber),
    txHash: hash,
    gasUsed: receipt.gasUsed.toString(),
    constructorArgs,
    source: "deployed",
  };
}

/**
 * Deploys everything `options` asks for and returns the deployment record (written to disk by the caller).
 * Resumable: contracts in `options.journal` with code at their address and the same creation input are reused,
 * and the owner's bootstrap transactions are skipped when the chain already shows their effect.
 */
export async function deployAll(ctx: ChainContext, options: DeployOptions): Promise<Deployment> {
  const { account } = requireWallet(ctx);
  const progress = options.onProgress ?? (() => undefined);
  const stepDone = options.afterStep ?? (() => undefined);
  const deploy = async <const A extends Abi>(
    name: ContractName,
    abi: A,
    args: ContractConstructorArgs<A>,
  ): Promise<DeployedContract> => {
    const input = creationInput(name, abi, args);
    const recorded = options.journal?.get(name);
    let contract: DeployedContract;
    if (recorded !== undefined && recorded.input === input && (await hasCode(ctx, recorded.contract.address))) {
      progress(`${name} already deployed at ${recorded.contract.address} (resumed)`);
      options.journal?.reused?.(name);
      contract = recorded.contract;
    } else {
      progress(`deploying ${name}`);
      contract = await deployContract(ctx, name, abi, args);
      options.journal?.record(name, { contract, input });
    }
    stepDone(name);
    return contract;
  };
  const given = options.identityRegistry !== undefined || options.reputationRegistry !== undefined;
  if (given && (options.identityRegistry === undefined || options.reputationRegistry === undefined)) {
    throw new ChainError("precondition", "give both --identity and --reputation, or neither");
  }
  if (given && options.ownRegistries)
    throw new ChainError("precondition", "--own-registries conflicts with --identity/--reputation");
  if ([options.arbiter, options.committee, options.uma].filter((x) => x !== undefined).length > 1)
    throw new ChainError("precondition", "give one of an arbiter, a committee or an UMA arbiter");
  const refusal = deployerArbiterRefusal(ctx.chainId, account.address, options);
  if (refusal !== undefined) throw new ChainError("precondition", refusal);
  for (const a of [
    options.identityRegistry,
    options.reputationRegistry,
    options.forwarder,
    options.arbiter,
    options.uma?.oracle,
    options.uma?.currency,
    ...(options.resolvers ?? []),
    ...(options.committee?.members ?? []),
  ]) {
    if (a !== undefined && !isAddress(a)) throw new ChainError("precondition", `not an address: ${a}`);
  }

  let identity: DeployedContract;
  let reputation: DeployedContract;
  let registries: Deployment["registries"];
  if (given) {
    const [i, r] = [getAddress(options.identityRegistry as Address), getAddress(options.reputationRegistry as Address)];
    for (const [label, a] of [
      ["identity registry", i],
      ["reputation registry", r],
    ] as const) {
      if (!(await hasCode(ctx, a)))
        throw new ChainError("precondition", `no contract at the ${label} address ${a} on chain ${ctx.chainId}`);
    }
    identity = { address: i, source: "existing" };
    reputation = { address: r, source: "existing" };
    registries = "given";
    progress(`using the given registries ${i} / ${r}`);
  } else {
    const canonical = options.ownRegistries ? undefined : await detectCanonicalRegistries(ctx);
    if (canonical) {
      identity = { address: getAddress(canonical.identityRegistry), source: "existing" };
      reputation = { address: getAddress(canonical.reputationRegistry), source: "existing" };
      registries = "canonical";
      progress(`using the canonical ERC-8004 ${canonical.kind} registries`);
    } else {
      identity = await deploy("IdentityRegistry", identityRegistryAbi, []);
      reputation = await deploy("ReputationRegistry", reputationRegistryAbi, [identity.address]);
      registries = "own";
    }
  }

  const market = await deploy("ResolutionMarket", resolutionMarketAbi, [
    identity.address,
    reputation.address,
    account.address,
  ]);
  // The market's constructor creates its governance, feedback writer and answer verifier: same transaction, fixed
  // addresses.
  const { address: _market, constructorArgs: _args, gasUsed: _gas, ...created } = market;
  const governance = await governanceOf(ctx, market.address);
  const contracts: Deployment["contracts"] = {
    IdentityRegistry: identity,
    ReputationRegistry: reputation,
    ResolutionMarket: market,
    MarketGovernance: { ...created, address: getAddress(governance), constructorArgs: [account.address] },
    MarketReputation: {
      ...created,
      address: getAddress(await readMarket(ctx, market.address, "reputation", [])),
      constructorArgs: [reputation.address],
    },
    AnswerVerifier: {
      ...created,
      address: getAddress(await readMarket(ctx, market.address, "answerVerifier", [])),
      constructorArgs: [identity.address],
    },
  };

  if (options.betting ?? true) {
    contracts.BettingMarket = await deploy("BettingMarket", bettingMarketAbi, [market.address]);
  }
  const resolvers = [
    ...new Set(
      (options.resolvers && options.resolvers.length > 0 ? options.resolvers : [account.address]).map((a) =>
        getAddress(a),
      ),
    ),
  ];
  if (options.forwarder !== undefined) {
    // The workflow settings are the constructor's (in force at once); later changes wait the receiver's 2-day timelock.
    const wf = options.creWorkflow ?? {};
    const workflowConfig = {
      workflowIds: wf.ids ?? [],
      workflowOwner: wf.owner ?? "0x0000000000000000000000000000000000000000",
      workflowName: wf.name ?? "0x00000000000000000000",
      allowAnyWorkflow: wf.allowAny ?? false,
    };
    const receiver = await deploy("CREReceiver", creReceiverAbi, [
      market.address,
      getAddress(options.forwarder),
      account.address,
      workflowConfig,
    ]);
    contracts.CREReceiver = { ...receiver, forwarder: getAddress(options.forwarder) };
    resolvers.push(receiver.address);
  }
  // Bootstrap: while no market exists, queued resolvers and the queued arbiter are in force immediately
  // (afterwards every such change waits RESOLVER_DELAY and applies to markets created later).
  // A resumed run skips what the chain already shows (a resolver with an activation time, the arbiter in force).
  for (const resolver of resolvers) {
    const activeFrom = await readGovernance(ctx, market.address, "resolverActiveFrom", [resolver]);
    if (activeFrom === 0n) {
      progress(`queueing resolver ${resolver}`);
      await sendContractTx(ctx, {
        address: governance,
        abi: marketGovernanceAbi,
        functionName: "queueResolver",
        args: [resolver],
        label: "MarketGovernance.queueResolver",
      });
    }
    stepDone(`queueResolver ${resolver}`);
  }
  let arbiter: Address;
  if (options.arbiter !== undefined) {
    arbiter = getAddress(options.arbiter);
    if (!(await hasCode(ctx, arbiter)))
      throw new ChainError("precondition", `no contract at the arbiter address ${arbiter} on chain ${ctx.chainId}`);
  } else if (options.uma !== undefined) {
    const { oracle, currency } = options.uma;
    const bond = options.uma.bond ?? 0n;
    const liveness = options.uma.liveness ?? 7200;
    for (const [label, a] of [
      ["UMA Optimistic Oracle V3", oracle],
      ["UMA currency", currency],
    ] as const)
      if (!(await hasCode(ctx, getAddress(a))))
        throw new ChainError("precondition", `no contract at the ${label} address ${a} on chain ${ctx.chainId}`);
    progress(`UmaArbiter on ${oracle}, currency ${currency}, liveness ${liveness} s`);
    const uma = await deploy("UmaArbiter", umaArbiterAbi, [
      getAddress(oracle),
      getAddress(currency),
      bond,
      BigInt(liveness),
      [market.address],
    ]);
    contracts.UmaArbiter = {
      ...uma,
      oracle: getAddress(oracle),
      currency: getAddress(currency),
      bond: bond.toString(),
      liveness,
    };
    arbiter = uma.address;
  } else {
    const members = [...new Set((options.committee?.members ?? [account.address]).map((a) => getAddress(a)))];
    const threshold = options.committee?.threshold ?? 1;
    if (threshold < 1 || threshold > members.length)
      throw new ChainError(
        "precondition",
        `committee threshold ${threshold} must be from 1 to ${members.length} (its members)`,
      );
    progress(`CommitteeArbiter: ${threshold} of ${members.length}`);
    const committee = await deploy("CommitteeArbiter", committeeArbiterAbi, [
      members,
      BigInt(threshold),
      [market.address],
    ]);
    contracts.CommitteeArbiter = { ...committee, members, threshold };
    arbiter = committee.address;
  }
  if (getAddress((await getDefaults(ctx, market.address)).arbiter) !== getAddress(arbiter)) {
    progress(`setting the default arbiter ${arbiter}`);
    await sendContractTx(ctx, {
      address: governance,
      abi: marketGovernanceAbi,
      functionName: "queueDefaultArbiter",
      args: [arbiter],
      label: "MarketGovernance.queueDefaultArbiter",
    });
  }
  stepDone("queueDefaultArbiter");
  return {
    network: options.network,
    chainId: ctx.chainId,
    deployer: getAddress(account.address),
    deployedAt: new Date().toISOString(),
    registries,
    resolvers,
    arbiter,
    contracts,
  };
}

/**
 * Why `deployAll` refuses the arbiter choice, or undefined: on a non-local chain, the default committee (or one
 * whose only member is the deployer) would let the deployer alone rule every dispute, unless
 * `allowDeployerArbiter` says that is meant.
 */
export function deployerArbiterRefusal(
  chainId: number,
  deployer: Address,
  options: Pick<DeployOptions, "arbiter" | "committee" | "uma" | "allowDeployerArbiter">,
): string | undefined {
  if (LOCAL_CHAIN_IDS.has(chainId) || options.allowDeployerArbiter === true) return undefined;
  if (options.arbiter !== undefined || options.uma !== undefined) return undefined;
  const members = [...new Set((options.committee?.members ?? [deployer]).map((a) => getAddress(a)))];
  if (members.length !== 1 || members[0] !== getAddress(deployer)) return undefined;
  return `on chain ${chainId} the deployer ${getAddress(deployer)} would be the only arbiter of every dispute: pass --arbiter, --committee <members>, --uma <oracle>, or --allow-deployer-arbiter if that is meant`;
}
