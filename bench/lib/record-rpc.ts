/**
 * A synthetic JSON-RPC node on loopback for bench/trackrecord.ts, run as its own process (so the resolver's RSS
 * and CPU are measured apart). It serves one ResolutionMarket's track record with the real event encoding
 * (workflow/chain/record.ts `recordAbi`, heads by the RECORDS §3 step) on a chain `height` blocks high, with a
 * provider's limits: `delayMs` added to every request and at most 10,000 results per eth_getLogs (Infura's -32005
 * "query returned more than 10000 results. Try with this block range [a, b]."). Methods: eth_chainId,
 * eth_blockNumber, eth_getBlockByNumber, eth_getLogs, eth_call (recordHead), and bench_advance / bench_stats.
 *
 * argv: port-file markets height delayMs
 */
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import {
  decodeFunctionData,
  encodeAbiParameters,
  encodeEventTopics,
  encodeFunctionResult,
  keccak256,
  toHex,
} from "viem";
import { chainStep, type RecordEntry, ZERO_HEAD } from "../../workflow/core/track-record.js";
import type { Hex } from "../../workflow/core/types.js";
import { recordAbi } from "../../workflow/chain/record.js";

const [portFile, marketsArg, heightArg, delayArg] = process.argv.slice(2);
const MARKET = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
const DEPLOY = 1_000_000;
const CAP = 10_000;
const delayMs = Number(delayArg);
let height = Number(heightArg);
const n0 = Number(marketsArg);

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const r = rng(42);
/** Entry i: 7 seats from 30 agents, 80 % right, 10 % failed, 10 % disputed, 5 % invalid. */
function makeEntry(index: number): RecordEntry {
  const truth = r() < 0.5;
  const invalid = r() < 0.05;
  const disputed = r() < 0.1;
  const first = Math.floor(r() * 30);
  return {
    index,
    marketId: BigInt(index + 1),
    status: invalid ? 4 : 3,
    outcome: !invalid && truth,
    disputed,
    arbiter: disputed ? "0x3333333333333333333333333333333333333333" : "0x0000000000000000000000000000000000000000",
    creator:
      index % 3 === 0 ? "0x1111111111111111111111111111111111111111" : "0x2222222222222222222222222222222222222222",
    value: 10n ** 17n + BigInt(index),
    seats: Array.from({ length: 7 }, (_, s) => {
      const failed = r() < 0.1;
      return {
        agentId: BigInt(((first + s) % 30) + 1),
        answer: failed ? 0 : (r() < 0.8 ? truth : !truth) ? 3 : 2,
        confidenceBps: failed ? 0 : 5000 + Math.floor(r() * 5001),
        signed: r() < 0.5,
      };
    }),
  };
}

const blocks: number[] = [];
const heads: Hex[] = [ZERO_HEAD];
const entries: RecordEntry[] = [];
function add(e: RecordEntry, block: number): void {
  entries.push(e);
  blocks.push(block);
  heads.push(chainStep(heads[heads.length - 1], e));
}
for (let i = 0; i < n0; i++) add(makeEntry(i), DEPLOY + Math.floor(((i + 1) * (height - DEPLOY - 10)) / (n0 + 1)));

const blockHash = (n: number): Hex => keccak256(toHex(`block-${n}`));
const [topic0] = encodeEventTopics({ abi: recordAbi, eventName: "MarketRecorded" });
const entryParam = recordAbi.find((x) => x.type === "event" && x.name === "MarketRecorded");
if (entryParam?.type !== "event") throw new Error("no MarketRecorded");
const dataParams = entryParam.inputs.filter((i) => !("indexed" in i && i.indexed));

function logOf(i: number) {
  const e = entries[i];
  const data = encodeAbiParameters(dataParams, [
    heads[i + 1],
    {
      status: e.status,
      outcome: e.outcome,
      disputed: e.disputed,
      arbiter: e.arbiter,
      creator: e.creator,
      value: e.value,
      seats: e.seats,
    },
  ]);
  const b = blocks[i];
  return {
    address: MARKET,
    topics: [topic0, toHex(e.marketId, { size: 32 }), toHex(BigInt(i), { size: 32 })],
    data,
    blockNumber: toHex(b),
    blockHash: blockHash(b),
    transactionHash: keccak256(toHex(`tx-${i}`)),
    transactionIndex: "0x0",
    logIndex: "0x0",
    removed: false,
  };
}

