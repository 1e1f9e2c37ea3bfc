/**
 * What the demo prints per market: the final verdict, each worker's answer and confidence, its correctness against
 * the final outcome, its 3 scores, reward and stake back, its record afterwards (this contract's reputation and the
 * ERC-8004 "correctness" summary), and where the bundle is. Read back from the chain (WorkerSettled events of the
 * finalization) and the daemon's API, not from the demo's memory.
 */
import { formatEther, type Address } from "viem";
import { reputationRegistryAbi } from "../../workflow/chain/abis.js";
import type { ChainContext } from "../../workflow/chain/clients.js";
import { feedbackClientOf, type SeatResult } from "../../workflow/chain/lifecycle.js";
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
  answer: string;
  correctness: string;
  scores: string;
  payout: string;
  reputation: string;
}

interface BundleWorker {
  askFailure?: { kind: string };
  discoveryFailure?: { kind: string };
}

export async function marketReport(
  ctx: ChainContext,
  contracts: { market: Address; reputation: Address },
  marketId: bigint,
  names: Map<bigint, { name: string; protocol: string }>,
  bundle: { url: string; file: string; document: { workers: BundleWorker[] } },
  seats: readonly SeatResult[],
): Promise<MarketReport> {
  const state = await readMarketState(ctx, contracts.market, marketId);
  const rows: WorkerRow[] = [];
  for (const [i, w] of state.workers.entries()) {
    const doc = bundle.document.workers[i];
    const seat = seats[i];
    const [count, value] = await ctx.publicClient.readContract({
      address: contracts.reputation,
      abi: reputationRegistryAbi,
      functionName: "getSummary",
      args: [w.agentId, [await feedbackClientOf(ctx, contracts.market)], "correctness", "cresolver"],
    });
    const who = names.get(w.agentId) ?? { name: `agent ${w.agentId}`, protocol: "?" };
    const failure = doc?.askFailure?.kind ?? doc?.discoveryFailure?.kind;
    const answered = seat !== undefined && (seat.answer === "yes" || seat.answer === "no");
    rows.push({
      agent: `#${w.agentId} ${who.name}`,
      protocol: who.protocol,
      answer: answered
        ? `${seat.answer.toUpperCase()} @ ${(seat.confidenceBps / 100).toFixed(0)}%`
        : `— ${seat?.answer === "abstained" ? "abstained" : (failure ?? "no answer")}`,
      correctness: seat?.scored ? String(seat.correctness) : "—",
      scores: answered ? `${seat.resQuality}/${seat.srcQuality}/${seat.analysisDepth}` : "—",
      payout: seat ? `${formatEther(seat.reward)} + ${formatEther(seat.stakeReturned)}` : "—",
      reputation: `${w.reputation ? `${w.reputation.settled} settled, correctness ${w.reputation.correctness}` : "—"}; ERC-8004 ${count > 0n ? value.toString() : "—"} (${count})`,
    });
  }
  const verdict = state.statusName === "Resolved" ? (state.outcome ? "YES" : "NO") : state.statusName.toUpperCase();
  return {
    marketId,
    question: state.question,
    verdict,
    bundleHash: state.bundleHash,
    bundleUrl: bundle.url,
    bundleFile: bundle.file,
    rows,
  };
}

function table(rows: WorkerRow[]): string {
  const head: WorkerRow = {
    agent: "agent",
    protocol: "protocol",
    answer: "answer",
    correctness: "correct",
    scores: "RQ/SQ/AD",
    payout: "reward + stake back (ETH)",
    reputation: "record after",
  };
  const keys = Object.keys(head) as (keyof WorkerRow)[];
  const width = Object.fromEntries(
    keys.map((k) => [k, Math.max(...[head, ...rows].map((r) => r[k].length))]),
  ) as Record<keyof WorkerRow, number>;
  const line = (r: WorkerRow) => `  ${keys.map((k) => r[k].padEnd(width[k])).join("  ")}`;
  return [line(head), `  ${keys.map((k) => "-".repeat(width[k])).join("  ")}`, ...rows.map(line)].join("\n");
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
