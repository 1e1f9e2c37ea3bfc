/**
 * What the agent answered, per market, so that a later challenge can be tied to the answer it challenges.
 * Bounded (least recently used evicted); in memory only, so a restart forgets (challenges then get a
 * reply saying no determination is on record).
 */
import type { Finding, Question } from "./engine/types.js";

export interface Remembered {
  question: Question;
  finding: Finding;
}

export class FindingMemory {
  private readonly byMarket = new Map<string, Remembered>();
  private last: Remembered | undefined;

  constructor(private readonly max = 1_000) {}

  remember(question: Question, finding: Finding): void {
    const key = question.marketId.toString();
    const entry = { question, finding };
    this.byMarket.delete(key);
    this.byMarket.set(key, entry);
    while (this.byMarket.size > this.max) this.byMarket.delete(this.byMarket.keys().next().value as string);
    this.last = entry;
  }

  /** The answer for a market; without a market id, the most recent answer (protocols that omit the id). */
  lookup(marketId?: bigint): Remembered | undefined {
    if (marketId === undefined) return this.last;
    return this.byMarket.get(marketId.toString());
  }
}
