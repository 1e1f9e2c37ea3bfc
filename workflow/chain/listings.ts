/**
 * Read-only overviews for the CLI (and the explorer): every market of a contract, the agents known to it, one
 * agent's registration and track record, and what an address is owed. Built on the shared log reader, the
 * one-block multicall and the public track record; nothing here writes.
 */
import type { Address } from "viem";
import { bettingMarketAbi, identityRegistryAbi, reputationRegistryAbi, resolutionMarketAbi } from "./abis.js";
import type { ChainContext } from "./clients.js";
import { STATUS_NAMES, toChainError } from "./errors.js";
import { feedbackClientOf, getReputation, readMarket, type ReputationView } from "./lifecycle.js";
import { readContractLogs, readLogs } from "./logs.js";
import { readView, viewCall } from "./reads.js";
import { readMany, type StatusName } from "./snapshot.js";
import { ANSWER_NAMES } from "../core/codes.js";
import { STATUS_RESOLVED } from "../core/track-record.js";
import { readRecordHead } from "./record.js";
import { readRecordEntries } from "./track-record.js";

export interface MarketSummary {
  marketId: bigint;
  status: StatusName;
  question: string;
  creator: Address;
  deadline: bigint;
  rewardPool: bigint;
  totalStake: bigint;
  workerCount: number;
  /** "YES" / "NO" once Resolved, else null. */
  outcome: "YES" | "NO" | null;
}

/** Every market created on `market` since `fromBlock`, oldest first, read in one block. */
export async function listMarkets(ctx: ChainContext, market: Address, fromBlock = 0n): Promise<MarketSummary[]> {
  const block = await ctx.publicClient.getBlockNumber({ cacheTime: 0 });
  const created = await readLogs(ctx, market, "MarketCreated", { fromBlock, toBlock: block });
  const ids = created.map((l) => l.args.marketId);
  if (ids.length === 0) return [];
  const { results } = await readMany(
    ctx,
    ids.map((id) => viewCall(market, resolutionMarketAbi, "getMarket", [id])),
    block,
  );
  return ids.map((marketId, i) => {
    const r = results[i];
    if (r?.status !== "success") throw toChainError(r?.error, `ResolutionMarket.getMarket(${marketId})`);
    const m = r.result;
    const status = STATUS_NAMES[m.status] ?? "None";
    return {
      marketId,
      status,
      question: m.question,
      creator: m.creator,
      deadline: m.deadline,
      rewardPool: m.rewardPool,
      totalStake: m.totalStake,
      workerCount: Number(m.workerCount),
      outcome: status === "Resolved" ? (m.outcome ? "YES" : "NO") : null,
    };
  });
}

export interface AgentSummary {
  agentId: bigint;
  /** Registrant (from `Registered`); null for agents seen only through `WorkerJoined`. */
  registeredBy: Address | null;
  /** Markets of this contract the agent took a seat in. */
  markets: bigint[];
}

/** Agents registered in `identity` and agents that joined markets of `market`, both since `fromBlock`, by id. */
export async function listAgents(
  ctx: ChainContext,
  identity: Address,
  market: Address,
  fromBlock = 0n,
): Promise<AgentSummary[]> {
  const [registered, joined] = await Promise.all([
    readContractLogs(ctx, identity, identityRegistryAbi, "Registered", { fromBlock }),
    readLogs(ctx, market, "WorkerJoined", { fromBlock }),
  ]);
  const agents = new Map<bigint, AgentSummary>();
  const entry = (id: bigint): AgentSummary => {
    const known = agents.get(id);
    if (known !== undefined) return known;
    const fresh: AgentSummary = { agentId: id, registeredBy: null, markets: [] };
    agents.set(id, fresh);
    return fresh;
  };
  for (const l of registered) entry(l.args.agentId).registeredBy = l.args.owner;
  for (const l of joined) entry(l.args.agentId).markets.push(l.args.marketId);
  return [...agents.values()].sort((a, b) => (a.agentId < b.agentId ? -1 : 1));
}

export interface AgentRecordEntry {
  marketId: bigint;
  answer: string;
  confidenceBps: number;
  final: boolean | "invalid";
  /** The answer matched the final outcome (null when the market ended Invalid or the seat failed). */
  correct: boolean | null;
  disputed: boolean;
}

