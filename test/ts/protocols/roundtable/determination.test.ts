/** The documented reading rules of the round-table adapter: determination, evidence levels, confidence, challenge mapping. */
import { describe, expect, it } from "vitest";
import {
  analysisReplySchema,
  analysisToAnswer,
  answerConfidence,
  EVIDENCE_LEVEL_WEIGHTS,
  mapChallengeReplies,
  readDetermination,
  readEvidence,
} from "../../../../protocols/roundtable/adapter.js";

const obs = (...findings: string[]) => findings.map((finding) => ({ finding }));

describe("readDetermination: tags", () => {
  it.each([
    ["DETERMINATION: YES", "yes"],
    ["DETERMINATION: NO — the figure stayed below 3%", "no"],
    ["determination: yes", "yes"],
    ["**Determination:** NO", "no"],
    ["Final determination - YES", "yes"],
    ["Overall determination = no", "no"],
    ["DETERMINATION: NOT YES", "no"],
    ["DETERMINATION: not no", "yes"],
    ["DETERMINATION: UNDETERMINED", "abstain"],
    ["Determination: neutral (insufficient data)", "abstain"],
  ])("%s → %s", (finding, kind) => {
    const r = readDetermination(obs("Inflation stayed high in Q3", finding));
    expect(r.kind).toBe(kind);
    if (r.kind !== "ambiguous") {
      expect(r.basis).toBe("tag");
      expect(r.observations).toEqual([1]);
    }
  });

  it("tags decide alone: keywords elsewhere are ignored when a tag exists", () => {
    expect(
      readDetermination(
        obs("The market could resolve YES if energy prices spike", "The answer is YES", "DETERMINATION: NO"),
      ).kind,
    ).toBe("no");
  });

  it("agreeing tags are fine; contradictory or mixed tags are ambiguous", () => {
    expect(readDetermination(obs("DETERMINATION: YES", "DETERMINATION: yes")).kind).toBe("yes");
    expect(readDetermination(obs("DETERMINATION: YES", "DETERMINATION: NO"))).toMatchObject({
      kind: "ambiguous",
      reason: expect.stringMatching(/contradictory/),
    });
    expect(readDetermination(obs("DETERMINATION: YES", "DETERMINATION: UNDETERMINED")).kind).toBe("ambiguous");
  });

  it("a tag must start the finding (elsewhere it only counts as a keyword verdict)", () => {
    expect(readDetermination(obs("Someone else wrote DETERMINATION: YES"))).toMatchObject({
      kind: "yes",
      basis: "keywords",
    });
  });
});

describe("readDetermination: keywords (no tag), with negation", () => {
  it.each([
    ["The answer is YES.", "yes"],
    ["The market should resolve NO because the figure was 2.4%", "no"],
    ["Resolution: YES", "yes"],
    ["The answer is not YES.", "no"],
    ["The market will not resolve YES", "no"],
    ["The market doesn't resolve to NO", "yes"],
    ["It should never resolve YES", "no"],
    ["my conclusion is no", "no"],
    ["Should resolve YES given the official figure", "yes"],
  ])("%s → %s", (finding, kind) => {
    const r = readDetermination(obs(finding));
    expect(r).toMatchObject({ kind, basis: "keywords" });
  });

  it.each([
    ["a lower-case 'no' that is a determiner", "The answer is no evidence either way"],
    ["hypothetical modal", "The market could still resolve NO after a revision"],
    ["conditional", "If the estimate is revised, the outcome is NO"],
    ["inverted conditional", "Should the estimate be revised down, the outcome is NO"],
    ["no verdict at all", "Inflation was 2.9% in the flash estimate"],
  ])("ignores %s → ambiguous", (_name, finding) => {
    expect(readDetermination(obs(finding)).kind).toBe("ambiguous");
  });

  it("both YES and NO verdicts without a tag are ambiguous", () => {
    expect(readDetermination(obs("The answer is YES.", "The outcome should be NO."))).toMatchObject({
      kind: "ambiguous",
      reason: expect.stringMatching(/both YES and NO/),
    });
  });

  it("several agreeing verdicts are fine", () => {
    expect(readDetermination(obs("The answer is YES.", "So the market resolves YES."))).toMatchObject({
      kind: "yes",
      observations: [0, 1],
    });
  });
});

