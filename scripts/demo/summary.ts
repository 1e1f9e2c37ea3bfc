/**
 * What the demo prints per market: the resolution, each worker's determination, its 3 scores,
 * settlement weight and payout, its reputation afterwards (market averages and ERC-8004 summary),
 * and where the bundle is. Read back from the chain and the daemon's API, not from the demo's memory.
 */
import { formatEther, type Address } from "viem";
import { reputationRegistryAbi, resolutionMarketAbi } from "../../workflow/chain/abis.js";
import type { ChainContext } from "../../workflow/chain/clients.js";
import { readMarketState } from "../../workflow/chain/snapshot.js";

export interface MarketReport {
  marketId: bigint;
  question: string;
  verdict: string;
  bundleHash: string;
  bundleUrl: string;
  bundleFile: string;
  rows: WorkerRow[];
}

interface WorkerRow {
  agent: string;
  protocol: string;
  determination: string;
  scores: string;
  weight: string;
  payout: string;
  reputation: string;
}

interface BundleWorker {
  address: string;
  status: string;
  askFailure?: { kind: string };
  discoveryFailure?: { kind: string };
  answer?: { determination: boolean; confidence: number };
  vote?: { settlementWeight: string };
}

export async function marketReport(
  ctx: ChainContext,
  contracts: { market: Address; reputation: Address },
  marketId: bigint,
  names: Map<bigint, { name: string; protocol: string }>,
  bundle: { url: string; file: string; document: { workers: BundleWorker[] } },
): Promise<MarketReport> {
  const state = await readMarketState(ctx, contracts.market, marketId);
  const settled = await ctx.publicClient.getContractEvents({
    address: contracts.market,
    abi: resolutionMarketAbi,
    eventName: "WorkerSettled",
    args: { marketId },
    fromBlock: 0n,
  });
  const byWorker = new Map(settled.map((e) => [e.args.worker!.toLowerCase(), e.args]));
  const rows: WorkerRow[] = [];
  for (const [i, w] of state.workers.entries()) {
    const doc = bundle.document.workers[i];
    const ev = byWorker.get(w.address.toLowerCase());
    const [count, value] = await ctx.publicClient.readContract({
      address: contracts.reputation,
      abi: reputationRegistryAbi,
      functionName: "getSummary",
      args: [w.agentId, [contracts.market], "resolution_quality", ""],
    });
    const who = names.get(w.agentId) ?? { name: `agent ${w.agentId}`, protocol: "?" };
    const failure = doc?.askFailure?.kind ?? doc?.discoveryFailure?.kind;
    rows.push({
      agent: `#${w.agentId} ${who.name}`,
      protocol: who.protocol,
      determination: doc?.answer ? `${doc.answer.determination ? "YES" : "NO"} (${doc.answer.confidence.toFixed(2)})` : `— ${failure ?? "no answer"}`,
      scores: ev ? `${ev.resQuality}/${ev.srcQuality}/${ev.analysisDepth}` : "—",
      weight: doc?.vote?.settlementWeight ?? "0",
      payout: ev ? `${formatEther(ev.reward!)} + stake ${formatEther(ev.stake!)}` : "stake refunded",
      reputation: `avg ${w.reputation!.resQuality}/${w.reputation!.srcQuality}/${w.reputation!.analysisDepth} over ${w.reputation!.count}; ERC-8004 RQ ${count > 0n ? value.toString() : "—"} (${count})`,
    });
  }
  const verdict = state.statusName === "Resolved" ? (state.outcome ? "YES" : "NO") : state.statusName.toUpperCase();
  return { marketId, question: state.question, verdict, bundleHash: state.bundleHash, bundleUrl: bundle.url, bundleFile: bundle.file, rows };
}

function table(rows: WorkerRow[]): string {
  const head: WorkerRow = { agent: "agent", protocol: "protocol", determination: "determination", scores: "RQ/SQ/AD", weight: "weight", payout: "payout (ETH)", reputation: "reputation after" };
  const keys = Object.keys(head) as (keyof WorkerRow)[];
  const width = Object.fromEntries(keys.map((k) => [k, Math.max(...[head, ...rows].map((r) => r[k].length))])) as Record<keyof WorkerRow, number>;
  const line = (r: WorkerRow) => "  " + keys.map((k) => r[k].padEnd(width[k])).join("  ");
  return [line(head), "  " + keys.map((k) => "-".repeat(width[k])).join("  "), ...rows.map(line)].join("\n");
}

export function formatReport(r: MarketReport): string {
  return [
    `Market ${r.marketId}: ${r.question}`,
    `  resolution: ${r.verdict}`,
    table(r.rows),
    `  bundle: ${r.bundleHash}`,
    `          ${r.bundleUrl}`,
    `          ${r.bundleFile}`,
  ].join("\n");
}
