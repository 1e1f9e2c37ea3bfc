/**
 * The explorer's data layer: every chain read goes through workflow/chain (snapshot, lifecycle, track record,
 * betting, ports); the published bundle comes from the daemon's store when it has it, else from the proposal's
 * bundleURI through the guarded HTTP client (http/https only, capped, timed out). Nothing here renders HTML.
 */
import { getAddress, zeroAddress, type Address, type Hex } from "viem";
import { reputationRegistryAbi } from "../workflow/chain/abis.js";
import { betPosition } from "../workflow/chain/betting.js";
import type { ChainContext } from "../workflow/chain/clients.js";
import { toChainError } from "../workflow/chain/errors.js";
import { getReports, getSeatResults, readMarket, type SeatResult } from "../workflow/chain/lifecycle.js";
import { readAgentNames, readSettlementFacts } from "../workflow/chain/market-facts.js";
import { createChainPorts } from "../workflow/chain/ports.js";
import { readMarketState, type MarketState } from "../workflow/chain/snapshot.js";
import { readLogs } from "../workflow/chain/logs.js";
import { readRecordHead } from "../workflow/chain/record.js";
import { readRecordEntries } from "../workflow/chain/track-record.js";
import { ANSWER_NAMES } from "../workflow/core/codes.js";
import { type RecordEntry, STATUS_RESOLVED } from "../workflow/core/track-record.js";
import type { SettlementFacts } from "../workflow/core/explain.js";
import type { WorkerReport } from "../workflow/core/types.js";
import type { SafeHttpClient } from "../workflow/http/index.js";
import { decodeAgentUri, DEFAULT_WORKER_PROTOCOL } from "../workflow/registration/index.js";

/** Bundles larger than this are not fetched (the daemon's own are far smaller). */
export const MAX_BUNDLE_BYTES = 2 * 1024 * 1024;
export const BUNDLE_TIMEOUT_MS = 10_000;
/** Markets per page of the list (newest first). */
export const MARKETS_PER_PAGE = 50;
/** The newest markets per contract whose seats the agents page lists. */
export const MAX_AGENT_MARKETS = 200;
/** How long a registration-file name is reused before it is read again. */
const NAME_TTL_MS = 5 * 60_000;

export interface ExplorerSource {
  /** Read-only use: no write is ever sent. */
  ctx: ChainContext;
  /** ResolutionMarket contracts shown. */
  markets: Address[];
  /** A BettingMarket on the first market contract: its pools are shown per market. */
  betting?: Address;
  /** Exact bundle text by keccak256 (the daemon's store); checked before any URI is fetched. */
  localBundle?: (hash: Hex) => string | undefined;
  /** Fetches bundleURIs and registration files; without it only local bundles and data: URIs are read. */
  http?: SafeHttpClient;
  /** First block of log scans (deployment block). Default 0. */
  fromBlock?: bigint;
  /** The daemon's track-record index of a market contract (docs/RECORDS.md §3), when the explorer runs in one. */
  records?: (market: Address) => RecordEntrySource | undefined;
}

/** What the agent page needs of a track-record index (daemon/record-index.ts's RecordIndex). */
export interface RecordEntrySource {
  sync(ctx: ChainContext): Promise<{ count: number }>;
  entries(from: number, to: number): RecordEntry[];
}

export interface MarketRow {
  market: Address;
  id: bigint;
  status: string;
  question: string;
  deadline: bigint;
  pool: bigint;
  /** "yes" / "no" / "invalid" once final; "proposed: yes" while a proposal waits; "" before. */
  outcome: string;
  disputeEndsAt: bigint;
  /** "none", or "by <address>, claiming <VERDICT>". */
  dispute: string;
  workers: { agentId: bigint; address: Address }[];
}

export function rowOf(s: MarketState): MarketRow {
  const p = s.proposal;
  const outcome =
    s.statusName === "Resolved"
      ? s.outcome
        ? "yes"
        : "no"
      : s.statusName === "Invalid"
        ? "invalid"
        : p !== undefined && (s.statusName === "Proposed" || s.statusName === "Disputed")
          ? `proposed: ${p.verdict}`
          : "";
  return {
    market: s.market,
    id: s.marketId,
    status: s.statusName,
    question: s.question,
    deadline: s.deadline,
    pool: s.rewardPool,
    outcome,
    disputeEndsAt: p?.disputeEndsAt ?? 0n,
    dispute: p?.dispute ? `by ${p.dispute.disputer}, claiming ${p.dispute.claimed.toUpperCase()}` : "none",
    workers: s.workers.map((w) => ({ agentId: w.agentId, address: w.address })),
  };
}

