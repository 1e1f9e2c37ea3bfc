/**
 * The user-facing writes (what the CLI commands do), each checked before anything is sent and
 * returning what the receipt's events say (ids, amounts).
 */
import { formatEther, getAddress, parseEventLogs, zeroAddress, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { identityRegistryAbi, resolutionMarketAbi } from "./abis.js";
import { requireWallet, type ChainContext } from "./clients.js";
import { ChainError, toChainError } from "./errors.js";
import {
  ADMISSION_NAMES,
  isAdmitted,
  readGovernance,
  readMarket,
  type AdmissionName,
  type MarketConfigView,
} from "./lifecycle.js";
import { readView, viewCall } from "./reads.js";
import { readMarketState } from "./snapshot.js";
import { sendContractTx } from "./writer.js";

export interface TxInfo {
  txHash: Hex;
  blockNumber: bigint;
}

export async function registerAgent(
  ctx: ChainContext,
  identity: Address,
  agentURI: string,
): Promise<TxInfo & { agentId: bigint; owner: Address }> {
  const { hash, receipt } = await sendContractTx(ctx, {
    address: identity,
    abi: identityRegistryAbi,
    functionName: "register",
    args: [agentURI],
    label: "IdentityRegistry.register",
  });
  const [event] = parseEventLogs({ abi: identityRegistryAbi, eventName: "Registered", logs: receipt.logs });
  if (!event) throw new ChainError("precondition", `IdentityRegistry.register: no Registered event in ${hash}`);
  return {
    txHash: hash,
    blockNumber: receipt.blockNumber,
    agentId: event.args.agentId,
    owner: getAddress(event.args.owner),
  };
}

/** Seconds the signature stays valid (the registry accepts at most 5 minutes). */
export const AGENT_WALLET_DEADLINE_SECONDS = 240;

/**
 * Binds `walletKey`'s address as the agent's wallet: that key signs the EIP-712
 * AgentWalletSet(agentId, newWallet, owner, deadline) message, the agent's owner (ctx's key) sends it.
 */
export async function setAgentWallet(
  ctx: ChainContext,
  identity: Address,
  agentId: bigint,
  walletKey: Hex,
): Promise<TxInfo & { wallet: Address; deadline: bigint }> {
  const { account } = requireWallet(ctx);
  const wallet = privateKeyToAccount(walletKey);
  const [owner, authorized] = await agentReads(identity, agentId, () =>
    Promise.all([
      readView(ctx, viewCall(identity, identityRegistryAbi, "ownerOf", [agentId]), "IdentityRegistry.ownerOf"),
      readView(
        ctx,
        viewCall(identity, identityRegistryAbi, "isAuthorizedOrOwner", [account.address, agentId]),
        "IdentityRegistry.isAuthorizedOrOwner",
      ),
    ]),
  );
  if (!authorized)
    throw new ChainError("precondition", `${account.address} may not manage agent ${agentId} (owner ${owner})`);
  const block = await ctx.publicClient.getBlock({ blockTag: "latest" });
  const deadline = block.timestamp + BigInt(AGENT_WALLET_DEADLINE_SECONDS);
  const signature = await wallet.signTypedData({
    domain: { name: "ERC8004IdentityRegistry", version: "1", chainId: ctx.chainId, verifyingContract: identity },
    types: {
      AgentWalletSet: [
        { name: "agentId", type: "uint256" },
        { name: "newWallet", type: "address" },
        { name: "owner", type: "address" },
        { name: "deadline", type: "uint256" },
      ],
    },
    primaryType: "AgentWalletSet",
    message: { agentId, newWallet: wallet.address, owner, deadline },
  });
  const { hash, receipt } = await sendContractTx(ctx, {
    address: identity,
    abi: identityRegistryAbi,
    functionName: "setAgentWallet",
    args: [agentId, wallet.address, deadline, signature],
    label: "IdentityRegistry.setAgentWallet",
  });
  return { txHash: hash, blockNumber: receipt.blockNumber, wallet: wallet.address, deadline };
}

/** Per-market settings of `createMarketWith` (IResolutionMarket.MarketParams); omitted = the contract's default. */
export interface MarketParamsInput {
  admission?: AdmissionName;
  minCorrectness?: number;
  minSettled?: number;
  minStake?: bigint;
  maxWorkers?: number;
  disputeWindow?: number;
  bond?: bigint;
  arbiter?: Address;
  allowedAgents?: readonly bigint[];
}

export function encodeMarketParams(p: MarketParamsInput) {
  return {
    admission: ADMISSION_NAMES.indexOf(p.admission ?? "open"),
    minCorrectness: p.minCorrectness ?? 0,
    minSettled: p.minSettled ?? 0,
    minStake: p.minStake ?? 0n,
    maxWorkers: p.maxWorkers ?? 0,
    disputeWindow: p.disputeWindow ?? 0,
    bond: p.bond ?? 0n,
    arbiter: p.arbiter ?? zeroAddress,
    allowedAgents: [...(p.allowedAgents ?? [])],
  };
}

/** `createMarketWith` (explicit settings; zero values mean the defaults at creation). */
export async function createMarket(
  ctx: ChainContext,
  market: Address,
  question: string,
  deadline: bigint,
  reward: bigint,
  params: MarketParamsInput = {},
): Promise<TxInfo & { marketId: bigint }> {
  const { hash, receipt } = await sendContractTx(ctx, {
    address: market,
    abi: resolutionMarketAbi,
    functionName: "createMarketWith",
    args: [question, deadline, encodeMarketParams(params)],
    value: reward,
    label: "ResolutionMarket.createMarketWith",
  });
  const [event] = parseEventLogs({ abi: resolutionMarketAbi, eventName: "MarketCreated", logs: receipt.logs });
  if (!event)
    throw new ChainError("precondition", `ResolutionMarket.createMarketWith: no MarketCreated event in ${hash}`);
  return { txHash: hash, blockNumber: receipt.blockNumber, marketId: event.args.marketId };
}

/** Checks status, deadline, minimum stake and agent control before sending. */
export async function joinMarket(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
  agentId: bigint,
  stake: bigint,
  fromBlock = 0n,
): Promise<TxInfo> {
  const { account } = requireWallet(ctx);
  const state = await readMarketState(ctx, market, marketId, { reputation: false });
  if (state.statusName !== "Open")
    throw new ChainError("precondition", `market ${marketId} is ${state.statusName}: joining is closed`);
  const now = (await ctx.publicClient.getBlock({ blockTag: "latest" })).timestamp;
  if (now >= state.deadline)
    throw new ChainError(
      "precondition",
      `market ${marketId}: the deadline ${new Date(Number(state.deadline) * 1000).toISOString()} has passed, joining is closed`,
    );
  if (stake < state.config.minStake)
    throw new ChainError(
      "precondition",
      `insufficient stake: ${formatEther(stake)} ETH is below market ${marketId}'s minimum stake ${formatEther(state.config.minStake)} ETH`,
    );
  if (state.workers.length >= state.config.maxWorkers)
    throw new ChainError("precondition", `market ${marketId} is full (${state.config.maxWorkers} seats)`);
  if (state.workers.some((w) => w.agentId === agentId))
    throw new ChainError("precondition", `agent ${agentId} already holds a seat in market ${marketId}`);
  if (state.workers.some((w) => w.address === getAddress(account.address)))
    throw new ChainError("precondition", `${account.address} already holds a seat in market ${marketId}`);
  await requireAgentControl(ctx, market, agentId, account.address);
  const admitted = await isAdmitted(ctx, market, marketId, agentId, state.config, fromBlock);
  if (!admitted)
    throw new ChainError(
      "precondition",
      `agent ${agentId} is not admitted to market ${marketId} (${admissionRule(state.config)})`,
    );
  const { hash, receipt } = await sendContractTx(ctx, {
    address: market,
    abi: resolutionMarketAbi,
    functionName: "joinMarket",
    args: [marketId, agentId],
    value: stake,
    label: "ResolutionMarket.joinMarket",
  });
  return { txHash: hash, blockNumber: receipt.blockNumber };
}

/**
 * The market's rule for joining: the caller is the agent's owner, approved, an operator of the owner,
 * or the agent's verified wallet.
 */
async function requireAgentControl(
  ctx: ChainContext,
  market: Address,
  agentId: bigint,
  caller: Address,
): Promise<void> {
  const identity = await ctx.publicClient
    .readContract({ address: market, abi: resolutionMarketAbi, functionName: "identityRegistry" })
    .catch((e: unknown) => {
      throw toChainError(e, "ResolutionMarket.identityRegistry");
    });
  const [authorized, wallet] = await agentReads(identity, agentId, () =>
    Promise.all([
      readView(
        ctx,
        viewCall(identity, identityRegistryAbi, "isAuthorizedOrOwner", [caller, agentId]),
        "IdentityRegistry.isAuthorizedOrOwner",
      ),
      readView(
        ctx,
        viewCall(identity, identityRegistryAbi, "getAgentWallet", [agentId]),
        "IdentityRegistry.getAgentWallet",
      ),
    ]),
  );
  if (!authorized && getAddress(wallet) !== getAddress(caller)) {
    throw new ChainError(
      "precondition",
      `${caller} does not control agent ${agentId} (not its owner, approved, operator or agent wallet)`,
    );
  }
}

export async function requestResolution(
  ctx: ChainContext,
  market: Address,
  marketId: bigint,
): Promise<TxInfo & { status: string }> {
  const state = await readMarketState(ctx, market, marketId, { reputation: false });
  if (state.statusName !== "Open")
    throw new ChainError(
      "precondition",
      `market ${marketId} is ${state.statusName}: resolution was already requested or the market is settled`,
    );
  const now = (await ctx.publicClient.getBlock({ blockTag: "latest" })).timestamp;
  if (now < state.deadline)
    throw new ChainError(
      "precondition",
      `market ${marketId}: the deadline ${new Date(Number(state.deadline) * 1000).toISOString()} has not been reached`,
    );
  const { hash, receipt } = await sendContractTx(ctx, {
    address: market,
    abi: resolutionMarketAbi,
    functionName: "requestResolution",
    args: [marketId],
    label: "ResolutionMarket.requestResolution",
  });
  const after = await readMarketState(ctx, market, marketId, { reputation: false, blockNumber: receipt.blockNumber });
  return { txHash: hash, blockNumber: receipt.blockNumber, status: after.statusName };
}

export async function withdraw(ctx: ChainContext, market: Address): Promise<TxInfo & { amount: bigint }> {
  const { account } = requireWallet(ctx);
  const pending = await ctx.publicClient
    .readContract({
      address: market,
      abi: resolutionMarketAbi,
      functionName: "pendingWithdrawal",
      args: [account.address],
    })
    .catch((e: unknown) => {
      throw toChainError(e, "ResolutionMarket.pendingWithdrawal");
    });
  if (pending === 0n) throw new ChainError("precondition", `nothing to withdraw for ${account.address}`);
  const { hash, receipt } = await sendContractTx(ctx, {
    address: market,
    abi: resolutionMarketAbi,
    functionName: "withdraw",
    args: [],
    label: "ResolutionMarket.withdraw",
  });
  const [event] = parseEventLogs({ abi: resolutionMarketAbi, eventName: "Withdrawal", logs: receipt.logs });
  return { txHash: hash, blockNumber: receipt.blockNumber, amount: event?.args.amount ?? pending };
}

/** Refuses (before anything is sent) a key that is not a resolver active for `marketId`. */
export async function requireResolver(ctx: ChainContext, market: Address, marketId: bigint): Promise<void> {
  const { account } = requireWallet(ctx);
  const ok = await readMarket(ctx, market, "isResolverFor", [account.address, marketId]);
  if (!ok)
    throw new ChainError(
      "precondition",
      `${account.address} is not a resolver active for market ${marketId} on ${market} (a resolver queued after the market was created must wait for its timelock)`,
    );
}

/** Refuses a key that is not a resolver of the contract at all (neither active nor queued). For the daemon. */
export async function requireResolverKey(ctx: ChainContext, market: Address): Promise<{ activeFrom: bigint }> {
  const { account } = requireWallet(ctx);
  const activeFrom = await readGovernance(ctx, market, "resolverActiveFrom", [account.address]);
  if (activeFrom === 0n)
    throw new ChainError(
      "precondition",
      `${account.address} is not a resolver on market contract ${market} (the owner queues resolvers with queueResolver on the market's governance)`,
    );
  return { activeFrom };
}

/** "open", "track record: ≥ 3 settled, correctness ≥ 70", "allow-list". */
export function admissionRule(c: Pick<MarketConfigView, "admission" | "minSettled" | "minCorrectness">): string {
  if (c.admission === "track-record")
    return `track record: at least ${c.minSettled} settled markets here with average correctness ≥ ${c.minCorrectness}, counting only markets worth this market's floor per seat, not created by the agent's controller, settled with a seat of another owner or by an allowed arbiter`;
  return c.admission;
}

/** Reads about `agentId` in the identity registry; a revert (an agent it does not know) is a precondition error. */
async function agentReads<T>(identity: Address, agentId: bigint, reads: () => Promise<T>): Promise<T> {
  try {
    return await reads();
  } catch (error) {
    if (error instanceof ChainError && error.kind === "revert")
      throw new ChainError(
        "precondition",
        `unknown agent ${agentId}: no such agent in the identity registry ${identity}`,
      );
    throw error;
  }
}
