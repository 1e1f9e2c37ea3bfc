/**
 * Real daemon seams for tests (v2 market): `run` reads the seats from the chain and answers a verdict with
 * one report per seat; `propose` sends proposeResolution with the market's bond as the resolver; `finalize`
 * and `publishFeedback` send the permissionless calls; `read` is the daemon's own chain read. Nothing is
 * mocked: every step is a JSON-RPC call. Behaviour per market comes from tags in its question:
 * "[no-quorum]" always answers invalid (retryable, every seat failed), "[no-margin]" invalid (no margin),
 * "[verdict:no]" answers no, "[fail:N]" throws on attempts 1..N, "[slow:MS]" waits MS (abortable).
 * No hardhat import here: the child-process daemon uses this file too.
 */
import {
  keccak256,
  parseAbi,
  stringToBytes,
  zeroHash,
  type Address,
  type Hex,
  type PublicClient,
  type WalletClient,
} from "viem";
import type { MarketSeams, RunOutcome } from "../../../daemon/index.js";
import { readMarketOnChain } from "../../../daemon/chain.js";

export const marketAbi = parseAbi([
  "function createMarket(string question, uint64 deadline) payable returns (uint256 marketId)",
  "function joinMarket(uint256 marketId, uint256 agentId) payable",
  "function requestResolution(uint256 marketId)",
  "function governance() view returns (address)",
  "function reputation() view returns (address)",
  // MarketGovernance (the market's bounded owner, at governance()):
  "function queueResolver(address resolver)",
  "function queueDefaultArbiter(address arbiter)",
  "function setDefaults(uint96 minStake, uint8 maxWorkers, uint32 gracePeriod, uint32 disputeWindow, uint96 bond)",
  "function proposeResolution(uint256 marketId, uint8 verdict, (uint8 answer, uint16 confidenceBps, uint8 resQuality, uint8 srcQuality, uint8 analysisDepth, bytes32 replyHash, bytes signature)[] reports, bytes32 bundleHash, string bundleURI) payable",
  "function dispute(uint256 marketId, uint8 claimed) payable",
  "function finalize(uint256 marketId)",
  "function getMarketConfig(uint256 marketId) view returns ((uint64 createdAt, uint8 admission, uint8 minCorrectness, uint32 minSettled, uint96 minStake, uint8 maxWorkers, uint32 gracePeriod, uint32 disputeWindow, uint96 bond, address arbiter))",
  // MarketGovernance (the market's governance()): what a dispute costs.
  "function disputeBond(uint256 marketId) view returns (uint256)",
  "function getProposal(uint256 marketId) view returns ((address proposer, uint8 verdict, uint64 proposedAt, uint64 disputeEndsAt, uint96 bond, address disputer, uint8 claimed, uint64 disputedAt, bytes32 bundleHash, string bundleURI))",
  "function resolveDispute(uint256 marketId, uint8 verdict)",
  "function getWorkers(uint256 marketId) view returns (address[] workers, uint256[] agentIds, uint256[] stakes)",
  "function pendingWithdrawal(address account) view returns (uint256)",
  "function getMarket(uint256 marketId) view returns ((address creator, uint64 deadline, uint64 requestedAt, uint8 status, bool outcome, uint32 workerCount, uint256 rewardPool, uint256 totalStake, bytes32 bundleHash, string question))",
  "event MarketCreated(uint256 indexed marketId, address indexed creator, string question, uint64 deadline, uint256 rewardPool)",
  "event ResolutionRequested(uint256 indexed marketId, string question)",
  "event ResolutionProposed(uint256 indexed marketId, address indexed proposer, uint8 verdict, bytes32 bundleHash, string bundleURI, uint64 disputeEndsAt, (uint8 answer, uint16 confidenceBps, uint8 resQuality, uint8 srcQuality, uint8 analysisDepth, bytes32 replyHash, bytes signature)[] reports)",
  "event ProposalDisputed(uint256 indexed marketId, address indexed disputer, uint8 claimed, address arbiter)",
  "event MarketFinalized(uint256 indexed marketId, uint8 status, bool outcome, bool disputed)",
  "error WrongStatus(uint256 marketId, uint8 status)",
  "error NotResolver(address account, uint256 marketId)",
  "error DisputeWindowOpen(uint256 marketId, uint64 endsAt)",
  "error MarketNotFound(uint256 marketId)",
]);

/** The market's feedback writer (MarketReputation, at the market's reputation()): deferred ERC-8004 records. */
export const writerAbi = parseAbi([
  "function publishFeedback(uint256 marketId, uint256 maxWorkers) returns (uint256 published)",
  "function feedbackStatus(uint256 marketId) view returns (uint256 cursor, uint256 pending)",
]);