/** One market's row (the market page's live facts). */
export async function marketRow(src: ExplorerSource, market: Address, id: bigint): Promise<MarketRow> {
  return rowOf(await readMarketState(src.ctx, market, id, { reputation: false }));
}

export interface MarketPage {
  rows: MarketRow[];
  /** Markets over all contracts. */
  total: number;
  page: number;
  pages: number;
}

/** The first market contract: its registries and directory are the deployment's. */
function primaryMarket(src: ExplorerSource): Address {
  const [first] = src.markets;
  if (first === undefined) throw new Error("the explorer shows no market contract");
  return first;
}

/** One page of the markets of every contract (contracts in order, each newest first). */
export async function listMarkets(src: ExplorerSource, page = 1, perPage = MARKETS_PER_PAGE): Promise<MarketPage> {
  const counts = await Promise.all(src.markets.map((m) => readMarket(src.ctx, m, "marketCount", [])));
  const total = counts.reduce((a, b) => a + Number(b), 0);
  const pages = Math.max(1, Math.ceil(total / perPage));
  const p = Math.min(Math.max(1, page), pages);
  const wanted: { market: Address; id: bigint }[] = [];
  let skip = (p - 1) * perPage;
  src.markets.forEach((market, i) => {
    for (let id = counts[i] ?? 0n; id >= 1n && wanted.length < perPage; id--) {
      if (skip > 0) skip--;
      else wanted.push({ market, id });
    }
  });
  const states = await Promise.all(
    wanted.map(({ market, id }) => readMarketState(src.ctx, market, id, { reputation: false })),
  );
  return { rows: states.map(rowOf), total, page: p, pages };
}

export type BundleLoad =
  | { state: "loaded"; text: string; source: "daemon store" | string }
  | { state: "unavailable"; reason: string };

