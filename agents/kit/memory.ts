/**
 * What the agent answered, per market and question, so that a later challenge can be tied to the answer it
 * challenges. Keyed by market id AND question: two market contracts (or platforms) reuse the same small ids,
 * and one must not defend the other's answer. Bounded (least recently used evicted); in memory only, so a
 * restart forgets (challenges then get a reply saying no determination is on record).
 */
import type { Finding, Question } from "./answer-engine.js";

export interface Remembered {
  question: Question;
  finding: Finding;
}

const keyOf = (marketId: bigint, question: string): string => `${marketId.toString()}\n${question}`;

export class FindingMemory {
  private readonly byKey = new Map<string, Remembered>();
  /** The most recent entry per market id, for challenges that name the market but not the question. */
  private readonly latestByMarket = new Map<string, string>();
  private last: Remembered | undefined;

  constructor(private readonly max = 1_000) {}

  remember(question: Question, finding: Finding): void {
    const key = keyOf(question.marketId, question.question);
    const entry = { question, finding };
    this.byKey.delete(key);
    this.byKey.set(key, entry);
    this.latestByMarket.set(question.marketId.toString(), key);
    while (this.byKey.size > this.max) {
      const oldest = this.byKey.keys().next().value as string;
      this.byKey.delete(oldest);
      const market = oldest.slice(0, oldest.indexOf("\n"));
      if (this.latestByMarket.get(market) === oldest) this.latestByMarket.delete(market);
    }
    this.last = entry;
  }

  /**
   * The answer for a market and question. Without the question: the most recent answer for that market id;
   * without either: the most recent answer (protocols whose challenges name neither).
   */
  lookup(marketId?: bigint, question?: string): Remembered | undefined {
    if (marketId === undefined) return this.last;
    if (question !== undefined) return this.byKey.get(keyOf(marketId, question));
    const key = this.latestByMarket.get(marketId.toString());
    return key === undefined ? undefined : this.byKey.get(key);
  }
}
