/** The explorer's pure parts: the tolerant bundle parse and the escaping every page relies on. */
import { describe, expect, it } from "vitest";
import { parseTrace } from "../../../explorer/bundle.js";
import { esc, layout, lineChart } from "../../../explorer/html.js";
import { marketsPage } from "../../../explorer/pages.js";

describe("parseTrace", () => {
  it("refuses text that is not a JSON object with one line", () => {
    expect(() => parseTrace("not json")).toThrow("the bundle is not valid JSON");
    expect(() => parseTrace("[1,2]")).toThrow("the bundle is not a JSON object");
  });

  it("turns fields of the wrong type into absent values instead of failing", () => {
    const t = parseTrace(
      JSON.stringify({
        market: { question: 42 },
        decision: { verdict: "yes", posterior: "high", thresholdBps: 6000 },
        workers: [
          {
            seat: "x",
            agentId: 7,
            answer: { determination: "yes", confidence: null, sources: "one" },
            evaluation: { dimensions: { clarity: { score: "9" } }, aggregate: { q: "1", r: 2 } },
          },
          null,
          {
            askFailure: { kind: "timeout", message: "no reply in 30 s" },
            challenges: [1, "why?"],
            vote: { weight: 0.5, unproven: 1 },
          },
        ],
      }),
    );
    expect(t.question).toBe("42");
    expect(t.decision).toEqual({ verdict: "yes", posterior: undefined, thresholdBps: 6000, logOdds: undefined });
    expect(t.workers).toHaveLength(3);
    expect(t.workers[0]).toMatchObject({
      seat: 0,
      agentId: "7",
      answer: { determination: false, confidence: undefined, sources: [] },
      aggregate: { r: 2 },
    });
    expect(t.workers[0].dimensions).toEqual([{ name: "clarity", score: undefined, explanation: "" }]);
    expect(t.workers[1]).toMatchObject({ seat: 1, challenges: [], dimensions: [] });
    expect(t.workers[2]).toMatchObject({
      failure: { kind: "timeout", message: "no reply in 30 s" },
      challenges: ["1", "why?"],
      vote: { weight: 0.5, unproven: false },
    });
  });

  it("caps the number of seats read from a bundle", () => {
    const t = parseTrace(JSON.stringify({ workers: Array.from({ length: 1000 }, () => ({})) }));
    expect(t.workers).toHaveLength(256);
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
