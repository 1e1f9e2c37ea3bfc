/**
 * The review stage in full pipeline runs: a real ResolutionMarket + ERC-8004 IdentityRegistry on Hardhat's
 * in-process chain, round-table agents (scripted loopback servers and the reference agent) next to a CRE
 * worker, the rubric evaluator. Reviews are recorded in the bundle and never change the outcome.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdapterRegistry } from "../../../../protocols/index.js";
import { createCresolverAdapter } from "../../../../protocols/cresolver/adapter.js";
import { createRoundtableAdapter } from "../../../../protocols/roundtable/adapter.js";
import { resolutionMarketAbi } from "../../../../workflow/chain/abis.js";
import { createChainPorts } from "../../../../workflow/chain/ports.js";
import type { WorkerProtocolAdapter } from "../../../../workflow/core/types.js";
import { createRubricEvaluator } from "../../../../workflow/evaluate/rubric.js";
import { createSafeHttpClient, type SafeHttpClient } from "../../../../workflow/http/index.js";
import { runResolution } from "../../workflow/helpers/checked-bundle.js";
import { createSettler } from "../../../../workflow/settle/index.js";
import type { PipelinePorts } from "../../../../workflow/ports.js";
import { buildRegistrationFile, encodeRegistrationDataUri } from "../../../../workflow/registration/index.js";
import { startAgent, stopAll } from "../../../helpers/agents.js";
import { dataUriFor, deployTestChain, type TestChain } from "../../../helpers/chain.js";
import {
  honestAnswer,
  sendJson,
  startServer,
  startWorker,
  type Handler,
  type TestServer,
} from "../../workflow/helpers/servers.js";

const QUESTION = "Will the 2026 official inflation figure exceed 3%?";

let chain: TestChain;
let http: SafeHttpClient;
const servers: TestServer[] = [];

const roundtableUri = (endpoint: string) =>
  encodeRegistrationDataUri(buildRegistrationFile({ name: "Round-table worker", endpoint, protocol: "roundtable" }));

function analysis(determination: boolean): Record<string, unknown> {
  const side = determination ? "YES" : "NO";
  return {
    agent_name: `scripted-${side.toLowerCase()}`,
    domain: "economic statistics",
    observations: [
      {
        finding: `DETERMINATION: ${side}`,
        evidence: `[VERIFIED: https://stats.example.org/report-2026] The official statistics published this month show the figure ${determination ? "exceeded" : "did not reach"} the threshold.`,
        severity: "critical",
        confidence: 0.85,
      },
      {
        finding: "Several independent outlets confirm the published figure.",
        evidence: "[CORROBORATED: https://news.example.com/a + https://news.example.org/b]",
        severity: "info",
        confidence: 0.8,
      },
      {
        finding: "The main uncertainty is a revision of the preliminary data.",
        evidence: "[POSSIBLE] revisions are usually small",
        severity: "warning",
        confidence: 0.3,
      },
    ],
    confidence: 0.8,
  };
}

/** A round-table agent on loopback with a fixed determination; `vote` answers /vote. */
async function scripted(determination: boolean, vote: Handler): Promise<TestServer> {
  const s = await startServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path === "/analyze") return sendJson(res, 200, analysis(determination));
    if (path === "/challenge") {
      const body = JSON.parse(req.bodyText) as { resolver_challenges: string[] };
      return sendJson(res, 200, {
        agent_name: "scripted",
        challenges: body.resolver_challenges.map((c) => ({
          target_agent: "resolver",
          finding_challenged: c,
          counter_evidence:
            "The official statistics and two independent reports still support my determination; only a data revision could change it.",
        })),
        concessions: [],
      });
    }
    if (path === "/vote") return vote(req, res);
    return sendJson(res, 404, {});
  });
  servers.push(s);
  return s;
}
const approving: Handler = (_q, res) =>
  sendJson(res, 200, {
    agent_name: "a",
    approve: true,
    conditions: ["Only if the preliminary figure is not revised below 3%"],
    dissent_reason: null,
  });
