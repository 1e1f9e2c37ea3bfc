/**
 * Daemon/CRE parity: the same market and the same agents through the Node pipeline (the daemon's: real loopback
 * HTTP servers, the undici-based safe HTTP client with the DON-compatible reply cap and deadlines) and through the
 * bundled CRE workflow executed in QuickJS (HTTP capability mock calling the same agent functions) give the same
 * verdict, per-seat reports (answers, confidences, scores) and bundle hash — failures included.
 *
 * This file belongs to the Node type-check program; the CRE side (SDK-typed) is loaded by path at run time, so the
 * two programs stay separate (the SDK's types retype Node's globals).
 */
import { afterAll, beforeAll, expect } from "vitest";
import { createCresolverAdapter } from "../../../protocols/cresolver/adapter.js";
import { createAdapterRegistry } from "../../../protocols/adapter-registry.js";
import { decodeCreReport, type CreReport } from "../../../workflow/chain/cre-report.js";
import type { MarketSnapshot } from "../../../workflow/core/types.js";
import { DEFAULT_DON_LIMITS, donCompatibleHttp } from "../../../workflow/don-limits.js";
import { createRubricEvaluator } from "../../../workflow/evaluate/rubric.js";
import { createSafeHttpClient, type SafeHttpClient } from "../../../workflow/http/index.js";
import { runResolution } from "../workflow/helpers/checked-bundle.js";
import { encodeReport, VERDICT_CODE } from "../../../workflow/settle/reports.js";
import { brokenAgent, honestAgent, testMarket, type Agent, type TestMarket } from "../../../cre/test/agents.js";
import { colludedHistory, cutoffOf, indexTrackRecord, recordServer } from "../../../cre/test/history.js";
import type { RecordEntry } from "../../../workflow/core/track-record.js";
import { withAllowedRulings } from "../../../workflow/allowed-rulings.js";
import type { DonLimits } from "../../../workflow/don-limits.js";
import { startServer, type TestServer } from "../workflow/helpers/servers.js";

// The CRE side, loaded by (non-literal) path: see the header.
const CRE = "../../../cre/test/";
const BUNDLE = "virtual:cre-bundle";
type SdkTest = (title: string, fn: () => Promise<void>) => void;
const { test: sdkTest } = (await import(/* @vite-ignore */ "@chainlink/cre-sdk/test")) as unknown as { test: SdkTest };
interface Mocks {
  installMocks(market: TestMarket, agents: Map<string, Agent>): { reports: { raw: `0x${string}` }[]; http: unknown[] };
}
interface Host {
  runInQuickJS(
    bundle: string,
    config: unknown,
    request: { log: unknown },
  ): Promise<{ result: { ok: true; value: string } | { ok: false; error: string }; logs: string[] }>;
}
interface Run {
  testConfig(market: TestMarket, overrides?: Record<string, unknown>): Record<string, unknown>;
  requestLog(market: TestMarket): unknown;
  runHandler(config: Record<string, unknown>, log: unknown): Promise<{ summary: Summary }>;
}
type Summary = { status: string; verdict: string; bundleHash: string; bundle: string; httpCalls: number };

/** The market's past (a record served at /record/… on the same loopback server), when a test sets one. */
let history: RecordEntry[] | undefined;

let server: TestServer;
let current: TestMarket | undefined;
let agents: Agent[] = [];
let http: SafeHttpClient;
const profile = donCompatibleHttp(DEFAULT_DON_LIMITS);

/** One loopback server; /agent-N/... is agent N. The CRE mock routes the same paths to the same functions. */
const router: Agent = (path, body) => {
  if (path.startsWith("/record/") && history !== undefined && current !== undefined)
    return recordServer(history, current.chainId, current.market)(path, body);
  const m = /^\/agent-(\d+)(\/.*)$/.exec(path);
  const agent = m ? agents[Number(m[1]) - 1] : undefined;
  return agent ? agent(m![2]!, body) : { status: 404, headers: { "content-type": "application/json" }, body: "{}" };
};

beforeAll(async () => {
  server = await startServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const reply = router(`${url.pathname}${url.search}`, req.bodyText === "" ? null : JSON.parse(req.bodyText));
    res.writeHead(reply.status, { ...reply.headers, "content-length": Buffer.byteLength(reply.body) });
    res.end(reply.body);
  });
  http = createSafeHttpClient({ allowLoopback: true, maxResponseBytes: profile.maxResponseBytes });
});
afterAll(async () => {
  await http.close();
  await server.close();
});

