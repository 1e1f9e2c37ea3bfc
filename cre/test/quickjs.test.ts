/**
 * The bundled workflow — the JS `cre-compile` hands to Javy — executed in a real QuickJS-ng engine with only what
 * Javy provides, against the same SDK capability mocks as the in-process tests. Catches what type checks cannot:
 * a Node module or a missing global reached at run time, bundling mistakes, protobuf round trips through the host.
 */
import { test } from "@chainlink/cre-sdk/test";
import bundle from "virtual:cre-bundle";
import { hexToBase64 } from "@chainlink/cre-sdk";
import { bytesToHex } from "viem";
import { describe, expect } from "vitest";
import { RESOLUTION_REQUESTED_TOPIC } from "../resolution/abi.js";
import type { ExecutionSummary } from "../resolution/workflow.js";
import { brokenAgent, honestAgent, testMarket, type Agent } from "./agents.js";
import { colludedHistory, cutoffOf, RECORD_HOST, RECORD_URL, recordServer } from "./history.js";
import { agentKey, RELAY_HOST, RELAY_URL, relayDocument, relayServer, signedReply, withWallets } from "./relay.js";
import { installMocks } from "./mocks.js";
import { runInQuickJS } from "./quickjs-host.js";
import { requestLog, runHandler, testConfig } from "./run.js";

const hosts = (n: number) => Array.from({ length: n }, (_, i) => `https://agent-${i + 1}.example`);
const agentsFor = (list: Agent[]) => new Map(list.map((a, i) => [`agent-${i + 1}.example`, a]));

