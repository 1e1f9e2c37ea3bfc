/**
 * Parameters of the accuracy estimate (accuracy.ts) and their validation. Every field is in the bundle's
 * `voteConfig.accuracy`, so a recomputation uses the same numbers.
 */
const at = (xs: readonly number[], i: number): number => xs[i] ?? 0;

export interface AccuracyConfig {
  /** Mean of the Beta prior on an agent's accuracy (an unknown agent). Default 0.7. */
  priorAccuracy: number;
  /** α + β of the Beta prior, in pseudo-answers. Default 4. */
  priorStrength: number;
  /** Default 50. */
  maxIterations: number;
  /** Default 1e-6. */
  tolerance: number;
  /** Lower edges (bps, ascending, first = 5000) of the confidence bins. Default [5000, 7000, 9000]. */
  confidenceBins: number[];
  /** Pseudo-answers pulling a bin's accuracy towards the agent's overall accuracy. Default 10. */
  calibrationStrength: number;
  /** Agreement share at which two agents count as clones. Default 0.98. */
  cloneAgreement: number;
  /** Shared markets needed before two agents can count as clones. Default 5. */
  cloneMinShared: number;
  /** Only the most recent markets are used (bounded cost). Default 5000. */
  maxMarkets: number;
  /** Estimates are clamped to [1 − maxAccuracy, maxAccuracy] (bounded weights). Default 0.99. */
  maxAccuracy: number;
  /**
   * Recency: an answer followed by k later yes/no answers of the same agent weighs 2^(−k / halfLife) in the
   * accuracy estimate (0: no decay). Default 40 (bench:integrity: shorter half-lives cost honest panels accuracy).
   */
  halfLife: number;
  /** Weight of an attested (unsigned) answer relative to a signed one (docs/RECORDS.md §2, §4). Default 0.5. */
  attestedWeight: number;
  /**
   * Undisputed outcomes (and rulings of arbiters the deployment does not trust) are soft evidence: one more voter
   * of this log-odds in the E-step, never fixed truth. Default 0.5 (a 0.62 voter).
   */
  outcomeLogOdds: number;
  /** Standard errors of excess agreement discounted before a pair counts as dependent (dependence.ts). Default 2. */
  dependenceMargin: number;
  /** Standardised residual above which the robust factor fit leaves a pair out. Default 3. */
  dependenceOutlierZ: number;
  /** Shared markets needed before a pair's dependence is estimated. Default 8. */
  dependenceMinShared: number;
  /**
   * Shared errors (dependence.ts `sharedErrorDependence`): half-life, in shared markets of the pair, of the memory
   * of being wrong together against the rest (0: off). Default 4.
   */
  errorHalfLife: number;
  /** Standard errors discounted before shared errors count as dependence. Default 1. */
  errorMargin: number;
  /** Shared-error dependence also divides votes (E-step and vote), not only groups coalitions. Default false. */
  errorInEstimate: boolean;
  /**
   * Change detection (change-point.ts): nats of penalised log-likelihood an agent's recent answers must gain by
   * counting as a new agent's before they do (0: off).
   */
  changePenalty: number;
  /** Agents set apart as changed, at most. */
  changeMaxAgents: number;
  /** Agents tried per search round (highest current accuracy first). */
  changeCandidates: number;
  /** Wrong answers on trusted rulings among an agent's recent answers before it can count as changed. */
  changeMinKnownWrong: number;
  /**
   * Breaks with the majority (majority-break.ts): nats of log-likelihood ratio an agent's drop in agreement with the
   * other established agents' head count needs before it counts as changed (0: off). Default 9 (bench:integrity:
   * the honest panels' largest break over 6 seeds × 60 markets was 7.5).
   */
  majorityPenalty: number;
  /**
   * Copy groups (copy-group.ts): misfit (z², per pair of agents) a reading of the record pays for each pair it
   * declares to agree for a reason other than the truth (0: off). Default 0.5, what a pair fitted by chance costs
   * on average (E[max(0, z)²] for z ~ N(0, 1)).
   */
  copyGroupPenalty: number;
  /**
   * Standard errors by which every pair of a copy group must agree beyond what its reading predicts for them.
   * Default 1.5 (bench:integrity: 2 costs the correlated crowd 1 point; 1 starts moving the honest 7-agent panel).
   */
  copyGroupMargin: number;
}