/** The daemon's pipeline in its DON-compatible mode when `don` is given; with the index's record when one is set. */
async function throughNode(
  market: TestMarket,
  don?: { limits: DonLimits; recordCalls: number },
  allowed: readonly string[] = [],
) {
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
  return runResolution(
    market.marketId,
    {
      market: { readMarket: async () => snapshot },
      directory: { agentURI: async (id) => uris.get(id) },
      fetcher: http.fetcher,
      adapters: createAdapterRegistry([
        createCresolverAdapter({
          http,
          resolveTimeoutMs: profile.resolveTimeoutMs,
          challengeTimeoutMs: profile.challengeTimeoutMs,
          retryDelayMs: 10,
        }),
      ]),
      evaluator: createRubricEvaluator(),
      ...(history !== undefined
        ? {
            // The daemon's wrapper, with the governance's allow-list as a set (the real read: record-chain.test.ts).
            trackRecord: withAllowedRulings(indexTrackRecord(history, market.chainId, market.market), {
              allowed: async (arbiters) => new Set(arbiters.filter((a) => allowed.includes(a.toLowerCase()))),
            }),
          }
        : {}),
    },
    don !== undefined ? { don } : {},
  );
}

async function throughCre(
  market: TestMarket,
  overrides: Record<string, unknown> = {},
): Promise<{ summary: Summary; report: CreReport; sdk: Summary }> {
  const [{ installMocks }, { runInQuickJS }, { testConfig, requestLog, runHandler }, { default: bundle }] =
    await Promise.all([
      import(/* @vite-ignore */ `${CRE}mocks.js`) as Promise<Mocks>,
      import(/* @vite-ignore */ `${CRE}quickjs-host.js`) as Promise<Host>,
      import(/* @vite-ignore */ `${CRE}run.js`) as Promise<Run>,
      import(/* @vite-ignore */ BUNDLE) as Promise<{ default: string }>,
    ]);
  const log = installMocks(market, new Map([[new URL(server.url).host, router]]));
  const run = await runInQuickJS(bundle, testConfig(market, overrides), { log: requestLog(market) });
  if (!run.result.ok) throw new Error(`${run.result.error}\n${run.logs.join("\n")}`);
  expect(log.reports).toHaveLength(1);
  // The same handler in-process on the SDK's test runtime.
  const { summary: sdk } = await runHandler(testConfig(market, overrides), requestLog(market));
  return { summary: JSON.parse(run.result.value), report: decodeCreReport(log.reports[0]!.raw), sdk };
}

async function expectParity(list: Agent[]): Promise<string> {
  agents = list;
  const market = testMarket(list.map((_, i) => `${server.url}/agent-${i + 1}`));
  const node = await throughNode(market);
  const cre = await throughCre(market);
  expect(cre.summary.bundleHash).toBe(node.bundleHash);
  expect(cre.summary.bundle).toBe(node.bundle.json);
  expect(cre.summary.verdict).toBe(node.proposal.verdict);
  expect(cre.report.verdict).toBe(VERDICT_CODE[node.proposal.verdict]);
  expect(cre.report.reports).toEqual(node.proposal.reports.map(encodeReport));
  expect(cre.report.bundleHash).toBe(node.proposal.bundleHash);
  return node.proposal.verdict;
}

sdkTest("parity: a unanimous panel resolves identically on the daemon's pipeline and on the DON", async () => {
  expect(
    await expectParity([honestAgent(true, 0.9, "a"), honestAgent(true, 0.8, "b"), honestAgent(true, 0.7, "c")]),
  ).not.toBe("");
});

sdkTest(
  "parity: a split panel with failing agents (5xx, not JSON, over the reply cap) gives the same reports and bundle",
  async () => {
    await expectParity([
      honestAgent(true, 0.9, "a"),
      honestAgent(false, 0.6, "b"),
      brokenAgent("500"),
      brokenAgent("not-json"),
      brokenAgent("huge"),
      honestAgent(true, 0.75, "f"),
    ]);
  },
);

sdkTest("parity: without quorum both propose Invalid with the same bundle", async () => {
  expect(await expectParity([honestAgent(true), brokenAgent("bad-schema"), brokenAgent("500")])).toBe("invalid");
});