/** First entry at or after `block` (blocks are ascending). */
function lowerBound(block: number): number {
  let lo = 0;
  let hi = blocks.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (blocks[mid] < block) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
const num = (tag: unknown): number => (tag === "latest" || tag === undefined ? height : Number(tag));

let requests = 0;
type Req = { id: unknown; method: string; params?: unknown[] };
function handle(req: Req): unknown {
  const p = req.params ?? [];
  switch (req.method) {
    case "eth_chainId":
      return "0x7a69";
    case "eth_blockNumber":
      return toHex(height);
    case "eth_getBlockByNumber": {
      const n = num(p[0]);
      if (n > height) return null;
      return {
        number: toHex(n),
        hash: blockHash(n),
        parentHash: blockHash(n - 1),
        timestamp: toHex(1_700_000_000 + n * 2),
        nonce: "0x0000000000000000",
        difficulty: "0x0",
        gasLimit: "0x1c9c380",
        gasUsed: "0x0",
        miner: "0x0000000000000000000000000000000000000000",
        extraData: "0x",
        logsBloom: `0x${"0".repeat(512)}`,
        transactionsRoot: ZERO_HEAD,
        stateRoot: ZERO_HEAD,
        receiptsRoot: ZERO_HEAD,
        sha3Uncles: ZERO_HEAD,
        size: "0x0",
        totalDifficulty: "0x0",
        baseFeePerGas: "0x1",
        transactions: [],
        uncles: [],
      };
    }
    case "eth_getLogs": {
      const f = p[0] as { address?: string; topics?: (string | null)[]; fromBlock?: string; toBlock?: string };
      if (f.address !== undefined && f.address.toLowerCase() !== MARKET) return [];
      if (f.topics?.[0] !== undefined && f.topics[0] !== null && f.topics[0] !== topic0) return [];
      const from = num(f.fromBlock);
      const to = Math.min(num(f.toBlock), height);
      const wantIndex = f.topics?.[2];
      if (typeof wantIndex === "string") {
        const i = Number(BigInt(wantIndex));
        return i < entries.length && blocks[i] >= from && blocks[i] <= to ? [logOf(i)] : [];
      }
      const a = lowerBound(from);
      const b = lowerBound(to + 1);
      if (b - a > CAP) {
        const suggest = Math.max(from, blocks[a + CAP] - 1);
        throw {
          code: -32005,
          message: `query returned more than ${CAP} results. Try with this block range [${toHex(from)}, ${toHex(suggest)}].`,
        };
      }
      const out = [];
      for (let i = a; i < b; i++) out.push(logOf(i));
      return out;
    }
    case "eth_call": {
      const call = p[0] as { to?: string; data?: Hex };
      const { functionName } = decodeFunctionData({ abi: recordAbi, data: call.data ?? "0x" });
      if (functionName !== "recordHead") throw { code: -32000, message: "execution reverted" };
      const count = lowerBound(num(p[1]) + 1);
      return encodeFunctionResult({
        abi: recordAbi,
        functionName: "recordHead",
        result: [BigInt(count), heads[count]],
      });
    }
    case "bench_advance": {
      const k = Number(p[0]);
      for (let j = 0; j < k; j++) add(makeEntry(entries.length), height + 1 + j);
      height += k + 1;
      return entries.length;
    }
    case "bench_stats":
      return { requests, count: entries.length, height };
    default:
      throw { code: -32601, message: `method ${req.method} not found` };
  }
}

const server = createServer((req, res) => {
  let body = "";
  req.on("data", (c: Buffer) => {
    body += c.toString();
  });
  req.on("end", () => {
    const parsed = JSON.parse(body) as Req | Req[];
    const list = Array.isArray(parsed) ? parsed : [parsed];
    const counted = list.filter((q) => !q.method.startsWith("bench_")).length;
    requests += counted;
    const answer = list.map((q) => {
      try {
        return { jsonrpc: "2.0", id: q.id, result: handle(q) };
      } catch (e) {
        return { jsonrpc: "2.0", id: q.id, error: e as object };
      }
    });
    setTimeout(
      () => {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify(Array.isArray(parsed) ? answer : answer[0]));
      },
      counted > 0 ? delayMs : 0,
    );
  });
});
server.listen(0, "127.0.0.1", () => {
  const addr = server.address();
  if (addr === null || typeof addr === "string") throw new Error("no port");
  writeFileSync(portFile, String(addr.port));
});
