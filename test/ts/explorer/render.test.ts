/** The explorer's pure parts: the bundle view helpers and the escaping every page relies on. */
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../../workflow/core/bundle.js";
import { InvalidBundleError, parseStoredBundle } from "../../../workflow/core/bundle-schema.js";
import { quorumStatus } from "../../../workflow/core/quorum.js";
import {
  MAX_RENDERED_ITEMS,
  capped,
  evaluatorLabel,
  isResolutionBundle,
  renderedWorkers,
  workerFailure,
} from "../../../explorer/bundle.js";
import { answer, market, records } from "../core/fixtures.js";
import { buildBundle } from "../workflow/helpers/checked-bundle.js";
import { esc, layout, lineChart, safeLink, txt } from "../../../explorer/html.js";
import { marketsPage } from "../../../explorer/pages.js";

describe("bundle view helpers", () => {
  const bundle = () => {
    const m = market(3);
    const recs = records(m, [answer(true, 0.9), answer(false, 0.6), undefined]);
    return buildBundle({ market: m, records: recs, quorum: quorumStatus(3, 2) }).document;
  };

  it("reads a stored document through the bundle schema: the invalid one is a one-line error", () => {
    const doc = parseStoredBundle(canonicalJson(bundle()));
    expect(isResolutionBundle(doc)).toBe(true);
    const tampered = { ...bundle(), decision: { verdict: "tampered" } };
    expect(() => parseStoredBundle(JSON.stringify(tampered))).toThrow(InvalidBundleError);
    expect(() => parseStoredBundle("not json")).toThrow(/^bundle: not JSON/);
  });

  it("names the failure of a seat without an answer and caps long lists", () => {
    const doc = bundle();
    expect(workerFailure(doc.workers[0]!)).toBeUndefined();
    expect(workerFailure(doc.workers[2]!)).toMatchObject({ kind: expect.any(String) });
    expect(capped(Array.from({ length: 1000 }, (_, i) => i))).toHaveLength(MAX_RENDERED_ITEMS);
    expect(capped(undefined)).toEqual([]);
    expect(renderedWorkers(doc)).toHaveLength(3);
    expect(evaluatorLabel({ ...doc, evaluator: { kind: "rubric", model: "", promptVersion: "", seed: 0 } })).toBe(
      "rubric",
    );
  });
});

describe("escaping", () => {
  const hostile = `<script>alert(1)</script><img src=x onerror="alert(2)">&'`;

  it("escapes markup, quotes and ampersands", () => {
    expect(esc(hostile)).toBe(
      "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(2)&quot;&gt;&amp;&#39;",
    );
  });

  it("renders a hostile question in the markets table as text only", () => {
    const row = {
      key: "0xabc:1",
      href: "/explorer/markets/1",
      id: "1",
      status: "Open",
      question: hostile,
      deadline: "—",
      pool: "1 ETH",
      outcome: "—",
      disputeEndsAt: "—",
      dispute: "none",
    };
    const html = layout("/explorer", marketsPage("/explorer", [row]));
    expect(html).not.toContain("<script>alert");
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(html).toContain('<a class="skip" href="#main">Skip to content</a>');
  });

  it("labels charts and escapes their labels", () => {
    const svg = lineChart(
      "c",
      "Accuracy <b>",
      "desc & more",
      [{ label: "a<", color: "#000", points: [0.5, 1] }],
      ["1", "2"],
    );
    expect(svg).toContain('role="img"');
    expect(svg).toContain('<title id="c-t">Accuracy &lt;b&gt;</title>');
    expect(svg).toContain('<desc id="c-d">desc &amp; more</desc>');
    expect(svg).not.toContain("a<");
  });
});

describe("untrusted text and links", () => {
  it("shows control and bidi characters as markers, keeps the text in logical order, and escapes", () => {
    expect(txt("Will this be \u202Ereversed\u202C <b>?")).toBe("Will this be [U+202E]reversed[U+202C] &lt;b&gt;?");
    expect(txt("line one\nline two")).toBe("line one[U+000A]line two");
    expect(txt("para one\n\u2066two", true)).toBe("para one\n[U+2066]two");
  });

  it("links only http(s) sources, without opener or referrer", () => {
    expect(safeLink("https://example.com/a?b=1&c=<2>")).toBe(
      '<a class="mono" dir="ltr" href="https://example.com/a?b=1&amp;c=%3C2%3E" rel="noopener noreferrer nofollow" referrerpolicy="no-referrer" target="_blank">https://example.com/a?b=1&amp;c=&lt;2&gt;</a>',
    );
    for (const bad of [
      "javascript:alert(1)",
      "JaVaScRiPt:alert(1)",
      "data:text/html,<script>",
      "not a url",
      "//evil.example",
    ]) {
      const html = safeLink(bad);
      expect(html, bad).not.toContain("<a");
      expect(html, bad).not.toContain("<script");
    }
  });

  it("pages the market list with links to newer and older pages", () => {
    const html = marketsPage("/explorer", [], { page: 2, pages: 3, total: 120 }).body;
    expect(html).toContain('<a href="/explorer?page=1" rel="prev">← Newer</a>');
    expect(html).toContain('<a href="/explorer?page=3" rel="next">Older →</a>');
    expect(html).toContain("0 of 120 market(s), newest first · page 2 of 3");
    expect(html).toContain('data-live-markets="/explorer/api/markets?page=2"');
  });
});
