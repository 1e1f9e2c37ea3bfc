/**
 * The CRE workflow on the SDK's own test runtime and capability mocks (EvmMock, HttpActionsMock, the default
 * consensus): the handler reads the market through two Multicall3 reads, asks and challenges the agents through the
 * HTTP capability, runs the project's pipeline and writes a report the receiver can decode.
 */
import { newTestRuntime, test } from "@chainlink/cre-sdk/test";
import { describe, expect } from "vitest";
import { parseBundle } from "../../workflow/core/bundle-schema.js";
import { buildRegistrationFile } from "../../workflow/registration/codec.js";
import { createBudget } from "../resolution/budget.js";
import { configSchema } from "../resolution/config.js";
import { ANSWER_CODE, VERDICT_CODE } from "../../workflow/settle/reports.js";
import { createCreHttpClient } from "../resolution/http.js";
import { brokenAgent, honestAgent, testMarket, type Agent } from "./agents.js";
import { colludedHistory, cutoffOf, RECORD_HOST, RECORD_URL, recordServer } from "./history.js";
import { installMocks } from "./mocks.js";
import { requestLog, runHandler, testConfig } from "./run.js";

const hosts = (n: number) => Array.from({ length: n }, (_, i) => `https://agent-${i + 1}.example`);
const agentsFor = (list: Agent[]) => new Map(list.map((a, i) => [`agent-${i + 1}.example`, a]));

