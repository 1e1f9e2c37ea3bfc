/**
 * Admission that costs what it protects (docs/RECORDS.md §5): which past markets count for an agent. The one home
 * of the rule off-chain; `contracts/market/AdmissionCounters.sol` is its on-chain twin (same buckets, same
 * creator and independence rules), checked against each other in test/ts/chain/admission-parity.test.ts.
 * A market counts for agent a only when
 *   - its value per seat ((reward pool + stakes) / seats, wei) lies in a power-of-two bucket at or above the
 *     floor's: floor(log2(value per seat)) ≥ ceil(log2(floor)) (when a floor is given), so it is ≥ the floor;
 *   - its creator is none of a's controllers (owner, operators, wallet, the addresses it joined from), when known;
 *   - it was settled by an allowed arbiter (`trustedRuling`), or another seat answered yes/no whose agent has a
 *     different owner (farming with seats of one owner does not count).
 * Pure; O(Σ answers × controllers).
 */
import { correctnessOf, isScored } from "./correctness.js";
import type { HistoryMarket } from "./types.js";

/** Who controls an agent (compared case-insensitively). */
export interface AgentControllers {
  /** Its ERC-721 owner: seats are independent when their agents' owners differ. */
  owner: string;
  /** Approved operators, its agentWallet and the addresses its seats joined from. */
  others?: readonly string[];
}

export interface Admission {
  /** The gated market's value floor per seat, wei (`admissionFloor`); markets without a recorded value then do not count. */
  minValue?: bigint;
  /** Controllers of each agent (unknown agents: no creator check, independent of every other agent). */
  controllers?: ReadonlyMap<bigint, AgentControllers>;
}

/** A track-record gate as the market holds it (IResolutionMarket `minSettled` / `minCorrectness`). */
export interface AdmissionGate {
  minSettled: number;
  minCorrectness: number;
  /** The gated market's floor, `admissionFloor(rewardPool, maxWorkers, minStake)`. */
  floor: bigint;
}

/** floor(log2(value)) for value ≥ 1, else −1 (a market worth nothing counts at no floor). */
export function valueBucket(value: bigint): number {
  return value < 1n ? -1 : value.toString(2).length - 1;
}

/** The lowest bucket that counts at `floor`: ceil(log2(floor)), 0 for a floor ≤ 1. */
export function floorBucket(floor: bigint): number {
  return floor <= 1n ? 0 : (floor - 1n).toString(2).length;
}

/** The value floor per seat of a gated market: reward pool / seat cap + minimum stake (AdmissionCounters._floor). */
export function admissionFloor(rewardPool: bigint, maxWorkers: number, minStake: bigint): bigint {
  return rewardPool / BigInt(Math.max(1, maxWorkers)) + minStake;
}

/** Whether a market of `value` wei with `seats` seats meets `floor` (the bucket rule). */
export function meetsFloor(value: bigint, seats: number, floor: bigint): boolean {
  return seats > 0 && valueBucket(value / BigInt(seats)) >= floorBucket(floor);
}

/** Per market: which agents it counts for, given the admission (floor aside). */
function countingAgents(m: HistoryMarket, admission: Admission): Map<bigint, boolean> {
  const ctl = admission.controllers ?? new Map<bigint, AgentControllers>();
  const ownerOf = (id: bigint): string | undefined => ctl.get(id)?.owner.toLowerCase();
  const independent = (a: bigint, b: bigint): boolean => {
    if (a === b) return false;
    const oa = ownerOf(a);
    const ob = ownerOf(b);
    return oa === undefined || ob === undefined || oa !== ob;
  };
  const creator = m.creator?.toLowerCase();
  const controls = (id: bigint): boolean => {
    const c = ctl.get(id);
    if (c === undefined || creator === undefined) return false;
    return [c.owner, ...(c.others ?? [])].some((x) => x.toLowerCase() === creator);
  };
  const voters = [...new Set(m.answers.filter((x) => x.answer === "yes" || x.answer === "no").map((x) => x.agentId))];
  const ruled = m.disputed && m.trustedRuling === true;
  const out = new Map<bigint, boolean>();
  for (const { agentId } of m.answers) {
    out.set(agentId, !controls(agentId) && (ruled || voters.some((b) => independent(agentId, b))));
  }
  return out;
}

/**
 * The track record as admission sees it: markets below the floor dropped, and in each remaining market the
 * answers of agents for whom it does not count dropped. The estimate and the "proven" count both read this record.
 * `answers` are all of a market's seats (the record entry's), so `value / answers.length` is its value per seat.
 */
export function admittedHistory(history: readonly HistoryMarket[], admission: Admission): HistoryMarket[] {
  const out: HistoryMarket[] = [];
  for (const m of history) {
    const floor = admission.minValue;
    if (floor !== undefined && (m.value === undefined || !meetsFloor(m.value, m.answers.length, floor))) continue;
    const ok = countingAgents(m, admission);
    const answers = m.answers.filter((x) => ok.get(x.agentId) === true);
    if (answers.length > 0) out.push({ ...m, answers });
  }
  return out;
}

/**
 * Mirror of `MarketReputation.admissionRecord(agentId, floor)`: the Resolved markets that count for the agent at
 * `floor` (its scored seats: yes, no or failed) and their floor-average correctness.
 */
export function admissionRecord(
  history: readonly HistoryMarket[],
  agentId: bigint,
  floor: bigint,
  controllers?: ReadonlyMap<bigint, AgentControllers>,
): { settled: number; correctness: number } {
  let settled = 0;
  let sum = 0;
  const admission: Admission = { minValue: floor, ...(controllers !== undefined ? { controllers } : {}) };
  for (const m of admittedHistory(history, admission)) {
    if (m.final === "invalid") continue;
    for (const a of m.answers) {
      if (a.agentId !== agentId || !isScored(a.answer)) continue;
      settled += 1;
      sum += correctnessOf(a.answer, a.confidenceBps, m.final);
    }
  }
  return { settled, correctness: settled === 0 ? 0 : Math.floor(sum / settled) };
}

/** Mirror of `MarketReputation.admits`: whether the agent passes a TrackRecord gate on this record. */
export function admits(
  history: readonly HistoryMarket[],
  agentId: bigint,
  gate: AdmissionGate,
  controllers?: ReadonlyMap<bigint, AgentControllers>,
): boolean {
  const r = admissionRecord(history, agentId, gate.floor, controllers);
  return r.settled >= gate.minSettled && r.correctness >= gate.minCorrectness;
}