const dissenting: Handler = (_q, res) =>
  sendJson(res, 200, {
    agent_name: "d",
    approve: false,
    conditions: [],
    dissent_reason: "The figure I verified is below the threshold.",
  });
const failing: Handler = (_q, res) => sendJson(res, 500, { error: "boom" });
const hanging: Handler = () => undefined;

function ports(roundtable: WorkerProtocolAdapter): PipelinePorts {
  const chainPorts = createChainPorts({ ctx: chain.resolverCtx, marketAddress: chain.market });
  return {
    market: chainPorts.market,
    directory: chainPorts.directory,
    fetcher: http.fetcher,
    adapters: createAdapterRegistry([
      createCresolverAdapter({ http, resolveTimeoutMs: 3_000, challengeTimeoutMs: 3_000, retryDelayMs: 20 }),
      roundtable,
    ]),
    evaluator: createRubricEvaluator(),
  };
}

/** The round-table adapter without its optional review: what the panel would be without the review stage. */
function withoutReview(adapter: WorkerProtocolAdapter): WorkerProtocolAdapter {
  return { protocol: adapter.protocol, ask: adapter.ask.bind(adapter), challenge: adapter.challenge.bind(adapter) };
}

beforeAll(async () => {
  chain = await deployTestChain();
  http = createSafeHttpClient({ allowLoopback: true });
});
afterAll(async () => {
  await stopAll();
  await http.close();
  await Promise.all(servers.map((s) => s.close()));
});

type DocWorker = {
  review?: { approve: boolean; conditions: string[]; dissentReason?: string; extras?: unknown };
  reviewFailure?: { kind: string; message: string };
};