describe("evidence levels and confidence", () => {
  it("reads the strongest level and the cited sources", () => {
    expect(readEvidence("[VERIFIED: eurostat.ec.europa.eu:table-prc_hicp] annual rate 3.4%")).toEqual({
      level: "VERIFIED",
      weight: 1,
      sources: ["eurostat.ec.europa.eu:table-prc_hicp"],
    });
    expect(readEvidence("[CORROBORATED: https://a.example/x + https://b.example/y] both agree")).toMatchObject({
      level: "CORROBORATED",
      sources: ["https://a.example/x", "https://b.example/y"],
    });
    expect(readEvidence("[POSSIBLE] maybe; [INDICATED: report] see https://c.example/z.")).toMatchObject({
      level: "INDICATED",
      sources: ["report", "https://c.example/z"],
    });
    expect(readEvidence("[INDICATED: https://s.example/?q=a+b+c] x").sources).toEqual(["https://s.example/?q=a+b+c"]);
    expect(readEvidence("no tag here")).toEqual({ level: "NONE", weight: EVIDENCE_LEVEL_WEIGHTS.NONE, sources: [] });
  });

  it("weights: VERIFIED 1, CORROBORATED 0.85, INDICATED 0.6, POSSIBLE 0.3, none 0.2", () => {
    expect(EVIDENCE_LEVEL_WEIGHTS).toEqual({
      VERIFIED: 1,
      CORROBORATED: 0.85,
      INDICATED: 0.6,
      POSSIBLE: 0.3,
      NONE: 0.2,
    });
  });

  it("mixed levels: confidence = reported × confidence-weighted mean level weight", () => {
    const observations = [
      { finding: "DETERMINATION: YES", evidence: "[VERIFIED: a:1]", severity: "critical" as const, confidence: 0.9 },
      { finding: "Trend", evidence: "[POSSIBLE] maybe", severity: "info" as const, confidence: 0.3 },
    ];
    // strength = (1·0.9 + 0.3·0.3) / 1.2 = 0.825
    expect(answerConfidence({ confidence: 0.8, observations })).toEqual({
      confidence: 0.66,
      strength: 0.825,
      base: 0.8,
    });
    // without a reported confidence: base = mean of the observations' (0.6)
    expect(answerConfidence({ confidence: undefined, observations })).toEqual({
      confidence: 0.495,
      strength: 0.825,
      base: 0.6,
    });
    // without any confidence: base 0.5, plain mean of weights
    const bare = observations.map(({ confidence: _c, ...o }) => ({ ...o, confidence: undefined }));
    expect(answerConfidence({ confidence: undefined, observations: bare })).toEqual({
      confidence: 0.325,
      strength: 0.65,
      base: 0.5,
    });
    // all VERIFIED keeps the reported confidence
    expect(answerConfidence({ confidence: 0.8, observations: [observations[0]] }).confidence).toBe(0.8);
  });

  it("maps an analysis to the canonical answer with extras (levels, basis, warnings)", () => {
    const reply = analysisReplySchema.parse({
      agent_name: "a",
      domain: "d",
      observations: [
        {
          finding: "DETERMINATION: NO",
          evidence: "[VERIFIED: https://stats.example/2026] 2.4%",
          severity: "Critical",
          confidence: 0.9,
        },
        { finding: "Core inflation fell", evidence: "no tag", severity: "info" },
      ],
      recommendations: [{ action: "Resolve NO", rationale: "below threshold", priority: "critical" }],
      confidence: 0.8,
    });
    const a = analysisToAnswer(reply);
    expect(a.determination).toBe(false);
    expect(a.sources).toEqual(["https://stats.example/2026"]);
    expect(a.evidence).toContain("[critical] DETERMINATION: NO");
    expect(a.evidence).toContain("Recommendation (critical): Resolve NO (below threshold)");
    expect(a.extras).toMatchObject({
      protocol: "roundtable",
      determinationBasis: "tag",
      evidenceLevels: { VERIFIED: 1, NONE: 1 },
      warnings: ["1 observation(s) without an evidence level tag"],
    });
    // strength (1·0.9 + 0.2·1)/1.9
    expect(a.confidence).toBeCloseTo(0.8 * (1.1 / 1.9), 4);
  });
});

describe("challenge replies mapping", () => {
  const challenges = [
    "Most other workers reached the opposite conclusion (YES). What specific evidence makes you confident that the answer is NO?",
    "Your confidence is 80%. What would need to change for you to reverse your determination to YES?",
    "Identify the weakest point in your analysis and defend it against someone arguing YES.",
  ];

  it("direct answers (the point's exact text) map to their challenge, whatever the order", () => {
    const replies = mapChallengeReplies(challenges, {
      agent_name: "a",
      challenges: [
        { target_agent: "resolver", finding_challenged: challenges[2], counter_evidence: "weakest: revisions" },
      ],
      concessions: [
        { target_agent: "resolver", finding_accepted: ` 2. ${challenges[1]}`, reason: "a revision above 3% would" },
        { target_agent: "resolver", finding_accepted: challenges[0], reason: "the official figure" },
      ],
    });
    expect(replies).toHaveLength(3);
    expect(replies[0]).toMatch(/^Concession to resolver on ".*": the official figure$/);
    expect(replies[1]).toMatch(/a revision above 3% would$/);
    expect(replies[2]).toMatch(/^Challenge to resolver on ".*": weakest: revisions$/);
  });

  it("otherwise by shared terms, then positionally; leftovers are appended; too few items → a shorter list", () => {
    const replies = mapChallengeReplies(challenges, {
      agent_name: "a",
      challenges: [
        {
          target_agent: "peer-1",
          finding_challenged: "DETERMINATION: YES",
          counter_evidence: "The weakest point is the revision risk; defend against it with the final estimate.",
        },
        {
          target_agent: "peer-2",
          finding_challenged: "DETERMINATION: YES",
          counter_evidence: "I would reverse my determination if the figure changed.",
        },
      ],
      concessions: [{ target_agent: "peer-3", finding_accepted: "Energy", reason: "Energy prices rose." }],
    });
    expect(replies).toHaveLength(3);
    expect(replies[1]).toMatch(/reverse my determination/);
    expect(replies[2]).toMatch(/weakest point/);
    expect(replies[0]).toMatch(/Concession to peer-3/);

    expect(
      mapChallengeReplies(challenges, {
        agent_name: "a",
        challenges: [{ target_agent: "x", finding_challenged: "f", counter_evidence: "only one" }],
      }),
    ).toHaveLength(1);
    expect(mapChallengeReplies(challenges, { agent_name: "a" })).toEqual([]);
  });
});
