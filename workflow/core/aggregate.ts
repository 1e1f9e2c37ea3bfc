/**
 * Aggregation of the 8 evaluation dimensions into the 3 on-chain scores, exactly as in the CRE agent
 * protocol:
 *   resQuality    = (RQ·20 + RC·15 + ES·10) / 45
 *   srcQuality    = (SQ·15 + T·10) / 25
 *   analysisDepth = (AD·15 + BA·10 + C·5) / 30
 *
 * Inputs: each dimension is clamped to [0, 100]; a non-finite input (NaN, ±Infinity) counts as 0.
 * Rounding: round half up (towards +∞) of the exact quotient, i.e. floor(x + 0.5). With integer inputs
 * the quotient is a ratio of small integers, so the floating-point division is exact enough that a true
 * .5 is represented exactly (e.g. AD=1, BA=0, C=0 → 15/30 = 0.5 → 1). Outputs are integers in [0, 100].
 */
import type { AggregateScores, Dimension, DimensionScores } from "./types.js";

/** Clamp to [0, 100]; non-finite → 0. Does not round. */
export function clampScore(value: number): number {
  if (typeof value !== "number" || !Number.isFinite(value)) return 0;
  return Math.min(100, Math.max(0, value));
}

/** Clamp to [0, 100] and round half up to an integer. */
export function toIntScore(value: number): number {
  return Math.min(100, Math.max(0, Math.floor(clampScore(value) + 0.5)));
}

export type DimensionValues = Record<Dimension, number>;

function valuesOf(d: DimensionScores | DimensionValues): DimensionValues {
  const out = {} as DimensionValues;
  for (const key of Object.keys(d) as Dimension[]) {
    const v = (d as Record<string, unknown>)[key];
    out[key] = clampScore(
      typeof v === "number" ? v : typeof v === "object" && v !== null ? Number((v as { score: unknown }).score) : NaN,
    );
  }
  return out;
}

function weighted(parts: Array<[number, number]>): number {
  let num = 0;
  let den = 0;
  for (const [value, weight] of parts) {
    num += value * weight;
    den += weight;
  }
  return toIntScore(num / den);
}

/** Accepts either full DimensionScores ({score, explanation}) or plain numbers per dimension. */
export function aggregateScores(dimensions: DimensionScores | DimensionValues): AggregateScores {
  const v = valuesOf(dimensions);
  const g = (k: Dimension): number => clampScore(v[k]);
  return {
    resQuality: weighted([
      [g("resolutionQuality"), 20],
      [g("reasoningClarity"), 15],
      [g("evidenceStrength"), 10],
    ]),
    srcQuality: weighted([
      [g("sourceQuality"), 15],
      [g("timeliness"), 10],
    ]),
    analysisDepth: weighted([
      [g("analysisDepth"), 15],
      [g("biasAwareness"), 10],
      [g("collaboration"), 5],
    ]),
  };
}
