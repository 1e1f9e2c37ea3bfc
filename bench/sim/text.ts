/**
 * Evidence text by writing style, independent of whether the answer is right: "rich" (many sources, figures,
 * dates, hedges, paragraphs), "plain" (a couple of sources, a few sentences) or "terse" (one line, no source).
 * The real rubric evaluator scores it; the point is that style moves the scores but must not move the verdict.
 */
import type { Rng } from "./prng.js";

export type Style = "rich" | "plain" | "terse";

const DOMAINS = [
  "reuters.com",
  "apnews.com",
  "bloomberg.com",
  "ft.com",
  "wsj.com",
  "economist.com",
  "bbc.co.uk",
  "nytimes.com",
];

export function evidenceFor(
  style: Style,
  determination: boolean,
  market: number,
  rng: Rng,
): { evidence: string; sources: string[] } {
  const side = determination ? "YES" : "NO";
  const n = 100 + Math.floor(rng.next() * 900);
  if (style === "terse") return { evidence: `${side}.`, sources: [] };
  if (style === "plain") {
    const d = DOMAINS[market % DOMAINS.length];
    return {
      evidence: `Reports from this month point to ${side}. The latest figure was ${n} units.`,
      sources: [`https://www.${d}/markets/2026/${market}/report`],
    };
  }
  const picks = [0, 1, 2, 3, 4].map((k) => DOMAINS[(market + k * 3) % DOMAINS.length]);
  return {
    evidence:
      `According to data published on 12 November 2026, the indicator stood at ${n}.4, up 3.2% from October 2026. ` +
      `Analysts at two research desks expect a further rise of 1.5% before the deadline, which supports ${side}.\n\n` +
      `However, the estimate may change: a revision of 0.8% is possible and the data could be incomplete. ` +
      `On the other hand, historical volatility of 2.1% suggests the threshold is likely to hold.\n\n` +
      `Therefore, weighing the official statistics against the uncertainty, the balance of evidence points to ${side}, ` +
      `although this is not certain.`,
    sources: picks.map((d, k) => `https://www.${d}/news/2026/11/${10 + k}/indicator-${market}`),
  };
}
