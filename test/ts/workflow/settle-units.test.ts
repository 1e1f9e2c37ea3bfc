/**
 * The settlement path's pure parts and the run plumbing that needs no chain: the contract's report rules mirrored
 * before sending, the EIP-7825 gas cap, each worker's bundle share cap (issue 13 item 7), and the run's abort
 * signal reaching in-flight agent calls over real loopback HTTP (issue 13 item 13).
 */
import { zeroHash } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { createCresolverAdapter } from "../../../protocols/cresolver/adapter.js";
import { cappedGas, PROTOCOL_TX_GAS_CAP, withHeadroom } from "../../../workflow/chain/gas.js";
import { buildBundle } from "./helpers/checked-bundle.js";
import type { WorkerReport } from "../../../workflow/core/types.js";
import { withAbortSignal } from "../../../workflow/http/abort.js";
import { createSafeHttpClient } from "../../../workflow/http/index.js";
import { capWorkerShare, MAX_BUNDLE_BYTES, recordBytes, WORKER_SHARE_BYTES } from "../../../workflow/pipeline/cap.js";
import { encodeReport, reportProblem } from "../../../workflow/settle/reports.js";
import { honestAnswer, startServer, startWorker, type TestServer } from "./helpers/servers.js";
import type { AnsweredWorkerRecord } from "../../../workflow/core/types.js";

const yes = (c = 8000): WorkerReport => ({
  answer: "yes",
  confidenceBps: c,
  resQuality: 70,
  srcQuality: 60,
  analysisDepth: 50,
});
const failed: WorkerReport = { answer: "failed", confidenceBps: 0, resQuality: 0, srcQuality: 0, analysisDepth: 0 };

describe("reports are checked as the contract would, before anything is sent", () => {
  it("accepts valid reports and encodes the enum", () => {
    expect(reportProblem("yes", [yes(), failed], 2)).toBeUndefined();
    expect(reportProblem("invalid", [failed, failed], 2)).toBeUndefined();
    expect(encodeReport(yes(9000))).toEqual({
      answer: 3,
      confidenceBps: 9000,
      resQuality: 70,
      srcQuality: 60,
      analysisDepth: 50,
      // Unsigned: attested (docs/RECORDS.md §2).
      replyHash: zeroHash,
      signature: "0x",
    });
    expect(encodeReport(failed).answer).toBe(0);
  });
  it("refuses what proposeResolution would revert on", () => {
    expect(reportProblem("yes", [yes()], 2)).toMatch(/1 reports for 2 seats/);
    expect(reportProblem("yes", [yes(4999)], 1)).toMatch(/confidenceBps 4999/);
    expect(reportProblem("yes", [yes(10_001)], 1)).toMatch(/confidenceBps 10001/);
    expect(reportProblem("yes", [{ ...yes(), srcQuality: 101 }], 1)).toMatch(/score 101/);
    expect(reportProblem("yes", [{ ...failed, resQuality: 1 }], 1)).toMatch(/carries no confidence or scores/);
    expect(reportProblem("no", [failed], 1)).toMatch(/needs at least one yes\/no answer/);
  });
});

describe("gas limits (issue 13 item 1)", () => {
  it("never above 2^24, whatever the block gas limit; an estimate above the cap is refused, not retried as another verdict", () => {
    expect(PROTOCOL_TX_GAS_CAP).toBe(16_777_216n);
    expect(cappedGas("x", 1_000_000n, withHeadroom(1_000_000n), PROTOCOL_TX_GAS_CAP)).toBe(1_200_000n);
    expect(cappedGas("x", 15_000_000n, withHeadroom(15_000_000n), PROTOCOL_TX_GAS_CAP)).toBe(PROTOCOL_TX_GAS_CAP);
    expect(() => cappedGas("ResolutionMarket.finalize", 17_000_000n, 20_000_000n, PROTOCOL_TX_GAS_CAP)).toThrow(
      /needs 17000000 gas, above the per-transaction cap of 16777216/,
    );
  });
});