sdkTest(
  "parity with history: 35 finalized markets behind a 7-seat panel with 2 colluders — same verdict, posterior and bundle on the daemon (DON-compatible mode, index record), the SDK runtime and QuickJS",
  async () => {
    history = colludedHistory(35);
    agents = [true, true, true, true, true, false, false].map((yes, i) =>
      honestAgent(yes, i >= 5 ? 0.95 : 0.7, `h${i}`),
    );
    const market = testMarket(
      agents.map((_, i) => `${server.url}/agent-${i + 1}`),
      { cutoff: cutoffOf(history) },
    );
    current = market;
    try {
      // 7 asks + 1 record call of 10: the challenge round does not fit on either side.
      const limits: DonLimits = { ...DEFAULT_DON_LIMITS, httpCalls: 10, maxReplyBytes: profile.maxResponseBytes };
      const node = await throughNode(market, { limits, recordCalls: 1 });
      const cre = await throughCre(market, {
        limits: { httpCalls: 10 },
        trackRecord: { url: `${server.url}/record/track-record?count={count}` },
      });
      expect(node.decision.history.markets).toBe(35);
      expect(node.proposal.verdict).toBe("yes");
      for (const side of [cre.summary, cre.sdk]) {
        expect(side.verdict).toBe(node.proposal.verdict);
        expect(side.bundleHash).toBe(node.bundleHash);
        expect(side.bundle).toBe(node.bundle.json);
        expect(side.httpCalls).toBe(8);
      }
      expect(JSON.parse(cre.summary.bundle).decision.posterior).toBe(node.decision.posterior);
      expect(JSON.parse(cre.summary.bundle).extra).toMatchObject({ don: { challenges: "skipped" } });
      expect(cre.report.reports).toEqual(node.proposal.reports.map(encodeReport));
    } finally {
      history = undefined;
      current = undefined;
    }
  },
);

const ALLOWED_ARBITER = "0x00000000000000000000000000000000000a11ed";
const OTHER_ARBITER = "0x0000000000000000000000000000000000000bad";
const GOVERNANCE = "0x0000000000000000000000000000000000060fe5";

sdkTest(
  "parity with rulings: an allowed arbiter's ruling is known truth and a non-allowed one's soft evidence, on the daemon's wrapper and on the DON (its allow-list read)",
  async () => {
    // 35 markets; 6 were disputed and ruled: 3 by the allowed arbiter, 3 by one the governance does not allow.
    history = colludedHistory(35).map((e, i) =>
      i % 6 === 2 ? { ...e, disputed: true, arbiter: i % 12 === 2 ? ALLOWED_ARBITER : OTHER_ARBITER } : e,
    );
    const ruled = history.filter((e) => e.disputed);
    expect(ruled.filter((e) => e.arbiter === ALLOWED_ARBITER)).toHaveLength(3);
    expect(ruled.filter((e) => e.arbiter === OTHER_ARBITER)).toHaveLength(3);
    agents = [true, true, true, true, true, false, false].map((yes, i) =>
      honestAgent(yes, i >= 5 ? 0.95 : 0.7, `r${i}`),
    );
    const market = testMarket(
      agents.map((_, i) => `${server.url}/agent-${i + 1}`),
      { cutoff: cutoffOf(history), governance: GOVERNANCE, allowedArbiters: [ALLOWED_ARBITER] },
    );
    current = market;
    try {
      const limits: DonLimits = { ...DEFAULT_DON_LIMITS, httpCalls: 10, maxReplyBytes: profile.maxResponseBytes };
      const node = await throughNode(market, { limits, recordCalls: 1 }, [ALLOWED_ARBITER]);
      const cre = await throughCre(market, {
        limits: { httpCalls: 10 },
        trackRecord: { url: `${server.url}/record/track-record?count={count}` },
      });
      const knownTruths = (bundle: string) =>
        (JSON.parse(bundle) as { estimates: { knownTruths: number } }).estimates.knownTruths;
      // Only the allowed arbiter's three rulings are truth, on both sides.
      expect(knownTruths(node.bundle.json)).toBe(3);
      for (const side of [cre.summary, cre.sdk]) {
        expect(knownTruths(side.bundle)).toBe(3);
        expect(side.bundleHash).toBe(node.bundleHash);
      }
      // The daemon's side trusting the other arbiter too counts six: the count above is the allow-list's doing.
      const both = await throughNode(market, { limits, recordCalls: 1 }, [ALLOWED_ARBITER, OTHER_ARBITER]);
      expect(knownTruths(both.bundle.json)).toBe(6);
      expect(both.bundleHash).not.toBe(node.bundleHash);
      // A DON whose governance allows nothing: every ruling is soft evidence.
      const none = await throughCre(
        { ...market, allowedArbiters: [] },
        { limits: { httpCalls: 10 }, trackRecord: { url: `${server.url}/record/track-record?count={count}` } },
      );
      expect(knownTruths(none.sdk.bundle)).toBe(0);
    } finally {
      history = undefined;
      current = undefined;
    }
  },
);
