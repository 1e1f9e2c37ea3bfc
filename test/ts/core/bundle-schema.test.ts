import { describe, expect, it } from "vitest";
import { canonicalJson, MAX_BUNDLE_BYTES } from "../../../workflow/core/bundle.js";
import { InvalidBundleError, parseBundle, parseStoredBundle } from "../../../workflow/core/bundle-schema.js";
import { generateChallenges } from "../../../workflow/core/challenges.js";
import { quorumStatus } from "../../../workflow/core/quorum.js";
import { decideVerdict } from "../../../workflow/core/vote.js";
import { rubricEvaluate } from "../../../workflow/evaluate/rubric.js";
import { reportsOf } from "../../../workflow/pipeline/07-resolve.js";
import { fallbackInvalidBundle } from "../../../daemon/proposals.js";
import type { JobRow } from "../../../daemon/store.js";
import { buildBundle } from "../workflow/helpers/checked-bundle.js";
import { answer, market, records } from "./fixtures.js";
import { isAnswered } from "../../../workflow/core/types.js";

function fullBundle() {
  const m = market(4);
  const recs = records(m, [
    answer(true, 0.9),
    answer(true, 0.7, { extras: { model: "x" } }),
    answer(false, 0.6),
    undefined,
  ]);
  const ch = generateChallenges(m, recs);
  for (const r of recs) {
    const c = ch.get(r.seat.address);
    if (c) Object.assign(r, { challenges: c, challengeReplies: c.map((q) => `Reply: ${q.slice(0, 20)}`) });
  }
  const evaluation = rubricEvaluate({ market: m, workers: recs.filter(isAnswered) });
  const decision = decideVerdict({
    agentIds: m.workers.map((w) => w.agentId),
    reports: reportsOf(recs, evaluation),
    history: [],
  });
  return buildBundle({
    market: m,
    records: recs,
    quorum: quorumStatus(4, 3),
    evaluation,
    decision,
    extra: { pipeline: "test" },
  });
}

/** The bundle's document, changed by `edit`, as canonical text. */
function edited(edit: (doc: Record<string, any>) => void): string {
  const doc = JSON.parse(fullBundle().json) as Record<string, any>;
  edit(doc);
  return canonicalJson(doc);
}

const failsWith = (text: string, message: RegExp) => {
  expect(() => parseBundle(text)).toThrow(InvalidBundleError);
  expect(() => parseBundle(text)).toThrow(message);
  try {
    parseBundle(text);
  } catch (e) {
    expect((e as Error).message).not.toContain("\n");
  }
};

describe("bundle schema", () => {
  it("parses what buildBundle writes, bigints as decimal strings", () => {
    const b = fullBundle();
    const doc = parseBundle(b.json);
    expect(doc).toEqual(b.document);
    expect(doc.market.marketId).toBe("42");
    expect(doc.workers[0]!.agentId).toBe("100");
    expect(doc.workers[3]!.status).toBe("no-answer");
    expect(doc.decision?.verdict).toBeDefined();
    // A no-quorum run (no evaluation, no decision) parses too.
    const m = market(3);
    const bare = buildBundle({
      market: m,
      records: records(m, [answer(true), undefined, undefined]),
      quorum: quorumStatus(3, 1),
    });
    expect(parseBundle(bare.json).outcome).toEqual({ kind: "no-quorum", answered: 1, required: 2 });
  });

  it("refuses malformed documents with a one-line error naming the place", () => {
    failsWith("{not json", /bundle: not JSON/);
    failsWith("[]", /bundle: /);
    failsWith(
      edited((d) => (d.schema = "cresolver.resolution-bundle.v1")),
      /at schema/,
    );
    failsWith(
      edited((d) => (d.market.marketId = 42)),
      /at market\.marketId/,
    );
    failsWith(
      edited((d) => (d.workers[1].answer.confidence = 1.5)),
      /at workers\.1\.answer\.confidence/,
    );
    failsWith(
      edited((d) => (d.workers[0].askFailure = { kind: "exploded", message: "x" })),
      /at workers\.0\.askFailure\.kind/,
    );
    failsWith(
      edited((d) => (d.workers[0].secret = "sk-1")),
      /workers\.0/,
    );
    failsWith(
      edited((d) => delete d.quorum),
      /at quorum/,
    );
  });

  it("refuses an oversized bundle before parsing it", () => {
    const b = fullBundle();
    failsWith(" ".repeat(MAX_BUNDLE_BYTES + 1), /bundle: \d+ bytes, more than the 8388608 allowed/);
    expect(() => parseBundle(b.json, b.json.length - 1)).toThrow(/bundle: \d+ bytes, more than the \d+ allowed/);
    // Multi-byte text is counted in UTF-8 bytes, not characters.
    const wide = edited((d) => (d.market.question = "€".repeat(1_000)));
    expect(() => parseBundle(wide, wide.length + 1_000)).toThrow(/bytes, more than/);
    expect(parseBundle(wide, wide.length + 2_000).market.question).toHaveLength(1_000);
  });

  it("a stored bundle is a resolution bundle or the daemon's fallback invalid document", () => {
    const job = { chainId: 31337, market: "0x5FbDB2315678afecb367f032d93F642f64180aa3", marketId: 7n } as JobRow;
    const fallback = fallbackInvalidBundle(job, "error");
    expect(parseStoredBundle(fallback.json)).toMatchObject({
      schema: "cresolver.daemon-invalid.v1",
      marketId: "7",
      reason: "error",
    });
    expect(() => parseBundle(fallback.json)).toThrow(InvalidBundleError);
    expect(parseStoredBundle(fullBundle().json).schema).toBe("cresolver.resolution-bundle.v2");
    expect(() => parseStoredBundle('{"schema":"other"}')).toThrow(/at schema/);
  });
});
