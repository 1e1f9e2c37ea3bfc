/**
 * DON/daemon replay with history (issue 22 item 6): seeded sequences of markets on one 7-agent panel (2 colluders
 * who always answer the same, against the truth, with high confidence). Market k is resolved twice — by the CRE
 * handler on the SDK's test runtime (record served as the window document, verified against the cut-off) and by the
 * daemon's pipeline in its DON-compatible mode (real loopback HTTP, the undici client, the index path of the record)
 * — and then finalizes with the daemon's verdict, so market k+1 has k markets of history.
 *
 * `npm test` replays one short seed;
 * `DON_REPLAY=1 npx vitest run test/ts/cre/replay.test.ts --testTimeout 3600000` replays the acceptance run (20 seeds × 60 markets) and writes bench/results/don-replay.json.
 * The CRE side (SDK-typed) is loaded by path at run time, as in parity.test.ts.
 */
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, expect } from "vitest";
import { createAdapterRegistry } from "../../../protocols/adapter-registry.js";
import { createCresolverAdapter } from "../../../protocols/cresolver/adapter.js";
import { honestAgent, testMarket, type Agent, type TestMarket } from "../../../cre/test/agents.js";
import { cutoffOf, indexTrackRecord, recordEntry, recordServer } from "../../../cre/test/history.js";
import type { MarketSnapshot } from "../../../workflow/core/types.js";
import type { RecordEntry } from "../../../workflow/core/track-record.js";
import { DEFAULT_DON_LIMITS, donCompatibleHttp, type DonLimits } from "../../../workflow/don-limits.js";
import { createRubricEvaluator } from "../../../workflow/evaluate/rubric.js";
import { createSafeHttpClient, type SafeHttpClient } from "../../../workflow/http/index.js";
import { runResolution } from "../../../workflow/pipeline/run.js";
import { startServer, type TestServer } from "../workflow/helpers/servers.js";

const CRE = "../../../cre/test/";
type SdkTest = (title: string, fn: () => Promise<void>) => void;
const { test: sdkTest } = (await import(/* @vite-ignore */ "@chainlink/cre-sdk/test")) as unknown as { test: SdkTest };
interface Mocks {
  installMocks(market: TestMarket, agents: Map<string, Agent>): unknown;
}
type Summary = { status: string; verdict?: string; bundleHash?: string; bundle?: string; reason?: string };
interface Run {
  testConfig(market: TestMarket, overrides?: Record<string, unknown>): Record<string, unknown>;
  requestLog(market: TestMarket): unknown;
  runHandler(config: Record<string, unknown>, log: unknown): Promise<{ summary: Summary }>;
}

const FULL =
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.DON_REPLAY === "1";
const SEEDS = FULL ? 20 : 1;
const MARKETS = FULL ? 60 : 8;
const COLLUDERS = [6, 7];
const LIMITS: DonLimits = { ...DEFAULT_DON_LIMITS, httpCalls: 15 };
const profile = donCompatibleHttp(LIMITS);

let server: TestServer;
let http: SafeHttpClient;
let agents: Agent[] = [];
let history: RecordEntry[] = [];
let current: TestMarket | undefined;

const router: Agent = (path, body) => {
  if (path.startsWith("/record/") && current !== undefined)
    return recordServer(history, current.chainId, current.market)(path, body);
  const m = /^\/agent-(\d+)(\/.*)$/.exec(path);
  const agent = m ? agents[Number(m[1]) - 1] : undefined;
  return agent && m
    ? agent(m[2] ?? "/", body)
    : { status: 404, headers: { "content-type": "application/json" }, body: "{}" };
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

function rand(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function daemon(market: TestMarket) {
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
        }),
      ]),
      evaluator: createRubricEvaluator(),
      trackRecord: indexTrackRecord(history, market.chainId, market.market),
    },
    { don: { limits: LIMITS, recordCalls: 1 } },
  );
}

interface SeedResult {
  seed: number;
  markets: number;
  agree: number;
  sameBundle: number;
  daemonCorrect: number;
  donCorrect: number;
  invalid: number;
}

