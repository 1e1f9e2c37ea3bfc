/**
 * A real ResolveJob / SettleInvalid for tests: reads the market from the chain, skips when it is no longer
 * awaiting resolution, simulates, then sends resolveMarket as the resolver with fixed weights (or
 * settleInvalid) and waits for the receipt. Nothing is mocked: every step is a JSON-RPC call.
 * Behaviour per market comes from tags in its question: "[no-quorum]" always answers no-quorum,
 * "[fail:N]" throws on attempts 1..N, "[slow:MS]" waits MS before answering (abortable).
 * No hardhat import here: the child-process daemon uses this file too.
 */
import {
  keccak256,
  parseAbi,
  stringToBytes,
  type Address,
  type Hex,
  type PublicClient,
  type WalletClient,
} from "viem";
import type { JobOutcome, ResolveJob, SettleInvalid } from "../../../../daemon/index.js";

export const marketAbi = parseAbi([
  "function createMarket(string question, uint64 deadline) payable returns (uint256 marketId)",
  "function joinMarket(uint256 marketId, uint256 agentId) payable",
  "function requestResolution(uint256 marketId)",
  "function addResolver(address resolver)",
  "function resolveMarket(uint256 marketId, address[] workers, uint256[] weights, uint8[] scores, bool resolution, bytes32 bundleHash, string bundleURI)",
  "function settleInvalid(uint256 marketId, bytes32 bundleHash, string bundleURI)",
  "function getWorkers(uint256 marketId) view returns (address[] workers, uint256[] agentIds, uint256[] stakes)",
  "function pendingWithdrawal(address account) view returns (uint256)",
  "function getMarket(uint256 marketId) view returns ((address creator, uint64 deadline, uint64 requestedAt, uint8 status, bool outcome, uint32 workerCount, uint256 rewardPool, uint256 totalStake, bytes32 bundleHash, string question))",
  "event MarketCreated(uint256 indexed marketId, address indexed creator, string question, uint64 deadline, uint256 rewardPool)",
  "event ResolutionRequested(uint256 indexed marketId, string question)",
  "event MarketResolved(uint256 indexed marketId, bool resolution, bytes32 bundleHash, string bundleURI)",
  "event MarketInvalidated(uint256 indexed marketId, bytes32 bundleHash, string bundleURI)",
  "error WrongStatus(uint256 marketId, uint8 status)",
  "error NotResolver(address account)",
  "error MarketNotFound(uint256 marketId)",
]);

export const STATUS = { None: 0, Open: 1, ResolutionRequested: 2, Resolved: 3, Invalid: 4, Cancelled: 5 } as const;

export interface ChainJobOptions {
  publicClient: PublicClient;
  wallet: WalletClient;
  market: Address;
  /** Called after "evaluation", right before the write (a test can hang or crash here). */
  beforeWrite?: (marketId: bigint) => Promise<void>;
  /** Called after the write's receipt, before returning. */
  afterWrite?: (marketId: bigint, txHash: Hex) => Promise<void>;
}

export interface ChainJobStats {
  runs: Map<bigint, number>;
  writes: Map<bigint, number>;
  invalidWrites: Map<bigint, number>;
  skipped: Map<bigint, number>;
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
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      reject(signal.reason);
    }, { once: true });
  });
}

export function createChainJob(o: ChainJobOptions): { resolveJob: ResolveJob; settleInvalid: SettleInvalid; stats: ChainJobStats } {
  const stats: ChainJobStats = { runs: new Map(), writes: new Map(), invalidWrites: new Map(), skipped: new Map(), startedAt: new Map() };
  const account = o.wallet.account!;
  const { publicClient, market } = o;

  const read = async (marketId: bigint) =>
    (await publicClient.readContract({ address: market, abi: marketAbi, functionName: "getMarket", args: [marketId] })) as {
      status: number;
      bundleHash: Hex;
      question: string;
    };

  /** Sends a simulated request and waits for its receipt, re-polling through dropped connections. */
  const sendAndWait = async (request: unknown): Promise<Hex> => {
    const hash = await o.wallet.writeContract(request as never);
    for (let i = 0; ; i++) {
      try {
        const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 25, timeout: 30_000 });
        if (receipt.status !== "success") throw new Error(`transaction ${hash} reverted`);
        return hash;
      } catch (err) {
        if (i >= 200 || (err instanceof Error && err.message.includes("reverted"))) throw err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };

  const resolveJob: ResolveJob = async (marketId, attempt, signal): Promise<JobOutcome> => {
    bump(stats.runs, marketId);
    stats.startedAt.set(marketId, [...(stats.startedAt.get(marketId) ?? []), Date.now()]);
    const m = await read(marketId);
    if (m.status !== STATUS.ResolutionRequested) {
      bump(stats.skipped, marketId);
      return { kind: "already-settled", bundleHash: m.bundleHash };
    }
    const slow = /\[slow:(\d+)\]/.exec(m.question);
    if (slow) await sleep(Number(slow[1]), signal);
    const fail = /\[fail:(\d+)\]/.exec(m.question);
    if (fail && attempt <= Number(fail[1])) throw new Error(`evaluator crashed on attempt ${attempt}`);

    const [workers] = (await publicClient.readContract({ address: market, abi: marketAbi, functionName: "getWorkers", args: [marketId] })) as [
      Address[],
      bigint[],
      bigint[],
    ];
    const chainId = await publicClient.getChainId();
    if (m.question.includes("[no-quorum]")) {
      const b = testBundle({ schema: "test-bundle", chainId, market, marketId, question: m.question, outcome: "no-quorum", answered: 0, required: workers.length });
      return { kind: "no-quorum", bundle: b.json, bundleHash: b.hash };
    }
    const b = testBundle({ schema: "test-bundle", chainId, market, marketId, question: m.question, outcome: "resolved", resolution: true, workers });
    signal.throwIfAborted();
    await o.beforeWrite?.(marketId);

    let request: unknown;
    try {
      ({ request } = await publicClient.simulateContract({
        address: market,
        abi: marketAbi,
        functionName: "resolveMarket",
        args: [marketId, workers, workers.map(() => 1n), workers.flatMap(() => [80, 70, 60]), true, b.hash, ""],
        account,
        chain: o.wallet.chain,
        gas: 6_000_000n,
      }));
    } catch (err) {
      // Someone settled it between our read and the simulation: no transaction sent.
      if ((await read(marketId)).status !== STATUS.ResolutionRequested) {
        bump(stats.skipped, marketId);
        return { kind: "already-settled" };
      }
      throw err;
    }
    let txHash: Hex;
    try {
      txHash = await sendAndWait(request);
    } catch (err) {
      const now = await read(marketId);
      if (now.status !== STATUS.ResolutionRequested && now.bundleHash !== b.hash) {
        bump(stats.skipped, marketId);
        return { kind: "already-settled" };
      }
      throw err;
    }
    bump(stats.writes, marketId);
    await o.afterWrite?.(marketId, txHash);
    return { kind: "written", txHash, bundle: b.json, bundleHash: b.hash };
  };

  const settleInvalid: SettleInvalid = async (marketId, bundleHash) => {
    const m = await read(marketId);
    if (m.status !== STATUS.ResolutionRequested) return { kind: "already-settled" };
    const { request } = await publicClient.simulateContract({
      address: market,
      abi: marketAbi,
      functionName: "settleInvalid",
      args: [marketId, bundleHash, ""],
      account,
      chain: o.wallet.chain,
    });
    const txHash = await sendAndWait(request);
    bump(stats.invalidWrites, marketId);
    return { txHash };
  };

  return { resolveJob, settleInvalid, stats };
}