describe("CRE workflow (SDK test runtime)", () => {
  test("resolves a panel and writes one report the receiver decodes: verdict, per-seat reports, bundle hash", async () => {
    const market = testMarket(hosts(3));
    const log = installMocks(
      market,
      agentsFor([honestAgent(true, 0.9, "a"), honestAgent(true, 0.8, "b"), honestAgent(false, 0.6, "c")]),
    );
    const { summary } = await runHandler(testConfig(market), requestLog(market));

    expect(summary.status).toBe("proposed");
    expect(summary.chainReads).toBe(2);
    expect(log.chainReads).toBe(2);
    // 3 asks + 3 challenges, every one asking the DON's cache to share the reply between nodes.
    expect(summary.httpCalls).toBe(6);
    // One consensus call per round (asks, challenges), one for the report.
    expect(summary.consensusCalls).toBe(3);
    expect(log.http.map((h) => h.url.replace(/^https:\/\/agent-\d\.example/, ""))).toEqual([
      "/a2a/resolve",
      "/a2a/resolve",
      "/a2a/resolve",
      "/a2a/challenge",
      "/a2a/challenge",
      "/a2a/challenge",
    ]);
    expect(log.http.every((h) => h.cached)).toBe(true);

    expect(log.reports).toHaveLength(1);
    const { report, receiver } = log.reports[0]!;
    expect(receiver.toLowerCase()).toBe(testConfig(market).receiverAddress.toLowerCase());
    expect(report.chainId).toBe(31337n);
    expect(report.market.toLowerCase()).toBe(market.market.toLowerCase());
    expect(report.marketId).toBe(market.marketId);
    expect(report.bundleHash).toBe(summary.bundleHash);
    expect(report.verdict).toBe(VERDICT_CODE[summary.verdict as "yes" | "no" | "invalid"]);
    expect(report.reports.map((r) => r.answer)).toEqual([ANSWER_CODE.yes, ANSWER_CODE.yes, ANSWER_CODE.no]);
    expect(report.reports[0]!.confidenceBps).toBe(9000);
    // The bundle travels in the execution result and hashes to the reported hash.
    expect(summary.bundle).toBeDefined();
  });

  test("a failing worker is a failed seat with the Node client's words, not a failed execution", async () => {
    const market = testMarket(hosts(4));
    const log = installMocks(
      market,
      agentsFor([
        honestAgent(true, 0.9, "a"),
        honestAgent(true, 0.9, "b"),
        brokenAgent("500"),
        brokenAgent("not-json"),
      ]),
    );
    const { summary } = await runHandler(testConfig(market), requestLog(market));
    expect(summary.status).toBe("proposed");
    // The DON's bundle is a valid resolution bundle: failed seats carry their ask failure.
    const bundle = parseBundle(summary.bundle!);
    expect(bundle.workers.map((w) => w.askFailure?.kind)).toEqual([
      undefined,
      undefined,
      "http-status",
      "invalid-response",
    ]);
    const text = JSON.stringify(bundle);
    expect(text).toContain("https://agent-3.example/a2a/resolve answered 500");
    expect(text).toContain('https://agent-4.example/a2a/resolve replied with content-type \\"text/html\\", not JSON');
    // No retry on a DON: one call per failing ask.
    expect(log.http.filter((h) => h.url.startsWith("https://agent-3.example")).length).toBe(1);
    expect(log.reports[0]!.report.reports.map((r) => r.answer)).toEqual([
      ANSWER_CODE.yes,
      ANSWER_CODE.yes,
      ANSWER_CODE.failed,
      ANSWER_CODE.failed,
    ]);
  });

  test("an oversized reply is refused per seat at the DON's reply cap", async () => {
    const market = testMarket(hosts(3));
    installMocks(market, agentsFor([honestAgent(true), honestAgent(true), brokenAgent("huge")]));
    const { summary } = await runHandler(
      testConfig(market, { limits: { httpCalls: 20, maxReplyBytes: 20_480 } }),
      requestLog(market),
    );
    expect(summary.bundle).toContain("https://agent-3.example/a2a/resolve sent more than 20480 bytes");
  });

  test("a panel larger than the HTTP budget allows is skipped before any call, with the reason", async () => {
    const market = testMarket(hosts(6));
    const log = installMocks(market, agentsFor(Array.from({ length: 6 }, () => honestAgent(true))));
    const { summary } = await runHandler(testConfig(market, { limits: { httpCalls: 5 } }), requestLog(market));
    expect(summary.status).toBe("skipped");
    expect(summary.reason).toMatch(/panel of 6: 6 asks .* = 6 HTTP calls; this DON execution allows 5 \(max panel 5\)/);
    expect(log.http).toHaveLength(0);
    expect(log.reports).toHaveLength(0);
  });

  test("at the published 5 HTTP calls a 5-seat panel resolves: one ask round, challenges skipped and marked", async () => {
    const market = testMarket(hosts(5));
    const log = installMocks(
      market,
      agentsFor([true, true, true, false, true].map((yes, i) => honestAgent(yes, 0.7 + i * 0.05, `a${i}`))),
    );
    const { summary } = await runHandler(testConfig(market, { limits: { httpCalls: 5 } }), requestLog(market));
    expect(summary).toMatchObject({ status: "proposed", verdict: "yes", httpCalls: 5, consensusCalls: 2 });
    expect(summary.plan?.challengesSkipped).toContain("5 challenge calls needed, 0 of the 5 HTTP calls left");
    expect(log.http.every((h) => h.url.endsWith("/a2a/resolve"))).toBe(true);
    const bundle = parseBundle(summary.bundle!);
    expect(bundle.extra).toMatchObject({ don: { challenges: "skipped" } });
    expect(log.reports[0]!.report.reports).toHaveLength(5);
  });

  test("at 15 HTTP calls a 10-seat panel resolves within 20 consensus calls (2 used)", async () => {
    const market = testMarket(hosts(10));
    installMocks(market, agentsFor(Array.from({ length: 10 }, (_, i) => honestAgent(i % 3 !== 0, 0.8, `a${i}`))));
    const { summary } = await runHandler(testConfig(market, { limits: { httpCalls: 15 } }), requestLog(market));
    expect(summary).toMatchObject({ status: "proposed", verdict: "yes", httpCalls: 10, consensusCalls: 2 });
    expect(summary.plan?.consensusCalls.total).toBe(2);
  });

  test("rounds split to fit the observation quota, and the consensus budget decides the challenge round", async () => {
    const market = testMarket(hosts(5));
    const log = installMocks(market, agentsFor(Array.from({ length: 5 }, () => honestAgent(true, 0.9))));
    // 2 calls per observation: 3 ask rounds, 3 challenge rounds, 1 report.
    const split = await runHandler(
      testConfig(market, { limits: { httpCalls: 10, maxObservationBytes: 2_048 } }),
      requestLog(market),
    );
    expect(split.summary).toMatchObject({ status: "proposed", httpCalls: 10, consensusCalls: 7 });
    expect(log.http).toHaveLength(10);
    // With 6 consensus calls the challenge rounds do not fit: they are skipped, nothing fails mid-execution.
    const tight = await runHandler(
      testConfig(market, { limits: { httpCalls: 10, maxObservationBytes: 2_048, consensusCalls: 6 } }),
      requestLog(market),
    );
    expect(tight.summary).toMatchObject({ status: "proposed", httpCalls: 5, consensusCalls: 4 });
    expect(tight.summary.plan?.challengesSkipped).toContain("3 consensus calls needed, 2 left");
    // Too few for the asks themselves: refused before any call.
    const none = await runHandler(
      testConfig(market, { limits: { httpCalls: 10, maxObservationBytes: 2_048, consensusCalls: 3 } }),
      requestLog(market),
    );
    expect(none.summary.reason).toContain("4 consensus calls needed; this DON execution allows 3");
  });

  test("with a track record: one record round, the document verified against the cut-off, colluders outweighed", async () => {
    // 7 asks + 1 record call leave 7 for the challenges: 4 rounds with the report. 40 past markets in which agents 6 and 7 always answered against the outcome; now they say no, 1-5 say yes.
    const history = colludedHistory(40);
    const market = testMarket(hosts(7), { cutoff: cutoffOf(history) });
    const answers = [true, true, true, true, true, false, false];
    const agents = agentsFor(answers.map((yes, i) => honestAgent(yes, i >= 5 ? 0.95 : 0.7, `a${i}`)));
    const counts: number[] = [];
    agents.set(
      RECORD_HOST,
      recordServer(history, market.chainId, market.market, (c) => counts.push(c)),
    );
    const log = installMocks(market, agents);
    const config = testConfig(market, { limits: { httpCalls: 15 }, trackRecord: { url: RECORD_URL } });
    const { summary } = await runHandler(config, requestLog(market));
    expect(summary).toMatchObject({ status: "proposed", verdict: "yes", httpCalls: 15, consensusCalls: 4 });
    expect(counts).toEqual([40]);
    expect(log.http.filter((h) => h.url.includes(RECORD_HOST))).toHaveLength(1);
    const bundle = parseBundle(summary.bundle!);
    expect(bundle.estimates?.history.markets).toBe(40);
    // The same market without the record: the colluders are unproven like everyone, the verdict is weaker.
    const bare = await runHandler(testConfig(market, { limits: { httpCalls: 15 } }), requestLog(market));
    expect(parseBundle(bare.summary.bundle!).estimates?.history.markets).toBe(0);
  });

  test("a record document that does not lead to the cut-off head stops the execution: nothing is proposed", async () => {
    const history = colludedHistory(35);
    const forged = history.map((e) => (e.index === 30 ? { ...e, outcome: !e.outcome } : e));
    const market = testMarket(hosts(3), { cutoff: cutoffOf(history) });
    const agents = agentsFor([honestAgent(true), honestAgent(true), honestAgent(false)]);
    agents.set(RECORD_HOST, recordServer(forged, market.chainId, market.market));
    const log = installMocks(market, agents);
    await expect(
      runHandler(testConfig(market, { trackRecord: { url: RECORD_URL } }), requestLog(market)),
    ).rejects.toThrow(/track record could not be read/);
    expect(log.reports).toHaveLength(0);
  });

  test("with a record at 15 HTTP calls a 14-seat panel resolves; at 5 calls 4 seats (the record takes one call)", async () => {
    const history = colludedHistory(30, [], 3, 14);
    const big = testMarket(hosts(14), { cutoff: cutoffOf(history) });
    const agents = agentsFor(Array.from({ length: 14 }, (_, i) => honestAgent(i % 4 !== 0, 0.8, `a${i}`)));
    agents.set(RECORD_HOST, recordServer(history, big.chainId, big.market));
    installMocks(big, agents);
    const at15 = await runHandler(
      testConfig(big, { limits: { httpCalls: 15 }, trackRecord: { url: RECORD_URL } }),
      requestLog(big),
    );
    expect(at15.summary).toMatchObject({ status: "proposed", httpCalls: 15, consensusCalls: 3 });
    expect(at15.config.maxPanel).toBe(14);
    const small = testMarket(hosts(4), { cutoff: cutoffOf(history) });
    installMocks(small, agents);
    const at5 = await runHandler(
      testConfig(small, { limits: { httpCalls: 5 }, trackRecord: { url: RECORD_URL } }),
      requestLog(small),
    );
    expect(at5.summary).toMatchObject({ status: "proposed", httpCalls: 5, consensusCalls: 3 });
  });

  test("a market no longer in ResolutionRequested is skipped after one read, nothing written", async () => {
    const market = testMarket(hosts(2), { status: 6 });
    const log = installMocks(market, agentsFor([honestAgent(true), honestAgent(true)]));
    const { summary } = await runHandler(testConfig(market), requestLog(market));
    expect(summary).toMatchObject({ status: "skipped", chainReads: 1 });
    expect(summary.reason).toContain("status 6");
    expect(log.reports).toHaveLength(0);
  });

  test("a log from another contract is refused", async () => {
    const market = testMarket(hosts(2));
    installMocks(market, agentsFor([honestAgent(true), honestAgent(true)]));
    await expect(
      runHandler(testConfig(market), requestLog(market, "0x000000000000000000000000000000000000dEaD")),
    ).rejects.toThrow(/not the configured market/);
  });

  test("without quorum the proposal is a bonded Invalid verdict with every seat failed", async () => {
    const market = testMarket(hosts(3));
    const log = installMocks(market, agentsFor([honestAgent(true), brokenAgent("bad-schema"), brokenAgent("500")]));
    const { summary } = await runHandler(testConfig(market), requestLog(market));
    expect(summary.verdict).toBe("invalid");
    expect(log.reports[0]!.report.verdict).toBe(VERDICT_CODE.invalid);
  });

  test("a registration file served over https is fetched through the HTTP capability and counted in the plan", async () => {
    const market = testMarket(hosts(2));
    market.tokenURIs[1] = "https://registry.example/agents/2.json";
    const registry: Agent = () => ({
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(buildRegistrationFile({ name: "agent 2", endpoint: "https://agent-2.example" })),
    });
    const agents = agentsFor([honestAgent(true, 0.9, "a"), honestAgent(true, 0.8, "b")]);
    agents.set("registry.example", registry);
    const log = installMocks(market, agents);
    // 2 seats × (ask + challenge) + 1 registration = 5 calls: exactly the default quota; 4 rounds + the report.
    const { summary } = await runHandler(testConfig(market, { limits: { httpCalls: 5 } }), requestLog(market));
    expect(summary).toMatchObject({ status: "proposed", httpCalls: 5, consensusCalls: 4 });
    expect(log.http[0]).toMatchObject({ method: "GET", url: "https://registry.example/agents/2.json" });
    // One call fewer: the challenge round no longer fits and is skipped, the bundle says so.
    const tooFew = await runHandler(testConfig(market, { limits: { httpCalls: 4 } }), requestLog(market));
    expect(tooFew.summary).toMatchObject({ status: "proposed", httpCalls: 3, consensusCalls: 3 });
    expect(parseBundle(tooFew.summary.bundle!).extra).toMatchObject({ don: { challenges: "skipped" } });
    const tooFewStill = await runHandler(testConfig(market, { limits: { httpCalls: 2 } }), requestLog(market));
    expect(tooFewStill.summary.reason).toContain("= 3 HTTP calls; this DON execution allows 2");
  });

  test("the HTTP budget is a hard backstop: a call past it fails in our words without reaching the network", async () => {
    const market = testMarket(hosts(1));
    const log = installMocks(market, agentsFor([honestAgent(true)]));
    const http = createCreHttpClient({
      runtime: newTestRuntime(),
      calls: createBudget(1),
      rounds: createBudget(5),
      callsPerRound: 24,
      maxReplyBytes: 20_480,
      cacheMaxAgeSeconds: 0,
    });
    const first = await http.postJson("https://agent-1.example/a2a/resolve", { market_id: 1 }, { timeoutMs: 1_000 });
    expect(first.status).toBe(200);
    await expect(
      http.postJson("https://agent-1.example/a2a/resolve", { market_id: 1 }, { timeoutMs: 1_000 }),
    ).rejects.toMatchObject({
      kind: "network",
      message: "https://agent-1.example/a2a/resolve not called: the 1 HTTP calls of this DON execution are used up",
    });
    expect(log.http).toHaveLength(1);
    expect(log.http[0]!.cached).toBe(false);
    await expect(http.postJson("ftp://agent-1.example/x", {}, { timeoutMs: 1_000 })).rejects.toMatchObject({
      kind: "destination-refused",
    });
  });

  test("config: limits default to the published quotas, addresses are checked, unknown keys refused", () => {
    const market = testMarket(hosts(1));
    const c = configSchema.parse(testConfig(market, { limits: {} }));
    expect(c.limits).toMatchObject({ httpCalls: 5, chainReads: 10, callTimeoutMs: 10_000 });
    expect(c.maxPanel).toBe(5);
    expect(() => configSchema.parse({ ...testConfig(market), marketAddress: "0x123" })).toThrow();
    expect(() => configSchema.parse({ ...testConfig(market), extra: 1 })).toThrow();
    expect(() =>
      configSchema.parse({ ...testConfig(market), readAt: "finalized", confidence: "CONFIDENCE_LEVEL_LATEST" }),
    ).toThrow(/needs confidence/);
    expect(configSchema.parse({ ...testConfig(market), readAt: undefined }).readAt).toBe("finalized");
  });
});
