/**
 * The CRE workflow with a relay of agent-signed answers (workflow/relay/), on the SDK's test runtime: the whole
 * panel's answers in one HTTP call and one consensus round, each signature checked against the agent's wallet read
 * in the second multicall; with the served track record a market with history resolves 5 seats at the published
 * 5 HTTP calls and 10 seats (challenged) at 15; a relay can withhold answers, never forge them.
 */
import { test } from "@chainlink/cre-sdk/test";
import { describe, expect } from "vitest";
import { parseBundle } from "../../workflow/core/bundle-schema.js";
import { honestAgent, testMarket, type Agent, type TestMarket } from "./agents.js";
import { colludedHistory, cutoffOf, RECORD_HOST, RECORD_URL, recordServer } from "./history.js";
import { installMocks } from "./mocks.js";
import { agentKey, RELAY_HOST, RELAY_URL, relayDocument, relayServer, signedReply, withWallets } from "./relay.js";
import { requestLog, runHandler, testConfig } from "./run.js";

const hosts = (n: number) => Array.from({ length: n }, (_, i) => `https://agent-${i + 1}.example`);

/** The agents behind their own endpoints (asked directly only for challenges), the relay and the record server. */
function servers(market: TestMarket, answers: readonly boolean[], relay: Agent, history = colludedHistory(0)) {
  const agents = new Map(answers.map((yes, i) => [`agent-${i + 1}.example`, honestAgent(yes, 0.8, `r${i}`)]));
  agents.set(RELAY_HOST, relay);
  agents.set(RECORD_HOST, recordServer(history, market.chainId, market.market));
  return agents;
}

const relayConfig = (market: TestMarket, httpCalls: number) =>
  testConfig(market, {
    limits: { httpCalls },
    trackRecord: { url: RECORD_URL },
    answerRelay: { url: RELAY_URL },
  });