export const STATUS = {
  None: 0,
  Open: 1,
  ResolutionRequested: 2,
  Resolved: 3,
  Invalid: 4,
  Cancelled: 5,
  Proposed: 6,
  Disputed: 7,
} as const;
export const VERDICT = { no: 0, yes: 1, invalid: 2 } as const;

export interface ChainJobOptions {
  publicClient: PublicClient;
  wallet: WalletClient;
  market: Address;
  /** Called right before the proposal is sent (a test can hang or crash here). */
  beforeWrite?: (marketId: bigint) => Promise<void>;
  /** Called once the proposal is sent, before its receipt is awaited. */
  afterSend?: (marketId: bigint, txHash: Hex) => Promise<void>;
  /** Called after the proposal's receipt, before returning. */
  afterWrite?: (marketId: bigint, txHash: Hex) => Promise<void>;
}

export interface ChainJobStats {
  runs: Map<bigint, number>;
  /** Proposals sent (receipt seen). */
  writes: Map<bigint, number>;
  invalidWrites: Map<bigint, number>;
  finalizes: Map<bigint, number>;
  feedbackBatches: Map<bigint, number>;
  escalations: Map<bigint, number>;
  reads: Map<bigint, number>;
  /** Date.now() at each run's start. */
  startedAt: Map<bigint, number[]>;
}

const bump = (m: Map<bigint, number>, k: bigint) => m.set(k, (m.get(k) ?? 0) + 1);

/** Canonical JSON (sorted keys, no whitespace) of a small deterministic bundle. */
export function testBundle(doc: Record<string, unknown>): { json: string; hash: Hex } {
  const canon = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.map(canon).join(",")}]`;
    if (v && typeof v === "object") {
      return `{${Object.keys(v)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${canon((v as Record<string, unknown>)[k])}`)
        .join(",")}}`;
    }
    return JSON.stringify(typeof v === "bigint" ? v.toString(10) : v);
  };
  const json = canon(doc);
  return { json, hash: keccak256(stringToBytes(json)) };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

export type ChainJob = MarketSeams & { stats: ChainJobStats };

