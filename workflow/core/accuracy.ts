/**
 * Accuracy of each agent, estimated from the public track record without ground truth (docs/TRUTH.md §2, §9): the
 * one-coin Dawid–Skene EM with dependence, calibration and covariance (accuracy-em.ts), and agents whose behaviour
 * changed set apart — after trusted rulings (change-point.ts) or a break with the other agents' head count
 * (majority-break.ts) — as former selves (former-selves.ts). Pure, deterministic.
 */
import type { HistoryMarket } from "./types.js";
import { resolveAccuracyConfig, type AccuracyConfig } from "./accuracy-config.js";
import { estimateCore } from "./accuracy-em.js";
import { detectChanges } from "./change-point.js";
import { majorityBreaks } from "./majority-break.js";
import { type FormerSelf, nameChanged, setApart } from "./former-selves.js";

export type { AccuracyEstimate, AgentAccuracy, CalibrationBin, PairDependence } from "./accuracy-types.js";
import type { AccuracyEstimate, AgentAccuracy, CalibrationBin } from "./accuracy-types.js";

export { logit } from "./accuracy-em.js";

export { SPECTRAL_ITERATIONS } from "./dependence.js";
export {
  DEFAULT_ACCURACY_CONFIG,
  resolveAccuracyConfig,
  type AccuracyConfig,
  type AccuracyVote,
} from "./accuracy-config.js";
export { invertInformation } from "./accuracy-covariance.js";

/**
 * Estimates the accuracy of `agents` (default: every agent in `history`) from `history` (finalized markets,
 * oldest first, the current market excluded by the caller). See the module doc for the model.
 */
export function estimateAccuracy(
  history: readonly HistoryMarket[],
  agents?: readonly bigint[],
  config?: Partial<AccuracyConfig>,
): AccuracyEstimate {
  const cfg = resolveAccuracyConfig(config);
  const first = estimateCore(history, agents, cfg);
  if (cfg.changePenalty <= 0 && cfg.majorityPenalty <= 0) return first.estimate;
  const { index, votes, known, soft, p, answerWeight } = first.internals;
  const ids = [...index.keys()];
  const requested = agents ?? ids;
  const candidates = requested.map((id) => index.get(id)).filter((i): i is number => i !== undefined);
  const changes: { agent: number; recent: number }[] =
    cfg.changePenalty <= 0
      ? []
      : detectChanges(
          votes.map((vs, m) => vs.map((v, i) => ({ agent: v.agent, sign: v.sign, c: answerWeight[m]?.[i] ?? 0 }))),
          known,
          soft,
          p,
          candidates,
          {
            penalty: cfg.changePenalty,
            maxChanges: cfg.changeMaxAgents,
            candidates: cfg.changeCandidates,
            lengths: CHANGE_LENGTHS,
            minBefore: CHANGE_MIN_BEFORE,
            minKnownWrong: cfg.changeMinKnownWrong,
            iterations: cfg.maxIterations,
            tolerance: cfg.tolerance,
            alpha: cfg.priorAccuracy * cfg.priorStrength,
            beta: (1 - cfg.priorAccuracy) * cfg.priorStrength,
            lo: 1 - cfg.maxAccuracy,
            hi: cfg.maxAccuracy,
          },
        );
  // Breaks with the majority (majority-break.ts), clone groups counting once: the same split, without a ruling.
  if (cfg.majorityPenalty > 0) {
    const breaks = majorityBreaks(
      votes,
      first.internals.group,
      candidates,
      CHANGE_LENGTHS,
      CHANGE_MIN_BEFORE,
      cfg.majorityPenalty,
    );
    for (const b of breaks) if (!changes.some((c) => c.agent === b.agent)) changes.push(b);
  }
  if (changes.length === 0) return first.estimate;
  // A changed agent's earlier answers go to a former self (former-selves.ts); the estimate is made again.
  const offset = history.length - votes.length;
  const changed: FormerSelf[] = changes.map((c) => {
    const marketsOf: number[] = [];
    votes.forEach((vs, m) => {
      if (vs.some((v) => v.agent === c.agent)) marketsOf.push(m + offset);
    });
    return { agentId: ids[c.agent] ?? 0n, before: new Set(marketsOf.slice(0, marketsOf.length - c.recent)) };
  });
  const second = estimateCore(setApart(history, changed), requested, cfg).estimate;
  return { ...second, agents: nameChanged(second.agents, changed) };
}

/** Recent answers a change search moves to a new agent (accuracy.ts `changePenalty`). */
const CHANGE_LENGTHS: readonly number[] = [2, 3, 4, 6, 8, 12, 16, 24, 32];
/** Answers an agent keeps before a change. */
const CHANGE_MIN_BEFORE = 8;

/** The calibrated accuracy of an answer stated with `confidenceBps` (the bin's accuracy; the overall one without bins). */
export function calibratedAccuracy(agent: AgentAccuracy, confidenceBps: number): number {
  let found: CalibrationBin | undefined;
  for (const b of agent.calibration) if (confidenceBps >= b.fromBps) found = b;
  return found?.accuracy ?? agent.accuracy;
}
