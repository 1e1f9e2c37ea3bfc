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
import { esc, layout, lineChart } from "../../../explorer/html.js";
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