describe("CRE workflow bundle in QuickJS", () => {
  test("the bundle imports no Node-only module and names no Node client", () => {
    expect(bundle).not.toMatch(/from\s*["']node:|require\(["']node:/);
    for (const name of ["undici", "openai", "createRemoteJWKSet", "node:dns", "node:crypto", "randomUUID("])
      expect(bundle).not.toContain(name);
  });

  test("subscribe phase: one EVM log trigger on the market's ResolutionRequested", async () => {
    const market = testMarket(hosts(1));
    const run = await runInQuickJS(bundle, testConfig(market), { subscribe: true });
    expect(run.result).toEqual({ ok: true, value: "" });
    expect(run.missingBeforeBundle).toEqual(
      expect.arrayContaining(["URL", "setTimeout", "performance", "fetch", "process", "Buffer", "require"]),
    );
    expect(run.subscriptions).toHaveLength(1);
    const sub = run.subscriptions[0]!;
    expect(sub.id).toMatch(/^evm:ChainSelector:\d+@1\.0\.0$/);
    expect(sub.method).toBe("LogTrigger");
    const filter = sub.payload as { addresses: Uint8Array[]; topics: { values: Uint8Array[] }[] };
    expect(filter.addresses.map((a) => bytesToHex(a).toLowerCase())).toEqual([market.market.toLowerCase()]);
    expect(bytesToHex(filter.topics[0]!.values[0]!)).toBe(RESOLUTION_REQUESTED_TOPIC);
    expect(hexToBase64(RESOLUTION_REQUESTED_TOPIC)).toBeTruthy();
  });

  test("trigger phase: QuickJS writes the same report and bundle as the in-process run", async () => {
    const market = testMarket(hosts(4));
    const agents = agentsFor([
      honestAgent(true, 0.9, "a"),
      honestAgent(false, 0.7, "b"),
      honestAgent(true, 0.75, "c"),
      brokenAgent("500"),
    ]);
    const guestLog = installMocks(market, agents);
    const run = await runInQuickJS(bundle, testConfig(market), { log: requestLog(market) });
    if (!run.result.ok) throw new Error(`${run.result.error}\n${run.logs.join("\n")}`);
    const guest = JSON.parse(run.result.value) as ExecutionSummary;
    expect(guest.status).toBe("proposed");
    expect(guestLog.reports).toHaveLength(1);

    // The same market and agents through the handler in Node (SDK test runtime).
    const nodeLog = installMocks(market, agents);
    const { summary: local } = await runHandler(testConfig(market), requestLog(market));
    expect(guest.bundleHash).toBe(local.bundleHash);
    expect(guest.bundle).toBe(local.bundle);
    // Same report bytes, same requests (the mocks were re-installed: each log saw one run).
    expect(nodeLog.reports).toHaveLength(1);
    expect(guestLog.reports[0]!.raw).toBe(nodeLog.reports[0]!.raw);
    expect(guestLog.http.map((h) => [h.method, h.url, h.body])).toEqual(
      nodeLog.http.map((h) => [h.method, h.url, h.body]),
    );
    expect(guestLog.http).toHaveLength(4 + 3); // 4 asks, 3 challenges (the failed seat is not challenged)
    expect(run.teardownError).toBeUndefined();
  });

  test("relay path: QuickJS reads the relayed document, verifies every signature (a forged one refused) and proposes what the in-process run proposes", async () => {
    const history = colludedHistory(40, [4, 5], 2, 5);
    const market = withWallets(testMarket(hosts(5), { cutoff: cutoffOf(history) }));
    const answers = [true, true, true, false, false];
    const doc = await relayDocument(
      market,
      answers.map((yes, i) => ({ yes, confidence: i >= 3 ? 0.95 : 0.7 })),
    );
    // Seat 3's answer flipped and signed by seat 1's key: not its agent's signature.
    const forged = doc.answers[2];
    if (forged === undefined) throw new Error("no seat 3");
    forged.reply = await signedReply(market, 2, false, 0.99, agentKey(0));
    const agents = agentsFor(answers.map((yes, i) => honestAgent(yes, 0.8, `r${i}`)));
    agents.set(RELAY_HOST, relayServer(doc));
    agents.set(RECORD_HOST, recordServer(history, market.chainId, market.market));
    const config = testConfig(market, {
      limits: { httpCalls: 5 },
      trackRecord: { url: RECORD_URL },
      answerRelay: { url: RELAY_URL },
    });

    const guestLog = installMocks(market, agents);
    const run = await runInQuickJS(bundle, config, { log: requestLog(market) });
    if (!run.result.ok) throw new Error(`${run.result.error}\n${run.logs.join("\n")}`);
    const guest = JSON.parse(run.result.value) as ExecutionSummary;
    // 3 reads: the forged signature recovers to neither of seat 3's signers, so its wallet is asked (ERC-1271).
    expect(guest).toMatchObject({ status: "proposed", verdict: "yes", httpCalls: 2, chainReads: 3 });
    expect(guestLog.http.map((h) => new URL(h.url).host)).toEqual([RELAY_HOST, RECORD_HOST]);
    const seats = (JSON.parse(guest.bundle ?? "{}") as { workers: { signature?: { status: string } }[] }).workers;
    expect(seats.map((w) => w.signature?.status)).toEqual(["signed", "signed", undefined, "signed", "signed"]);
    expect(guest.bundle).toContain("is not signed by its agentWallet or owner (forged or altered)");

    const nodeLog = installMocks(market, agents);
    const { summary: local } = await runHandler(config, requestLog(market));
    expect(guest.verdict).toBe(local.verdict);
    expect(guest.bundleHash).toBe(local.bundleHash);
    expect(guest.bundle).toBe(local.bundle);
    expect(guestLog.reports[0]?.raw).toBe(nodeLog.reports[0]?.raw);
  });

  test("a hostile reply (malformed, oversized) never crashes the execution", async () => {
    const market = testMarket(hosts(3));
    installMocks(market, agentsFor([honestAgent(true), brokenAgent("huge"), brokenAgent("bad-schema")]));
    const run = await runInQuickJS(bundle, testConfig(market), { log: requestLog(market) });
    if (!run.result.ok) throw new Error(run.result.error);
    const summary = JSON.parse(run.result.value) as ExecutionSummary;
    expect(summary.verdict).toBe("invalid");
    expect(summary.bundle).toContain("sent more than 20480 bytes");
  });
});
