/** Shared output of the market commands: times, durations, verdicts, one settled seat, the chain's clock. */
import { formatEther } from "ox/Value";
import type { ChainContext } from "../../workflow/chain/clients.js";
import type { SeatResult } from "../../workflow/chain/lifecycle.js";
import { percentOfBps } from "../../workflow/core/explain.js";
import type { VerdictKind } from "../../workflow/core/types.js";
import { isoSeconds } from "../../workflow/util/time.js";

export const iso = isoSeconds;

export function formatDuration(seconds: number): string {
  if (seconds % 86400 === 0) return `${seconds / 86400}d`;
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

export const VERDICT_TEXT: Record<VerdictKind, string> = { yes: "YES", no: "NO", invalid: "INVALID" };

export async function chainNow(ctx: ChainContext): Promise<bigint> {
  return (await ctx.publicClient.getBlock({ blockTag: "latest" })).timestamp;
}

export function seatLine(s: SeatResult): string {
  const answer =
    s.answer === "yes" || s.answer === "no"
      ? `${s.answer.toUpperCase()} at ${percentOfBps(s.confidenceBps)}`
      : s.answer;
  const scored = s.scored ? `correctness ${s.correctness}` : "not scored";
  const slashed = s.stakeSlashed > 0n ? `, stake slashed ${formatEther(s.stakeSlashed)} ETH` : "";
  return `    agent ${s.agentId}: ${answer}; ${scored}; reward ${formatEther(s.reward)} ETH; stake back ${formatEther(s.stakeReturned)} ETH${slashed}`;
}