describe("CRE workflow with a signed-answer relay (SDK test runtime)", () => {
  test("at the published 5 HTTP calls a 5-seat market with history resolves: 2 HTTP calls, 3 consensus calls, every seat signed", async () => {
    const history = colludedHistory(40, [4, 5], 2, 5);
    const market = withWallets(testMarket(hosts(5), { cutoff: cutoffOf(history) }));
    const answers = [true, true, true, false, false];
    const doc = await relayDocument(
      market,
      answers.map((yes, i) => ({ yes, confidence: i >= 3 ? 0.95 : 0.7 })),
    );
    const paths: string[] = [];
    const log = installMocks(
      market,
      servers(
        market,
        answers,
        relayServer(doc, (p) => paths.push(p)),
        history,
      ),
    );
    const { summary, config } = await runHandler(relayConfig(market, 5), requestLog(market));

    expect(summary).toMatchObject({ status: "proposed", verdict: "yes", httpCalls: 2, consensusCalls: 3 });
    expect(summary.chainReads).toBe(2);
    // Asks and record: one round each; the challenge round would need 5 more calls of the 3 left.
    expect(summary.plan?.httpCalls).toMatchObject({ ask: 1, record: 1, challenge: 0 });
    expect(summary.plan?.challengesSkipped).toContain("5 challenge calls needed, 3 of the 5 HTTP calls left");
    expect(paths).toEqual([`/answers/7?market=${market.market.toLowerCase()}&chain=31337`]);
    // No agent was called: the relay and the record are the only HTTP calls.
    expect(log.http.map((h) => new URL(h.url).host).sort()).toEqual([RECORD_HOST, RELAY_HOST]);
    const bundle = parseBundle(summary.bundle ?? "");
    expect(bundle.estimates?.history.markets).toBe(40);
    expect(bundle.extra).toMatchObject({ don: { challenges: "skipped" } });
    const reports = log.reports[0]?.report.reports ?? [];
    expect(reports).toHaveLength(5);
    // Every seat's report carries its verified signature (posted on-chain as `signed`).
    for (const r of reports) expect(r.signature?.length ?? 0).toBeGreaterThan(2);
    // The relay lifts the panel limit to the report's 29 seats (at 5 HTTP calls, with the record).
    expect(config.maxPanel).toBe(29);
  });

  test("at 15 HTTP calls a 10-seat market with history resolves with its challenge round: 12 HTTP calls, 4 consensus calls", async () => {
    const history = colludedHistory(35, [9, 10], 4, 10);
    const market = withWallets(testMarket(hosts(10), { cutoff: cutoffOf(history) }));
    const answers = Array.from({ length: 10 }, (_, i) => i < 8);
    const doc = await relayDocument(
      market,
      answers.map((yes) => ({ yes, confidence: 0.8 })),
    );
    const log = installMocks(market, servers(market, answers, relayServer(doc), history));
    const { summary } = await runHandler(relayConfig(market, 15), requestLog(market));

    expect(summary).toMatchObject({ status: "proposed", verdict: "yes", httpCalls: 12, consensusCalls: 4 });
    expect(summary.plan?.challengesSkipped).toBeUndefined();
    expect(summary.plan?.consensusCalls.total).toBeLessThanOrEqual(20);
    expect(log.http.filter((h) => h.url.endsWith("/a2a/challenge"))).toHaveLength(10);
    expect(log.http.filter((h) => h.url.endsWith("/a2a/resolve"))).toHaveLength(0);
    expect(parseBundle(summary.bundle ?? "").extra).toBeUndefined();
  });

  test("a relay that forges, alters or strips answers to flip the verdict fails: those seats count as not answered, the verdict is the genuine answers'", async () => {
    const market = withWallets(testMarket(hosts(7)));
    const genuine = [true, true, true, true, false, false, false].map((yes) => ({ yes, confidence: 0.8 }));
    const honest = await relayDocument(market, genuine);
    // The attack: seats 5-7's true "no" answers replaced by high-confidence "yes" answers the agents never gave.
    const forged = JSON.parse(JSON.stringify(honest)) as typeof honest;
    const entry = (i: number) => {
      const e = forged.answers[i];
      if (e === undefined) throw new Error(`no entry ${i}`);
      return e;
    };
    // Seat 5: the answer flipped, the agent's signature kept (altered).
    entry(4).reply = { ...entry(4).reply, determination: true, confidence: 0.99 };
    // Seat 6: a "yes" signed with a key that is not the agent's wallet (forged).
    entry(5).reply = await signedReply(market, 5, true, 0.99, agentKey(99));
    // Seat 7: a "yes" without a signature.
    const { signature: _drop, ...unsigned } = await signedReply(market, 6, true, 0.99);
    entry(6).reply = unsigned;
    const answers = genuine.map((g) => g.yes);

    const attacked = installMocks(market, servers(market, answers, relayServer(forged)));
    const run = await runHandler(relayConfig(market, 5), requestLog(market));
    // Only the genuine four answers remain.
    const withheld = { ...honest, answers: honest.answers.slice(0, 4) };
    const ref = installMocks(market, servers(market, answers, relayServer(withheld)));
    const reference = await runHandler(relayConfig(market, 5), requestLog(market));

    expect(run.summary.status).toBe("proposed");
    expect(run.summary.verdict).toBe(reference.summary.verdict);
    const bundle = parseBundle(run.summary.bundle ?? "");
    const refBundle = parseBundle(reference.summary.bundle ?? "");
    expect(bundle.decision?.posterior).toBe(refBundle.decision?.posterior);
    expect(attacked.reports[0]?.report.reports.map((r) => [r.answer, r.confidenceBps])).toEqual(
      ref.reports[0]?.report.reports.map((r) => [r.answer, r.confidenceBps]),
    );
    const failures = bundle.workers.slice(4).map((w) => w.askFailure?.message ?? "");
    expect(failures[0]).toMatch(/agent 5's reply is not signed by its agentWallet or owner \(forged or altered\)/);
    expect(failures[1]).toMatch(/agent 6's reply is not signed by its agentWallet or owner/);
    expect(failures[2]).toMatch(/agent 7's reply is not signed/);
    expect(refBundle.workers.slice(4).map((w) => w.askFailure?.message)).toEqual([
      "relay: no answer from agent 5 in its document",
      "relay: no answer from agent 6 in its document",
      "relay: no answer from agent 7 in its document",
    ]);
  });

  test("a relay that is down or serves another market's document stops the execution: nothing is proposed", async () => {
    const market = withWallets(testMarket(hosts(3)));
    const answers = [true, true, false];
    const down: Agent = () => ({ status: 503, headers: { "content-type": "application/json" }, body: "{}" });
    const log = installMocks(market, servers(market, answers, down));
    await expect(runHandler(relayConfig(market, 5), requestLog(market))).rejects.toThrow(/answer relay: .*503/);
    const other = await relayDocument(
      { ...market, marketId: 8n },
      answers.map((yes) => ({ yes, confidence: 0.8 })),
    );
    installMocks(market, servers(market, answers, relayServer(other)));
    await expect(runHandler(relayConfig(market, 5), requestLog(market))).rejects.toThrow(
      /answer relay: the relay's answers document is for market 8/,
    );
    installMocks(market, servers(market, answers, relayServer({ version: 2 })));
    await expect(runHandler(relayConfig(market, 5), requestLog(market))).rejects.toThrow(/malformed at version/);
    expect(log.reports).toHaveLength(0);
  });

  test("a seat with no wallet and no owner on-chain cannot have a relayed answer", async () => {
    const market = testMarket(hosts(3), { signers: [{}, {}, {}] });
    const doc = await relayDocument(
      market,
      [true, true, true].map((yes) => ({ yes, confidence: 0.8 })),
    );
    installMocks(market, servers(market, [true, true, true], relayServer(doc)));
    const { summary } = await runHandler(relayConfig(market, 5), requestLog(market));
    expect(summary).toMatchObject({ status: "proposed", verdict: "invalid" });
  });
});