export function createChainJob(o: ChainJobOptions): ChainJob {
  const stats: ChainJobStats = {
    runs: new Map(),
    writes: new Map(),
    invalidWrites: new Map(),
    finalizes: new Map(),
    feedbackBatches: new Map(),
    escalations: new Map(),
    reads: new Map(),
    startedAt: new Map(),
  };
  const account = o.wallet.account!;
  const { publicClient, market } = o;

  const question = async (marketId: bigint) =>
    (
      (await publicClient.readContract({
        address: market,
        abi: marketAbi,
        functionName: "getMarket",
        args: [marketId],
      })) as { question: string }
    ).question;

  /** Sends a simulated request; returns the hash at once and a receipt promise (re-polling through dropped connections). */
  const send = async (request: unknown): Promise<{ hash: Hex; mined: Promise<void> }> => {
    const hash = await o.wallet.writeContract(request as never);
    const mined = (async () => {
      for (let i = 0; ; i++) {
        try {
          const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 25, timeout: 30_000 });
          if (receipt.status !== "success") throw new Error(`transaction ${hash} reverted`);
          return;
        } catch (err) {
          if (i >= 200 || (err instanceof Error && err.message.includes("reverted"))) throw err;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    })();
    return { hash, mined };
  };
  const call = async (functionName: string, args: readonly unknown[], value?: bigint, gas?: bigint): Promise<Hex> => {
    const { request } = await publicClient.simulateContract({
      address: market,
      abi: marketAbi,
      functionName,
      args,
      account,
      chain: o.wallet.chain,
      ...(value !== undefined ? { value } : {}),
      ...(gas !== undefined ? { gas } : {}),
    } as never);
    const { hash, mined } = await send(request);
    await mined;
    return hash;
  };

  const run = async (marketId: bigint, attempt: number, signal: AbortSignal): Promise<RunOutcome> => {
    bump(stats.runs, marketId);
    stats.startedAt.set(marketId, [...(stats.startedAt.get(marketId) ?? []), Date.now()]);
    const q = await question(marketId);
    const slow = /\[slow:(\d+)\]/.exec(q);
    if (slow) await sleep(Number(slow[1]), signal);
    const fail = /\[fail:(\d+)\]/.exec(q);
    if (fail && attempt <= Number(fail[1])) throw new Error(`evaluator crashed on attempt ${attempt}`);
    const [workers] = (await publicClient.readContract({
      address: market,
      abi: marketAbi,
      functionName: "getWorkers",
      args: [marketId],
    })) as [Address[], bigint[], bigint[]];
    const chainId = await publicClient.getChainId();
    signal.throwIfAborted();
    const failed = { answer: 0, confidenceBps: 0, resQuality: 0, srcQuality: 0, analysisDepth: 0 };
    if (q.includes("[no-quorum]")) {
      const b = testBundle({
        schema: "test-bundle",
        chainId,
        market,
        marketId,
        question: q,
        verdict: "invalid",
        reason: "no-quorum",
        attempt,
      });
      return {
        verdict: "invalid",
        reason: "no-quorum",
        retry: true,
        bundle: b.json,
        bundleHash: b.hash,
        payload: { reports: workers.map(() => failed) },
      };
    }
    const verdict = q.includes("[no-margin]") ? "invalid" : q.includes("[verdict:no]") ? "no" : "yes";
    const answer = q.includes("[verdict:no]") ? 2 : 3;
    const reports = workers.map(() => ({
      answer,
      confidenceBps: 8000,
      resQuality: 80,
      srcQuality: 70,
      analysisDepth: 60,
    }));
    const b = testBundle({ schema: "test-bundle", chainId, market, marketId, question: q, verdict, workers });
    return {
      verdict,
      ...(verdict === "invalid" ? { reason: "no-margin" } : {}),
      bundle: b.json,
      bundleHash: b.hash,
      payload: { reports },
    };
  };

  const propose: MarketSeams["propose"] = async (marketId, input, hooks) => {
    const m = await readMarketOnChain(publicClient, market, marketId);
    if (m.status !== "requested") return { kind: "not-requested" };
    const [workers] = (await publicClient.readContract({
      address: market,
      abi: marketAbi,
      functionName: "getWorkers",
      args: [marketId],
    })) as [Address[], bigint[], bigint[]];
    // Reports without the round-3 fields (docs/RECORDS.md §2) are sent attested: zero replyHash, empty signature.
    const reports = (
      (input.payload as { reports?: object[] } | null)?.reports ??
      workers.map(() => ({ answer: 0, confidenceBps: 0, resQuality: 0, srcQuality: 0, analysisDepth: 0 }))
    ).map((r) => ({ replyHash: zeroHash, signature: "0x", ...r }));
    const config = (await publicClient.readContract({
      address: market,
      abi: marketAbi,
      functionName: "getMarketConfig",
      args: [marketId],
    })) as { bond: bigint };
    await o.beforeWrite?.(marketId);
    let request: unknown;
    try {
      ({ request } = await publicClient.simulateContract({
        address: market,
        abi: marketAbi,
        functionName: "proposeResolution",
        args: [marketId, VERDICT[input.verdict], reports, input.bundleHash, input.bundleURI],
        value: config.bond,
        account,
        chain: o.wallet.chain,
        gas: 6_000_000n,
      } as never));
    } catch (err) {
      if ((await readMarketOnChain(publicClient, market, marketId)).status !== "requested")
        return { kind: "not-requested" };
      throw err;
    }
    const { hash, mined } = await send(request);
    hooks.onSent(hash);
    await o.afterSend?.(marketId, hash);
    await mined;
    bump(input.verdict === "invalid" ? stats.invalidWrites : stats.writes, marketId);
    await o.afterWrite?.(marketId, hash);
    return { txHash: hash };
  };

  return {
    account: account.address,
    stats,
    read: async (marketId) => {
      bump(stats.reads, marketId);
      return readMarketOnChain(publicClient, market, marketId);
    },
    run,
    propose,
    finalize: async (marketId) => {
      const m = await readMarketOnChain(publicClient, market, marketId);
      if (m.status !== "proposed") return { kind: "not-needed" };
      try {
        const txHash = await call("finalize", [marketId], undefined, 12_000_000n);
        bump(stats.finalizes, marketId);
        return { txHash };
      } catch (err) {
        if (
          (await readMarketOnChain(publicClient, market, marketId)).status !== "proposed" ||
          String(err).includes("DisputeWindowOpen")
        )
          return { kind: "not-needed" };
        throw err;
      }
    },
    publishFeedback: async (marketId) => {
      const writer = (await publicClient.readContract({
        address: market,
        abi: marketAbi,
        functionName: "reputation",
      })) as Address;
      const status = async () =>
        (
          (await publicClient.readContract({
            address: writer,
            abi: writerAbi,
            functionName: "feedbackStatus",
            args: [marketId],
          })) as readonly [bigint, bigint]
        )[1];
      const before = await status();
      if (before === 0n) return { published: 0, pending: 0 };
      // Explicit gas: an estimate can be just enough for a batch that writes nothing.
      const { request } = await publicClient.simulateContract({
        address: writer,
        abi: writerAbi,
        functionName: "publishFeedback",
        args: [marketId, 10n],
        account,
        chain: o.wallet.chain,
        gas: 12_000_000n,
      } as never);
      const { hash, mined } = await send(request);
      await mined;
      bump(stats.feedbackBatches, marketId);
      const after = await status();
      return { published: Number(before - after), pending: Number(after), txHash: hash };
    },
    escalate: async (marketId) => {
      bump(stats.escalations, marketId);
      return { action: "escalated" };
    },
  };
}
