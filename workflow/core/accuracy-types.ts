/** What the accuracy estimate returns (accuracy.ts): one home for the types its modules share. */
import type { AccuracyConfig } from "./accuracy-config.js";

export interface CalibrationBin {
  /** Inclusive lower edge, bps. */
  fromBps: number;
  /** Inclusive upper edge, bps. */
  toBps: number;
  /** Yes/no answers of the agent in this bin. */
  count: number;
  /** Expected number of them that were right. */
  right: number;
  /** Shrunk accuracy of the bin. */
  accuracy: number;
}

export interface AgentAccuracy {
  agentId: bigint;
  /** Yes/no answers in the track record used. */
  count: number;
  /** Their total weight in the estimate (recency × attestation). */
  weight: number;
  /** Expected number of them that were right (Σ P(right)). */
  right: number;
  /** Estimated probability of being right (Beta-shrunk). The prior mean when count is 0. */
  accuracy: number;
  calibration: CalibrationBin[];
  /** Smallest agent id of its clone group, when it has clones. */
  cloneGroup?: bigint;
  /**
   * Set when the agent's behaviour changed (change-point.ts): this many of its earlier answers were set apart as a
   * former self's, and `count`, `accuracy` and the rest describe its answers since.
   */
  changedAfter?: number;
}

/** Estimated dependence d ∈ (0, 1] of two agents (dependence.ts); pairs not listed have d = 0. */
export interface PairDependence {
  a: bigint;
  b: bigint;
  d: number;
}

export interface AccuracyEstimate {
  /** One per requested agent (or every agent in the history when none requested), by ascending id. */
  agents: AgentAccuracy[];
  /** Dependent pairs among `agents` (a < b, ascending): what divides same-side votes in the E-step and the vote. */
  dependence: PairDependence[];
  /**
   * Pairs recently wrong together against the rest (dependence.ts `sharedErrorDependence`), a < b ascending: what
   * groups a coalition in the vote's fragility check (and, with `errorInEstimate`, also in `dependence`).
   */
  sharedErrors: PairDependence[];
  /** Markets and yes/no answers used. */
  markets: number;
  answers: number;
  /** Markets with known truth (arbiter-decided). */
  knownTruths: number;
  iterations: number;
  converged: boolean;
  /**
   * How uncertain the estimates are: covariance of the requested agents' log-odds accuracies θ = logit(p)
   * (inverse of the observed information, see `logOddsCovariance`), rows and columns in `agents` order, 1e-6.
   */
  covariance: number[][];
  config: AccuracyConfig;
}
