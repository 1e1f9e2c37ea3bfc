import { describe, expect, it } from "vitest";
import { checkQuestion, visibleText } from "../../../workflow/core/text.js";

describe("visibleText", () => {
  it("shows a right-to-left override as a marker, so the text stays in logical order", () => {
    expect(visibleText("Is this \u202Ereversed?")).toBe("Is this [U+202E]reversed?");
    expect(visibleText("a\u2066b\u2069c\u200Fd\u061Ce")).toBe("a[U+2066]b[U+2069]c[U+200F]d[U+061C]e");
  });

  it("puts line breaks, tabs, controls and zero-width characters on one visible line", () => {
    expect(visibleText("row\nbreak\r\tx\u0000\u007F\u0085\u2028\u200B\uFEFF")).toBe(
      "row[U+000A]break[U+000D][U+0009]x[U+0000][U+007F][U+0085][U+2028][U+200B][U+FEFF]",
    );
    expect(visibleText("a\uD800b")).toBe("a\uFFFDb");
  });

  it("keeps printable text, right-to-left scripts, ZWJ emoji and astral characters as they are", () => {
    for (const s of ["Will BTC close above $100k?", "האם זה נכון?", "هل سيحدث؟", "👨\u200D👩\u200D👧 😀", "क्\u200Dष"])
      expect(visibleText(s)).toBe(s);
  });
});

describe("checkQuestion", () => {
  it("turns line breaks and tabs into one space, trims and NFC-normalizes", () => {
    expect(checkQuestion("  Will it\r\n\n rain\ttomorrow?  ")).toEqual({
      ok: true,
      question: "Will it rain tomorrow?",
    });
    expect(checkQuestion("Cafe\u0301 open?")).toEqual({ ok: true, question: "Café open?" });
    expect(checkQuestion("a\u2028b")).toEqual({ ok: true, question: "a b" });
  });

  it("refuses bidi controls, other controls, zero-width characters, lone surrogates and empty text", () => {
    expect(checkQuestion("Is this \u202Ereversed?")).toEqual({
      ok: false,
      reason: "holds a bidi control character (U+202E) at position 8",
    });
    for (const c of ["\u2067", "\u200E", "\u0000", "\u001B", "\u007F", "\u009B", "\u200B", "\uFEFF", "\u00AD"]) {
      const r = checkQuestion(`Will it${c} rain?`);
      expect(r.ok, JSON.stringify(c)).toBe(false);
    }
    expect(checkQuestion("a\uDC00b")).toMatchObject({ ok: false });
    expect(checkQuestion(" \n\t ")).toEqual({ ok: false, reason: "is empty" });
  });

  it("accepts ZWJ emoji and right-to-left scripts", () => {
    expect(checkQuestion("האם 👨\u200D👩\u200D👧?")).toEqual({ ok: true, question: "האם 👨\u200D👩\u200D👧?" });
  });

  it("a checked question prints unchanged by visibleText (nothing left to show)", () => {
    const r = checkQuestion("Will the\nfund\tclose?");
    expect(r.ok && visibleText(r.question)).toBe("Will the fund close?");
  });
});