describe("review stage (round-table /vote) in the pipeline", () => {
  it("approve, dissent and failures are recorded in the bundle; outcome, weights and scores are unchanged; the plan is written", async () => {
    const cre = await startWorker({ resolve: honestAnswer(true) });
    servers.push(cre);
    const panel = await Promise.all([
      scripted(true, approving),
      scripted(false, dissenting),
      scripted(true, hanging),
      scripted(true, failing),
    ]);
    const reference = await startAgent({ protocol: "roundtable", persona: "analyst" });
    const uris = [dataUriFor(cre.url), ...panel.map((s) => roundtableUri(s.url)), roundtableUri(reference.url)];
    const marketId = await chain.frozenMarket(QUESTION, uris);
    const rt = createRoundtableAdapter({ http, timeoutMs: 1_500 });

    const without = await runResolution(marketId, ports(withoutReview(rt)));
    const first = await runResolution(marketId, ports(rt));
    const second = await runResolution(marketId, ports(rt));

    // The same vote with and without reviews.
    expect(first.outcome).toEqual({ kind: "resolved", resolution: true });
    expect(first.outcome).toEqual(without.outcome);
    expect(first.decision).toEqual(without.decision);
    expect(first.proposal.verdict).toEqual(without.proposal.verdict);
    expect(first.proposal.reports).toEqual(without.proposal.reports);
    expect(first.records.map((r) => r.answer?.determination)).toEqual([
      true,
      true,
      false,
      true,
      true,
      expect.any(Boolean),
    ]);

    // Who was asked: every answering round-table worker (not the CRE worker), only after the vote.
    expect(cre.requests.map((q) => q.path)).toEqual([
      "/a2a/resolve",
      "/a2a/challenge",
      "/a2a/resolve",
      "/a2a/challenge",
      "/a2a/resolve",
      "/a2a/challenge",
    ]);
    expect(panel[0].requests.map((q) => q.path)).toEqual([
      "/analyze",
      "/challenge",
      "/analyze",
      "/challenge",
      "/vote",
      "/analyze",
      "/challenge",
      "/vote",
    ]);
    const voteBody = JSON.parse(panel[0].requests[4].body);
    expect(voteBody.synthesis.recommended_direction).toBe("Resolve the market YES.");
    expect(voteBody.synthesis.minority_views).toHaveLength(
      first.records.filter((r) => r.answer?.determination === false).length,
    );

    const doc = first.bundle.document as { workers: DocWorker[]; review: unknown; outcome: unknown };
    expect(doc.workers[0].review).toBeUndefined();
    expect(doc.workers[0].reviewFailure).toBeUndefined();
    expect(doc.workers[1].review).toEqual({
      approve: true,
      conditions: ["Only if the preliminary figure is not revised below 3%"],
      extras: { agentName: "a", protocol: "roundtable" },
    });
    expect(doc.workers[2].review).toEqual({
      approve: false,
      conditions: [],
      dissentReason: "The figure I verified is below the threshold.",
      extras: { agentName: "d", protocol: "roundtable" },
    });
    expect(doc.workers[3].reviewFailure).toMatchObject({
      kind: "timeout",
      message: expect.stringMatching(/deadline 1500 ms/),
    });
    expect(doc.workers[4].reviewFailure).toMatchObject({ kind: "http-status" });
    const referenceAgrees = first.records[5].answer?.determination === true;
    expect(doc.workers[5].review?.approve).toBe(referenceAgrees);
    expect(doc.review).toEqual({
      advisory: true,
      asked: 5,
      approve: referenceAgrees ? 2 : 1,
      dissent: referenceAgrees ? 1 : 2,
      failed: 2,
    });
    expect(doc.outcome).toEqual({ kind: "resolved", resolution: true });

    // Reviews are in the hash; latencies are not, so two runs give byte-identical bundles.
    expect(first.bundleHash).not.toBe(without.bundleHash);
    expect(second.bundle.json).toBe(first.bundle.json);
    expect(first.bundle.json).not.toMatch(/latency/i);
    expect(first.records[3].reviewLatencyMs).toBeGreaterThan(0);
    expect(Object.keys(first.timings)).toEqual([
      "read",
      "discover",
      "ask",
      "quorum",
      "challenge",
      "evaluate",
      "resolve",
      "review",
      "bundle",
      "total",
    ]);

    // A dissent does not stop the proposal: the verdict (with the reviewed bundle's hash) goes on-chain.
    expect(await createSettler(chain.resolverCtx, chain.market).propose(first.proposal)).toMatchObject({
      status: "proposed",
    });
    const info = await chain.publicClient.readContract({
      address: chain.market,
      abi: resolutionMarketAbi,
      functionName: "getProposal",
      args: [marketId],
    });
    expect(info.verdict).toBe(1); // Yes
    expect(info.bundleHash).toBe(first.bundleHash);
  });

  it("a reviewer whose adapter throws is recorded and the run completes; unresolved markets are not reviewed", async () => {
    const panel = await Promise.all([scripted(true, approving), scripted(true, approving), scripted(true, approving)]);
    const marketId = await chain.frozenMarket(
      QUESTION,
      panel.map((s) => roundtableUri(s.url)),
    );
    const rt = createRoundtableAdapter({ http, timeoutMs: 1_500 });
    const throwing: WorkerProtocolAdapter = {
      ...withoutReview(rt),
      review: async () => {
        throw new TypeError("a bug in an adapter");
      },
    };
    const result = await runResolution(marketId, ports(throwing));
    expect(result.outcome).toEqual({ kind: "resolved", resolution: true });
    expect(result.records.map((r) => r.reviewFailure)).toEqual(
      Array(3).fill({ kind: "network", message: "adapter roundtable failed (TypeError)" }),
    );
    expect((result.bundle.document as { review: unknown }).review).toEqual({
      advisory: true,
      asked: 3,
      approve: 0,
      dissent: 0,
      failed: 3,
    });

    // An even split does not resolve (no margin): nothing to approve, nobody is asked to vote.
    const split = await Promise.all([scripted(true, approving), scripted(false, approving)]);
    const splitId = await chain.frozenMarket(
      QUESTION,
      split.map((s) => roundtableUri(s.url)),
    );
    const unresolved = await runResolution(splitId, ports(rt));
    expect(unresolved.outcome.kind).toBe("no-margin");
    expect(split.every((s) => !s.requests.some((q) => q.path === "/vote"))).toBe(true);
    expect((unresolved.bundle.document as { review?: unknown }).review).toBeUndefined();
  });
});