/** The proposal's bundle: local store first, else its http(s) bundleURI through the guarded client. */
export async function loadBundle(src: ExplorerSource, hash: Hex, uri: string): Promise<BundleLoad> {
  if (/^0x0{64}$/.test(hash)) return { state: "unavailable", reason: "no bundle hash on chain yet" };
  const local = src.localBundle?.(hash);
  if (local !== undefined) return { state: "loaded", text: local, source: "daemon store" };
  if (uri === "")
    return {
      state: "unavailable",
      reason: "the proposal carries no bundleURI and this server does not hold the bundle",
    };
  if (!/^https?:\/\//i.test(uri)) return { state: "unavailable", reason: "only http(s) bundle URIs are fetched" };
  if (src.http === undefined)
    return { state: "unavailable", reason: "no HTTP client configured to fetch the bundleURI" };
  try {
    const text = await src.http.getText(uri, { maxBytes: MAX_BUNDLE_BYTES, timeoutMs: BUNDLE_TIMEOUT_MS });
    return { state: "loaded", text, source: uri };
  } catch (err) {
    return {
      state: "unavailable",
      reason: `fetching the bundleURI failed: ${err instanceof Error ? err.message.split("\n")[0] : "error"}`,
    };
  }
}

export interface MarketDetail {
  state: MarketState;
  row: MarketRow;
  seats: SeatResult[];
  /** The proposal's per-seat reports (on chain), seat order. */
  reports: WorkerReport[];
  facts: SettlementFacts;
  names: Map<string, string>;
  /** Chain time of the read. */
  now: bigint;
  bundleHash: Hex;
  bundleUri: string;
  bundle: BundleLoad;
  betting?: { yes: bigint; no: bigint; settlement: string };
}

export async function marketDetail(src: ExplorerSource, market: Address, id: bigint): Promise<MarketDetail> {
  const state = await readMarketState(src.ctx, market, id);
  const fromBlock = src.fromBlock ?? 0n;
  const disputed = state.proposal?.dispute !== undefined;
  const [seats, reports, facts, names, block, pool] = await Promise.all([
    getSeatResults(src.ctx, market, id, fromBlock),
    state.proposal !== undefined ? getReports(src.ctx, market, id, fromBlock) : Promise.resolve([]),
    readSettlementFacts(src.ctx, market, id, { fromBlock, arbiter: state.config.arbiter, disputed }),
    agentNames(
      src,
      state.workers.map((w) => w.agentId),
    ),
    src.ctx.publicClient.getBlock({ blockNumber: state.blockNumber }),
    src.betting !== undefined && market === src.markets[0]
      ? betPosition(src.ctx, src.betting, id, zeroAddress).catch(() => undefined)
      : Promise.resolve(undefined),
  ]);
  const bundleHash = state.proposal?.bundleHash ?? state.bundleHash;
  const bundleUri = state.proposal?.bundleURI ?? "";
  const bundle = await loadBundle(src, bundleHash, bundleUri);
  return {
    state,
    row: rowOf(state),
    seats,
    reports,
    facts,
    names,
    now: block.timestamp,
    bundleHash,
    bundleUri,
    bundle,
    ...(pool ? { betting: { yes: pool.pool.yes, no: pool.pool.no, settlement: pool.settlement } } : {}),
  };
}

const nameCache = new WeakMap<ExplorerSource, Map<string, { name: string | undefined; at: number }>>();

/** Registration-file names of agents (cached a few minutes per source; unreadable files give no name). */
export async function agentNames(src: ExplorerSource, ids: readonly bigint[]): Promise<Map<string, string>> {
  let cache = nameCache.get(src);
  if (cache === undefined) {
    cache = new Map();
    nameCache.set(src, cache);
  }
  const now = Date.now();
  const stale = [...new Set(ids)].filter((id) => {
    const hit = cache.get(id.toString());
    return hit === undefined || now - hit.at > NAME_TTL_MS;
  });
  if (stale.length > 0) {
    const read = await readAgentNames(
      src.ctx,
      primaryMarket(src),
      stale,
      src.http ? { fetcher: src.http.fetcher } : {},
    );
    for (const id of stale) cache.set(id.toString(), { name: read.get(id.toString()), at: now });
  }
  const out = new Map<string, string>();
  for (const id of ids) {
    const name = cache.get(id.toString())?.name;
    if (name !== undefined) out.set(id.toString(), name);
  }
  return out;
}

export interface AgentRow {
  agentId: bigint;
  name?: string;
  addresses: Address[];
  markets: number;
}

/** Agents seen in the listed markets' seats. */
export function agentsOf(rows: MarketRow[]): AgentRow[] {
  const byId = new Map<bigint, AgentRow>();
  for (const r of rows) {
    for (const w of r.workers) {
      const a = byId.get(w.agentId) ?? { agentId: w.agentId, addresses: [], markets: 0 };
      a.markets++;
      if (!a.addresses.includes(w.address)) a.addresses.push(w.address);
      byId.set(w.agentId, a);
    }
  }
  return [...byId.values()].sort((a, b) => (a.agentId < b.agentId ? -1 : 1));
}

/** One finalized market of the agent's track record, oldest first. */
export interface TrackPoint {
  key: string;
  answer: string;
  confidenceBps: number;
  final: boolean | "invalid";
  /** 1 right, 0 wrong, undefined when not scorable (invalid market or no yes/no answer). */
  correct: number | undefined;
  quality?: { resQuality: number; srcQuality: number; analysisDepth: number };
}

export interface AgentDetail {
  agentId: bigint;
  uri?: string;
  /** The registration file's services (A2A first): what the pipeline picks its endpoint from. */
  services: { name: string; endpoint: string; protocol: string }[];
  name?: string;
  active?: boolean;
  registrationError?: string;
  track: TrackPoint[];
  summary: { tag: string; count: bigint; value: string }[];
  summaryError?: string;
}

async function summaryOf(src: ExplorerSource, agentId: bigint): Promise<AgentDetail["summary"]> {
  const registry = await readMarket(src.ctx, primaryMarket(src), "reputationRegistry", []);
  // Each market's records come from its MarketReputation (the ERC-8004 client).
  const clients = await Promise.all(src.markets.map((m) => readMarket(src.ctx, m, "reputation", [])));
  const out: AgentDetail["summary"] = [];
  for (const tag of ["correctness", "quality"]) {
    try {
      const [count, value, decimals] = (await src.ctx.publicClient.readContract({
        address: registry,
        abi: reputationRegistryAbi,
        functionName: "getSummary",
        args: [agentId, clients, tag, ""],
      })) as readonly [bigint, bigint, number];
      const d = 10 ** Number(decimals);
      out.push({ tag, count, value: count === 0n ? "—" : (Number(value) / d).toFixed(Math.min(2, Number(decimals))) });
    } catch (error) {
      throw toChainError(error, "ReputationRegistry.getSummary");
    }
  }
  return out;
}

/** The newest record entries an agent page reads per market contract (the estimator's window bound). */
export const AGENT_RECORD_ENTRIES = 5_000;

/**
 * The newest `AGENT_RECORD_ENTRIES` entries of a market contract's record: the daemon's index (synced first: new
 * logs only), else the `MarketRecorded` logs checked against `recordHead()`.
 */
async function agentRecordEntries(src: ExplorerSource, market: Address): Promise<RecordEntry[]> {
  const index = src.records?.(market);
  if (index !== undefined) {
    const { count } = await index.sync(src.ctx);
    return index.entries(Math.max(0, count - AGENT_RECORD_ENTRIES), count);
  }
  const cutoff = await readRecordHead(src.ctx, market);
  const all = await readRecordEntries(src.ctx, market, cutoff, { fromBlock: src.fromBlock ?? 0n });
  return all.slice(-AGENT_RECORD_ENTRIES);
}

export async function agentDetail(src: ExplorerSource, agentId: bigint): Promise<AgentDetail> {
  const detail: AgentDetail = { agentId, services: [], track: [], summary: [] };
  // Registration: tokenURI through the pipeline's own directory port, decoded and validated by workflow/registration.
  try {
    const uri = await createChainPorts({ ctx: src.ctx, marketAddress: primaryMarket(src) }).directory.agentURI(agentId);
    if (uri === undefined) detail.registrationError = "no tokenURI in the identity registry";
    else {
      detail.uri = uri;
      const file = await decodeAgentUri(uri, {
        ...(src.http ? { fetcher: src.http.fetcher } : {}),
        maxBytes: 256 * 1024,
        timeoutMs: 10_000,
      });
      detail.name = file.name;
      if (file.active === false) detail.active = false;
      // Protocol absent = the default worker protocol (workflow/registration/endpoint.ts).
      detail.services = file.services
        .slice(0, 16)
        .map((s) => ({ name: s.name, endpoint: s.endpoint, protocol: s.protocol ?? DEFAULT_WORKER_PROTOCOL }));
    }
  } catch (err) {
    detail.registrationError =
      (err instanceof Error ? err.message.split("\n")[0] : undefined) ?? "unreadable registration";
  }
  try {
    detail.summary = await summaryOf(src, agentId);
  } catch (err) {
    detail.summaryError = (err instanceof Error ? err.message.split("\n")[0] : undefined) ?? "unreadable";
  }
  for (const market of src.markets) {
    // The agent's seats from the hash-chain record (the daemon's index when there is one; no query per market) and
    // its quality scores from one WorkerSettled query on its indexed agentId.
    const [entries, settled] = await Promise.all([
      agentRecordEntries(src, market),
      readLogs(src.ctx, market, "WorkerSettled", { fromBlock: src.fromBlock ?? 0n }, { agentId }),
    ]);
    const quality = new Map(settled.map((l) => [l.args.marketId, l.args.result]));
    for (const e of entries) {
      const seat = e.seats.find((x) => x.agentId === agentId);
      if (seat === undefined) continue;
      const answer = ANSWER_NAMES[seat.answer] ?? "failed";
      const final = e.status === STATUS_RESOLVED ? e.outcome : "invalid";
      const scorable = final !== "invalid" && (answer === "yes" || answer === "no");
      const q = quality.get(e.marketId);
      detail.track.push({
        key: `${getAddress(market).slice(0, 8)}…#${e.marketId}`,
        answer,
        confidenceBps: seat.confidenceBps,
        final,
        correct: scorable ? Number((answer === "yes") === final) : undefined,
        ...(q
          ? {
              quality: {
                resQuality: Number(q.resQuality),
                srcQuality: Number(q.srcQuality),
                analysisDepth: Number(q.analysisDepth),
              },
            }
          : {}),
      });
    }
  }
  return detail;
}