sdkTest(
  `replay: DON and daemon agree on every market (${SEEDS} seed(s) × ${MARKETS} markets, 7 agents incl. 2 colluders)`,
  async () => {
    const [{ installMocks }, { testConfig, requestLog, runHandler }] = await Promise.all([
      import(/* @vite-ignore */ `${CRE}mocks.js`) as Promise<Mocks>,
      import(/* @vite-ignore */ `${CRE}run.js`) as Promise<Run>,
    ]);
    const results: SeedResult[] = [];
    const started = Date.now();
    for (let seed = 1; seed <= SEEDS; seed++) {
      const r = rand(seed * 7919);
      const skill = [0.82, 0.78, 0.75, 0.72, 0.7];
      history = [];
      const res: SeedResult = {
        seed,
        markets: 0,
        agree: 0,
        sameBundle: 0,
        daemonCorrect: 0,
        donCorrect: 0,
        invalid: 0,
      };
      for (let k = 0; k < MARKETS; k++) {
        const truth = r() < 0.5;
        const answers = Array.from({ length: 7 }, (_, i) =>
          COLLUDERS.includes(i + 1) ? !truth : r() < (skill[i] ?? 0.7) ? truth : !truth,
        );
        agents = answers.map((yes, i) =>
          honestAgent(yes, COLLUDERS.includes(i + 1) ? 0.95 : 0.6 + Math.floor(r() * 30) / 100, `s${seed}m${k}a${i}`),
        );
        const market = testMarket(
          agents.map((_, i) => `${server.url}/agent-${i + 1}`),
          { marketId: BigInt(10_000 + k), cutoff: cutoffOf(history) },
        );
        current = market;
        const node = await daemon(market);
        installMocks(market, new Map([[new URL(server.url).host, router]]));
        const { summary } = await runHandler(
          testConfig(market, {
            limits: { httpCalls: LIMITS.httpCalls },
            trackRecord: { url: `${server.url}/record/track-record?count={count}` },
          }),
          requestLog(market),
        );
        const verdict = node.proposal.verdict;
        res.markets++;
        if (summary.verdict === verdict) res.agree++;
        if (summary.bundleHash === node.bundleHash) res.sameBundle++;
        if (verdict === "invalid") res.invalid++;
        if (verdict === (truth ? "yes" : "no")) res.daemonCorrect++;
        if (summary.verdict === (truth ? "yes" : "no")) res.donCorrect++;
        // The market finalizes as the daemon proposed (undisputed): the next market has it in its record.
        history.push(
          verdict === "invalid"
            ? { ...recordEntry(k, false, answers, []), status: 4 }
            : recordEntry(
                k,
                verdict === "yes",
                answers,
                agents.map((_, i) => node.proposal.reports[i]?.confidenceBps ?? 0),
              ),
        );
      }
      results.push(res);
    }
    current = undefined;
    const total = results.reduce(
      (a, s) => ({
        markets: a.markets + s.markets,
        agree: a.agree + s.agree,
        sameBundle: a.sameBundle + s.sameBundle,
        daemonCorrect: a.daemonCorrect + s.daemonCorrect,
        donCorrect: a.donCorrect + s.donCorrect,
        invalid: a.invalid + s.invalid,
      }),
      { markets: 0, agree: 0, sameBundle: 0, daemonCorrect: 0, donCorrect: 0, invalid: 0 },
    );
    if (FULL) {
      const out = {
        what: "DON (CRE handler, SDK test runtime, served record) vs daemon (pipeline in DON-compatible mode, index record)",
        panel: { agents: 7, colluders: COLLUDERS, honestSkill: "0.70-0.82", colluderConfidence: 0.95 },
        limits: { httpCalls: LIMITS.httpCalls, consensusCalls: LIMITS.consensusCalls },
        seeds: SEEDS,
        marketsPerSeed: MARKETS,
        total,
        perSeed: results,
        wallMs: Date.now() - started,
      };
      writeFileSync(
        new URL("../../../bench/results/don-replay.json", import.meta.url),
        `${JSON.stringify(out, null, 2)}\n`,
      );
    }
    expect(total.markets).toBe(SEEDS * MARKETS);
    expect(total.agree).toBe(total.markets);
    expect(total.sameBundle).toBe(total.markets);
  },
);
