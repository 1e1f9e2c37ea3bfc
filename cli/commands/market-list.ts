/**
 * `cresolver market list`: every market of the contract, read as raw `eth_call`s of `marketCount` and `getMarket`
 * at one block (cli/shared/json-rpc.ts; the two calls coded by cli/shared/market-abi.ts). It loads neither viem, an
 * ABI coder nor the chain layer, so it starts within a small multiple of `--version` (bench/cli-startup.ts);
 * cli/registry.ts routes `market list` here without loading the rest of `market`.
 */
import { Command, Option } from "commander";
import * as OxAddress from "ox/Address";
import { formatEther } from "ox/Value";
import type { Address } from "viem";
import { STATUS_NAMES } from "../../workflow/core/codes.js";
import { visibleText } from "../../workflow/core/text.js";
import { parseIntIn } from "../shared/inputs.js";
import { decodeMarketCount, decodeMarketInfo, encodeGetMarket, MARKET_COUNT_SELECTOR } from "../shared/market-abi.js";
import type { Runtime } from "../shared/runtime.js";
import { iso } from "./market-format.js";
// Type-only (erased at run time): the light path still loads no viem.
import type { MarketSummary } from "../../workflow/chain/listings.js";

const STATUS_CHOICES = STATUS_NAMES.filter((s) => s !== "None").map((s) => s.toLowerCase());

/** Markets read by default: the newest ones (a contract may hold any number). */
export const DEFAULT_LIST_LIMIT = 1_000;
const MAX_LIST_LIMIT = 100_000;

/** The markets `first`..`last` of `market` at `block`, in id order. */
export async function readMarketSummaries(
  rt: Runtime,
  market: Address,
  ids: { first: bigint; last: bigint },
  block: bigint,
): Promise<MarketSummary[]> {
  const wanted: bigint[] = [];
  for (let id = ids.first; id <= ids.last; id++) wanted.push(id);
  const data = await rt.rpc().calls(
    market,
    wanted.map((id) => encodeGetMarket(id)),
    block,
  );
  return data.map((returned, i) => {
    const m = decodeMarketInfo(returned);
    const status = STATUS_NAMES[m.status] ?? "None";
    return {
      marketId: wanted[i] ?? 0n,
      status,
      question: m.question,
      creator: OxAddress.checksum(m.creator),
      deadline: m.deadline,
      rewardPool: m.rewardPool,
      totalStake: m.totalStake,
      workerCount: Number(m.workerCount),
      outcome: status === "Resolved" ? (m.outcome ? "YES" : "NO") : null,
    };
  });
}

export function marketListCommand(runtime: () => Runtime): Command {
  return new Command("list")
    .description("List every market of the contract: id, status, question, deadline, reward pool, workers, outcome.")
    .addOption(new Option("--status <status>", "only markets in this status").choices(STATUS_CHOICES))
    .addOption(
      new Option("--limit <n>", "read only the newest n markets (1-100000)").default(String(DEFAULT_LIST_LIMIT)),
    )
    .action(async (opts: { status?: string; limit: string }) => {
      const rt = runtime();
      const limit = BigInt(parseIntIn(opts.limit, "--limit", 1, MAX_LIST_LIMIT));
      // The RPC client first: a bad --rpc-url or --rpc-timeout throws here, before any request starts (thrown inside
      // the Promise.all below it would leave the address lookup's rejection unhandled).
      const rpc = rt.rpc();
      // The block is read while the address is resolved (the deployment file waits on eth_chainId): one round trip less.
      const [market, block] = await Promise.all([rt.marketAddress(), rpc.blockNumber()]);
      const [countData] = await rpc.calls(market, [MARKET_COUNT_SELECTOR], block);
      const total = countData === undefined ? 0n : decodeMarketCount(countData);
      const first = total > limit ? total - limit + 1n : 1n;
      const all = total === 0n ? [] : await readMarketSummaries(rt, market, { first, last: total }, block);
      const markets = opts.status === undefined ? all : all.filter((m) => m.status.toLowerCase() === opts.status);
      if (first > 1n) rt.note(`showing markets ${first}..${total} of ${total} (--limit ${limit})`);
      const lines = markets.map(
        (m) =>
          `${String(m.marketId).padStart(4)}  ${m.status.padEnd(19)} ${iso(m.deadline)}  ${formatEther(m.rewardPool)} ETH  ${m.workerCount} workers${m.outcome ? `  → ${m.outcome}` : ""}  ${visibleText(m.question)}`,
      );
      rt.emit(
        { market, count: markets.length, total, markets },
        markets.length === 0
          ? `no markets${opts.status ? ` in status ${opts.status}` : ""} at ${market}`
          : lines.join("\n"),
      );
    });
}
