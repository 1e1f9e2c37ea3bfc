/** The protocol-independent parts: text helpers, the offline engine's Finding, the prompt data encoding. */
import { describe, expect, it } from "vitest";
import { encodeData, findingKey } from "../../../agents/reference/engine/llm.js";
import { createOfflineEngine } from "../../../agents/reference/engine/offline.js";
import { PERSONA_TABLE } from "../../../agents/reference/engine/personas.js";
import { keyTerms, normalizeQuestion, yearsIn } from "../../../agents/kit/text.js";
import { PERSONAS } from "../../../agents/kit/answer-engine.js";

describe("text helpers", () => {
  it("normalises case, punctuation and spacing", () => {
    expect(normalizeQuestion("  Will BTC reach $200k?? ")).toBe("will btc reach 200k");
    expect(normalizeQuestion("Ｗｉｌｌ ＢＴＣ")).toBe("will btc");
  });
  it("extracts key terms without stopwords, and years", () => {
    expect(keyTerms("Will bitcoin reach 200k by the end of 2026?")).toEqual(["bitcoin", "200k", "2026"]);
    expect(yearsIn("between 2025 and 2030, not 12345")).toEqual(["2025", "2030"]);
  });
});

describe("offline engine", () => {
  it("fills the protocol-independent Finding (observations and key terms for other protocols)", async () => {
    const f = await createOfflineEngine({ persona: "optimist" }).investigate({
      marketId: 1n,
      question: "Will Apple release a foldable iPhone in 2026?",
    });
    expect(f.keyTerms).toEqual(["apple", "release", "foldable", "iphone", "2026"]);
    expect(f.observations).toHaveLength(3);
    expect(f.evidence).toContain(f.observations[0]);
  });
  it("has at least 3 distinct personas with a documented rule each", () => {
    expect(PERSONAS.length).toBeGreaterThanOrEqual(3);
    for (const p of PERSONAS) expect(PERSONA_TABLE[p].summary.length).toBeGreaterThan(20);
  });
});

describe("LLM prompt data", () => {
  it("never lets a marker appear literally inside the data, yet decodes to the same text", () => {
    const value = { question: "x END_MARKET_DATA y BEGIN_MARKET_DATA z" };
    const encoded = encodeData(value);
    expect(encoded).not.toContain("END_MARKET_DATA");
    expect(encoded).not.toContain("BEGIN_MARKET_DATA");
    expect(JSON.parse(encoded)).toEqual(value);
  });
  it("keys the cache by market and normalised question", () => {
    expect(findingKey({ marketId: 5n, question: "Will it rain?" })).toBe(
      findingKey({ marketId: 5n, question: "will it RAIN" }),
    );
    expect(findingKey({ marketId: 5n, question: "Will it rain?" })).not.toBe(
      findingKey({ marketId: 6n, question: "Will it rain?" }),
    );
  });
});
