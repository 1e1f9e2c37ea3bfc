/** The adapter as the pipeline sees it: through defaultAdapters and the ask/challenge stages, into a bundle. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdapterRegistry, defaultAdapters } from "../../../../protocols/index.js";
import { buildBundle } from "../../workflow/helpers/checked-bundle.js";
import { quorumStatus } from "../../../../workflow/core/quorum.js";
import type { MarketSnapshot } from "../../../../workflow/core/types.js";
import { createSafeHttpClient, type SafeHttpClient } from "../../../../workflow/http/index.js";
import { askStage } from "../../../../workflow/pipeline/03-ask.js";
import { challengeStage } from "../../../../workflow/pipeline/05-challenge.js";
import { startAgent, stopAll } from "../../../helpers/agents.js";
import { startDns, type TestDns } from "../../workflow/helpers/dns.js";
import { request, SECRET } from "./helpers.js";
import { anyOriginStore } from "../../workflow/helpers/credentials.js";
import type { DiscoveredWorkerRecord } from "../../../../workflow/core/types.js";

describe("ai-olympics through defaultAdapters and the pipeline stages", () => {
  let http: SafeHttpClient;
  let actionHttp: SafeHttpClient;
  let dns: TestDns;
  const urls: string[] = [];

  beforeAll(async () => {
    dns = await startDns({});
    http = createSafeHttpClient({ allowLoopback: true });
    actionHttp = createSafeHttpClient({ dnsServers: [dns.server] });
    for (const persona of ["analyst", "skeptic", "contrarian"] as const) {
      const { url } = await startAgent({ protocol: "ai-olympics", persona, auth: { hmacSecret: SECRET } });
      urls.push(`${url}/webhook`);
    }
  });
  afterAll(async () => {
    await stopAll();
    await http.close();
    await actionHttp.close();
    await dns.close();
  });

  const market = (): MarketSnapshot => ({
    chainId: 31337,
    marketAddress: "0x00000000000000000000000000000000000000aa",
    marketId: request.marketId,
    question: request.question,
    deadline: request.deadline,
    context: request.context,
    workers: [7n, 8n, 9n].map((agentId, i) => ({
      address: `0x000000000000000000000000000000000000000${i + 1}` as const,
      agentId,
      stake: 1n,
    })),
  });

  it("registers the protocol; without credentials every ai-olympics worker fails with auth", async () => {
    const registry = createAdapterRegistry(defaultAdapters({ http }));
    expect(registry.protocols).toContain("ai-olympics");
    const r = await registry
      .get("AI-Olympics")!
      .ask({ url: urls[0], protocol: "ai-olympics" }, market().workers[0], request);
    expect(r).toMatchObject({ ok: false, failure: { kind: "auth" }, attempts: 0 });
  });

  it("asks and challenges three webhook workers; the bundle is canonical and reproducible", async () => {
    const creds = anyOriginStore({
      "7": { hmacSecret: SECRET },
      "8": { hmacSecret: SECRET },
      "9": { hmacSecret: SECRET },
    });
    const registry = createAdapterRegistry(
      defaultAdapters({ http, credentials: creds, aiOlympics: { actionHttp, turnTimeoutMs: 5_000 } }),
    );
    const run = async () => {
      const m = market();
      const records: DiscoveredWorkerRecord[] = m.workers.map((seat, i) => ({
        seat,
        endpoint: { url: urls[i], protocol: "ai-olympics" },
      }));
      const asked = await askStage(m, records, registry);
      const challenged = await challengeStage(m, asked, registry);
      return {
        challenged,
        bundle: buildBundle({
          market: m,
          records: challenged,
          quorum: quorumStatus(3, challenged.filter((r) => r.answer).length),
        }),
      };
    };
    const first = await run();
    expect(first.challenged.every((r) => r.answer !== undefined)).toBe(true);
    expect(first.challenged.every((r) => (r.challengeReplies?.length ?? 0) === (r.challenges?.length ?? -1))).toBe(
      true,
    );
    const doc = first.bundle.document as any;
    expect(doc.workers[0].answer.extras.protocol).toBe("ai-olympics");
    expect(doc.workers[0].answer.extras.actions[0].tool).toBe("navigate");
    const second = await run();
    expect(second.bundle.hash).toBe(first.bundle.hash);
  });
});
