/**
 * Copy groups (workflow/core/copy-group.ts, docs/TRUTH.md §9): agents copying one shared source with independent
 * noise are read as one dependent group, not as the truth, when fewer agents are copies that way.
 */
import { describe, expect, it } from "vitest";
import { estimateAccuracy, resolveAccuracyConfig } from "../../../workflow/core/accuracy.js";
import { readAgreement } from "../../../workflow/core/copy-group.js";
import type { PairStats } from "../../../workflow/core/dependence.js";
import type { HistoryMarket } from "../../../workflow/core/types.js";
import { decideVerdict } from "../../../workflow/core/vote.js";
import { crowdRecord, panelRecord } from "./fixtures.js";

const IDS = [1n, 2n, 3n, 4n, 5n, 6n, 7n];
const HONEST = [0.55, 0.65, 0.75, 0.85, 0.95, 0.7, 0.8];
const crowd = (markets: number, seed: number, n = 7): HistoryMarket[] => crowdRecord(IDS.slice(0, n), markets, seed);
const honest = (n: number, seed: number): HistoryMarket[] => panelRecord(IDS.slice(0, n), HONEST, 60, seed);

const SEEDS = Array.from({ length: 10 }, (_, i) => i + 1);
const groupOf = (est: ReturnType<typeof estimateAccuracy>): string =>
  est.dependence
    .filter((d) => d.d === 1)
    .map((d) => `${d.a}-${d.b}`)
    .join(",");
/** The estimate without its config (which names the penalty). */
const plainParts = ({ config: _, ...rest }: ReturnType<typeof estimateAccuracy>): object => rest;
const expertFirst = (est: ReturnType<typeof estimateAccuracy>): boolean => {
  const acc = est.agents.map((a) => a.accuracy);
  return (acc[3] ?? 0) > Math.max(acc[0] ?? 1, acc[1] ?? 1, acc[2] ?? 1);
};

describe("copy groups", () => {
  it("three copiers of one source are one dependent group, and the expert ranks above them", () => {
    let found = 0;
    let ranked = 0;
    let rankedWithout = 0;
    for (const seed of SEEDS) {
      const h = crowd(60, seed);
      const est = estimateAccuracy(h);
      if (groupOf(est) === "1-2,1-3,2-3") found += 1;
      if (expertFirst(est)) ranked += 1;
      if (expertFirst(estimateAccuracy(h, undefined, { copyGroupPenalty: 0 }))) rankedWithout += 1;
    }
    expect(found).toBeGreaterThanOrEqual(8);
    expect(ranked).toBeGreaterThanOrEqual(8);
    // Without the prior the copiers' block is the truth's reading: the expert ranks below a copier.
    expect(rankedWithout).toBeLessThanOrEqual(2);
  });

  it("attack: the copiers no longer outvote the expert and the honest agents", () => {
    let held = 0;
    let attackWorked = 0;
    for (const seed of SEEDS) {
      const history = crowd(60, seed);
      // Copiers say yes; the expert and two of the three honest agents say no.
      const reports = ["yes", "yes", "yes", "no", "yes", "no", "no"].map((answer) => ({
        answer: answer as "yes" | "no",
        confidenceBps: 8_000,
        resQuality: 0,
        srcQuality: 0,
        analysisDepth: 0,
      }));
      const input = { agentIds: [1n, 2n, 3n, 4n, 5n, 6n, 7n], reports, history };
      if (decideVerdict(input).verdict === "no") held += 1;
      if (decideVerdict(input, { accuracy: { copyGroupPenalty: 0 } }).verdict === "yes") attackWorked += 1;
    }
    expect(held).toBeGreaterThanOrEqual(8);
    expect(attackWorked).toBeGreaterThanOrEqual(8);
  });

  it("honest panels: never a group below 7 agents, rarely one by chance at 7 (docs/TRUTH.md §9)", () => {
    for (const seed of SEEDS) {
      const h = honest(6, seed);
      expect(plainParts(estimateAccuracy(h))).toEqual(
        plainParts(estimateAccuracy(h, undefined, { copyGroupPenalty: 0 })),
      );
    }
    let chance = 0;
    for (let seed = 1; seed <= 40; seed++) if (groupOf(estimateAccuracy(honest(7, seed))) !== "") chance += 1;
    expect(chance).toBeLessThanOrEqual(4);
  });

  it("no group of half the panel or more: a lone expert against three copiers stays unidentifiable", () => {
    for (const seed of SEEDS) {
      const h = crowd(60, seed, 4);
      const est = estimateAccuracy(h);
      expect(groupOf(est)).toBe("");
      expect(plainParts(est)).toEqual(plainParts(estimateAccuracy(h, undefined, { copyGroupPenalty: 0 })));
    }
  });

  it("the group is the block that agrees beyond its reading, and only agents that met on ≥ minShared markets", () => {
    // The crowd's expected net agreements: copiers .64 among themselves, (2a − 1)(2b − 1) among the others,
    // .16·(2a − 1) across (the copiers' net accuracy is .8 × .2).
    const loading = [0.8, 0.8, 0.8, 0.8, 0.3, 0.4, 0.5];
    const pairsMet = (copierMarkets: number): PairStats[] => {
      const pairs: PairStats[] = [];
      for (let a = 0; a < 7; a++)
        for (let b = a + 1; b < 7; b++) {
          const copiers = b < 3;
          const net = copiers ? 0.64 : a < 3 ? 0.2 * (loading[b] ?? 0) : (loading[a] ?? 0) * (loading[b] ?? 0);
          const n = copiers ? copierMarkets : 60;
          pairs.push({ a, b, n, shared: n, agree: (n * (1 + net)) / 2 });
        }
      return pairs;
    };
    const opts = { outlierZ: 3, penalty: 0.5, minShared: 8, margin: 1.5 };
    expect(readAgreement(pairsMet(60), 7, new Set(), opts).group).toEqual([0, 1, 2]);
    // The plain fit reads the copiers' block as the truth: their factor loadings are the largest.
    const plain = readAgreement(pairsMet(60), 7, new Set(), { ...opts, penalty: 0 });
    expect(plain.group).toEqual([]);
    expect(Math.min(...plain.v.slice(0, 3).map(Math.abs))).toBeGreaterThan(Math.abs(plain.v[3] ?? 0));
    // Copiers that met on 7 markets only (below minShared) are never a group.
    expect(readAgreement(pairsMet(7), 7, new Set(), opts).group).toEqual([]);
  });

  it("rejects a bad copyGroupPenalty or copyGroupMargin with one line", () => {
    expect(() => resolveAccuracyConfig({ copyGroupPenalty: -1 })).toThrow(/copyGroupPenalty/);
    expect(() => resolveAccuracyConfig({ copyGroupMargin: Number.NaN })).toThrow(/copyGroupMargin/);
  });
});