export interface AgentDetails {
  agentId: bigint;
  owner: Address;
  agentWallet: Address;
  agentURI: string;
  /** The market contract's on-chain record of the agent. */
  reputation: ReputationView;
  /** ERC-8004 feedback this market gave the agent (count, summary value and its decimals). */
  erc8004: { count: bigint; value: bigint; decimals: number } | null;
  trackRecord: AgentRecordEntry[];
}

/** One agent: registration, the market's record, ERC-8004 summary from this market, and its answers in finalized markets. */
export async function agentDetails(
  ctx: ChainContext,
  identity: Address,
  market: Address,
  agentId: bigint,
  fromBlock = 0n,
): Promise<AgentDetails> {
  const label = (view: string) => `IdentityRegistry.${view}(${agentId})`;
  const owner = await readView(ctx, viewCall(identity, identityRegistryAbi, "ownerOf", [agentId]), label("ownerOf"));
  const [agentWallet, agentURI, reputation, history] = await Promise.all([
    readView(ctx, viewCall(identity, identityRegistryAbi, "getAgentWallet", [agentId]), label("getAgentWallet")),
    readView(ctx, viewCall(identity, identityRegistryAbi, "tokenURI", [agentId]), label("tokenURI")),
    getReputation(ctx, market, agentId),
    readRecordHead(ctx, market).then((head) => readRecordEntries(ctx, market, head, { fromBlock })),
  ]);
  let erc8004: AgentDetails["erc8004"] = null;
  try {
    const registry = await readMarket(ctx, market, "reputationRegistry", []);
    const client = await feedbackClientOf(ctx, market);
    const [count, value, decimals] = await ctx.publicClient.readContract({
      address: registry,
      abi: reputationRegistryAbi,
      functionName: "getSummary",
      args: [agentId, [client], "", ""],
    });
    erc8004 = { count, value, decimals: Number(decimals) };
  } catch {
    /* a registry without getSummary: no summary */
  }
  const trackRecord: AgentRecordEntry[] = [];
  for (const e of history) {
    const seat = e.seats.find((a) => a.agentId === agentId);
    if (seat === undefined) continue;
    const answer = ANSWER_NAMES[seat.answer] ?? "failed";
    const final = e.status === STATUS_RESOLVED ? e.outcome : "invalid";
    const answered = answer === "yes" || answer === "no";
    const correct = final === "invalid" || !answered ? null : (answer === "yes") === final;
    trackRecord.push({
      marketId: e.marketId,
      answer,
      confidenceBps: seat.confidenceBps,
      final,
      correct,
      disputed: e.disputed,
    });
  }
  return { agentId, owner, agentWallet, agentURI, reputation, erc8004, trackRecord };
}

export interface Owed {
  account: Address;
  /** ResolutionMarket's pull balance (rewards, stakes, bonds, refunds): `market withdraw`. */
  market: bigint;
  /** BettingMarket claims per market (winnings or refunds): `bet claim <id>`. */
  bets: { marketId: bigint; amount: bigint }[];
  total: bigint;
}

/** What `account` can collect now: the market's pending withdrawal and every claimable bet. */
export async function owedTo(
  ctx: ChainContext,
  market: Address,
  betting: Address | undefined,
  account: Address,
  fromBlock = 0n,
): Promise<Owed> {
  const marketOwed = await readMarket(ctx, market, "pendingWithdrawal", [account]);
  const bets: Owed["bets"] = [];
  if (betting !== undefined) {
    // Bets are claimed per market: every market the account bet on, then what each pays now.
    const placed = await readContractLogs(
      ctx,
      betting,
      bettingMarketAbi,
      "BetPlaced",
      { fromBlock },
      { bettor: account },
    );
    const ids = [...new Set(placed.map((l) => l.args.marketId))];
    const block = await ctx.publicClient.getBlockNumber({ cacheTime: 0 });
    const { results } = await readMany(
      ctx,
      ids.map((id) => viewCall(betting, bettingMarketAbi, "claimable", [id, account])),
      block,
    );
    ids.forEach((marketId, i) => {
      const r = results[i];
      if (r?.status === "success" && r.result > 0n) bets.push({ marketId, amount: r.result });
    });
  }
  return { account, market: marketOwed, bets, total: bets.reduce((s, b) => s + b.amount, marketOwed) };
}
