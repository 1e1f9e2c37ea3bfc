import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkAiOlympics, createAiOlympicsChecker } from "../../../../protocols/ai-olympics/conformance.js";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyBodySignature } from "../../../../protocols/ai-olympics/signing.js";
import { createSafeHttpClient, type SafeHttpClient } from "../../../../workflow/http/index.js";
import { startAgent, stopAll } from "../../../helpers/agents.js";
import { sendJson, startServer, type TestServer } from "../../workflow/helpers/servers.js";
import { doneAction, finding, SECRET } from "./helpers.js";

const rules = (report: { findings: { rule: string; severity: string }[] }, severity = "violation") => [
  ...new Set(report.findings.filter((f) => f.severity === severity).map((f) => f.rule)),
];

/** A webhook agent with configurable flaws. */
async function brokenAgent(flaws: {
  acceptBadHmac?: boolean;
  acceptStale?: boolean;
  reply?: (body: any) => unknown;
}): Promise<TestServer> {
  return startServer((req, res) => {
    const signature = req.headers[SIGNATURE_HEADER] as string | undefined;
    const ts = Number(req.headers[TIMESTAMP_HEADER]);
    const signed = verifyBodySignature(SECRET, req.bodyText, signature);
    if (!signed && !flaws.acceptBadHmac) return sendJson(res, 401, { error: "bad signature" });
    if (Math.abs(Date.now() - ts) > 5 * 60 * 1000 && !flaws.acceptStale)
      return sendJson(res, 401, { error: "Request expired" });
    const body = JSON.parse(req.bodyText);
    const challenge =
      (body.task.taskPrompt as string).includes("challenge") && (body.task.taskPrompt as string).includes("responses");
    const reply = flaws.reply?.(body) ?? {
      thinking: "t",
      actions: [doneAction(challenge ? { responses: ["a", "b"] } : finding())],
      done: true,
    };
    sendJson(res, 200, reply);
  });
}