export const DEFAULT_ACCURACY_CONFIG: Readonly<AccuracyConfig> = Object.freeze({
  priorAccuracy: 0.7,
  priorStrength: 4,
  maxIterations: 50,
  tolerance: 1e-6,
  confidenceBins: [5000, 7000, 9000], // copied by resolveAccuracyConfig: never shared with a caller
  calibrationStrength: 10,
  cloneAgreement: 0.98,
  cloneMinShared: 5,
  maxMarkets: 5000,
  maxAccuracy: 0.99,
  halfLife: 40,
  attestedWeight: 0.5,
  outcomeLogOdds: 0.5,
  dependenceMargin: 2,
  dependenceOutlierZ: 3,
  dependenceMinShared: 8,
  errorHalfLife: 4,
  errorMargin: 1,
  errorInEstimate: false,
  changePenalty: 4,
  changeMaxAgents: 3,
  changeCandidates: 4,
  changeMinKnownWrong: 1,
  majorityPenalty: 9,
  copyGroupPenalty: 0.5,
  copyGroupMargin: 1.5,
});

export function resolveAccuracyConfig(config: Partial<AccuracyConfig> | undefined): AccuracyConfig {
  const c = { ...DEFAULT_ACCURACY_CONFIG, ...(config ?? {}) };
  const num = (v: number, lo: number, hi: number, name: string, int = false): number => {
    if (typeof v !== "number" || !Number.isFinite(v) || v < lo || v > hi || (int && !Number.isInteger(v))) {
      throw new RangeError(
        `accuracy config ${name} must be ${int ? "an integer" : "a number"} in [${lo}, ${hi}], got ${v}`,
      );
    }
    return v;
  };
  const bool = (v: boolean, name: string): boolean => {
    if (typeof v !== "boolean") throw new RangeError(`accuracy config ${name} must be a boolean, got ${String(v)}`);
    return v;
  };
  const bins = [...c.confidenceBins];
  if (
    bins.length === 0 ||
    bins[0] !== 5000 ||
    bins.some((b, i) => !Number.isInteger(b) || b > 10_000 || (i > 0 && b <= at(bins, i - 1)))
  ) {
    throw new RangeError("accuracy config confidenceBins must be ascending integers in [5000, 10000] starting at 5000");
  }
  return {
    priorAccuracy: num(c.priorAccuracy, 0.01, 0.99, "priorAccuracy"),
    priorStrength: num(c.priorStrength, 0, 1e6, "priorStrength"),
    maxIterations: num(c.maxIterations, 1, 10_000, "maxIterations", true),
    tolerance: num(c.tolerance, 0, 1, "tolerance"),
    confidenceBins: bins,
    calibrationStrength: num(c.calibrationStrength, 0, 1e6, "calibrationStrength"),
    cloneAgreement: num(c.cloneAgreement, 0.5, 1.01, "cloneAgreement"),
    cloneMinShared: num(c.cloneMinShared, 1, 1e9, "cloneMinShared", true),
    maxMarkets: num(c.maxMarkets, 1, 1e9, "maxMarkets", true),
    maxAccuracy: num(c.maxAccuracy, 0.5, 0.999999, "maxAccuracy"),
    halfLife: num(c.halfLife, 0, 1e9, "halfLife"),
    attestedWeight: num(c.attestedWeight, 0, 1, "attestedWeight"),
    outcomeLogOdds: num(c.outcomeLogOdds, 0, 20, "outcomeLogOdds"),
    dependenceMargin: num(c.dependenceMargin, 0, 100, "dependenceMargin"),
    dependenceOutlierZ: num(c.dependenceOutlierZ, 0, 1e6, "dependenceOutlierZ"),
    dependenceMinShared: num(c.dependenceMinShared, 1, 1e9, "dependenceMinShared", true),
    errorHalfLife: num(c.errorHalfLife, 0, 1e9, "errorHalfLife"),
    errorMargin: num(c.errorMargin, 0, 100, "errorMargin"),
    errorInEstimate: bool(c.errorInEstimate, "errorInEstimate"),
    changePenalty: num(c.changePenalty, 0, 1e6, "changePenalty"),
    changeMaxAgents: num(c.changeMaxAgents, 0, 100, "changeMaxAgents", true),
    changeCandidates: num(c.changeCandidates, 0, 100, "changeCandidates", true),
    changeMinKnownWrong: num(c.changeMinKnownWrong, 0, 1e6, "changeMinKnownWrong", true),
    majorityPenalty: num(c.majorityPenalty, 0, 1e6, "majorityPenalty"),
    copyGroupPenalty: num(c.copyGroupPenalty, 0, 1e6, "copyGroupPenalty"),
    copyGroupMargin: num(c.copyGroupMargin, 0, 100, "copyGroupMargin"),
  };
}

/** One yes/no answer as the estimator weighs it (shared by the EM and its covariance). */
export interface AccuracyVote {
  agent: number;
  /** +1 yes, −1 no. */
  sign: number;
  bps: number;
  /** 1 signed, attestedWeight attested. */
  att: number;
  /** Observation weight in the M-step: recency × att. */
  o: number;
}