function bigRecord(i: number, evidenceChars: number): AnsweredWorkerRecord {
  return {
    seat: { address: `0x${(i + 1).toString(16).padStart(40, "0")}`, agentId: BigInt(i + 1), stake: 10n ** 15n },
    endpoint: { url: `https://w${i}.example/`, protocol: "cresolver" },
    answer: {
      determination: true,
      confidence: 0.8,
      evidence: "e".repeat(evidenceChars),
      sources: Array.from({ length: 200 }, (_, k) => `https://s${k}.example/${"p".repeat(300)}`),
      extras: { blob: "x".repeat(40_000) },
    },
    challenges: ["a", "b", "c"],
    challengeReplies: ["r".repeat(50_000), "r".repeat(50_000), "r".repeat(50_000)],
  };
}

describe("each worker's bundle share is capped (issue 13 item 7)", () => {
  it("a small record is untouched; a huge one is clipped under the cap, deterministically", () => {
    const small: AnsweredWorkerRecord = { ...bigRecord(0, 100), challengeReplies: ["ok"] };
    const { extras: _e, ...answer } = small.answer;
    const plain = { ...small, answer: { ...answer, sources: ["https://a.example/"] } };
    expect(capWorkerShare(plain)).toBe(plain);
    const big = bigRecord(1, 50_000);
    expect(recordBytes(big)).toBeGreaterThan(WORKER_SHARE_BYTES);
    const capped = capWorkerShare(big);
    expect(recordBytes(capped)).toBeLessThanOrEqual(WORKER_SHARE_BYTES);
    expect(capped.answer?.extras).toBeUndefined();
    expect(capped.answer?.determination).toBe(true);
    expect(capWorkerShare(big)).toEqual(capped);
  });
  it("100 maximal workers still make a bundle under MAX_BUNDLE_BYTES", () => {
    const records = Array.from({ length: 100 }, (_, i) => capWorkerShare(bigRecord(i, 50_000)));
    const market = {
      chainId: 31337,
      marketAddress: "0x00000000000000000000000000000000000000aa" as const,
      marketId: 1n,
      question: "Q?",
      deadline: 1,
      context: "",
      workers: records.map((r) => r.seat),
    };
    const bundle = buildBundle({
      market,
      records,
      quorum: { n: 100, required: 51, answered: 100, reached: true },
    } as never);
    expect(Buffer.byteLength(bundle.json, "utf8")).toBeLessThan(MAX_BUNDLE_BYTES);
  });
});

describe("the run's abort signal reaches in-flight agent calls (issue 13 item 13)", () => {
  const servers: TestServer[] = [];
  const http = createSafeHttpClient({ allowLoopback: true });
  afterAll(async () => {
    await http.close();
    await Promise.all(servers.map((s) => s.close()));
  });

  it("aborting returns at once instead of waiting for the slow worker's deadline, and is not retried", async () => {
    const slow = await startWorker({ delayMs: 5_000, resolve: () => honestAnswer(true) });
    servers.push(slow);
    const adapter = createCresolverAdapter({
      http,
      resolveTimeoutMs: 30_000,
      challengeTimeoutMs: 30_000,
      retryDelayMs: 10,
    });
    const controller = new AbortController();
    const t0 = performance.now();
    setTimeout(() => controller.abort(new Error("shutdown")), 150);
    const result = await withAbortSignal(controller.signal, () =>
      adapter.ask(
        { url: slow.url, protocol: "cresolver" },
        { address: "0x0000000000000000000000000000000000000001", agentId: 1n, stake: 0n },
        { marketId: 1n, question: "Q?", deadline: 1, context: "" },
      ),
    );
    const elapsed = performance.now() - t0;
    expect(result.ok).toBe(false);
    expect(elapsed).toBeLessThan(2_000);
    expect(slow.requests).toHaveLength(1);
  });

  it("without an aborted signal the same call completes (the ambient signal is scoped to the run)", async () => {
    const quick = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(honestAnswer(false)));
    });
    servers.push(quick);
    const adapter = createCresolverAdapter({ http, resolveTimeoutMs: 5_000, challengeTimeoutMs: 5_000 });
    const result = await withAbortSignal(new AbortController().signal, () =>
      adapter.ask(
        { url: quick.url, protocol: "cresolver" },
        { address: "0x0000000000000000000000000000000000000001", agentId: 1n, stake: 0n },
        { marketId: 1n, question: "Q?", deadline: 1, context: "" },
      ),
    );
    expect(result.ok).toBe(true);
  });
});