describe("ai-olympics conformance checker", () => {
  let http: SafeHttpClient;
  const servers: TestServer[] = [];
  beforeAll(() => {
    http = createSafeHttpClient({ allowLoopback: true });
  });
  afterAll(async () => {
    await stopAll();
    await Promise.all(servers.map((s) => s.close()));
    await http.close();
  });
  const broken = async (flaws: Parameters<typeof brokenAgent>[0]) => {
    const s = await brokenAgent(flaws);
    servers.push(s);
    return s.url;
  };

  it("passes the reference agent (offline and every persona), with timings for every request", async () => {
    for (const persona of ["analyst", "skeptic"] as const) {
      const { url } = await startAgent({ protocol: "ai-olympics", persona, auth: { hmacSecret: SECRET } });
      const report = await checkAiOlympics({ url: `${url}/webhook`, http, credentials: { hmacSecret: SECRET } });
      expect(report.findings.filter((f) => f.severity === "violation")).toEqual([]);
      expect(report.passed).toBe(true);
      expect(report.protocol).toBe("ai-olympics");
      expect(Object.keys(report.timings).sort()).toEqual(
        [
          "auth.bad-hmac",
          "auth.future-timestamp",
          "auth.replay",
          "auth.stale-timestamp",
          "auth.unsigned",
          "challenge.turn-1",
          "resolve.turn-1",
          "resolve.turn-2",
        ].sort(),
      );
      // The reference agent also refuses duplicates: no auth.duplicate warning.
      expect(rules(report, "warning")).not.toContain("ai-olympics.auth.duplicate");
    }
  });

  it("fails an agent that accepts a bad HMAC, naming the rule", async () => {
    const report = await checkAiOlympics({
      url: await broken({ acceptBadHmac: true }),
      http,
      credentials: { hmacSecret: SECRET },
    });
    expect(report.passed).toBe(false);
    expect(rules(report)).toEqual(["ai-olympics.auth.required", "ai-olympics.auth.signature"]);
  });

  it("fails an agent that ignores the timestamp window, naming the rule (injected checker clock irrelevant to the agent)", async () => {
    const report = await checkAiOlympics({
      url: await broken({ acceptStale: true }),
      http,
      credentials: { hmacSecret: SECRET },
    });
    expect(rules(report)).toEqual(["ai-olympics.auth.replay-window"]);
    expect(rules(report, "warning")).toContain("ai-olympics.auth.duplicate");
    // The duplicate rule is ours, not the spec's: the finding says so.
    expect(report.findings.find((f) => f.rule === "ai-olympics.auth.duplicate")!.message).toMatch(
      /beyond the spec: the spec requires the 5-minute timestamp window, not duplicate detection/,
    );
  });

  it("a checker whose clock is 10 minutes off sees every signed sample refused", async () => {
    const { url } = await startAgent({ protocol: "ai-olympics", auth: { hmacSecret: SECRET } });
    const skewed = createAiOlympicsChecker({ now: () => Date.now() - 10 * 60 * 1000 });
    const report = await skewed({ url: `${url}/webhook`, http, credentials: { hmacSecret: SECRET } });
    expect(report.passed).toBe(false);
    expect(rules(report)).toContain("ai-olympics.http.turn");
    expect(report.findings.find((f) => f.rule === "ai-olympics.http.turn")?.message).toMatch(/auth/);
  });

  it.each([
    [
      "actions with `type` instead of `tool`",
      () => ({ actions: [{ type: "navigate", args: { url: "https://a.example" } }] }),
      "ai-olympics.action.type",
    ],
    [
      "args not an object",
      () => ({ actions: [{ tool: "navigate", args: "https://a.example" }] }),
      "ai-olympics.action.args",
    ],
    ["an unknown tool", () => ({ actions: [{ tool: "teleport", args: {} }] }), "ai-olympics.action.known-tool"],
    ["no actions array", () => ({ done: true, result: finding() }), "ai-olympics.response.actions"],
    [
      "11 actions",
      () => ({ actions: Array.from({ length: 11 }, () => ({ tool: "navigate", args: { url: "https://a.example" } })) }),
      "ai-olympics.action.max-per-turn",
    ],
    ["determination maybe", () => ({ actions: [doneAction(finding("maybe"))] }), "ai-olympics.done.determination"],
    [
      "confidence 80",
      () => ({ actions: [doneAction(finding("YES", { confidence: 80 }))] }),
      "ai-olympics.done.confidence",
    ],
    ["no sources", () => ({ actions: [doneAction(finding("YES", { sources: [] }))] }), "ai-olympics.done.sources"],
    [
      "never done",
      () => ({ actions: [{ tool: "navigate", args: { url: "https://a.example" } }] }),
      "ai-olympics.session.done",
    ],
    [
      "api_call DELETE",
      () => ({ actions: [{ tool: "api_call", args: { method: "DELETE", url: "https://a.example" } }] }),
      "ai-olympics.action.api-call-args",
    ],
    ["thinking a number", () => ({ thinking: 42, actions: [doneAction(finding())] }), "ai-olympics.response.thinking"],
  ])("fails an agent replying with %s, naming %s", async (_name, reply, rule) => {
    const report = await checkAiOlympics({ url: await broken({ reply }), http, credentials: { hmacSecret: SECRET } });
    expect(report.passed).toBe(false);
    expect(rules(report)).toContain(rule);
  });

  it("records quality warnings without failing", async () => {
    const url = await broken({
      reply: (b) =>
        b.task.taskPrompt.includes('"responses"')
          ? { actions: [doneAction({ responses: ["only one"] })] }
          : {
              actions: [
                { tool: "click", args: { element: "x" } },
                doneAction(finding("YES", { evidence: "short", sources: ["my notes"], confidence: 1 })),
              ],
            },
    });
    const report = await checkAiOlympics({ url, http, credentials: { hmacSecret: SECRET } });
    expect(report.passed).toBe(true);
    expect(rules(report, "warning")).toEqual(
      expect.arrayContaining([
        "ai-olympics.quality.thinking",
        "ai-olympics.action.unavailable",
        "ai-olympics.quality.evidence-length",
        "ai-olympics.quality.source-urls",
        "ai-olympics.quality.confidence-extreme",
        "ai-olympics.quality.responses-count",
      ]),
    );
  });

  it("without a secret only the refusals are checked, and the report fails", async () => {
    const { url } = await startAgent({ protocol: "ai-olympics", auth: { hmacSecret: SECRET } });
    const report = await checkAiOlympics({ url: `${url}/webhook`, http });
    expect(rules(report)).toEqual(["ai-olympics.auth.credentials"]);
    expect(Object.keys(report.timings).sort()).toEqual(["auth.bad-hmac", "auth.unsigned"]);
  });
});
