/**
 * Daemon/CRE parity with a signed-answer relay and history: the same relayed document (agent-signed replies, served
 * on a real loopback server) and the same 35-market record through the Node pipeline in its DON-compatible relay mode
 * (the undici client, the relay adapter, the index's record) and through the CRE workflow on the SDK's test runtime:
 * same verdict, posterior and bundle. The CRE side is loaded by path (see parity.test.ts).
 */
import { afterAll, beforeAll, expect } from "vitest";
import { createCresolverAdapter } from "../../../protocols/cresolver/adapter.js";
import { createAdapterRegistry } from "../../../protocols/adapter-registry.js";
import { honestAgent, testMarket, type Agent, type TestMarket } from "../../../cre/test/agents.js";
import { colludedHistory, cutoffOf, indexTrackRecord, recordServer } from "../../../cre/test/history.js";
import { relayDocument, relayServer, withWallets } from "../../../cre/test/relay.js";
import type { MarketSnapshot } from "../../../workflow/core/types.js";
import { DEFAULT_DON_LIMITS, donCompatibleHttp, type DonLimits } from "../../../workflow/don-limits.js";
import { createRubricEvaluator } from "../../../workflow/evaluate/rubric.js";
import { createSafeHttpClient, type SafeHttpClient } from "../../../workflow/http/index.js";
import { createKnownSignerVerifier } from "../../../workflow/relay/known-signers.js";
import { createRelayAdapter, fetchRelayDocument, relayUrl } from "../../../workflow/relay/relay-adapter.js";
import { runResolution } from "../workflow/helpers/checked-bundle.js";
import { startServer, type TestServer } from "../workflow/helpers/servers.js";

const CRE = "../../../cre/test/";
type SdkTest = (title: string, fn: () => Promise<void>) => void;
const { test: sdkTest } = (await import(/* @vite-ignore */ "@chainlink/cre-sdk/test")) as unknown as { test: SdkTest };
type Summary = {
  status: string;
  verdict: string;
  bundleHash: string;
  bundle: string;
  httpCalls: number;
  consensusCalls: number;
};
interface Mocks {
  installMocks(market: TestMarket, agents: Map<string, Agent>): { reports: unknown[] };
}
interface Run {
  testConfig(market: TestMarket, overrides?: Record<string, unknown>): Record<string, unknown>;
  requestLog(market: TestMarket): unknown;
  runHandler(config: Record<string, unknown>, log: unknown): Promise<{ summary: Summary }>;
}

let server: TestServer;
let router: Agent = () => ({ status: 404, headers: {}, body: "" });
let http: SafeHttpClient;
const profile = donCompatibleHttp(DEFAULT_DON_LIMITS);

beforeAll(async () => {
  server = await startServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const reply = router(`${url.pathname}${url.search}`, req.bodyText === "" ? null : JSON.parse(req.bodyText));
    res.writeHead(reply.status, { ...reply.headers, "content-length": Buffer.byteLength(reply.body) });
    res.end(reply.body);
  });
  http = createSafeHttpClient({ allowLoopback: true, maxResponseBytes: DEFAULT_DON_LIMITS.maxResponseBytes });
});
afterAll(async () => {
  await http.close();
  await server.close();
});

sdkTest(
  "relay parity with history: 7 relayed signed answers (2 colluders) and 35 finalized markets give the same verdict, posterior and bundle on the daemon's DON-compatible relay mode, the SDK runtime",
  async () => {
    const history = colludedHistory(35);
    const answers = [true, true, true, true, true, false, false];
    const agents = answers.map((yes, i) => honestAgent(yes, 0.8, `r${i}`));
    const market = withWallets(
      testMarket(
        agents.map((_, i) => `${server.url}/agent-${i + 1}`),
        { cutoff: cutoffOf(history) },
      ),
    );
    const doc = await relayDocument(
      market,
      answers.map((yes, i) => ({ yes, confidence: i >= 5 ? 0.95 : 0.7 })),
    );
    const relay = relayServer(doc);
    const record = recordServer(history, market.chainId, market.market);
    router = (path, body) => {
      if (path.startsWith("/relay/")) return relay(path, body);
      if (path.startsWith("/record/")) return record(path, body);
      const m = /^\/agent-(\d+)(\/.*)$/.exec(path);
      const agent = m ? agents[Number(m[1]) - 1] : undefined;
      return agent && m?.[2] ? agent(m[2], body) : { status: 404, headers: {}, body: "" };
    };
    const RELAY = `${server.url}/relay/answers/{marketId}?market={market}`;

    // The daemon's side: the same document fetched once, the same plan (5 HTTP calls, relay + record).
    const limits: DonLimits = { ...DEFAULT_DON_LIMITS, httpCalls: 5, maxReplyBytes: profile.maxResponseBytes };
    const at = { chainId: market.chainId, market: market.market, marketId: market.marketId };
    const verifier = createKnownSignerVerifier(
      market.seats.map((s, i) => ({ agentId: s.agentId, ...market.signers?.[i] })),
    );
    const direct = createCresolverAdapter({
      http,
      resolveTimeoutMs: profile.resolveTimeoutMs,
      challengeTimeoutMs: profile.challengeTimeoutMs,
    });
    const document = await fetchRelayDocument(http, relayUrl(RELAY, at), at, {
      timeoutMs: profile.resolveTimeoutMs,
      maxBytes: limits.maxResponseBytes,
    });
    const snapshot: MarketSnapshot = {
      chainId: market.chainId,
      marketAddress: market.market,
      marketId: market.marketId,
      question: market.question,
      deadline: Number(market.deadline),
      context: "",
      workers: market.seats.map((s) => ({ ...s })),
    };
    const uris = new Map(market.seats.map((s, i) => [s.agentId, market.tokenURIs[i]]));
    const node = await runResolution(
      market.marketId,
      {
        market: { readMarket: async () => snapshot },
        directory: { agentURI: async (id) => uris.get(id) },
        fetcher: http.fetcher,
        adapters: createAdapterRegistry([createRelayAdapter({ direct, document, market: at, verifier })]),
        evaluator: createRubricEvaluator(),
        trackRecord: indexTrackRecord(history, market.chainId, market.market),
        signatures: verifier,
      },
      { don: { limits, recordCalls: 1, relayed: true } },
    );

    const [{ installMocks }, { testConfig, requestLog, runHandler }] = await Promise.all([
      import(/* @vite-ignore */ `${CRE}mocks.js`) as Promise<Mocks>,
      import(/* @vite-ignore */ `${CRE}run.js`) as Promise<Run>,
    ]);
    installMocks(market, new Map([[new URL(server.url).host, router]]));
    const overrides = {
      limits: { httpCalls: 5 },
      trackRecord: { url: `${server.url}/record/track-record?count={count}` },
      answerRelay: { url: RELAY },
    };
    const { summary: sdk } = await runHandler(testConfig(market, overrides), requestLog(market));

    expect(node.decision.history.markets).toBe(35);
    expect(node.proposal.verdict).toBe("yes");
    expect(node.records.every((r) => r.signatureCheck?.status === "signed")).toBe(true);
    for (const side of [sdk]) {
      expect(side).toMatchObject({
        status: "proposed",
        verdict: node.proposal.verdict,
        httpCalls: 2,
        consensusCalls: 3,
      });
      expect(side.bundleHash).toBe(node.bundleHash);
      expect(side.bundle).toBe(node.bundle.json);
      expect(JSON.parse(side.bundle).decision.posterior).toBe(node.decision.posterior);
    }
  },
);
